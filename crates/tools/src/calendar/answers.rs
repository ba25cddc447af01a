//! The answers to say: days counted, a weekday, a date, the days of a
//! month, a leap year.

use super::CalendarAnswer;
use crate::when::Moment;
use chrono::{Datelike, NaiveDate};

/// `How many days are in February 2028?`, `how many days does April
/// have`: the days of that month, in the year named, or else of its next
/// occurrence (this month's, if it is now).
pub(super) fn days_in_month(words: &[String], today: NaiveDate) -> Option<CalendarAnswer> {
    let at = words.iter().position(|w| w == "days")?;
    if at == 0 || words[at - 1] != "many" {
        return None;
    }
    let rest = &words[at + 1..];
    let rest: Vec<&str> = rest
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !matches!(
                *w,
                "are"
                    | "is"
                    | "was"
                    | "were"
                    | "there"
                    | "in"
                    | "does"
                    | "did"
                    | "the"
                    | "month"
                    | "of"
                    | "have"
                    | "has"
                    | "had"
            )
        })
        .collect();
    let (name, year) = match rest.as_slice() {
        [name] => (*name, None),
        [name, year] => (
            *name,
            Some(
                year.parse::<i32>()
                    .ok()
                    .filter(|y| (1..=9999).contains(y))?,
            ),
        ),
        _ => return None,
    };
    let month = name.parse::<chrono::Month>().ok()?.number_from_month();
    let year = year.unwrap_or(if month >= today.month() {
        today.year()
    } else {
        today.year() + 1
    });
    let first = NaiveDate::from_ymd_opt(year, month, 1)?;
    let next = first.checked_add_months(chrono::Months::new(1))?;
    let days = (next - first).num_days();
    Some(CalendarAnswer {
        answer: match next <= today.with_day(1).unwrap_or(today) {
            true => format!("{} {year} had {days} days.", first.format("%B")),
            false => format!("{} {year} has {days} days.", first.format("%B")),
        },
        days: Some(days),
        date: Some(first.format("%Y-%m-%d").to_string()),
        weekday: None,
        time: None,
    })
}

/// The answer to whether a year is a leap year (`Is 2028 a leap year?`,
/// `Was 1900 a leap year?`, `Is this year a leap year?`) or which is the
/// next (`When is the next leap year?`).
pub(super) fn leap_year(words: &[String], today: NaiveDate) -> Option<CalendarAnswer> {
    let asked = words
        .windows(2)
        .any(|pair| pair[0] == "leap" && pair[1] == "year");
    if !asked {
        return None;
    }
    let is_leap = |year: i32| NaiveDate::from_ymd_opt(year, 2, 29).is_some();
    let this_year = today.year();
    let named = words
        .iter()
        .find_map(|w| w.parse::<i32>().ok().filter(|y| (1583..=9999).contains(y)));
    let answer = match named {
        Some(year) => {
            let (is, was) = match (year < this_year, is_leap(year)) {
                (true, true) => ("was", "Yes"),
                (true, false) => ("was not", "No"),
                (false, true) => ("is", "Yes"),
                (false, false) => ("is not", "No"),
            };
            format!("{was}, {year} {is} a leap year.")
        }
        None if words.iter().any(|w| w == "next") => {
            let next = (this_year + 1..).find(|y| is_leap(*y))?;
            format!("The next leap year is {next}.")
        }
        None if words.iter().any(|w| w == "this") => match is_leap(this_year) {
            true => format!("Yes, {this_year} is a leap year."),
            false => format!("No, {this_year} is not a leap year."),
        },
        None => return None,
    };
    Some(CalendarAnswer {
        answer,
        days: None,
        date: None,
        weekday: None,
        time: None,
    })
}

pub(super) fn date_of(moment: Moment) -> NaiveDate {
    match moment {
        Moment::Date(date) => date,
        Moment::Local(naive) => naive.date(),
        Moment::Exact(time) => time.date_naive(),
    }
}

fn said(date: NaiveDate) -> String {
    crate::clock::spoken_date(date)
}

pub(super) fn count(
    from: NaiveDate,
    to: NaiveDate,
    weeks: bool,
    from_today: bool,
) -> CalendarAnswer {
    let days = (to - from).num_days();
    let span = if weeks {
        let w = days as f64 / 7.0;
        let w = (w * 10.0).round() / 10.0;
        format!("{w} weeks ({days} days)")
    } else {
        plural(days.abs(), "day")
    };
    let answer = match (from_today, days >= 0) {
        (true, true) => format!("There are {span} until {}.", said(to)),
        (true, false) => format!("{} was {span} ago.", said(to)),
        (false, _) => format!(
            "There are {span} from {} to {}.",
            said(from.min(to)),
            said(from.max(to))
        ),
    };
    CalendarAnswer {
        answer,
        days: Some(if from_today { days } else { days.abs() }),
        date: Some(to.format("%Y-%m-%d").to_string()),
        weekday: Some(to.format("%A").to_string()),
        time: None,
    }
}

pub(super) fn weekday(date: NaiveDate, today: NaiveDate) -> CalendarAnswer {
    let day = date.format("%A").to_string();
    let when = date.format("%-d %B %Y");
    let answer = match date.cmp(&today) {
        std::cmp::Ordering::Less => format!("{when} was a {day}."),
        std::cmp::Ordering::Equal => format!("Today is {day}, {when}."),
        std::cmp::Ordering::Greater => format!("{when} is a {day}."),
    };
    CalendarAnswer {
        answer,
        days: None,
        date: Some(date.format("%Y-%m-%d").to_string()),
        weekday: Some(day),
        time: None,
    }
}

pub(super) fn date_answer(date: NaiveDate, today: NaiveDate) -> CalendarAnswer {
    let days = (date - today).num_days();
    let answer = match days {
        0 => format!("Today is {}.", said(date)),
        1 => format!("Tomorrow is {}.", said(date)),
        -1 => format!("Yesterday was {}.", said(date)),
        d if d > 0 => format!("In {} it will be {}.", plural(d, "day"), said(date)),
        d => format!("{} ago it was {}.", plural(-d, "day"), said(date)),
    };
    CalendarAnswer {
        answer,
        days: Some(days),
        date: Some(date.format("%Y-%m-%d").to_string()),
        weekday: Some(date.format("%A").to_string()),
        time: None,
    }
}

fn plural(n: i64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

pub(super) fn plural_minutes(minutes: i64) -> String {
    let (h, m) = (minutes / 60, minutes % 60);
    match (h, m) {
        (0, m) => plural(m, "minute"),
        (h, 0) => plural(h, "hour"),
        (h, m) => format!("{} {}", plural(h, "hour"), plural(m, "minute")),
    }
}

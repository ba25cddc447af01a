//! Reading a date or time as people and small models write it: ISO forms
//! (`2024-07-04`, `2024-07-04 18:30`, with an offset), words relative to
//! today (`tomorrow`, `in 10 days`, `3 weeks ago`, `next Friday`), holidays
//! (`Christmas`, `New Year's Day`), month and day in either order with an
//! optional year (`July 4th, 1776`, `25 December`), and times of day
//! (`7:30 pm`, `19:30`, `noon`). A date without a year is its next
//! occurrence from today on.

use crate::clock_time::{ClockTime, Minutes};
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta};
use chrono::{Month, Weekday};

/// What every date argument accepts, for error messages.
pub const DATE_FORMATS: &str = "use YYYY-MM-DD, YYYY-MM-DD HH:MM, now, today, tomorrow, \
     in 10 days, 3 days ago, next Friday, Christmas, July 4 2026 or 7:30 pm";

/// A date argument as written: a calendar date, a wall-clock time, or an
/// exact instant (with an offset, or "now").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Moment {
    /// A day, no time of day.
    Date(NaiveDate),
    /// A time of day on a day, in the zone the tool works in.
    Local(NaiveDateTime),
    /// An instant.
    Exact(DateTime<FixedOffset>),
}

/// Reads `text` relative to `now`; `None` when it is no date or time.
pub fn moment(text: &str, now: DateTime<FixedOffset>) -> Option<Moment> {
    let text = text.trim();
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Some(Moment::Date(date));
    }
    let iso_local = [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok());
    if let Some(naive) = iso_local {
        return Some(Moment::Local(naive));
    }
    if let Ok(exact) = DateTime::parse_from_rfc3339(text) {
        return Some(Moment::Exact(exact));
    }
    let words = words(text);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let today = now.date_naive();
    if words == ["now"] || words == ["right", "now"] {
        return Some(Moment::Exact(now));
    }
    if let Some(date) = relative_day(&words, today) {
        return Some(Moment::Date(date));
    }
    if let Some(time) = time_of_day(&words) {
        return Some(Moment::Local(today.and_time(time)));
    }
    let (day_words, time) = split_time(&words);
    let date = holiday(day_words, today).or_else(|| calendar_date(day_words, today))?;
    Some(match time {
        Some(time) => Moment::Local(date.and_time(time)),
        None => Moment::Date(date),
    })
}

/// Lower-case words without punctuation: `New Year's Day!` → `new years day`.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | '!' | '?' | '/'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

/// `today`, `tomorrow`, `in 10 days`, `2 weeks from now`, `3 days ago`,
/// `next friday`, `last monday`, `friday`, `next week`.
fn relative_day(words: &[&str], today: NaiveDate) -> Option<NaiveDate> {
    let days = |n: i64| today.checked_add_signed(TimeDelta::try_days(n)?);
    match words {
        ["today"] | ["tonight"] | ["this", "morning" | "evening" | "afternoon"] => Some(today),
        ["tomorrow"] => days(1),
        ["yesterday"] => days(-1),
        ["the", "day", "after", "tomorrow"] | ["day", "after", "tomorrow"] => days(2),
        ["the", "day", "before", "yesterday"] | ["day", "before", "yesterday"] => days(-2),
        ["next", "week"] => days(7),
        ["last", "week"] => days(-7),
        ["in", count, unit] | ["in", count, unit, "time"] => days(span(count, unit)?),
        [count, unit, "from" | "starting", "now" | "today"] | [count, unit, "later"] => {
            days(span(count, unit)?)
        }
        [count, unit, "ago"] | [count, unit, "before", "today"] => days(-span(count, unit)?),
        ["next", day] | ["this", "coming", day] | ["coming", day] => {
            weekday_after(today, weekday(day)?, false)
        }
        ["this", day] | [day] => weekday_after(today, weekday(day)?, true),
        ["last", day] | ["past", day] => {
            let wanted = weekday(day)?;
            let back =
                (7 + today.weekday().num_days_from_monday() - wanted.num_days_from_monday()) % 7;
            days(-i64::from(if back == 0 { 7 } else { back }))
        }
        _ => None,
    }
}

/// The next `day` after `today` (from today on when `today_counts`).
fn weekday_after(today: NaiveDate, day: Weekday, today_counts: bool) -> Option<NaiveDate> {
    let ahead = (7 + day.num_days_from_monday() - today.weekday().num_days_from_monday()) % 7;
    let ahead = if ahead == 0 && !today_counts {
        7
    } else {
        ahead
    };
    today.checked_add_signed(TimeDelta::try_days(i64::from(ahead))?)
}

/// A count of days in `count` units: `10 days`, `two weeks`, `a year`.
fn span(count: &str, unit: &str) -> Option<i64> {
    let n = number(count)?;
    let per = match unit.trim_end_matches('s') {
        "day" => 1,
        "week" => 7,
        "fortnight" => 14,
        "year" => 365,
        _ => return None,
    };
    n.checked_mul(per)
}

/// A whole number written in digits or as a word below a hundred.
fn number(word: &str) -> Option<i64> {
    if matches!(word, "a" | "an") {
        return Some(1);
    }
    if let Some(n) = crate::numbers::small(word) {
        return i64::try_from(n).ok();
    }
    let n: i64 = word.parse().ok()?;
    (n.abs() <= 100_000).then_some(n)
}

fn weekday(word: &str) -> Option<Weekday> {
    let word = word.trim_end_matches('s');
    [
        Weekday::Mon,
        Weekday::Tue,
        Weekday::Wed,
        Weekday::Thu,
        Weekday::Fri,
        Weekday::Sat,
        Weekday::Sun,
    ]
    .into_iter()
    .find(|day| {
        let name = format!("{day:?}").to_lowercase();
        let full = day_name(*day);
        word == full || (word.len() >= 3 && full.starts_with(word)) || word == name
    })
}

/// Whether `word` is the whole name of a day of the week, in lower case.
pub(crate) fn is_day_name(word: &str) -> bool {
    matches!(
        word,
        "monday" | "tuesday" | "wednesday" | "thursday" | "friday" | "saturday" | "sunday"
    )
}

fn day_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "monday",
        Weekday::Tue => "tuesday",
        Weekday::Wed => "wednesday",
        Weekday::Thu => "thursday",
        Weekday::Fri => "friday",
        Weekday::Sat => "saturday",
        Weekday::Sun => "sunday",
    }
}

/// A time of day alone: `7:30 pm`, `7pm`, `19:30`, `noon`, `midnight`;
/// an hour needs its minutes joined to it or a half of the day.
fn time_of_day(words: &[&str]) -> Option<NaiveTime> {
    let words = words.strip_prefix(&["at"]).unwrap_or(words);
    let time = ClockTime::read(words)?;
    let said = time.half.is_some() || time.minutes == Some(Minutes::Joined);
    (said && time.words == words.len()).then(|| time.time())?
}

/// The words of a date and the time of day after `at`, if any
/// (`christmas at 7 pm`).
fn split_time<'a>(words: &'a [&'a str]) -> (&'a [&'a str], Option<NaiveTime>) {
    if let Some(at) = words.iter().rposition(|w| *w == "at") {
        if let Some(time) = time_of_day(&words[at + 1..]) {
            return (&words[..at], Some(time));
        }
    }
    (words, None)
}

/// A holiday on a fixed date, its next occurrence from today on (or in the
/// year named: `christmas 2030`).
fn holiday(words: &[&str], today: NaiveDate) -> Option<NaiveDate> {
    let (name, year) = match words {
        [rest @ .., year] if year.len() == 4 && year.bytes().all(|b| b.is_ascii_digit()) => {
            (rest, year.parse::<i32>().ok())
        }
        _ => year_said(words, today),
    };
    let a_day = name.contains(&"day");
    let name: Vec<&str> = name
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "the" | "day" | "this" | "next" | "until" | "of"))
        .collect();
    let (month, day) = match name.as_slice() {
        ["christmas"] | ["xmas"] => (12, 25),
        ["christmas", "eve"] => (12, 24),
        ["boxing"] => (12, 26),
        ["new", "year" | "years"] => (1, 1),
        ["new", "year" | "years", "eve"] => (12, 31),
        ["halloween"] => (10, 31),
        ["valentines"] | ["valentine"] | ["st", "valentines"] | ["saint", "valentines"] => (2, 14),
        ["independence"] if a_day => (7, 4),
        ["fourth", "july"] | ["4th", "july"] | ["july", "4th"] => (7, 4),
        ["canada"] if a_day => (7, 1),
        ["australia"] if a_day => (1, 26),
        ["anzac"] => (4, 25),
        ["waitangi"] => (2, 6),
        ["bastille"] => (7, 14),
        ["armistice"] => (11, 11),
        ["burns", "night"] => (1, 25),
        ["cinco", "de", "mayo"] => (5, 5),
        ["st" | "saint", "andrews"] => (11, 30),
        ["st" | "saint", "davids"] => (3, 1),
        ["st" | "saint", "georges"] => (4, 23),
        ["st", "patricks"] | ["saint", "patricks"] => (3, 17),
        ["april", "fools" | "fool"] => (4, 1),
        ["earth"] => (4, 22),
        ["groundhog"] => (2, 2),
        ["guy", "fawkes"] | ["bonfire", "night"] => (11, 5),
        ["veterans"] | ["remembrance"] => (11, 11),
        ["juneteenth"] => (6, 19),
        ["st" | "saint", "stephens"] => (12, 26),
        ["stephens"] if a_day => (12, 26),
        ["st" | "saint", "brigids"] => (2, 1),
        ["st" | "saint", "johns"] => (6, 24),
        ["hogmanay"] => (12, 31),
        ["kwanzaa"] => (12, 26),
        ["all", "saints"] => (11, 1),
        ["all", "souls"] => (11, 2),
        ["epiphany"] => (1, 6),
        ["jamhuri"] => (12, 12),
        ["mashujaa"] => (10, 20),
        ["madaraka"] => (6, 1),
        ["gandhi", "jayanti"] => (10, 2),
        ["international", "womens"] | ["womens"] if a_day => (3, 8),
        ["may"] if a_day => (5, 1),
        ["pi"] if a_day => (3, 14),
        _ => return None,
    };
    on_or_after(month, day, year, today)
}

/// `words` without a closing `this year`, `next year` or `last year`, and
/// the year it names.
fn year_said<'a>(words: &'a [&'a str], today: NaiveDate) -> (&'a [&'a str], Option<i32>) {
    match words {
        [rest @ .., "this", "year"] => (rest, Some(today.year())),
        [rest @ .., "next", "year"] => (rest, Some(today.year() + 1)),
        [rest @ .., "last", "year"] => (rest, Some(today.year() - 1)),
        _ => (words, None),
    }
}

/// `December 25`, `dec 25th`, `25 december`, `the 4th of july 1776`,
/// `july 4th 1776`, US `12/25/2026` is not read (ambiguous).
fn calendar_date(words: &[&str], today: NaiveDate) -> Option<NaiveDate> {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "the" | "of" | "on"))
        .collect();
    let (words, said_year) = year_said(&words, today);
    let (month, day, year) = match words {
        [m, d] if month(m).is_some() => (month(m)?, ordinal(d)?, None),
        [d, m] => (month(m)?, ordinal(d)?, None),
        [m, d, y] if month(m).is_some() => (month(m)?, ordinal(d)?, Some(y.parse().ok()?)),
        [d, m, y] => (month(m)?, ordinal(d)?, Some(y.parse().ok()?)),
        _ => return None,
    };
    on_or_after(month, day, year.or(said_year), today)
}

/// The date `month`/`day` in `year`, or its next occurrence from `today` on.
fn on_or_after(month: u32, day: u32, year: Option<i32>, today: NaiveDate) -> Option<NaiveDate> {
    if let Some(year) = year {
        return NaiveDate::from_ymd_opt(year, month, day);
    }
    let this_year = NaiveDate::from_ymd_opt(today.year(), month, day);
    match this_year {
        Some(date) if date >= today => Some(date),
        _ => NaiveDate::from_ymd_opt(today.year() + 1, month, day),
    }
}

/// The next day numbered `day` from `today` on: this month's, else the
/// next month's that has one (`until the sixteenth`).
pub(crate) fn day_of_month_from(day: u32, today: NaiveDate) -> Option<NaiveDate> {
    let mut first = today.with_day(1)?;
    for _ in 0..3 {
        if let Some(date) = first.with_day(day).filter(|date| *date >= today) {
            return Some(date);
        }
        first = first.checked_add_months(chrono::Months::new(1))?;
    }
    None
}

fn month(word: &str) -> Option<u32> {
    let word = word.trim_end_matches('.');
    (1..=12).find(|&m| {
        let name = Month::try_from(m as u8)
            .map(|month| month.name().to_lowercase())
            .unwrap_or_default();
        word == name || (word.len() >= 3 && name.starts_with(word))
    })
}

/// `25`, `25th`, `1st`, `2nd`, `3rd`, `first`, `twenty-fifth`.
pub(crate) fn ordinal(word: &str) -> Option<u32> {
    if let Some(day) = ordinal_word(word) {
        return Some(day);
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// A day of the month as an ordinal in words: `first`, `twelfth`,
/// `twenty-first`, `thirtieth`.
fn ordinal_word(word: &str) -> Option<u32> {
    const ORDINALS: [&str; 19] = [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
    ];
    let position = |w: &str| ORDINALS.iter().position(|o| *o == w).map(|i| i as u32 + 1);
    match word {
        "twentieth" => Some(20),
        "thirtieth" => Some(30),
        _ => match word.split_once('-') {
            Some(("twenty", rest)) => position(rest).filter(|d| *d < 10).map(|d| 20 + d),
            Some(("thirty", "first")) => Some(31),
            Some(_) => None,
            None => position(word),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// Wednesday 25 November 2026, 21:00 UTC.
    fn now() -> DateTime<FixedOffset> {
        FixedOffset::east_opt(0)
            .unwrap()
            .with_ymd_and_hms(2026, 11, 25, 21, 0, 0)
            .unwrap()
    }

    fn date(text: &str) -> NaiveDate {
        match moment(text, now()) {
            Some(Moment::Date(date)) => date,
            other => panic!("{text}: {other:?}"),
        }
    }

    fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn days_relative_to_today() {
        assert_eq!(date("today"), ymd(2026, 11, 25));
        assert_eq!(date("Tomorrow"), ymd(2026, 11, 26));
        assert_eq!(date("in 10 days"), ymd(2026, 12, 5));
        assert_eq!(date("in two weeks"), ymd(2026, 12, 9));
        assert_eq!(date("30 days from now"), ymd(2026, 12, 25));
        assert_eq!(date("18 days starting today"), ymd(2026, 12, 13));
        assert_eq!(date("3 days ago"), ymd(2026, 11, 22));
        assert_eq!(date("a week ago"), ymd(2026, 11, 18));
        assert_eq!(date("the day after tomorrow"), ymd(2026, 11, 27));
    }

    #[test]
    fn weekdays_from_today() {
        assert_eq!(date("next Friday"), ymd(2026, 11, 27));
        assert_eq!(date("this coming monday"), ymd(2026, 11, 30));
        assert_eq!(date("Wednesday"), ymd(2026, 11, 25));
        assert_eq!(date("next wednesday"), ymd(2026, 12, 2));
        assert_eq!(date("last Wednesday"), ymd(2026, 11, 18));
        assert_eq!(date("last fri"), ymd(2026, 11, 20));
    }

    #[test]
    fn holidays_are_their_next_occurrence() {
        assert_eq!(date("Christmas"), ymd(2026, 12, 25));
        assert_eq!(date("New Year's Day"), ymd(2027, 1, 1));
        assert_eq!(date("new year"), ymd(2027, 1, 1));
        assert_eq!(date("Halloween"), ymd(2027, 10, 31));
        assert_eq!(date("Valentine's Day"), ymd(2027, 2, 14));
        assert_eq!(date("the Fourth of July"), ymd(2027, 7, 4));
        assert_eq!(date("christmas 2030"), ymd(2030, 12, 25));
        assert_eq!(date("stephens day"), ymd(2026, 12, 26));
        assert_eq!(date("St. Stephen's Day"), ymd(2026, 12, 26));
        assert_eq!(date("Jamhuri Day"), ymd(2026, 12, 12));
        assert_eq!(date("Christmas this year"), ymd(2026, 12, 25));
        assert_eq!(date("August 9th this year"), ymd(2026, 8, 9));
        assert_eq!(date("the 3rd of March next year"), ymd(2027, 3, 3));
        assert_eq!(date("new year's day next year"), ymd(2027, 1, 1));
        assert_eq!(date("April Fools' Day"), ymd(2027, 4, 1));
        assert_eq!(date("Earth Day"), ymd(2027, 4, 22));
        assert_eq!(date("Canada Day"), ymd(2027, 7, 1));
        assert_eq!(date("australia day"), ymd(2027, 1, 26));
        assert_eq!(date("Anzac Day"), ymd(2027, 4, 25));
        assert_eq!(date("Independence Day"), ymd(2027, 7, 4));
        assert!(moment("independence", now()).is_none());
        assert!(moment("canada", now()).is_none());
    }

    #[test]
    fn month_and_day_in_either_order() {
        assert_eq!(date("December 25"), ymd(2026, 12, 25));
        assert_eq!(date("dec 25th"), ymd(2026, 12, 25));
        assert_eq!(date("25 December"), ymd(2026, 12, 25));
        assert_eq!(date("July 4th, 1776"), ymd(1776, 7, 4));
        assert_eq!(date("January 1st, 2000"), ymd(2000, 1, 1));
        assert_eq!(date("1 March 2024"), ymd(2024, 3, 1));
        assert_eq!(date("March 1"), ymd(2027, 3, 1));
        assert_eq!(date("2024-07-04"), ymd(2024, 7, 4));
        assert_eq!(date("the first of September"), ymd(2027, 9, 1));
        assert_eq!(date("March twenty-first"), ymd(2027, 3, 21));
        assert_eq!(date("the thirtieth of December"), ymd(2026, 12, 30));
        assert_eq!(moment("February 30", now()), None);
        assert_eq!(moment("the second", now()), None);
    }

    #[test]
    fn times_of_day_are_today() {
        let at = |h, m| {
            Some(Moment::Local(
                ymd(2026, 11, 25).and_hms_opt(h, m, 0).unwrap(),
            ))
        };
        assert_eq!(moment("7:30 pm", now()), at(19, 30));
        assert_eq!(moment("7:30PM", now()), at(19, 30));
        assert_eq!(moment("7 pm", now()), at(19, 0));
        assert_eq!(moment("12 am", now()), at(0, 0));
        assert_eq!(moment("19:30", now()), at(19, 30));
        assert_eq!(moment("noon", now()), at(12, 0));
        assert_eq!(
            moment("christmas at 6 pm", now()),
            Some(Moment::Local(
                ymd(2026, 12, 25).and_hms_opt(18, 0, 0).unwrap()
            ))
        );
        assert_eq!(moment("13 pm", now()), None);
        assert_eq!(moment("now", now()), Some(Moment::Exact(now())));
    }

    #[test]
    fn what_is_no_date_is_none() {
        for text in [
            "someday",
            "31/01/2024",
            "in many days",
            "",
            "next blursday",
            "99999999 days ago",
        ] {
            assert_eq!(moment(text, now()), None, "{text}");
        }
    }
}

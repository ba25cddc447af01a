//! Grading answers as `eval/README.md` says: a number within a tolerance,
//! a weekday's name, a text, or a Game of 24 expression; and for the
//! everyday set, answers that depend on today (computed when the set is
//! read: days until a date, the weekday in some days, a date) or on the
//! moment of grading (the time in a city), and honest refusals.

use crate::engine::parse;
use crate::tools::math::{calculate, CalculateArgs};
use chrono::{DateTime, Datelike, Local, NaiveDate, TimeDelta, Timelike, Utc};
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// How far a time in an answer may be from the clock's when it is graded.
const TIME_SLACK_MINUTES: i64 = 3;

/// Weekday names, as a weekday answer is written.
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// What a correct answer holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    /// A number within `tolerance` (absolute) of `value`: any number of the
    /// answer, or with `last_only` (GSM8K) the last one.
    Number {
        /// The reference value.
        value: f64,
        /// Largest accepted difference (0: exact).
        tolerance: f64,
        /// Only the answer's last number counts.
        last_only: bool,
    },
    /// The weekday's name appears.
    Weekday(String),
    /// One of the texts appears as whole words (ignoring case).
    Text(Vec<String>),
    /// One of the dates: its month's name and its day, or its ISO form.
    Date(Vec<NaiveDate>),
    /// The current time in a timezone (`local`: the machine's), within
    /// three minutes, when graded; 12- or 24-hour.
    TimeIn(String),
    /// An honest refusal: the answer says it cannot do this.
    Decline,
    /// An expression using these four numbers exactly once that equals 24.
    Game24(Vec<f64>),
}

impl Expected {
    /// The expected answer a task file gives: a JSON number is matched
    /// anywhere in the answer, a numeric string (GSM8K) against the last
    /// number, a weekday's name by its appearance, another string (or any
    /// of a list of strings) as text, and an object as an answer that
    /// depends on today ([`Expected::from_object`]).
    pub fn from_answer(answer: &serde_json::Value, tolerance: f64) -> Result<Expected, String> {
        Expected::from_answer_on(answer, tolerance, Local::now().date_naive())
    }

    /// [`Expected::from_answer`] with `today` given.
    pub fn from_answer_on(
        answer: &serde_json::Value,
        tolerance: f64,
        today: NaiveDate,
    ) -> Result<Expected, String> {
        match answer {
            Value::Object(_) => Expected::from_object(answer, tolerance, today),
            Value::Array(items) => {
                let texts: Vec<String> = items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect();
                if texts.is_empty() || texts.len() != items.len() {
                    return Err("`answer` as a list must hold non-empty strings".into());
                }
                Ok(Expected::Text(texts))
            }
            serde_json::Value::Number(n) => Ok(Expected::Number {
                value: n.as_f64().ok_or("`answer` is not a usable number")?,
                tolerance,
                last_only: false,
            }),
            serde_json::Value::String(text) => {
                let text = text.trim();
                if let Some(day) = WEEKDAYS.iter().find(|d| d.eq_ignore_ascii_case(text)) {
                    return Ok(Expected::Weekday(day.to_string()));
                }
                match text.replace(',', "").parse::<f64>() {
                    Ok(value) if value.is_finite() => Ok(Expected::Number {
                        value,
                        tolerance,
                        last_only: true,
                    }),
                    _ if text.is_empty() => Err("`answer` is empty".into()),
                    _ => Ok(Expected::Text(vec![text.to_string()])),
                }
            }
            other => Err(format!(
                "`answer` must be a number or a string, not {other}"
            )),
        }
    }

    /// An answer that depends on today or on the moment of grading, one
    /// key: `days_until` ("MM-DD", the next such day from today on),
    /// `weekday_in_days` (n), `date_in_days` (n), `weekday_of` ("MM-DD" this
    /// year), `weekday_of_next` ("MM-DD" next year), `next_weekday` (a
    /// day's name: the coming one, or the one a week later), `today`
    /// (`weekday`, `date`, `year` or `month`), `time_in` (a timezone or
    /// `local`), `decline` (true).
    fn from_object(answer: &Value, tolerance: f64, today: NaiveDate) -> Result<Expected, String> {
        let Some((key, value)) = answer.as_object().and_then(|o| {
            let mut entries = o.iter();
            entries.next().filter(|_| entries.next().is_none())
        }) else {
            return Err(format!("`answer` {answer} must have exactly one key"));
        };
        let days = |n: i64| {
            today
                .checked_add_signed(TimeDelta::days(n))
                .ok_or_else(|| format!("`{key}`: {n} days is out of range"))
        };
        let count = || {
            value
                .as_i64()
                .filter(|n| n.abs() <= 100_000)
                .ok_or_else(|| format!("`{key}` must be a whole number of days"))
        };
        let month_day = |year: i32| {
            let text = value.as_str().unwrap_or_default();
            text.split_once('-')
                .and_then(|(m, d)| Some((m.parse().ok()?, d.parse().ok()?)))
                .and_then(|(m, d)| NaiveDate::from_ymd_opt(year, m, d))
                .ok_or_else(|| format!("`{key}` must be \"MM-DD\", not {value}"))
        };
        let number = |value: f64| Expected::Number {
            value,
            tolerance,
            last_only: false,
        };
        let weekday = |date: NaiveDate| Expected::Weekday(date.format("%A").to_string());
        Ok(match key.as_str() {
            "days_until" => {
                let this_year = month_day(today.year())?;
                let date = if this_year >= today {
                    this_year
                } else {
                    month_day(today.year() + 1)?
                };
                number((date - today).num_days() as f64)
            }
            "weekday_in_days" => weekday(days(count()?)?),
            "date_in_days" => Expected::Date(vec![days(count()?)?]),
            "weekday_of" => weekday(month_day(today.year())?),
            "weekday_of_next" => weekday(month_day(today.year() + 1)?),
            "next_weekday" => {
                let name = value.as_str().unwrap_or_default();
                let ahead = (1..=7)
                    .find(|n| {
                        days(*n)
                            .is_ok_and(|d| d.format("%A").to_string().eq_ignore_ascii_case(name))
                    })
                    .ok_or_else(|| format!("`next_weekday` must name a day, not {value}"))?;
                Expected::Date(vec![days(ahead)?, days(ahead + 7)?])
            }
            "today" => match value.as_str() {
                Some("weekday") => weekday(today),
                Some("date") => Expected::Date(vec![today]),
                Some("year") => number(f64::from(today.year())),
                Some("month") => Expected::Text(vec![today.format("%B").to_string()]),
                _ => {
                    return Err(format!(
                        "`today` must be weekday, date, year or month, not {value}"
                    ))
                }
            },
            "time_in" => {
                let zone = value.as_str().unwrap_or_default();
                if zone != "local" && jiff::tz::db().get(zone).is_err() {
                    return Err(format!("`time_in`: unknown timezone {value}"));
                }
                Expected::TimeIn(zone.to_string())
            }
            "decline" if value == &Value::Bool(true) => Expected::Decline,
            _ => return Err(format!("unknown answer kind `{key}`")),
        })
    }

    /// Whether `answer` is correct.
    pub fn grade(&self, answer: &str) -> bool {
        self.grade_at(answer, Utc::now())
    }

    /// Whether `answer` is correct at the moment `now`.
    pub fn grade_at(&self, answer: &str, now: DateTime<Utc>) -> bool {
        match self {
            Expected::Number {
                value,
                tolerance,
                last_only,
            } => {
                let close = |x: &f64| (x - value).abs() <= tolerance + 1e-9 * value.abs().max(1.0);
                let found = numbers(answer);
                if *last_only {
                    found.last().is_some_and(close)
                } else {
                    found.iter().any(close) || parse::number_words(answer).iter().any(close)
                }
            }
            Expected::Weekday(day) => answer.to_lowercase().contains(&day.to_lowercase()),
            Expected::Text(texts) => texts.iter().any(|t| has_words(answer, t)),
            Expected::Date(dates) => dates.iter().any(|d| names_date(answer, *d)),
            Expected::TimeIn(zone) => says_time(answer, clock_in(zone, now)),
            Expected::Decline => DECLINE.is_match(answer),
            Expected::Game24(puzzle) => expressions(answer).any(|e| makes_24(e, puzzle)),
        }
    }
}

/// Phrases of an honest refusal.
static DECLINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(can'?t|can’t|cannot|can not|unable|not able|don'?t have|don’t have|do not have|no access|not possible|sorry|not connected|offline|don'?t know|do not know)\b",
    )
    .expect("a valid regex")
});

/// Times of day written in an answer, with what says which half of the day.
static CLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d{1,2})[:.](\d{2})\s*(a\.?m\b\.?|p\.?m\b\.?|in the morning|in the afternoon|in the evening|at night)?",
    )
    .expect("a valid regex")
});

/// Whether `text` holds `wanted` as whole words, ignoring case.
fn has_words(text: &str, wanted: &str) -> bool {
    let (text, wanted) = (text.to_lowercase(), wanted.to_lowercase());
    text.match_indices(&wanted).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + wanted.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Whether `answer` names `date`: its month (name or three-letter
/// abbreviation) and its day, or its ISO form.
fn names_date(answer: &str, date: NaiveDate) -> bool {
    if answer.contains(&date.format("%Y-%m-%d").to_string()) {
        return true;
    }
    let month = date.format("%B").to_string();
    let named = has_words(answer, &month) || has_words(answer, &month[..3]);
    named && numbers(answer).contains(&f64::from(date.day()))
}

/// Minutes after midnight now in `zone` (`local`: the machine's).
fn clock_in(zone: &str, now: DateTime<Utc>) -> i64 {
    let zoned = jiff::tz::db()
        .get(zone)
        .ok()
        .zip(jiff::Timestamp::from_second(now.timestamp()).ok())
        .map(|(tz, instant)| tz.to_datetime(instant));
    match zoned {
        Some(t) => i64::from(t.hour()) * 60 + i64::from(t.minute()),
        None => {
            let t = now.with_timezone(&Local);
            i64::from(t.hour() * 60 + t.minute())
        }
    }
}

/// Whether a time written in `answer` is `minutes` after midnight, within
/// [`TIME_SLACK_MINUTES`]; a time with no half of the day may be either.
fn says_time(answer: &str, minutes: i64) -> bool {
    let close = |m: i64| {
        let gap = (m - minutes).rem_euclid(24 * 60);
        gap.min(24 * 60 - gap) <= TIME_SLACK_MINUTES
    };
    let words = answer.to_lowercase();
    if (words.contains("midnight") && close(0)) || (words.contains("noon") && close(12 * 60)) {
        return true;
    }
    CLOCK.captures_iter(answer).any(|found| {
        let (Ok(hour), Ok(minute)) = (found[1].parse::<i64>(), found[2].parse::<i64>()) else {
            return false;
        };
        if hour > 23 || minute > 59 {
            return false;
        }
        let half = found.get(3).map(|m| m.as_str().to_lowercase());
        let candidates: Vec<i64> = match half.as_deref() {
            None if hour <= 12 => vec![hour, hour + 12],
            None => vec![hour],
            Some(h) if h.contains("night") && hour % 12 < 5 => vec![hour % 12],
            Some(h) if h.contains("night") => vec![hour % 12 + 12],
            Some(h) if h.starts_with('a') || h.contains("morning") => vec![hour % 12],
            Some(_) => vec![hour % 12 + 12],
        };
        candidates.into_iter().any(|h| close(h * 60 + minute))
    })
}

/// The numbers written in a text, in order ([`parse::numbers`]).
pub fn numbers(text: &str) -> Vec<f64> {
    parse::numbers(text).iter().map(|n| n.value).collect()
}

/// The runs of an answer that could be arithmetic expressions.
fn expressions(answer: &str) -> impl Iterator<Item = &str> {
    answer
        .split(|c: char| !(c.is_ascii_digit() || "+-*/×÷() .".contains(c)))
        .map(|run| run.trim_matches(|c: char| c == '.' || c.is_whitespace()))
        .filter(|run| run.chars().any(|c| c.is_ascii_digit()))
}

/// Whether `expression` uses exactly the puzzle's numbers, each once, and
/// equals 24, evaluated by the `math` toolbox's own calculator (only
/// `+ - * /` and parentheses reach here; `**`, a power, is refused).
fn makes_24(expression: &str, puzzle: &[f64]) -> bool {
    if expression.contains("**") {
        return false;
    }
    let Ok(value) = calculate(CalculateArgs {
        expression: expression.to_string(),
    }) else {
        return false;
    };
    let mut used = numbers(expression);
    let mut wanted = puzzle.to_vec();
    used.sort_by(f64::total_cmp);
    wanted.sort_by(f64::total_cmp);
    used == wanted && (value.result - 24.0).abs() < 1e-6
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected(answer: serde_json::Value, tolerance: f64) -> Expected {
        Expected::from_answer(&answer, tolerance).unwrap()
    }

    #[test]
    fn numbers_are_read_with_groups_signs_and_decimals() {
        assert_eq!(numbers("It is 2,183,082."), vec![2183082.0]);
        assert_eq!(numbers("-5 and 3.25, then 7."), vec![-5.0, 3.25, 7.0]);
        assert_eq!(numbers("on 2024-01-05"), vec![2024.0, 1.0, 5.0]);
        assert_eq!(numbers("1,5 and 12,34"), vec![1.0, 5.0, 12.0, 34.0]);
        assert_eq!(numbers("x-3 is not negative"), vec![3.0]);
        assert!(numbers("no numbers here").is_empty());
    }

    #[test]
    fn a_number_anywhere_counts_within_the_tolerance() {
        let exact = expected(json!(1081), 0.0);
        assert!(exact.grade("47 times 23 is 1,081."));
        assert!(!exact.grade("It is 1080."));
        let close = expected(json!(16.09), 0.05);
        assert!(close.grade("10 miles is about 16.1 kilometers"));
        assert!(!close.grade("10 miles is 16.2 kilometers"));
        assert!(expected(json!(171.68), 0.01).grade("7.5% of 2289 is 171.675"));
        let legs = expected(json!(8), 0.0);
        assert!(legs.grade("Spiders have eight legs."));
        assert!(!legs.grade("Spiders have six legs."));
    }

    #[test]
    fn a_numeric_string_is_graded_on_the_last_number() {
        let gsm = expected(json!("18"), 0.0);
        assert_eq!(
            gsm,
            Expected::Number {
                value: 18.0,
                tolerance: 0.0,
                last_only: true
            }
        );
        assert!(gsm.grade("16 - 3 - 4 = 9 eggs, 9 * 2 = $18"));
        assert!(!gsm.grade("She makes $18 from 9 eggs"));
        assert!(expected(json!("70,000"), 0.0).grade("The profit is $70,000."));
    }

    #[test]
    fn weekdays_are_found_by_name() {
        let day = expected(json!("saturday"), 0.0);
        assert_eq!(day, Expected::Weekday("Saturday".into()));
        assert!(day.grade("2000-01-01 was a SATURDAY."));
        assert!(!day.grade("It was a Sunday."));
        let text = expected(json!("Paris"), 0.0);
        assert!(text.grade("the capital is paris"));
        let rome = expected(json!(["Rome", "Roma"]), 0.0);
        assert!(rome.grade("It is Roma."));
        assert!(!rome.grade("Romeo and Juliet"));
    }

    #[test]
    fn answers_of_other_types_are_refused() {
        assert!(Expected::from_answer(&json!(true), 0.0).is_err());
        assert!(Expected::from_answer(&json!(""), 0.0).is_err());
        assert!(Expected::from_answer(&json!([1]), 0.0).is_err());
        assert!(Expected::from_answer(&json!({"days_until": "13-45"}), 0.0).is_err());
        assert!(Expected::from_answer(&json!({"time_in": "Mars/Base"}), 0.0).is_err());
        assert!(Expected::from_answer(&json!({"a": 1, "b": 2}), 0.0).is_err());
    }

    /// Wednesday 25 November 2026.
    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 25).unwrap()
    }

    fn on_today(answer: serde_json::Value) -> Expected {
        Expected::from_answer_on(&answer, 0.0, today()).unwrap()
    }

    #[test]
    fn answers_that_depend_on_today() {
        assert!(on_today(json!({"days_until": "12-25"})).grade("30 days until Christmas."));
        assert!(on_today(json!({"days_until": "01-01"})).grade("37 days."));
        assert!(on_today(json!({"days_until": "10-31"})).grade("It is 340 days away."));
        assert!(on_today(json!({"weekday_in_days": 10})).grade("It will be a Saturday."));
        assert!(on_today(json!({"weekday_in_days": -3})).grade("It was Sunday."));
        let in_30 = on_today(json!({"date_in_days": 30}));
        assert!(in_30.grade("It will be Friday 25 December 2026."));
        assert!(in_30.grade("December 25th"));
        assert!(in_30.grade("2026-12-25"));
        assert!(!in_30.grade("December 24, 2026"));
        assert!(on_today(json!({"weekday_of": "12-25"})).grade("Friday"));
        assert!(on_today(json!({"weekday_of_next": "01-01"})).grade("a Friday"));
        let friday = on_today(json!({"next_weekday": "friday"}));
        assert!(friday.grade("Friday 27 November"));
        assert!(friday.grade("It is December 4."));
        assert!(!friday.grade("November 28"));
        assert!(on_today(json!({"today": "year"})).grade("It is 2026."));
        assert!(on_today(json!({"today": "month"})).grade("It's November."));
        assert!(on_today(json!({"today": "weekday"})).grade("Today is Wednesday."));
    }

    #[test]
    fn times_are_graded_against_the_clock() {
        use chrono::TimeZone;
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 19, 48, 0).unwrap();
        let tokyo = on_today(json!({"time_in": "Asia/Tokyo"}));
        for said in [
            "It is 4:48 in the morning in Tokyo.",
            "04:48",
            "4:49 AM",
            "It's 4:46.",
        ] {
            assert!(tokyo.grade_at(said, now), "{said}");
        }
        for wrong in ["4:48 PM", "4:19", "It is 16:48.", "Thursday"] {
            assert!(!tokyo.grade_at(wrong, now), "{wrong}");
        }
        let london = on_today(json!({"time_in": "Europe/London"}));
        assert!(london.grade_at("7:48 in the evening", now));
        assert!(london.grade_at("19:48", now));
        let midnight = Utc.with_ymd_and_hms(2026, 11, 25, 15, 0, 0).unwrap();
        assert!(tokyo.grade_at("It is midnight.", midnight));
        assert!(tokyo.grade_at("12:01 at night", midnight));
        let new_york = on_today(json!({"time_in": "America/New_York"}));
        let late = Utc.with_ymd_and_hms(2026, 11, 26, 3, 34, 0).unwrap();
        assert!(new_york.grade_at("It is 10:34 at night in New York.", late));
        assert!(!new_york.grade_at("It is 10:34 in the morning.", late));
    }

    #[test]
    fn declines_are_honest_refusals() {
        let decline = on_today(json!({"decline": true}));
        assert!(decline.grade("Sorry, I can't check the weather."));
        assert!(decline.grade("I cannot play music on this device."));
        assert!(decline.grade("I don't have access to the news."));
        assert!(!decline.grade("It is sunny and 22 degrees."));
    }

    #[test]
    fn game24_accepts_only_the_four_numbers_once_making_24() {
        let puzzle = Expected::Game24(vec![1.0, 1.0, 4.0, 6.0]);
        assert!(puzzle.grade("(1 + 1) * ... no: 4 * 6 * 1 * 1 = 24"));
        assert!(puzzle.grade("Answer: (6 - 1 - 1) * ... wait, 6 × 4 ÷ (1 × 1)."));
        assert!(puzzle.grade("(1+1+4)*... hmm. 4*6/(1*1)"));
        assert!(!puzzle.grade("4 * 6 = 24"));
        assert!(!puzzle.grade("(1 + 1) * 4 * 6 = 48"));
        assert!(!puzzle.grade("4 * 6 * 1 * 1 * 1"));
        assert!(!puzzle.grade("24"));
        let eight = Expected::Game24(vec![3.0, 3.0, 8.0, 8.0]);
        assert!(eight.grade("8 / (3 - 8 / 3)"));
        assert!(!eight.grade("8 / (3 - 3) + 8 + 8"));
    }

    #[test]
    fn expressions_that_do_not_parse_are_not_answers() {
        let puzzle = [1.0, 1.0, 4.0, 6.0];
        for bad in [
            "(4 * 6 * 1 * 1",
            "4 ** 6 * 1 * 1",
            "4 6 1 1",
            "()",
            "1..2 * 4 * 6",
        ] {
            assert!(!makes_24(bad, &puzzle), "{bad}");
        }
        assert!(makes_24(
            " ((1 + 1) * 4 * 6) / 2 ",
            &[1.0, 1.0, 4.0, 6.0, 2.0]
        ));
    }
}

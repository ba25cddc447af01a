//! Times, dates and spans as people say them (`4:48 in the morning`,
//! `Thursday 26 November 2026`, `2 days and 3 hours`).

use chrono::{DateTime, FixedOffset, NaiveDate, Timelike};

/// A time of day as people say it: `4:48 in the morning`, `noon`,
/// `12:30 at night`.
pub fn spoken_time(hour: u32, minute: u32) -> String {
    match (hour, minute) {
        (0, 0) => return "midnight".into(),
        (12, 0) => return "noon".into(),
        _ => {}
    }
    let part = match hour {
        4..=11 => "in the morning",
        12..=16 => "in the afternoon",
        17..=21 => "in the evening",
        _ => "at night",
    };
    let twelve = match hour % 12 {
        0 => 12,
        h => h,
    };
    format!("{twelve}:{minute:02} {part}")
}

/// A date as people say it: `Thursday 26 November 2026`.
pub fn spoken_date(date: NaiveDate) -> String {
    date.format("%A %-d %B %Y").to_string()
}

/// A span as people say it: `30 days`, `2 days, 3 hours and 5 minutes`,
/// `3 days back` when it runs backwards.
pub(super) fn spoken_span(days: i64, hours: i64, minutes: i64) -> String {
    let unit = |n: i64, one: &str| match n.abs() {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    let mut parts: Vec<String> = [(days, "day"), (hours, "hour"), (minutes, "minute")]
        .iter()
        .filter(|(n, _)| *n != 0)
        .map(|(n, one)| unit(*n, one))
        .collect();
    if parts.is_empty() {
        parts.push("0 days".into());
    }
    let last = parts.pop().unwrap_or_default();
    let span = if parts.is_empty() {
        last
    } else {
        format!("{} and {last}", parts.join(", "))
    };
    if days < 0 || hours < 0 || minutes < 0 {
        format!("{span} back")
    } else {
        span
    }
}

/// A moment as people say it: the time of day (when it has one) and the date.
pub(super) fn spoken_moment(time: &DateTime<FixedOffset>, with_time: bool) -> String {
    let date = spoken_date(time.date_naive());
    if with_time {
        format!("{}, {date}", spoken_time(time.hour(), time.minute()))
    } else {
        date
    }
}

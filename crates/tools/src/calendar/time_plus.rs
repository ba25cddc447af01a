//! A time of day plus hours and minutes, or a journey's time: when it
//! ends, or when to leave.

use super::answers::plural_minutes;
use super::CalendarAnswer;
use crate::when::Moment;
use chrono::{Datelike, NaiveDateTime, TimeDelta, Timelike};

/// A time of day plus hours and minutes (`starts at 7:30 pm and lasts 2
/// hours 15 minutes`), when the question has both.
/// Whether a word is a unit of distance (`miles`, `km`).
fn is_distance(word: &str) -> bool {
    matches!(
        word,
        "mile" | "miles" | "km" | "kms" | "kilometer" | "kilometers" | "kilometre" | "kilometres"
    )
}

/// The hours a journey takes, when the words give its distance and speed:
/// `420 miles at 60 miles an hour`, `300 km at 100 km per hour`.
fn travel_hours(words: &[String]) -> Option<f64> {
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let (mut distance, mut speed) = (None, None);
    for i in 0..words.len() {
        let Ok(n) = word(i).parse::<f64>() else {
            continue;
        };
        if matches!(word(i + 1), "mph" | "kph" | "kmh") {
            speed = Some(n);
        } else if is_distance(word(i + 1)) {
            match (word(i + 2), word(i + 3).trim_end_matches('s')) {
                ("an" | "a" | "per", "hour") => speed = Some(n),
                _ => distance = Some(n),
            }
        }
    }
    let (distance, speed) = (distance?, speed.filter(|s| *s > 0.0)?);
    Some(distance / speed).filter(|h| h.is_finite() && *h <= 100.0)
}

pub(super) fn time_plus(words: &[String], found: &[(usize, Moment)]) -> Option<CalendarAnswer> {
    let start = found.iter().find_map(|(_, m)| match m {
        Moment::Local(naive) => Some(*naive),
        _ => None,
    })?;
    let mut minutes = 0i64;
    let mut any = false;
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let and_a_half = |i: usize| word(i) == "and" && word(i + 1) == "a" && word(i + 2) == "half";
    if let Some(hours) = travel_hours(words) {
        minutes += (hours * 60.0).round() as i64;
        any = true;
    }
    for i in 0..words.len() {
        let mut n = match word(i) {
            "a" | "an" | "one"
                if word(i.wrapping_sub(1)) != "half" && !is_distance(word(i.wrapping_sub(1))) =>
            {
                1.0
            }
            "half" if !and_a_half(i.wrapping_sub(2)) => 0.5,
            other => match other.parse::<f64>() {
                Ok(n) if n.is_finite() && n.abs() <= 10_000.0 => n,
                _ => continue,
            },
        };
        let mut unit = i + 1;
        if n == 0.5 && matches!(word(unit), "a" | "an") {
            unit += 1;
        } else if and_a_half(unit) {
            n += 0.5;
            unit += 3;
        }
        let per = match word(unit).trim_end_matches('s') {
            "hour" | "hr" => 60.0,
            "minute" | "min" => 1.0,
            _ => continue,
        };
        if n >= 1.0 && and_a_half(unit + 1) {
            n += 0.5;
        }
        minutes += (n * per).round() as i64;
        any = true;
    }
    if !any {
        return None;
    }
    let has = |word: &str| words.iter().any(|w| w == word);
    let leaving = (has("leave") || has("go") || has("start") || has("get") || has("wake"))
        && (has("should") || has("need") || has("must") || has("have"));
    if leaving {
        let leave = start.checked_sub_signed(TimeDelta::try_minutes(minutes)?)?;
        return Some(CalendarAnswer {
            answer: format!(
                "Leave at {}, {} before {}.",
                crate::clock::spoken_time(leave.hour(), leave.minute()),
                plural_minutes(minutes),
                crate::clock::spoken_time(start.hour(), start.minute())
            ),
            days: None,
            date: Some(leave.date().format("%Y-%m-%d").to_string()),
            weekday: Some(leave.date().weekday().to_string()),
            time: Some(leave.format("%H:%M").to_string()),
        });
    }
    let end: NaiveDateTime = start.checked_add_signed(TimeDelta::try_minutes(minutes)?)?;
    let (from, to) = (
        crate::clock::spoken_time(start.hour(), start.minute()),
        crate::clock::spoken_time(end.hour(), end.minute()),
    );
    let later_day = if end.date() != start.date() {
        format!(" on {}", end.date().format("%A"))
    } else {
        String::new()
    };
    Some(CalendarAnswer {
        answer: format!(
            "{} after {from} it is {to}{later_day}.",
            plural_minutes(minutes)
        ),
        days: None,
        date: Some(end.date().format("%Y-%m-%d").to_string()),
        weekday: Some(end.date().weekday().to_string()),
        time: Some(end.format("%H:%M").to_string()),
    })
}

//! Finding the dates and times a question names, and which of several it
//! counts with.

use super::MAX_DATE_WORDS;
use crate::when::{self, Moment};
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate};

/// The dates and times in the words, left to right, each the longest run
/// of words that reads as one; with the index of the word after it.
pub(super) fn moments(words: &[String], now: DateTime<FixedOffset>) -> Vec<(usize, Moment)> {
    let mut found = Vec::new();
    let mut start = 0;
    while start < words.len() {
        let longest = (1..=MAX_DATE_WORDS.min(words.len() - start))
            .rev()
            .find_map(|n| {
                let span = words[start..start + n].join(" ");
                when::moment(&span, now).map(|m| (n, m))
            });
        match longest {
            // `the 24th of october independence day`, `independence day
            // june twelve`: a date and a name side by side are one day,
            // the one the date with its month says.
            Some((n, moment)) if found.last().is_some_and(|(end, _)| *end == start) => {
                let month_named = words[start..start + n]
                    .iter()
                    .any(|w| w.parse::<chrono::Month>().is_ok());
                if month_named {
                    found.pop();
                    found.push((start + n, moment));
                }
                start += n;
            }
            Some((n, moment)) if !is_filler(&words[start..start + n]) => {
                found.push((start + n, moment));
                start += n;
            }
            _ => start += 1,
        }
    }
    if found.is_empty() {
        found.extend(a_day_of_the_month(words, now.date_naive()));
    }
    found
}

/// Whether `word` is said as an ordinal (`16th`, `sixteenth`), not as a
/// bare number.
fn is_ordinal(word: &str) -> bool {
    !word.chars().all(|c| c.is_ascii_digit())
}

/// `until the sixteenth`, `on the 16th`, `by the twenty first`: a day of
/// the month named without its month, after a word that points to a
/// date; its next occurrence.
fn a_day_of_the_month(words: &[String], today: NaiveDate) -> Option<(usize, Moment)> {
    let points = |w: &str| matches!(w, "until" | "till" | "til" | "on" | "by" | "before" | "to");
    (0..words.len().saturating_sub(2)).find_map(|at| {
        if !points(&words[at]) || words[at + 1] != "the" {
            return None;
        }
        let tens = match words[at + 2].as_str() {
            "twenty" | "20" => Some(20),
            "thirty" | "30" => Some(30),
            _ => None,
        };
        let unit = words
            .get(at + 3)
            .and_then(|w| when::ordinal(w).filter(|_| is_ordinal(w)));
        let (day, last) = match (tens, unit) {
            (Some(tens), Some(unit)) if unit < 10 => (tens + unit, at + 3),
            _ => (when::ordinal(&words[at + 2])?, at + 2),
        };
        let date = when::day_of_month_from(day, today)?;
        is_ordinal(&words[last]).then_some((last + 1, Moment::Date(date)))
    })
}

/// Words that read as a date but only fill the question (`now` in `how
/// many days from now`, a lone `day`).
fn is_filler(span: &[String]) -> bool {
    matches!(span, [w] if w == "now")
}

/// Of several dates, the first told in numbers or by its day's ordinal
/// (`the Christmas carol morning is on the 20th of December`: the 20th,
/// not Christmas; `march second texas independence day`: March 2).
pub(super) fn told_in_numbers(words: &[String], found: &[(usize, Moment)]) -> Option<usize> {
    (0..found.len()).find(|&i| {
        let start = if i == 0 { 0 } else { found[i - 1].0 };
        words[start..found[i].0]
            .iter()
            .any(|w| w.chars().any(|c| c.is_ascii_digit()) || when::ordinal(w).is_some())
    })
}

/// Two dates counted between, one written with its year and one without
/// (`between March 1 and April 15, 2025`): the one without is taken in the
/// other's year, the earlier of the two where the question names the
/// earlier first.
pub(super) fn share_the_year(dates: &mut [NaiveDate], words: &[String], found: &[(usize, Moment)]) {
    let [first, second, ..] = dates else {
        return;
    };
    let written = |i: usize| {
        let start = if i == 0 { 0 } else { found[i - 1].0 };
        words[start..found[i].0]
            .iter()
            .any(|w| w.len() == 4 && w.parse::<i32>().is_ok_and(|y| y > 999))
    };
    let in_year = |date: NaiveDate, year: i32| date.with_year(year);
    match (written(0), written(1)) {
        (false, true) => {
            if let Some(mut moved) = in_year(*first, second.year()) {
                if moved > *second {
                    moved = in_year(moved, second.year() - 1).unwrap_or(moved);
                }
                *first = moved;
            }
        }
        (true, false) => {
            if let Some(mut moved) = in_year(*second, first.year()) {
                if moved < *first {
                    moved = in_year(moved, first.year() + 1).unwrap_or(moved);
                }
                *second = moved;
            }
        }
        _ => {}
    }
}

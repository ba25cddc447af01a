//! Calendar questions in words, as people ask them and as a small model
//! passes them on: days until a date or between two dates, the weekday of
//! a date, the date some days or weeks away, a time of day plus some hours.
//! The dates inside the question are found by [`when::moment`]; what is
//! asked is read from a few words around them (`how many days`, `day of
//! the week`, `date`). The answer comes back as a sentence to say, with
//! the values it holds.

mod answers;
mod dates;
mod question;
mod time_plus;

use super::when;
use answers::{count, date_answer, date_of, days_in_month, leap_year, weekday};
use chrono::{DateTime, Datelike, Days, FixedOffset, NaiveDate};
use dates::{moments, share_the_year, told_in_numbers};
use question::{
    asked, asks_a_year_in_history, asks_about_dates, asks_about_today, asks_which_thing,
    asks_which_weekday_today, counts_a_thing, span_ahead, TODAYS_WEEKDAY_ASKED, TODAY_ASKED,
};
use schemars::JsonSchema;
use serde::Serialize;
use time_plus::time_plus;

/// Words of a question about the user's own plans (`what's on my
/// calendar today`), which no date arithmetic answers and which live in an
/// account this device does not have.
pub(crate) const PERSONAL: &[&str] = &[
    "calendar",
    "schedule",
    "agenda",
    "appointment",
    "appointments",
    "meeting",
    "meetings",
];

/// Days only the user knows the date of.
const PERSONAL_DAYS: &[&str] = &["birthday", "anniversary"];

/// Longest run of words tried as one date.
const MAX_DATE_WORDS: usize = 7;

/// The answer to a calendar question.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CalendarAnswer {
    /// The answer as a sentence to say.
    pub answer: String,
    /// Days counted, when the question counts days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days: Option<i64>,
    /// The date the answer is about, YYYY-MM-DD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Its day of the week.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weekday: Option<String>,
    /// The time of day, HH:MM, when the question is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

/// What the question asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Asked {
    /// How many days (or weeks) until or between.
    Count { weeks: bool },
    /// The day of the week.
    Weekday,
    /// The date (and its weekday).
    Date,
}

/// `at 9.45`: a time of day as speech recognition writes it.
static CLOCK_WITH_A_POINT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(at\s+[0-2]?\d)\.([0-5]\d)\b").expect("a valid regex")
});

/// `64 x 4.35`, `12 * 3`, `7 + 5`, `49,862 minus 48,215`, `whats that
/// divided by twelve`: arithmetic written out, which no calendar question
/// holds.
static ARITHMETIC: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\d\s*[x×*+÷]\s*\d|\d\s+[-/]\s+\d|\d\s+(?:minus|plus|times|divided\s+by|multiplied\s+by)\s+\d|\b(?:divided|multiplied)\s+by\s+\d|\bthat\s+times\s+\d",
    )
    .expect("a valid regex")
});

/// An amount of money given, in digits.
static MONEY_GIVEN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(&crate::numbers::with_currencies(
        r"(?i)[SIGNS]\s*\d|\d\s*(?:CURRENCIES)\b|\d\s+(?:an|per)\s+hour\b",
    ))
    .expect("a valid regex")
});

/// Words that ask for an amount of money.
static MONEY_ASKED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\b(?:how\s+much|total|cost|costs|earn|earns|earned|make|made|pay|paid|bill|wages?|price|sale|discount|off|tax|tip|change|profit|save|saving)\b|%",
    )
    .expect("a valid regex")
});

/// `how many sleeps`: nights, as children count the days to a date.
static SLEEPS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)\b(how\s+many\s+(?:more\s+)?)sleeps\b").expect("a valid regex")
});

/// Answers `question` as of `now`; `Err` says what could not be read.
pub fn answer(question: &str, now: DateTime<FixedOffset>) -> Result<CalendarAnswer, String> {
    if ARITHMETIC.is_match(&crate::numbers::in_digits(question)) {
        return Err(format!(
            "`{}` is arithmetic, not a question about dates",
            question.trim()
        ));
    }
    let in_digits = crate::numbers::in_digits(question);
    if MONEY_GIVEN.is_match(&in_digits) && MONEY_ASKED.is_match(question) {
        return Err(format!(
            "`{}` asks for a sum of money: it is not about the time or the calendar",
            question.trim()
        ));
    }
    let said = SLEEPS.replace_all(question, "${1}days");
    let said = crate::numbers::in_digits(&crate::numbers::years_in_digits(&said));
    let said = CLOCK_WITH_A_POINT.replace_all(&said, "$1:$2");
    let said = crate::numbers::amounts_apart(&said);
    let words = words(&said);
    let names_a_date = words.iter().any(|w| {
        w.chars().any(|c| c.is_ascii_digit())
            || w.parse::<chrono::Month>().is_ok()
            || when::is_day_name(w)
    });
    let asking_sentence = said
        .trim_end_matches(['?', '.', '!', ' '])
        .rsplit(['?', '.', '!'])
        .next()
        .unwrap_or_default();
    let about_own_plans = self::words(asking_sentence)
        .iter()
        .any(|w| PERSONAL.contains(&w.as_str()));
    if !names_a_date && about_own_plans && !TODAY_ASKED.is_match(&said) {
        return Err(format!(
            "`{}` asks about the user's own plans, which this calendar does not hold",
            question.trim()
        ));
    }
    let text = words.join(" ");
    if let Some(thing) = asks_which_thing(&words) {
        return Err(format!(
            "`{}` asks which {thing}: that is not the calendar; {}",
            question.trim(),
            crate::ANSWER_FROM_KNOWLEDGE
        ));
    }
    if let Some(thing) = counts_a_thing(&self::words(asking_sentence)) {
        return Err(format!(
            "`{}` asks how many {thing}: that is not the calendar; {}",
            question.trim(),
            crate::ANSWER_FROM_KNOWLEDGE
        ));
    }
    let asks_a_name = [
        "what do you call",
        "what is it called",
        "whats it called",
        "the name of",
    ]
    .iter()
    .any(|phrase| text.contains(phrase));
    if asks_a_name {
        return Err(format!(
            "`{}` asks what something is called: that is not the calendar; {}",
            question.trim(),
            crate::ANSWER_FROM_KNOWLEDGE
        ));
    }
    if asks_a_year_in_history(&words) {
        return Err(format!(
            "`{}` asks in what year something happened: that is history, not the calendar; {}",
            question.trim(),
            crate::ANSWER_FROM_KNOWLEDGE
        ));
    }
    let found = moments(&words, now);
    let asked = asked(&text);
    let today = now.date_naive();
    if asks_which_weekday_today(&text) || TODAYS_WEEKDAY_ASKED.is_match(question) {
        return Ok(weekday(today, today));
    }
    if let Some(at) = time_plus(&words, &found) {
        return Ok(at);
    }
    if let Some(month) = days_in_month(&words, today) {
        return Ok(month);
    }
    if let Some(leap) = leap_year(&words, today) {
        return Ok(leap);
    }
    let asks_when = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "when" | "days" | "weeks" | "months" | "date" | "day" | "long" | "until" | "till"
        )
    });
    if found.is_empty() && asks_when {
        if let Some(day) = words.iter().find(|w| PERSONAL_DAYS.contains(&w.as_str())) {
            return Ok(CalendarAnswer {
                answer: format!(
                    "I don't know the date of your {day}. Ask me with its date, like: how many \
                     days until March 3?"
                ),
                days: None,
                date: None,
                weekday: None,
                time: None,
            });
        }
    }
    let mut dates: Vec<NaiveDate> = found.iter().map(|(_, m)| date_of(*m)).collect();
    let counting = matches!(asked, Asked::Count { .. });
    let ahead = match dates.iter().all(|d| *d == today) && !counting {
        true => span_ahead(&words).and_then(|days| today.checked_add_days(Days::new(days as u64))),
        false => None,
    };
    if let Some(date) = ahead {
        dates = vec![date];
    }
    if text.contains("this year") {
        for date in &mut dates {
            if date.year() == today.year() + 1 {
                *date = date.with_year(today.year()).unwrap_or(*date);
            }
        }
    }
    if counting {
        share_the_year(&mut dates, &words, &found);
    }
    let only_a_date = when::moment(&text, now).is_some();
    let asks = if found.is_empty() {
        asks_about_today(&text) || TODAY_ASKED.is_match(&said)
    } else {
        asks_about_dates(&words)
    };
    if !counting && !only_a_date && !asks && ahead.is_none() {
        return Err(format!(
            "`{}` is not about the time or the calendar: answer it from what you know, or use \
             another tool",
            question.trim()
        ));
    }
    let from_one_to_another = words
        .iter()
        .any(|w| matches!(w.as_str(), "from" | "between" | "since" | "and"));
    if (!counting || !from_one_to_another) && dates.len() > 1 && dates.len() == found.len() {
        if let Some(numbered) = told_in_numbers(&words, &found) {
            dates = vec![dates[numbered]];
        }
    }
    // A day named beside its date ("the 25th, Burns Night") is one date to
    // count to; of a holiday and another date beside it ("independence day
    // june twelve"), the date told in numbers is the user's (above).
    if counting {
        dates.dedup();
    }
    match (asked, dates.as_slice()) {
        (Asked::Count { weeks }, [from, to, ..]) => Ok(count(*from, *to, weeks, false)),
        (Asked::Count { weeks }, [to]) => Ok(count(today, *to, weeks, true)),
        (Asked::Count { .. }, []) => Err(format!(
            "no date found in `{}`: name one, e.g. Christmas, March 1, next Friday or 2026-12-25",
            question.trim()
        )),
        (Asked::Weekday, [date, ..]) => Ok(weekday(*date, today)),
        (Asked::Weekday, []) => Ok(weekday(today, today)),
        (Asked::Date, [date, ..]) => Ok(date_answer(*date, today)),
        (Asked::Date, []) => Ok(date_answer(today, today)),
    }
}

/// Lower-case words, punctuation dropped except inside times (`7:30`).
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['’', '\''], "")
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '?' | '!' | ';' | '(' | ')' | '"'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests;

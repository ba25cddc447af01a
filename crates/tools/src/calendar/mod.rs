//! Calendar questions in words, as people ask them and as a small model
//! passes them on: days until a date or between two dates, the weekday of
//! a date, the date some days or weeks away, a time of day plus some hours.
//! The dates inside the question are found by [`when::moment`]; what is
//! asked is read from a few words around them (`how many days`, `day of
//! the week`, `date`). The answer comes back as a sentence to say, with
//! the values it holds.

use super::when::{self, Moment};
use chrono::{
    DateTime, Datelike, Days, FixedOffset, NaiveDate, NaiveDateTime, TimeDelta, Timelike,
};
use schemars::JsonSchema;
use serde::Serialize;

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

/// `64 x 4.35`, `12 * 3`, `7 + 5`, `49,862 minus 48,215`: arithmetic
/// written out, which no calendar question holds.
static ARITHMETIC: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\d\s*[x×*+÷]\s*\d|\d\s+[-/]\s+\d|\d\s+(?:minus|plus|times|divided\s+by|multiplied\s+by)\s+\d",
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

/// Answers `question` as of `now`; `Err` says what could not be read.
pub fn answer(question: &str, now: DateTime<FixedOffset>) -> Result<CalendarAnswer, String> {
    if ARITHMETIC.is_match(question) {
        return Err(format!(
            "`{}` is arithmetic, not a question about dates",
            question.trim()
        ));
    }
    if MONEY_GIVEN.is_match(question) && MONEY_ASKED.is_match(question) {
        return Err(format!(
            "`{}` asks for a sum of money: it is not about the time or the calendar",
            question.trim()
        ));
    }
    let said = crate::numbers::in_digits(&crate::numbers::years_in_digits(question));
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
    if !names_a_date && about_own_plans {
        return Err(format!(
            "`{}` asks about the user's own plans, which this calendar does not hold",
            question.trim()
        ));
    }
    let text = words.join(" ");
    if let Some(thing) = asks_which_thing(&words) {
        return Err(format!(
            "`{}` asks which {thing}: that is not the calendar; answer it from what you know",
            question.trim()
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
            "`{}` asks what something is called: that is not the calendar; answer it from what you know",
            question.trim()
        ));
    }
    if asks_a_year_in_history(&words) {
        return Err(format!(
            "`{}` asks in what year something happened: that is history, not the calendar; \
             answer it from what you know",
            question.trim()
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
        asks_about_today(&text)
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

/// The dates and times in the words, left to right, each the longest run
/// of words that reads as one; with the index of the word after it.
fn moments(words: &[String], now: DateTime<FixedOffset>) -> Vec<(usize, Moment)> {
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

/// What a question's first `which` asks about, when it is not a day, a
/// date or a time (`which county is stonehenge in the year fives are going
/// … after christmas`).
fn asks_which_thing(words: &[String]) -> Option<&str> {
    let at = words.iter().position(|w| w == "which")?;
    let thing = words.get(at + 1)?.as_str();
    let of_the_calendar = matches!(
        thing,
        "day"
            | "days"
            | "date"
            | "dates"
            | "weekday"
            | "month"
            | "months"
            | "year"
            | "years"
            | "week"
            | "weeks"
            | "weekend"
            | "time"
            | "holiday"
            | "one"
            | "is"
            | "was"
            | "will"
            | "of"
            | "comes"
            | "falls"
            | "happens"
    ) || when::is_day_name(thing)
        || thing.parse::<chrono::Month>().is_ok()
        || thing.chars().any(|c| c.is_ascii_digit());
    (!of_the_calendar).then_some(thing)
}

/// Whether the words ask in what year something happened (`in what year
/// did Confederation happen`, `which year was the tower built`, said
/// without its `did`: `what year jamaica get independence`), not what
/// year it is, was or will be (`what year was it 30 years ago`, `what year
/// we in now`); `what year was that` with no count from now asks about
/// what was said before it.
fn asks_a_year_in_history(words: &[String]) -> bool {
    let counts_from_now = words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()));
    let asks = |w: &[String]| {
        matches!(w[0].as_str(), "what" | "which")
            && w[1] == "year"
            && matches!(w[2].as_str(), "did" | "was" | "were" | "had" | "has")
    };
    let of_now = |word: &str| {
        matches!(
            word,
            "is" | "are"
                | "am"
                | "it"
                | "its"
                | "we"
                | "now"
                | "this"
                | "today"
                | "currently"
                | "right"
                | "will"
                | "would"
                | "be"
                | "of"
                | "in"
                | "at"
                | "do"
                | "does"
                | "comes"
                | "after"
                | "before"
                | "from"
                | "to"
                | "please"
        )
    };
    let subject_after = |w: &[String]| {
        matches!(w[0].as_str(), "what" | "which")
            && w[1] == "year"
            && !of_now(&w[2])
            && !w[2].chars().any(|c| c.is_ascii_digit())
    };
    words
        .windows(4)
        .any(|w| asks(w) && (!matches!(w[3].as_str(), "it" | "that") || !counts_from_now))
        || words.windows(3).any(|w| !asks(w) && subject_after(w))
}

fn asked(text: &str) -> Asked {
    let has = |phrase: &str| text.contains(phrase);
    if has("how many weeks") {
        return Asked::Count { weeks: true };
    }
    if has("how many days")
        || has("how long")
        || has("days left")
        || has("days until")
        || has("days till")
        || has("days to go")
        || has("days between")
        || has("days from")
    {
        return Asked::Count { weeks: false };
    }
    if has("day of the week") || has("weekday") || has("what day") || has("which day") {
        return Asked::Weekday;
    }
    Asked::Date
}

/// Whether a question that names no date asks about today: its day,
/// date, weekday, month or year; not when something happened or will
/// (`In what year did the war end?`).
fn asks_about_today(text: &str) -> bool {
    let about_an_event = text.split(' ').any(|w| {
        matches!(
            w,
            "did" | "was" | "were" | "does" | "do" | "will" | "would" | "had" | "born" | "happen"
        )
    });
    !about_an_event
        && [
            "what day",
            "which day",
            "what date",
            "the date",
            "todays date",
            "what year",
            "which year",
            "what month",
            "which month",
            "day of the week",
            "what weekday",
            "day is it",
            "day is today",
            "the month",
            "the year",
            "current year",
            "current month",
            "current date",
        ]
        .iter()
        .any(|phrase| text.contains(phrase))
}

/// `is it thursday or friday today`, `is today monday`.
/// `What day of the week is it?` as a sentence of its own, whatever the
/// sentences around it say ("Doing back-to-back Saturdays has scrambled my
/// head").
static TODAYS_WEEKDAY_ASKED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)(?:^|[?.!]\s+)(?:(?:so|um|okay|ok|hey)[,\s]+)*what\s+day\s+(?:of\s+the\s+week\s+)?is\s+it(?:\s+today)?\s*[?.!]")
        .expect("a valid regex")
});

fn asks_which_weekday_today(text: &str) -> bool {
    let names_a_weekday = text.split(' ').any(when::is_day_name);
    names_a_weekday
        && (text.starts_with("is it ") || text.starts_with("is today "))
        && text.contains("today")
}

/// The days ahead a question counts from today when it names one span and
/// no date (`My invoices are on 28 day terms. If I send one out today, what
/// date is it due?`, `the screed needs 11 days what day of the week will
/// that be`), asking for a date or a day.
fn span_ahead(words: &[String]) -> Option<i64> {
    let text = words.join(" ");
    let asks = ["what date", "what day", "which day", "which date"]
        .iter()
        .any(|p| text.contains(p));
    let past = words
        .iter()
        .any(|w| matches!(w.as_str(), "ago" | "earlier" | "since" | "was" | "were"));
    if !asks || past {
        return None;
    }
    let mut spans = words.windows(2).filter_map(|pair| {
        let n: i64 = pair[0].parse().ok()?;
        match pair[1].as_str() {
            "day" | "days" => Some(n),
            "week" | "weeks" => n.checked_mul(7),
            _ => None,
        }
    });
    let days = spans.next()?;
    (spans.next().is_none() && (1..=3660).contains(&days)).then_some(days)
}

/// Of several dates, the first told in numbers or by its day's ordinal
/// (`the Christmas carol morning is on the 20th of December`: the 20th,
/// not Christmas; `march second texas independence day`: March 2).
fn told_in_numbers(words: &[String], found: &[(usize, Moment)]) -> Option<usize> {
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
fn share_the_year(dates: &mut [NaiveDate], words: &[String], found: &[(usize, Moment)]) {
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

/// `How many days are in February 2028?`, `how many days does April
/// have`: the days of that month, in the year named, or else of its next
/// occurrence (this month's, if it is now).
fn days_in_month(words: &[String], today: NaiveDate) -> Option<CalendarAnswer> {
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

/// Whether the words ask about a day (`what day is it`, `what's the
/// date tomorrow`, `when is Halloween`), not merely name one (`will it
/// rain tomorrow`), nor ask for an amount over a time (`I walk 4 km a
/// day: how far do I walk in a week?`, where `a day` is a rate).
fn asks_about_dates(words: &[String]) -> bool {
    let relative = |w: &String| matches!(w.as_str(), "today" | "tonight" | "tomorrow" | "now");
    let amount = words
        .windows(2)
        .any(|pair| pair[0] == "how" && matches!(pair[1].as_str(), "far" | "much"));
    let rate = |at: usize| {
        at > 0
            && matches!(
                words[at - 1].as_str(),
                "a" | "an" | "per" | "each" | "every"
            )
    };
    !amount
        && words.iter().enumerate().any(|(at, w)| {
            (matches!(w.as_str(), "day" | "date" | "weekday" | "month" | "year") && !rate(at))
                || (w == "when" && !words.iter().any(relative))
        })
}

/// The answer to whether a year is a leap year (`Is 2028 a leap year?`,
/// `Was 1900 a leap year?`, `Is this year a leap year?`) or which is the
/// next (`When is the next leap year?`).
fn leap_year(words: &[String], today: NaiveDate) -> Option<CalendarAnswer> {
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

fn date_of(moment: Moment) -> NaiveDate {
    match moment {
        Moment::Date(date) => date,
        Moment::Local(naive) => naive.date(),
        Moment::Exact(time) => time.date_naive(),
    }
}

fn said(date: NaiveDate) -> String {
    super::clock::spoken_date(date)
}

fn count(from: NaiveDate, to: NaiveDate, weeks: bool, from_today: bool) -> CalendarAnswer {
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

fn weekday(date: NaiveDate, today: NaiveDate) -> CalendarAnswer {
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

fn date_answer(date: NaiveDate, today: NaiveDate) -> CalendarAnswer {
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

fn time_plus(words: &[String], found: &[(usize, Moment)]) -> Option<CalendarAnswer> {
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
                super::clock::spoken_time(leave.hour(), leave.minute()),
                plural_minutes(minutes),
                super::clock::spoken_time(start.hour(), start.minute())
            ),
            days: None,
            date: Some(leave.date().format("%Y-%m-%d").to_string()),
            weekday: Some(leave.date().weekday().to_string()),
            time: Some(leave.format("%H:%M").to_string()),
        });
    }
    let end: NaiveDateTime = start.checked_add_signed(TimeDelta::try_minutes(minutes)?)?;
    let (from, to) = (
        super::clock::spoken_time(start.hour(), start.minute()),
        super::clock::spoken_time(end.hour(), end.minute()),
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

fn plural(n: i64, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

fn plural_minutes(minutes: i64) -> String {
    let (h, m) = (minutes / 60, minutes % 60);
    match (h, m) {
        (0, m) => plural(m, "minute"),
        (h, 0) => plural(h, "hour"),
        (h, m) => format!("{} {}", plural(h, "hour"), plural(m, "minute")),
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

    fn ask(question: &str) -> CalendarAnswer {
        answer(question, now()).unwrap_or_else(|e| panic!("{question}: {e}"))
    }

    #[test]
    fn the_year_something_happened_is_history() {
        let confederation =
            "In what year did Canadian Confederation happen? The one we celebrate on Canada Day.";
        assert!(answer(confederation, now()).is_err());
        assert!(answer("which year was the eiffel tower built", now()).is_err());
        assert!(ask("what year was it 30 years ago").answer.contains("1996"));
        let juneteenth = "juneteenth is when the news about freedom got read out in galveston \
             what year was that";
        assert!(answer(juneteenth, now()).is_err());
        for history in [
            "okay so what year trinidad and tobago get independence from britain",
            "what year jamaica get independence",
            "which year the berlin wall come down",
        ] {
            assert!(answer(history, now()).is_err(), "{history}");
        }
        let cooked = ask("Three weeks of driving nights up the Pilbara and my head's cooked. Is it a Tuesday or what? What day is it today?");
        assert!(cooked.answer.starts_with("Today is"), "{}", cooked.answer);
        let puebla = "um the holiday that remembers the battle of puebla what do you call it my abuela says people always mix it up with mexican independence day";
        assert!(answer(puebla, now()).is_err());
        let track = ask("Between band launch meetings and the cart I losing track. Which day of the week we reach today?");
        assert!(
            track.answer.starts_with("Today is Wednesday"),
            "{}",
            track.answer
        );
        let named_twice = ask(
            "um the twenty fourth of october independence day how many days is that from today",
        );
        assert!(
            named_twice.answer.contains("333 days"),
            "{}",
            named_twice.answer
        );
        for today in [
            "what year is it",
            "what year we in now",
            "what year it is now",
        ] {
            assert!(ask(today).answer.contains("2026"), "{today}");
        }
    }

    #[test]
    fn arithmetic_is_not_a_question_about_dates() {
        let milk = "Tell me 64 x 4.35 - 64 crates of milk this month at 4.35 a crate.";
        assert!(answer(milk, now()).is_err());
        assert!(answer("What's 12 * 3 this year?", now()).is_err());
        let sale =
            "Boxing Day flyer says 35% off a $420 stand mixer. What would the sale price be?";
        assert!(answer(sale, now()).is_err());
        for wages in [
            "Jess worked 7:15 to 3:45 today with a 30-minute unpaid break, at $28.40 an hour. \
             How much does she earn for the shift?",
            "Saturday roster: three baristas on 6 hours each at $31.50 an hour. What's the \
             total wage bill for the day?",
            "i worked 6.5 hours on friday and 8 hours on saturday at 17.20 an hour how much \
             did i make before tax",
        ] {
            assert!(answer(wages, now()).is_err(), "{wages}");
        }
        assert_eq!(
            ask("What's the date 2026-12-05?").date.as_deref(),
            Some("2026-12-05")
        );
    }

    #[test]
    fn days_until_a_date_or_holiday() {
        let christmas = ask("How many days are left until Christmas?");
        assert_eq!(christmas.days, Some(30));
        assert_eq!(
            christmas.answer,
            "There are 30 days until Friday 25 December 2026."
        );
        assert_eq!(ask("how many days until New Year's Day").days, Some(37));
        assert_eq!(ask("Days until Halloween?").days, Some(340));
        assert_eq!(ask("How many days till the 4th of July?").days, Some(221));
        assert_eq!(ask("how many days until march 1").days, Some(96));
        assert_eq!(ask("How many weeks until Christmas?").days, Some(30));
        for named_with_its_date in [
            "how many days is it till the twenty fifth of january thats burns night",
            "um how many days until christmas the twenty fifth of december",
        ] {
            assert_ne!(
                ask(named_with_its_date).days,
                Some(0),
                "{named_with_its_date}"
            );
        }
        assert_eq!(
            ask("how many days until christmas the twenty fifth of december").days,
            Some(30)
        );
        assert_eq!(
            ask("how many days until independence day june twelve").days,
            Some(199)
        );
        assert_eq!(
            ask("how many more days till march second texas independence day we always do a cookout").days,
            Some(97)
        );
    }

    #[test]
    fn a_span_joined_to_its_unit_counts_ahead() {
        let due =
            ask("The fleet customer pays on 30-day terms from today. What date will that be?");
        assert_eq!(due.date.as_deref(), Some("2026-12-25"));
    }

    #[test]
    fn which_thing_other_than_a_date_is_not_the_calendar() {
        let stonehenge =
            "quick one which county is stonehenge in the year fives are going on a trip there after christmas";
        assert!(answer(stonehenge, now()).is_err());
        assert!(ask("which day is christmas this year")
            .answer
            .contains("Friday"));
        assert!(ask("which day of the week is christmas")
            .answer
            .contains("Friday"));
    }

    #[test]
    fn a_day_of_the_month_said_alone_is_its_next_one() {
        let sixteenth = ask("how many days until the day of reconciliation on the sixteenth");
        assert_eq!(sixteenth.date.as_deref(), Some("2026-12-16"));
        assert_eq!(
            ask("how many days till the 3rd").date.as_deref(),
            Some("2026-12-03")
        );
        assert_eq!(
            ask("what day of the week is it on the twenty first")
                .date
                .as_deref(),
            Some("2026-12-21")
        );
        assert!(answer("how many days until the 16", now()).is_err());
    }

    #[test]
    fn days_between_two_dates() {
        let between = ask("How many days are there between March 1, 2024 and June 1, 2024?");
        assert_eq!(between.days, Some(92));
        assert_eq!(
            ask("How many days from January 15, 2025 to February 20, 2025?").days,
            Some(36)
        );
        assert_eq!(
            ask("days between 2024-01-01 and 2024-12-25").days,
            Some(359)
        );
        assert_eq!(
            ask("How many days are there between March 1 and April 15, 2025?").days,
            Some(45)
        );
        assert_eq!(
            ask("How many days from December 20 to January 5, 2025?").days,
            Some(16)
        );
        assert_eq!(
            ask("How many days from January 15, 2025 to March 1?").days,
            Some(45)
        );
    }

    #[test]
    fn the_days_of_a_month() {
        let february = ask("How many days are in February 2028?");
        assert_eq!(february.days, Some(29));
        assert_eq!(february.answer, "February 2028 has 29 days.");
        assert_eq!(ask("how many days does April have").days, Some(30));
        assert_eq!(
            ask("How many days did February 2000 have?").answer,
            "February 2000 had 29 days."
        );
        assert_eq!(
            ask("How many days are there in February?").answer,
            "February 2027 has 28 days."
        );
    }

    #[test]
    fn a_year_something_happened_in_is_not_this_year() {
        assert!(answer("In what year did World War II end?", now()).is_err());
        assert!(answer("What year was the Eiffel Tower built?", now()).is_err());
        assert!(answer("What's on my calendar today?", now()).is_err());
        assert_eq!(
            ask("How many days until the meeting on March 3?").days,
            Some(98)
        );
        assert!(answer("When is sunset today?", now()).is_err());
        assert!(ask("How many days until my birthday?")
            .answer
            .starts_with("I don't know the date of your birthday."));
        assert_eq!(
            ask("How many days until my birthday on March 3?").days,
            Some(98)
        );
        assert_eq!(
            ask("When is Christmas?").date.as_deref(),
            Some("2026-12-25")
        );
        assert_eq!(ask("What's the month?").date.as_deref(), Some("2026-11-25"));
        assert_eq!(ask("What year is it?").date.as_deref(), Some("2026-11-25"));
    }

    #[test]
    fn the_weekday_of_a_date() {
        assert_eq!(
            ask("What day of the week was July 4th, 1776?")
                .weekday
                .as_deref(),
            Some("Thursday")
        );
        assert_eq!(
            ask("The caravan club's planning meeting is this coming Wednesday. What's the date?")
                .date
                .as_deref(),
            Some("2026-12-02")
        );
        assert_eq!(
            ask("The charity shop's Christmas carol morning is on the 20th of December. What day of the week is that this year?")
                .date
                .as_deref(),
            Some("2026-12-20")
        );
        assert_eq!(
            ask("What day of the week is it? Doing back-to-back Saturdays has scrambled my head.")
                .weekday
                .as_deref(),
            Some("Wednesday")
        );
        assert_eq!(
            ask("What day of the week is Christmas this year?")
                .weekday
                .as_deref(),
            Some("Friday")
        );
        assert_eq!(
            ask("What day of the week will it be in 10 days?")
                .weekday
                .as_deref(),
            Some("Saturday")
        );
        assert_eq!(
            ask("what day was it 3 days ago").weekday.as_deref(),
            Some("Sunday")
        );
        assert_eq!(
            ask("What day of the week is New Year's Day next year?")
                .date
                .as_deref(),
            Some("2027-01-01")
        );
        let today = ask("What day is it today?");
        assert_eq!(today.answer, "Today is Wednesday, 25 November 2026.");
        assert_eq!(
            ask("December 25, 2030 weekday").weekday.as_deref(),
            Some("Wednesday")
        );
    }

    #[test]
    fn the_date_some_days_away() {
        assert_eq!(
            ask("What's the date 30 days from now?").date.as_deref(),
            Some("2026-12-25")
        );
        assert_eq!(
            ask("What will the date be in 2 weeks?").date.as_deref(),
            Some("2026-12-09")
        );
        assert_eq!(
            ask("What's the date next Friday?").date.as_deref(),
            Some("2026-11-27")
        );
        assert_eq!(
            ask("What was the date a week ago?").date.as_deref(),
            Some("2026-11-18")
        );
        assert_eq!(
            ask("in 10 days").answer,
            "In 10 days it will be Saturday 5 December 2026."
        );
        assert_eq!(
            ask("My invoices are on 28 day terms. If I send one out today, what date is it due?")
                .date
                .as_deref(),
            Some("2026-12-23")
        );
        assert_eq!(
            ask("the floor screed needs eleven days before i can tile it what day of the week will that be")
                .weekday
                .as_deref(),
            Some("Sunday")
        );
        assert_eq!(
            ask("What's the date this coming Wednesday? We're doing a bake sale.")
                .date
                .as_deref(),
            Some("2026-12-02")
        );
        assert_eq!(
            ask("Sports day is June 20th. Which day of the week does it land on this year?")
                .date
                .as_deref(),
            Some("2026-06-20")
        );
        assert_eq!(
            ask("I'm signing a certificate. What's the current year?")
                .date
                .as_deref(),
            Some("2026-11-25")
        );
        assert_eq!(
            ask("is it tuesday or wednesday today ive lost track")
                .weekday
                .as_deref(),
            Some("Wednesday")
        );
    }

    #[test]
    fn leap_years() {
        assert_eq!(
            ask("Is 2028 a leap year?").answer,
            "Yes, 2028 is a leap year."
        );
        assert_eq!(
            ask("Was 1900 a leap year?").answer,
            "No, 1900 was not a leap year."
        );
        assert_eq!(
            ask("Was 2000 a leap year?").answer,
            "Yes, 2000 was a leap year."
        );
        assert_eq!(
            ask("Is 2027 a leap year?").answer,
            "No, 2027 is not a leap year."
        );
        assert_eq!(
            ask("When is the next leap year?").answer,
            "The next leap year is 2028."
        );
        assert_eq!(
            ask("Is this year a leap year?").answer,
            "No, 2026 is not a leap year."
        );
    }

    #[test]
    fn an_amount_over_a_time_is_not_a_date_question() {
        let now = now();
        for question in [
            "I walk 4 kilometers a day. How far do I walk in a week?",
            "I drink 2 liters of water a day. How much is that in a week?",
            "If I save 5 dollars per day, how much will I have in 30 days?",
        ] {
            assert!(answer(question, now).is_err(), "{question}");
        }
        assert_eq!(
            ask("What day is it in a week?").weekday.as_deref(),
            Some("Wednesday")
        );
    }

    #[test]
    fn a_time_of_day_plus_hours_and_minutes() {
        let movie =
            ask("If a movie starts at 7:30 pm and lasts 2 hours 15 minutes, when does it end?");
        assert_eq!(movie.time.as_deref(), Some("21:45"));
        assert_eq!(
            movie.answer,
            "2 hours 15 minutes after 7:30 in the evening it is 9:45 in the evening."
        );
        assert_eq!(ask("11 pm plus 90 minutes").time.as_deref(), Some("00:30"));
        for (asked, end) in [
            (
                "I put the roast in at 5:20 pm and it needs an hour and a half. When is it done?",
                "18:50",
            ),
            (
                "The bus leaves at 8:15 am and takes 2 and a half hours. When does it arrive?",
                "10:45",
            ),
            ("It is 6 pm. What time is it in half an hour?", "18:30"),
            (
                "Dinner is at 7 pm and lasts a half hour. When is it over?",
                "19:30",
            ),
            (
                "The meeting is at 9.45 and runs an hour and twenty minutes. When does it end?",
                "11:05",
            ),
            (
                "I've got a 2:40 pm train and it takes me 25 minutes to walk to the station. \
                 What time should I leave?",
                "14:15",
            ),
            (
                "The school bus comes at 7:50 am and the kids need 35 minutes to get ready. \
                 What time should they get up?",
                "07:15",
            ),
            (
                "If we leave at 8:30 in the morning and it's 420 miles at 60 miles an hour, \
                 what time do we get there?",
                "15:30",
            ),
            (
                "We set off at 9 am to drive 150 km at 100 km per hour. When do we arrive?",
                "10:30",
            ),
        ] {
            assert_eq!(ask(asked).time.as_deref(), Some(end), "{asked}");
        }
    }

    #[test]
    fn a_question_with_no_date_to_count_to_is_explained() {
        let error = answer("how many days until the thing", now()).unwrap_err();
        assert!(error.starts_with("no date found"), "{error}");
        for other in [
            "What is 15 percent of 80?",
            "What's the weather like today?",
            "Will it rain tomorrow?",
            "Who wrote Hamlet?",
            "What color do you get when you mix blue and yellow?",
            "If I save 50 dollars a week, how much will I have after a year?",
            "the bill for my moms birthday dinner is 92.50 whats an 18 percent tip",
        ] {
            let error = answer(other, now()).unwrap_err();
            assert!(
                error.contains("is not about the time or the calendar"),
                "{other}: {error}"
            );
        }
        assert_eq!(ask("What month is it?").date.as_deref(), Some("2026-11-25"));
    }
}

//! Reading what a calendar question asks: a count of days, a weekday or a
//! date, about today or a span ahead; and what it asks that is no
//! calendar question.

use super::Asked;
use crate::when;

/// What `how many` counts in a question's asking sentence, when it is
/// no span of time or named days (`how many dawn masses are there in the
/// novena`, not `how many days`, `how many more sleeps` or `how many
/// sundays until easter`).
pub(super) fn counts_a_thing(words: &[String]) -> Option<&str> {
    let at = words
        .windows(2)
        .position(|w| w[0] == "how" && w[1] == "many")?;
    let thing = words[at + 2..].iter().map(String::as_str).find(|w| {
        !matches!(
            *w,
            "more" | "full" | "whole" | "school" | "working" | "business" | "week"
        )
    })?;
    let of_the_calendar = of_the_calendar(thing) || matches!(thing, "are" | "is" | "of");
    (!of_the_calendar).then_some(thing)
}

/// What a question's first `which` asks about, when it is not a day, a
/// date or a time (`which county is stonehenge in the year fives are going
/// … after christmas`).
pub(super) fn asks_which_thing(words: &[String]) -> Option<&str> {
    let at = words.iter().position(|w| w == "which")?;
    let thing = words.get(at + 1)?.as_str();
    let of_the_calendar = of_the_calendar(thing)
        || matches!(
            thing,
            "one" | "is" | "was" | "will" | "of" | "comes" | "falls" | "happens"
        );
    (!of_the_calendar).then_some(thing)
}

/// Whether `word` names a span of time, a date, a day or a month (either
/// number: `sundays`, `weeks`), or is a number.
fn of_the_calendar(word: &str) -> bool {
    let one = match word {
        "centuries" => "century",
        _ => word.strip_suffix('s').unwrap_or(word),
    };
    matches!(
        one,
        "day"
            | "date"
            | "weekday"
            | "weekend"
            | "week"
            | "fortnight"
            | "month"
            | "year"
            | "decade"
            | "century"
            | "hour"
            | "minute"
            | "second"
            | "night"
            | "sleep"
            | "morning"
            | "time"
            | "holiday"
    ) || when::is_day_name(one)
        || word.parse::<chrono::Month>().is_ok()
        || word.chars().any(|c| c.is_ascii_digit())
}

/// Whether the words ask in what year something happened (`in what year
/// did Confederation happen`, `which year was the tower built`, said
/// without its `did`: `what year jamaica get independence`), not what
/// year it is, was or will be (`what year was it 30 years ago`, `what year
/// we in now`); `what year was that` with no count from now asks about
/// what was said before it.
pub(super) fn asks_a_year_in_history(words: &[String]) -> bool {
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

pub(super) fn asked(text: &str) -> Asked {
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

/// `… is that`, `… will that be`: a question about a day said before it
/// (a follow-up), not about today.
static POINTS_BACK: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\b(?:is|was|will|would)\s+(?:that|this)(?:\s+be)?(?:\s+on)?\s*[?.!]?\s*$",
    )
    .expect("a valid regex")
});

/// Whether a question that names no date asks about today: its day,
/// date, weekday, month or year; not when something happened or will
/// (`In what year did the war end?`).
pub(super) fn asks_about_today(text: &str) -> bool {
    if POINTS_BACK.is_match(text) {
        return false;
    }
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
pub(super) static TODAYS_WEEKDAY_ASKED: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)(?:^|[?.!]\s+)(?:(?:so|um|okay|ok|hey)[,\s]+)*what\s+day\s+(?:of\s+the\s+week\s+)?is\s+it(?:\s+today)?\s*[?.!]")
        .expect("a valid regex")
    });

/// `what month is it`, `what day is it today` at the start of a sentence,
/// whatever follows in the same breath ("quick what month is it im doing
/// my schedule request"), or at the end of the text, whatever comes before
/// it ("what year do i write on the sheet what year is it"): today's date
/// asked, not the user's plans or an event.
pub(super) static TODAY_ASKED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)(?:^|[?.!]\s+)(?:(?:quick|so|um|okay|ok|hey)[,\s]+)*what\s+(?:day|month|year|date)\s+(?:of\s+the\s+(?:week|month)\s+)?is\s+it\b(?:\s+today)?\s*(?:[?.!]|$|\s+(?:i|im|i'm)\b)|\bwhat\s+(?:day|month|year|date)\s+(?:of\s+the\s+(?:week|month)\s+)?is\s+it(?:\s+today)?\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// Whether `text` asks if today is in a weekday or a month it names ("is
/// it friday today", "quick one is it already tuesday or what day is it",
/// "um are we still in november or is it december already").
pub(super) fn asks_which_weekday_today(text: &str) -> bool {
    let names_a_day_or_month = text
        .split(' ')
        .any(|w| when::is_day_name(w) || w.parse::<chrono::Month>().is_ok());
    let already = text.contains("is it already ")
        || text.contains("is it still ")
        || text.contains("are we still in ")
        || (text.contains("is it ")
            && text.trim_end_matches(['?', '.', '!']).ends_with(" already"));
    let asks_now = text.contains("today") || text.contains("what day is it") || already;
    let asking = text.starts_with("is it ") || text.starts_with("is today ") || already;
    names_a_day_or_month && asking && asks_now
}

/// The days ahead a question counts from today when it names one span and
/// no date (`My invoices are on 28 day terms. If I send one out today, what
/// date is it due?`, `the screed needs 11 days what day of the week will
/// that be`), asking for a date or a day.
pub(super) fn span_ahead(words: &[String]) -> Option<i64> {
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

/// Whether the words ask about a day (`what day is it`, `what's the
/// date tomorrow`, `when is Halloween`), not merely name one (`will it
/// rain tomorrow`), nor ask for an amount over a time (`I walk 4 km a
/// day: how far do I walk in a week?`, where `a day` is a rate).
pub(super) fn asks_about_dates(words: &[String]) -> bool {
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

//! What a question in words asks of the clock: the time now, here or in a
//! place it names, or how far apart two places' clocks are.

use super::places::{knows_place, place_named_in};

/// The two places a question about their time difference names: `the
/// time difference between London and New York`, `how many hours ahead is
/// Tokyo of Paris`.
pub(super) fn asks_difference(question: &str) -> Option<(String, String)> {
    static BETWEEN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\btime\s+difference\s+(?:between|from)\s+(.+?)\s+(?:and|to)\s+(.+?)\s*[?.!]*\s*$",
        )
        .expect("a valid regex")
    });
    static AHEAD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\bhow\s+(?:many\s+hours|far)\s+(?:ahead|behind)\s+is\s+(.+?)\s+(?:of|from|than)\s+(.+?)\s*[?.!]*\s*$",
        )
        .expect("a valid regex")
    });
    let found = BETWEEN
        .captures(question)
        .or_else(|| AHEAD.captures(question))?;
    let place = |i: usize| {
        found[i]
            .trim()
            .trim_start_matches("the ")
            .trim_end_matches(" now")
            .trim_end_matches(" right")
            .to_string()
    };
    Some((place(1), place(2)))
}

/// `3 hours`, `an hour`, `a few minutes`, `days`: a span of time, which
/// makes a question about a time other than now (not `a decent hour`).
static SPAN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"\b(?:\d+(?:\.\d+)?|an?|few|couple\s+of|half\s+an)\s+(?:minutes?|hours?|days?)\b|\bdays\b",
    )
    .expect("a valid regex")
});

/// Words that ask the time.
const TIME_ASKED: [&str; 9] = [
    "what time",
    "the time",
    "time is it",
    "current time",
    "local time",
    "time now",
    "time in ",
    "clock in ",
    "clock say",
];

/// Whether `question` asks for the time now, and where: `Some(None)` for
/// here, `Some(Some(place))` for the place after "in".
pub(super) fn asks_time(question: &str) -> Option<Option<String>> {
    let lower = question
        .to_lowercase()
        .replace(" at the minute", " now")
        .replace(" at the moment", " now");
    let asks_in = |text: &str| TIME_ASKED.iter().any(|phrase| text.contains(phrase));
    let asks = asks_in(&lower)
        && !lower.contains("time zone")
        && !lower.contains("timer")
        && !lower.contains("alarm");
    let counted_after = lower.contains(" after ") && lower.contains(|c: char| c.is_ascii_digit());
    let a_span = SPAN.is_match(&crate::numbers::in_digits(&lower));
    if !asks || counted_after || a_span {
        return None;
    }
    let mut body = lower.trim_end_matches(['?', '.', '!', ' ']);
    // A sentence after the question that only says why ("… What's the
    // time there now? My sister's an early riser.") is left out.
    while let Some(end) = body.rfind(['.', '!', '?']) {
        match asks_in(&body[end + 1..]) {
            false if asks_in(&body[..end]) => body = &body[..end],
            _ => break,
        }
    }
    let (before, asked) = match body.rfind(['.', '!', '?']) {
        Some(end) => (&body[..end], &body[end + 1..]),
        None => ("", body),
    };
    let there = asked
        .split_whitespace()
        .any(|w| matches!(w, "there" | "they're" | "their"));
    let after_in = match asked.rsplit_once(" in ") {
        Some((_, after)) => Some(after),
        None if there => before
            .rsplit_once(" in ")
            .map(|(_, after)| after.split(['.', '!', '?']).next().unwrap_or(after)),
        None => None,
    };
    let place = after_in.map(|after| {
        let after = after
            .trim()
            .trim_end_matches(" right now")
            .trim_end_matches(" now")
            .trim();
        // `portland, maine`: the state or country named after the comma
        // tells which of the places so called.
        match after.split_once(',') {
            Some((_, region)) if knows_place(region.trim()) => region.trim().to_string(),
            Some((city, _)) => city.trim().to_string(),
            None => after.to_string(),
        }
    });
    Some(
        place
            .filter(|p| !p.is_empty())
            .or_else(|| place_named_in(question)),
    )
}

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

/// Whether `question` asks for the time now, and where: `Some(None)` for
/// here, `Some(Some(place))` for the place after "in".
pub(super) fn asks_time(question: &str) -> Option<Option<String>> {
    let lower = question
        .to_lowercase()
        .replace(" at the minute", " now")
        .replace(" at the moment", " now");
    let asks = [
        "what time",
        "the time",
        "time is it",
        "current time",
        "local time",
        "time now",
        "time in ",
        "clock in ",
        "clock say",
    ]
    .iter()
    .any(|phrase| lower.contains(phrase))
        && !lower.contains("time zone")
        && !lower.contains("timer")
        && !lower.contains("alarm");
    let spans = [" days", " minute", " hour"];
    let counted_after = lower.contains(" after ") && lower.contains(|c: char| c.is_ascii_digit());
    if !asks || counted_after || spans.iter().any(|span| lower.contains(span)) {
        return None;
    }
    let body = lower.trim_end_matches(['?', '.', '!', ' ']);
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

//! Amounts with their parts: a whole and a fraction (`2 and a quarter`),
//! half a unit, dozens, and an amount hyphenated to its unit set apart.

use super::currencies::is_currency;
use regex::Regex;
use std::sync::LazyLock;

/// `40-pound`, `30-day`: an amount joined by a hyphen to the word after it.
static JOINED_TO_A_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d)-([A-Za-z]+)").expect("a valid regex"));

/// `text` with an amount joined to its unit by a hyphen written apart (`a
/// 40-pound box` → `a 40 pound box`, `30-day terms` → `30 day terms`), so
/// that the unit reads as a word of its own; a name with another hyphen
/// after the word (`3-in-1`) is kept.
pub fn amounts_apart(text: &str) -> String {
    JOINED_TO_A_WORD
        .replace_all(text, |found: &regex::Captures| {
            let end = found.get(0).map_or(0, |m| m.end());
            match text[end..].starts_with('-') {
                true => found[0].to_string(),
                false => format!("{} {}", &found[1], &found[2]),
            }
        })
        .into_owned()
}

/// `1 and a half`, `2 and a quarter`, `3 and three quarters`.
static AND_A_PART: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+and\s+(a|one|3|three)\s+(half|quarter|quarters)\b")
        .expect("a valid regex")
});

/// `half a kilo`, `a half gallon`: half of one unit (not of an hour, which
/// the clock and shift readers take as minutes).
static HALF_A_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a\s+)?half\s+(?:an?\s+)?(kilos?|kg|pounds?|lbs?|litres?|liters?|gallons?|miles?|km|kilomet(?:er|re)s?|cups?|pints?|ounces?|oz|dozen|inch(?:es)?|feet|foot|met(?:er|re)s?)\b")
        .expect("a valid regex")
});

/// `a pound and a half`, `a mile and a half`: one unit and half of it.
static A_UNIT_AND_A_HALF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|an|one)\s+(kilo|kg|pound|lb|litre|liter|gallon|mile|kilomet(?:er|re)|cup|pint|ounce|inch|foot|met(?:er|re)|stone|teaspoon|tablespoon)\s+and\s+a\s+half\b")
        .expect("a valid regex")
});

/// `a dozen`, `2 dozen`, `0.5 dozen` (from `half a dozen`): so many twelves.
static DOZENS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(a|one|\d+(?:\.\d+)?)\s+dozen\b").expect("a valid regex"));

/// `text` with each whole number and a part (`2 and a quarter`) as one
/// number (`2.25`), half of one unit (`half a kilo`) as `0.5 kilo`, one
/// and a half (`a pound and a half`) as `1.5 pound`, and dozens counted
/// (`a dozen bags` → `12 bags`; not a price's `£3 a dozen`).
pub fn with_parts(text: &str) -> String {
    let text = A_UNIT_AND_A_HALF.replace_all(text, "1.5 $1");
    let text = HALF_A_UNIT.replace_all(&text, |found: &regex::Captures| {
        let start = found.get(0).map_or(0, |m| m.start());
        let after_and = text[..start]
            .trim_end()
            .rsplit(char::is_whitespace)
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("and"));
        match after_and {
            true => found[0].to_string(),
            false => format!("0.5 {}", &found[1]),
        }
    });
    let text = DOZENS.replace_all(&text, |found: &regex::Captures| {
        let start = found.get(0).map_or(0, |m| m.start());
        let word_before = text[..start]
            .trim_end()
            .rsplit(char::is_whitespace)
            .next()
            .unwrap_or("");
        let a_price_per_dozen = word_before.contains(|c: char| c.is_ascii_digit())
            || is_currency(word_before.trim_matches(|c: char| !c.is_alphanumeric()));
        let count = match found[1].to_ascii_lowercase().as_str() {
            "a" | "one" => Some(1.0),
            n => n.parse::<f64>().ok(),
        };
        match count {
            Some(count) if !a_price_per_dozen => format!("{}", count * 12.0),
            _ => found[0].to_string(),
        }
    });
    AND_A_PART
        .replace_all(&text, |found: &regex::Captures| {
            let three = matches!(found[2].to_ascii_lowercase().as_str(), "3" | "three");
            let part = match (three, found[3].to_ascii_lowercase().as_str()) {
                (_, "half") => 0.5,
                (true, _) => 0.75,
                (false, _) => 0.25,
            };
            match found[1].parse::<f64>() {
                Ok(whole) => format!("{}", whole + part),
                Err(_) => found[0].to_string(),
            }
        })
        .into_owned()
}

//! The answers to say for a question in words, worked out from its value:
//! `It's 27.`, `The median is 110.`, `17 times 23 is 391.`

use super::{is_operator_word, FILLER};
use regex::Regex;
use std::sync::LazyLock;

/// A question that asks for cents or pence ("how many cents is that per
/// nail"), and an amount given in them.
static MINOR_UNIT_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:how\s+many|in)\s+(?:cents|pence|paise)\b").expect("a valid regex")
});
static IN_MINOR_UNITS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\d(?:\s*(?:¢|p\b|c\b)|\s+(?:cents?|pence|penny|paise)\b)")
        .expect("a valid regex")
});

/// `value`, worked out from amounts of money in dollars, pounds or
/// rupees, in the cents, pence or paise the question asks for: `a box of
/// a thousand nails costs forty two bucks how many cents is that per
/// nail` is 4.2, not 0.042.
pub fn in_minor_units(question: &str, value: f64) -> f64 {
    let asked = MINOR_UNIT_ASKED.is_match(question)
        && !IN_MINOR_UNITS.is_match(question)
        && crate::numbers::currency_of(question).is_some();
    match asked {
        true => value * 100.0,
        false => value,
    }
}

/// Whether a question is about a percentage (`15 percent of 80`, `what
/// percent of 50 is 10`, `25% off`).
pub fn about_percent(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains('%') || lower.contains("percent")
}

/// The answer to say for a question in words that asks for one value of
/// a list (`… whats the median`, `What's my average?`): `The median is
/// 110.`; `None` for other questions.
pub fn list_answer(question: &str, value: f64) -> Option<String> {
    let lower = question.to_lowercase();
    let asked: Vec<&str> = ["median", "mean", "average", "range"]
        .into_iter()
        .filter(|name| {
            lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|word| word == *name)
        })
        .collect();
    let [name] = asked.as_slice() else {
        return None;
    };
    let said = result(question, value);
    let said = said.strip_prefix("It's ")?;
    Some(format!("The {name} is {said}"))
}

/// The answer to say for a question that is arithmetic and nothing else
/// (`What is seventeen times twenty three?` → `17 times 23 is 391.`): its
/// words are numbers and operators after the words that ask. `None` for
/// any other question: what a word problem's value counts, and whether it
/// was read right, take the model.
pub fn bare_arithmetic(question: &str, value: f64) -> Option<String> {
    let digits = crate::numbers::in_digits(question.trim());
    let asked = ASKING.replace(&digits, "");
    let phrase = asked
        .trim()
        .trim_end_matches(['?', '.', '!'])
        .trim_end_matches(" please")
        .trim();
    let words: Vec<&str> = phrase
        .split_whitespace()
        .map(|w| w.trim_end_matches(['?', '.', '!', ',']))
        .collect();
    let number = |word: &str| word.replace(',', "").parse::<f64>().is_ok();
    let lower = |word: &str| word.to_ascii_lowercase();
    let computes = |word: &str| {
        (is_operator_word(word) && lower(word) != "of")
            || matches!(
                lower(word).as_str(),
                "multiplied" | "power" | "root" | "lots"
            )
    };
    let operator = |word: &str| {
        computes(word) || matches!(lower(word).as_str(), "of" | "by" | "to" | "the" | "square")
    };
    let bare = words.iter().all(|w| number(w) || operator(w))
        && words.iter().any(|w| number(w))
        && words.iter().any(|w| computes(w));
    if !bare || value.abs() >= EXACT_BELOW {
        return None;
    }
    let mut said = words.join(" ");
    if let Some(first) = said.get(..1) {
        said.replace_range(..1, &first.to_uppercase());
    }
    let spoken = self::number(value);
    let about = match spoken.parse::<f64>() {
        Ok(exact) if exact == value => "",
        _ => "about ",
    };
    Some(format!("{said} is {about}{spoken}."))
}

/// Values from here up are said by the model, not read out: the
/// calculator keeps 12 significant digits, so their last digits may not be
/// the product's.
const EXACT_BELOW: f64 = 1e12;

/// The words that ask for a computation, before it.
static ASKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)^(?:{FILLER}[,\s]+)*(?:(?:please\s+)?(?:what(?:'s|\s+is|\s+be)|whats|how\s+much\s+(?:is|be)|calculate|compute|work\s+out)\s+)?"))
        .expect("a valid regex")
});

/// `value` as it is said: at most two decimals (three significant digits
/// below 0.01), no trailing zeros.
pub fn number(value: f64) -> String {
    let rounded = if value != 0.0 && value.abs() < 0.01 {
        crate::math::round_significant(value, 3)
    } else {
        (value * 100.0).round() / 100.0
    };
    let text = format!("{rounded}");
    if text.contains('e') {
        format!("{value}")
    } else {
        text
    }
}

/// The answer to say for a question in words whose value is `value`: `It's
/// 27.`, `It's 20 percent.` when the question asks what percent, `It's 12
/// dollars.` (euros, pounds) when it counts money.
pub fn result(question: &str, value: f64) -> String {
    let lower = question.to_lowercase();
    let asks_percent = [
        "what percent",
        "as a percent",
        "in percent",
        "percentage",
        "percent increase",
        "percent decrease",
        "percent change",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let currency = crate::numbers::currency_of(question).filter(|_| !asks_percent);
    let said = match currency.is_some() && value.fract() != 0.0 && value.abs() >= 0.01 {
        true => format!("{value:.2}"),
        false => number(value),
    };
    let unit = match (asks_percent, currency) {
        (true, _) => " percent".to_string(),
        (false, Some(currency)) => format!(" {}", currency.name_for(&said)),
        (false, None) => String::new(),
    };
    format!("It's {said}{unit}.")
}

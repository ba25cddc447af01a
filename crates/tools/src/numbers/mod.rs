//! Numbers as people say them, and as speech recognition writes small
//! ones: `fifteen`, `twenty three`, `forty-two`, `one hundred and five`,
//! `two thousand`, `two point five`.

mod currencies;
mod lists;
mod parts;
mod prices;
mod run;

pub use currencies::{
    currency_of, is_currency, letter_signs_named, money_named, with_currencies, Currency,
    CURRENCIES, CURRENCY_SIGNS,
};
pub use lists::{asks_of_a_list, hundreds_in_lists};
pub use parts::{amounts_apart, with_parts};
pub use prices::prices_in_digits;

use regex::Regex;
use run::run;
use std::sync::LazyLock;

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];

const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// A number word below a hundred (`seven`, `fifteen`, `eighty`), any case.
pub fn small(word: &str) -> Option<u64> {
    let word = word.to_ascii_lowercase();
    if let Some(n) = UNITS.iter().position(|w| *w == word) {
        return Some(n as u64);
    }
    TENS.iter()
        .position(|w| *w == word)
        .map(|n| 20 + 10 * n as u64)
}

/// `text` with each run of number words written in digits: `what is
/// fifteen percent of eighty` → `what is 15 percent of 80`. Other words,
/// and the punctuation around a run, stay as they were; spaces between
/// words become one.
pub fn in_digits(text: &str) -> String {
    millions_written_out(&runs_in_digits(text, 1))
}

/// A number in digits before `million` or `billion`.
static MILLIONS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d{1,6})?)\s+(million|billion)\b").expect("a valid regex")
});

/// `text` with millions and billions said after digits written out:
/// `1.1 million` (said `one point one million`) → `1100000`.
fn millions_written_out(text: &str) -> String {
    MILLIONS
        .replace_all(text, |found: &regex::Captures| {
            let scale = match found[2].to_ascii_lowercase().as_str() {
                "million" => 1e6,
                _ => 1e9,
            };
            match found[1].parse::<f64>() {
                Ok(n) => format!("{}", (n * scale).round()),
                Err(_) => found[0].to_string(),
            }
        })
        .into_owned()
}

/// `text` with each number said in two words or more written in digits
/// (`three hundred and sixty dollars` → `360 dollars`), where a small
/// model may take the words for two numbers; a number said in one word
/// stays (`six nights`, `the four of us`) unless it is an operand
/// (`seventeen times`), and so do numbers said one after another (`three
/// eighty seven`, a price read out), as [`in_digits`] does it otherwise.
pub fn long_numbers_in_digits(text: &str) -> String {
    runs_in_digits(text, 2)
}

/// Words of arithmetic said between two numbers.
const OPERATORS: &[&str] = &["times", "plus", "minus", "divided", "multiplied", "by"];

/// `text` with each run of number words of at least `least` words written
/// in digits (or beside an operator).
fn runs_in_digits(text: &str, least: usize) -> String {
    let text = thousands_said_short(text);
    let words = split_words(&text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if let Some((day, used)) = tens_ordinal(&words[i..]) {
            out.push(day);
            i += used;
            continue;
        }
        if let Some(scale) = i
            .checked_sub(1)
            .and_then(|before| per_scale(words[before], words[i]))
        {
            out.push(scale);
            i += 1;
            continue;
        }
        let found = run(&words[i..]).filter(|(_, used)| !one_as_a_pronoun(&words, i, *used));
        let short = |used: usize| {
            // Numbers said one after another ("three eighty seven") stay in
            // words together when some of them are too short; one beside an
            // operator ("seventeen times 23") is written like its operand.
            let next = words.get(i + used..).and_then(run).is_some();
            let earlier = i > 0
                && out
                    .last()
                    .is_some_and(|w: &String| run(&[w.as_str()]).is_some());
            let operand = [i.checked_sub(1), Some(i + used)]
                .into_iter()
                .flatten()
                .filter_map(|at| words.get(at))
                .any(|w| OPERATORS.contains(&core(w).to_lowercase().as_str()));
            (used < least && !operand) || (least > 1 && (next || earlier))
        };
        let said = found.filter(|(_, used)| !short(*used));
        match said {
            Some((number, used)) => {
                let first = words[i];
                let last = words[i + used - 1];
                let lead = &first[..first.len() - first.trim_start_matches(is_mark).len()];
                let tail = &last[last.trim_end_matches(is_mark).len()..];
                out.push(format!("{lead}{number}{tail}"));
                i += used;
            }
            None => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    out.join(" ")
}

/// `eight grand`, `8.5 grand`, `a grand`: thousands, said for money.
static GRAND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b([a-z]+|\d+(?:\.\d+)?)\s+grand\b").expect("a valid regex"));

/// `650k`, `2.5K`: thousands written short.
static K_THOUSANDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d+(?:\.\d+)?)[kK]\b").expect("a valid regex"));

/// `text` with thousands said short written out: `650k` → `650000`, and
/// `grand` after a number said as `thousand` (`eight grand` → `eight
/// thousand`, `8.5 grand` → `8500`, `a grand` → `1000`); `a grand total`
/// stays.
fn thousands_said_short(text: &str) -> String {
    // The word after a match, bare and in lower case.
    let word_after = |text: &str, found: &regex::Captures| {
        let end = found.get(0).map_or(0, |m| m.end());
        let next = text[end..].split_whitespace().next().unwrap_or_default();
        core(next).to_ascii_lowercase()
    };
    let text = K_THOUSANDS.replace_all(text, |found: &regex::Captures| {
        let a_race = matches!(
            word_after(text, found).as_str(),
            "race" | "run" | "walk" | "swim" | "ride"
        );
        match found[1].parse::<f64>() {
            Ok(n) if !a_race => format!("{}", n * 1000.0),
            _ => found[0].to_string(),
        }
    });
    let text = text.as_ref();
    GRAND
        .replace_all(text, |found: &regex::Captures| {
            let next = word_after(text, found);
            let count = found[1].to_ascii_lowercase();
            let said =
                small(&count).is_some() || TENS.contains(&count.as_str()) || count == "hundred";
            // "a grand piano", "a grand day out": an adjective, not money.
            let money_after = next.is_empty()
                || matches!(
                    next.as_str(),
                    "a" | "an"
                        | "for"
                        | "and"
                        | "on"
                        | "in"
                        | "to"
                        | "of"
                        | "each"
                        | "per"
                        | "off"
                        | "last"
                        | "this"
                        | "now"
                        | "back"
                        | "more"
                        | "or"
                );
            match (count.as_str(), count.parse::<f64>()) {
                _ if next == "total" => found[0].to_string(),
                ("a" | "one", _) if !money_after => found[0].to_string(),
                ("a" | "one", _) => "1000".to_string(),
                (_, Ok(n)) => format!("{}", n * 1000.0),
                _ if said => format!("{} thousand", &found[1]),
                _ => found[0].to_string(),
            }
        })
        .into_owned()
}

/// Words after which `one` stands for a thing, not a number (`quick one`,
/// `this one`, `the red one`).
const BEFORE_ONE_AS_A_THING: &[&str] = &[
    "quick", "this", "that", "which", "the", "other", "each", "every", "no", "any", "big",
    "little", "small", "new", "old", "same", "right", "wrong", "easy", "last",
];

/// Whether the number of one word at `words[at]` is `one` said for a
/// thing (`quick one:`, `the one we celebrate`).
fn one_as_a_pronoun(words: &[&str], at: usize, used: usize) -> bool {
    used == 1
        && core(words[at]).eq_ignore_ascii_case("one")
        && at.checked_sub(1).is_some_and(|before| {
            BEFORE_ONE_AS_A_THING.contains(&core(words[before]).to_ascii_lowercase().as_str())
        })
}

/// The words of `text`, a tens word joined to its unit by a hyphen
/// (`forty-two`) split in two.
fn split_words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .flat_map(|word| match word.split_once('-') {
            Some((tens, unit)) if small(tens).is_some() && small(core(unit)).is_some() => {
                vec![tens, unit]
            }
            _ => vec![word],
        })
        .collect()
}

/// The ordinals from first to ninth, as a tens word's unit.
const ORDINAL_UNITS: [(&str, &str); 9] = [
    ("first", "st"),
    ("second", "nd"),
    ("third", "rd"),
    ("fourth", "th"),
    ("fifth", "th"),
    ("sixth", "th"),
    ("seventh", "th"),
    ("eighth", "th"),
    ("ninth", "th"),
];

/// An ordinal said as a tens word and a unit at the start of `words`
/// (`twenty second`, `thirty-first`), in digits (`22nd`), and how many
/// words it took.
fn tens_ordinal(words: &[&str]) -> Option<(String, usize)> {
    let (tens, unit, used) = match words.first()?.split_once('-') {
        Some((tens, unit)) => (tens, unit, 1),
        None => (*words.first()?, *words.get(1)?, 2),
    };
    if used == 2 && core(tens) != tens {
        return None;
    }
    let tens = small(tens).filter(|n| *n >= 20 && n.is_multiple_of(10))?;
    let (position, suffix) = ORDINAL_UNITS
        .iter()
        .zip(1u64..)
        .find_map(|((word, suffix), n)| {
            (core(unit).eq_ignore_ascii_case(word)).then_some((n, suffix))
        })?;
    let tail = &unit[unit.trim_end_matches(is_mark).len()..];
    Some((format!("{}{suffix}{tail}", tens + position), used))
}

/// `hundred` after `per` or `every` (`six litres per hundred
/// kilometres`), in digits.
fn per_scale(before: &str, word: &str) -> Option<String> {
    if !matches!(
        before.to_ascii_lowercase().as_str(),
        "per" | "every" | "each"
    ) {
        return None;
    }
    let value = match core(word).to_ascii_lowercase().as_str() {
        "hundred" => 100,
        "thousand" => 1000,
        _ => return None,
    };
    let tail = &word[word.trim_end_matches(is_mark).len()..];
    Some(format!("{value}{tail}"))
}

/// `text` with years said in pairs written in digits: `nineteen
/// forty-four` → `1944`, `twenty thirty six` → `2036`. Only where a year
/// is expected: elsewhere the pair may be two numbers.
pub fn years_in_digits(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let century = small(core(words[i])).filter(|n| (10..=20).contains(n));
        let rest = century.and_then(|_| within_century(&words[i + 1..]));
        match (century, rest) {
            (Some(century), Some((year, used))) if core(words[i]) == words[i] => {
                let last = words[i + used];
                let tail = &last[last.trim_end_matches(is_mark).len()..];
                out.push(format!("{}{tail}", century * 100 + year));
                i += used + 1;
            }
            _ => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    out.join(" ")
}

/// The second half of a year said in pairs, 10 to 99 (`forty-four`,
/// `forty four`, `fifteen`), and how many words it took.
fn within_century(words: &[&str]) -> Option<(u64, usize)> {
    let first = core(words.first()?).to_ascii_lowercase();
    if let Some((tens, unit)) = first.split_once('-') {
        let (tens, unit) = (small(tens)?, small(unit)?);
        return (tens >= 20 && tens % 10 == 0 && (1..10).contains(&unit))
            .then_some((tens + unit, 1));
    }
    let n = small(&first).filter(|n| *n >= 10)?;
    let unit = words
        .get(1)
        .filter(|_| n >= 20 && core(words[0]) == words[0])
        .and_then(|w| small(core(w)))
        .filter(|u| (1..10).contains(u));
    Some(match unit {
        Some(unit) => (n + unit, 2),
        None => (n, 1),
    })
}

fn is_mark(c: char) -> bool {
    !c.is_alphanumeric()
}

fn core(word: &str) -> &str {
    word.trim_matches(is_mark)
}

#[cfg(test)]
mod tests;

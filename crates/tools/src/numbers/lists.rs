//! Lists of readings said short (`one thirty eight one forty two … whats
//! the median`), their hundreds written out.

use super::{core, small, split_words};
use regex::Regex;
use std::sync::LazyLock;

/// `one thirty eight`, `two forty`: a number from 110 to 999 said as its
/// hundreds and then the rest, as readings are read out.
static HUNDREDS_SAID_SHORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(one|two|three|four|five|six|seven|eight|nine)\s+((?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)\b")
        .expect("a valid regex")
});

/// Words that ask for something of a list of numbers.
static OF_A_LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:average|mean|median|range|total|sum|add\s+up|highest|lowest)\b")
        .expect("a valid regex")
});

/// Whether `text` asks something of a list of numbers (its average,
/// median, total, range, highest or lowest).
pub fn asks_of_a_list(text: &str) -> bool {
    OF_A_LIST.is_match(text)
}

/// `text` with readings said short written as hundreds (`one thirty
/// eight one forty two … whats the median` → `one hundred thirty eight
/// one hundred forty two …`), where the text asks about a list and says
/// two or more of them: elsewhere `one thirty` may be a time or two
/// numbers.
pub fn hundreds_in_lists(text: &str) -> String {
    let after_tens = |at: usize| {
        let before = text[..at].trim_end();
        let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
        small(core(word)).is_some_and(|n| n >= 20)
    };
    let said = HUNDREDS_SAID_SHORT
        .find_iter(text)
        .filter(|found| !after_tens(found.start()))
        .count();
    if !OF_A_LIST.is_match(text) || said < 2 || !runs_are_readings(text) {
        return text.to_string();
    }
    HUNDREDS_SAID_SHORT
        .replace_all(text, |found: &regex::Captures| {
            match after_tens(found.get(0).map_or(0, |m| m.start())) {
                true => found[0].to_string(),
                false => format!("{} hundred {}", &found[1], &found[2]),
            }
        })
        .into_owned()
}

/// Whether every run of two or more number words in `text` splits into
/// readings said short (`one thirty eight one forty two`): `twelve nine
/// fifteen seven eleven` is five numbers, not 12, 915 and 711.
fn runs_are_readings(text: &str) -> bool {
    let values: Vec<Option<u64>> = split_words(text)
        .into_iter()
        .map(|word| small(core(word)))
        .collect();
    values
        .split(Option::is_none)
        .filter(|run| run.len() > 1)
        .all(|run| {
            let run: Vec<u64> = run.iter().flatten().copied().collect();
            splits_into_readings(&run)
        })
}

/// Whether `run`, number words' values, is a row of readings said short:
/// each a digit, then a teen or tens, and after tens maybe a digit.
fn splits_into_readings(run: &[u64]) -> bool {
    let digit = |at: usize| run.get(at).is_some_and(|n| (1..10).contains(n));
    let mut ends = vec![false; run.len() + 1];
    ends[0] = true;
    for at in 0..run.len() {
        if !ends[at] || !digit(at) {
            continue;
        }
        match run.get(at + 1) {
            Some(&n) if (10..20).contains(&n) => ends[at + 2] = true,
            Some(&n) if n >= 20 && n % 10 == 0 => {
                ends[at + 2] = true;
                if digit(at + 2) {
                    ends[at + 3] = true;
                }
            }
            _ => {}
        }
    }
    ends[run.len()]
}

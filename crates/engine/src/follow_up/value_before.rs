//! "That" for the value the question before asked for ("And what is
//! that divided by 8?"), and an operator going on from it ("And plus 40?").

use super::*;

/// Words that stand for the value asked for before ("that divided by 8").
const PRONOUNS: [&str; 2] = ["that", "it"];

/// Words a follow-up may start with that go on computing from the value
/// asked for before ("And plus 40?", "Divided by 3?").
const OPERATORS: [&str; 8] = [
    "plus",
    "minus",
    "times",
    "divided",
    "multiplied",
    "over",
    "squared",
    "cubed",
];

/// A question that asks for a value: what it asks for.
static ASKS_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:what\s+is|what's|how\s+much\s+is)\s+(.+?)\s*[?.!]*$")
        .expect("a valid regex")
});

/// "that" (or "it") in `question` replaced by the value `before` asked
/// for, in parentheses, and a leading "And" dropped; or that value put
/// before a `question` that starts with an operator ("And plus 40?"), or,
/// when it is the operator of that value, the number after it replaced
/// ("And times 13?" after "18 times 12").
pub(super) fn with_value_before(question: &str, before: &str) -> Option<String> {
    let value = ASKS_VALUE.captures(before)?.get(1)?.as_str();
    if !has_numbers(value) {
        return None;
    }
    let body = without_opener(question);
    let first = body.split_whitespace().next()?.to_lowercase();
    if OPERATORS.contains(&first.as_str()) {
        let rest = body.trim_end_matches(['?', '.', '!']).trim();
        if let Some(head) = up_to_the_same_operator(value, &first) {
            let operand = rest.split_once(char::is_whitespace)?.1;
            return Some(format!("What is {head} {operand}?"));
        }
        return Some(format!("What is ({value}) {rest}?"));
    }
    let at = PRONOUNS
        .iter()
        .find_map(|p| find_word(body, p).map(|at| (at, p.len())));
    let (at, len) = at?;
    Some(format!("{}({value}){}", &body[..at], &body[at + len..]))
}

/// `value` up to its one operator when that is `operator`: "18 times 12"
/// then "And times 13?" asks 18 times 13, not (18 times 12) times 13.
fn up_to_the_same_operator(value: &str, operator: &str) -> Option<String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut operators = words
        .iter()
        .enumerate()
        .filter(|(_, w)| OPERATORS.contains(&w.to_lowercase().as_str()));
    let (at, word) = operators.next()?;
    let only = operators.next().is_none();
    (only && word.eq_ignore_ascii_case(operator)).then(|| words[..=at].join(" "))
}

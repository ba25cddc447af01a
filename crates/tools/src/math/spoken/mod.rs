//! What small models hand the calculator, read as arithmetic: numbers in
//! words (`fifteen percent of eighty`), words for
//! operators (`17 times 23`, `5 squared`, `square root of 169`, `half of
//! 350`), list functions (`mean(4, 8, 15)`, `sum`, `max`, `median`),
//! thousands separators and currency signs. A conversion written as an
//! expression (`3 m in ft`) is recognised so the caller can hand it on.
//!
//! Conversions asked in words are read in `units`, word problems that
//! come down to one sum (a tip, a recipe scaled, a bill split) in
//! `word_problems`, the word rewrites are in `rewrites` and the answers to
//! say in `answers`; the arithmetic the rewrites feed is here.

mod answers;
mod rewrites;
mod units;
mod word_problems;
mod work_and_travel;

pub use answers::{about_percent, bare_arithmetic, in_minor_units, list_answer, number, result};
pub use units::{conversion, converted, Conversion};
use word_problems::*;
use work_and_travel::*;

use regex::{Captures, Regex};
use rewrites::WORDS;
use std::sync::LazyLock;

/// Longest run of digits a number in an expression may have.
pub const MAX_DIGITS: usize = 15;

/// Whether `text` is a question or phrase in words (`what is 3 percent of
/// 900`, `17 times 23`) rather than an expression (`17*23`, `sqrt(16)`,
/// `3 m in ft`): it has a word of three letters or more that is no
/// function of the calculator's.
pub fn in_words(text: &str) -> bool {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|word| word.chars().count() >= 3)
        .any(|word| {
            let word = word.to_ascii_lowercase();
            !super::FUNCTIONS.contains(&word.as_str()) && word != "tau"
        })
}

/// A total shared with one other ("we're splitting the total evenly with
/// another hockey family", "what's our half"): half of it is asked.
static SHARED_WITH_ONE_OTHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:split(?:ting)?|shar(?:e|ing))\b[^.?!]*?\bwith\s+(?:another|one\s+other|the\s+other)\b|\b(?:our|my|your|his|her|their)\s+half\b")
        .expect("a valid regex")
});

/// A sound or word said before a question (`um`, `okay`, `quick one`),
/// as a regex alternation.
const FILLER: &str = r"(?:um+|uh+|erm|okay|ok|so|hey|right|quick\s+one)";

fn is_operator_word(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "times" | "plus" | "minus" | "divided" | "over" | "of" | "squared" | "cubed" | "x"
    )
}

/// How many parts a fraction takes, as said or written: `a`, `three`, `3`
/// ([`numerator`] reads it).
const PARTS: &str = r"a|an|one|two|three|four|five|six|seven|eight|nine|\d+";

/// A fraction's word ([`fraction_denominator`] reads it).
const FRACTION: &str = r"half|halves|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?|hundredths?";

/// The count of parts a fraction names: `a`, `three`, `3`.
fn numerator(word: &str) -> Option<u64> {
    match word.to_ascii_lowercase().as_str() {
        "a" | "an" => Some(1),
        other => other
            .parse()
            .ok()
            .or_else(|| crate::numbers::small(other))
            .filter(|n| *n <= 1000),
    }
}

/// `345 * 12 then + 800`: a computation going on from what came before
/// `then`, which is computed first.
static THEN_ON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)((?:\(|\d)[\d\s.+\-*/^()]*?)\s+(?:and\s+)?then\s+([+\-*/^])")
        .expect("a valid regex")
});

/// `three eighths as a decimal`, `2 thirds as a percentage`.
static FRACTION_AS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b({PARTS})\s+({FRACTION})\s+as\s+an?\s+(decimal|percentage|percent)\b"
    ))
    .expect("a valid regex")
});

/// `8 6 9 7 and 11`: three numbers or more said in a row without
/// commas, as speech recognition writes a list.
static LIST_WITHOUT_COMMAS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d+(?:\.\d+)?(?:\s+\d+(?:\.\d+)?){1,}\s+and\s+\d+(?:\.\d+)?\b")
        .expect("a valid regex")
});

/// A word that asks for a list's value: its numbers may be said one
/// `then` another.
static LIST_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:average|mean|median|total|sum|range|add\s+up)\b").expect("a valid regex")
});

/// `add these`, `add them all`: a total asked of the numbers said.
static ADD_THESE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\badd\s+(?:these|them|those|this|all\s+of\s+(?:these|this))\b")
        .expect("a valid regex")
});

/// `12 9 15 7 11`: a list said with no word or comma between its
/// numbers, three or more of them.
static NUMBERS_IN_A_ROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d+(?:\.\d+)?(?:\s+\d+(?:\.\d+)?){2,}\b").expect("a valid regex")
});

/// `19 and 23 and 17 and 26`: a list said with `and` between each two of
/// its numbers, three or more of them.
static AND_BETWEEN_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b\d+(?:\.\d+)?(?:\s+and\s+\d+(?:\.\d+)?){2,}\b").expect("a valid regex")
});

/// `plus 89 50 plus`, `125 + 4 50`: an amount said as whole units then
/// hundredths (`eighty nine fifty`), among amounts added or taken away
/// (not `19 84`, a year).
static SAID_AS_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(^|\b(?:plus|minus)\s+|[+\-]\s*)(\d{1,3})\s+([1-9]\d)(\s+(?:plus|minus)\b|\s*[+\-]|\s*[?.!]?\s*$)")
        .expect("a valid regex")
});

/// `plus`, `minus`: an amount added or taken away.
static PLUS_OR_MINUS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:plus|minus)\b").expect("a valid regex"));

/// `98 then 125 then 89`, `twelve pound then thirty five`: a list said
/// one number after another (a unit after one dropped).
static THEN_BETWEEN_NUMBERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d)(?:\s+[a-z]+)?\s*,?\s+(?:and\s+)?then\s+(\d)").expect("a valid regex")
});

/// `32 pounds 50`, `4 dollars 99`: a price said in two parts.
static POUNDS_AND_PENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s+(?:dollars?|euros?|pounds?|quid|bucks|shillings?|bob|pesos?|rupees?|rand)\s+(\d{2})\b(?:\s*(?:p|pence|cents?)\b)?(\s+[a-z]+|[.,?!]|$)")
        .expect("a valid regex")
});

/// `58 dollars and 75 cents`: 58.75.
static DOLLARS_AND_CENTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d+)\s+(?:dollars?|euros?|pounds?|bucks|shillings?|pesos?|rupees?|rand)\s+and\s+(\d{1,2})\s+(?:cents?|centavos?|centimos?|pence|p)\b",
    )
    .expect("a valid regex")
});

/// `14 kids at 450 a month each how much is that a month`: a price each
/// for the period the question asks about, which then counts once.
static EACH_FOR_THE_PERIOD_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)(\d(?:\.\d+)?\s*(?:(?:CURRENCIES)\s+)?)(?:a|per)\s+(day|week|month|year|night|term)\s+each\b(.*\b(?:a|per|every|each)\s+(day|week|month|year|night|term)\b)"))
        .expect("a valid regex")
});

/// `Lily has to write down 13 cubed. What's the answer?`: the sum in the
/// sentence before, from its first number on.
static ANSWER_TO_THE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^([^.!?]*\d[^!?]*?)[.!?:]\s+(?:so\s+)?(?:what(?:'s|\s+is)\s+(?:the\s+answer|it|that)|what\s+do(?:es)?\s+(?:i|you|that|it)\s+(?:get|come\s+to|make))\s*\??\s*$",
    )
    .expect("a valid regex")
});

/// `a third of`, `two fifths of`, `3 quarters of`, `half of`.
static FRACTION_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b(?:({PARTS})\s+)?({FRACTION})\s+of\b")).expect("a valid regex")
});

/// The whole a fraction word divides into: `third` → 3.
fn fraction_denominator(word: &str) -> u32 {
    let word = word.to_ascii_lowercase();
    let stem = word.trim_end_matches('s');
    match stem {
        "half" | "halve" => 2,
        "third" => 3,
        "quarter" | "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "seventh" => 7,
        "eighth" => 8,
        "ninth" => 9,
        "tenth" => 10,
        _ => 100,
    }
}

static LIST_FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(mean|avg|average|sum|total|max|maximum|min|minimum|median|range|count)\s*\(([^()]*)\)",
    )
    .expect("a valid regex")
});

/// A number with its thousands grouped by commas: in threes ("217,500"),
/// or in India's lakhs and crores ("2,17,500", "1,25,00,000").
static THOUSANDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3})\b").expect("a valid regex")
});

static DIGIT_RUN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").expect("a valid regex"));

/// `text` in the calculator's own syntax: words turned into operators,
/// list functions replaced by their values (each argument computed with
/// `evaluate`), thousands separators dropped. `Err` names a list function
/// whose arguments do not compute, or a number with too many digits.
pub fn as_arithmetic(
    text: &str,
    evaluate: impl Fn(&str) -> Result<f64, String>,
) -> Result<String, String> {
    if let Some(run) = DIGIT_RUN.find_iter(text).find(|run| run.len() > MAX_DIGITS) {
        return Err(format!(
            "a number has {} digits; at most {MAX_DIGITS} are read",
            run.len()
        ));
    }
    let text = crate::numbers::hundreds_in_lists(&crate::numbers::letter_signs_named(text.trim()));
    let mut text = crate::numbers::in_digits(&crate::numbers::prices_in_digits(&text));
    text = A_COUPLE_OF.replace_all(&text, "2").into_owned();
    text = THOUSANDS
        .replace_all(&text, |found: &Captures| found[1].replace(',', ""))
        .into_owned();
    text = crate::numbers::with_parts(&text);
    if text.contains(['+', '-']) || PLUS_OR_MINUS.is_match(&text) {
        for _ in 0..2 {
            text = SAID_AS_A_PRICE
                .replace_all(&text, |found: &Captures| {
                    let whole: u32 = found[2].parse().unwrap_or(0);
                    match (11..=20).contains(&whole) {
                        true => found[0].to_string(),
                        false => format!("{}{}.{}{}", &found[1], &found[2], &found[3], &found[4]),
                    }
                })
                .into_owned();
        }
    }
    if LIST_WORD.is_match(&text) || ADD_THESE.is_match(&text) {
        text = DEGREES_AFTER.replace_all(&text, "$1").into_owned();
        text = without_a_unit_after_each(&text);
        // Twice: matches cannot overlap, so "7 then 23" after "19 then 7"
        // is left for the second pass.
        for _ in 0..2 {
            text = THEN_BETWEEN_NUMBERS
                .replace_all(&text, "$1, $2")
                .into_owned();
        }
        text = NUMBERS_IN_A_ROW
            .replace_all(&text, |found: &Captures| {
                found[0].split_whitespace().collect::<Vec<_>>().join(", ")
            })
            .into_owned();
        text = AND_BETWEEN_EACH
            .replace_all(&text, |found: &Captures| found[0].replace(" and ", ", "))
            .into_owned();
    }
    if let Some(asked) = percent_of_the_amount_before(&text) {
        text = asked;
    }
    for money in [&DOLLARS_AND_CENTS, &POUNDS_AND_PENCE] {
        text = money
            .replace_all(&text, |found: &Captures| {
                let cents: u32 = found[2].parse().unwrap_or(0);
                let after = found.get(3).map_or("", |m| m.as_str());
                let weighed =
                    ["ounce", "ounces", "oz", "of"].contains(&after.trim().to_lowercase().as_str());
                match weighed {
                    true => found[0].to_string(),
                    false => format!("{}.{cents:02}{after}", &found[1]),
                }
            })
            .into_owned();
    }
    text = LIST_WITHOUT_COMMAS
        .replace_all(&text, |found: &Captures| {
            let list = found[0].trim().replace(" and ", " ");
            let items: Vec<&str> = list.split_whitespace().collect();
            match items.split_last() {
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => found[0].to_string(),
            }
        })
        .into_owned();
    text = EACH_FOR_THE_PERIOD_ASKED
        .replace(&text, |found: &Captures| {
            match found[2].eq_ignore_ascii_case(&found[4]) {
                true => format!("{}each{}", &found[1], &found[3]),
                false => found[0].to_string(),
            }
        })
        .into_owned();
    if let Some(asked) = coins_by_name(&text)
        .or_else(|| packs_needed(&text))
        .or_else(|| batches_needed(&text))
        .or_else(|| added_to_what_was_had(&text))
        .or_else(|| with_overtime(&text))
        .or_else(|| change_for_items(&text))
        .or_else(|| profit_on_a_pack(&text))
        .or_else(|| price_for_a_profit_on_each(&text))
        .or_else(|| fares_over_weeks(&text))
        .or_else(|| miles_over_weeks(&text))
        .or_else(|| pay_for_hours(&text))
        .or_else(|| profit_on_each_sold(&text))
        .or_else(|| profit_on_many_sold(&text))
        .or_else(|| profit_on_a_lot(&text))
        .or_else(|| percent_named_of(&text))
        .or_else(|| a_shift(&text))
        .or_else(|| dose_by_weight(&text))
        .or_else(|| cost_of_one_use(&text))
        .or_else(|| cost_of_some_of_a_pack(&text))
        .or_else(|| each_in_a_period(&text))
        .or_else(|| fuel_cost(&text))
        .or_else(|| fuel_for_a_distance(&text))
        .or_else(|| how_long_it_lasts(&text))
        .or_else(|| scaled(&text))
        .or_else(|| doses(&text))
        .or_else(|| at_a_rate(&text))
        .or_else(|| at_a_speed(&text))
        .or_else(|| price_per_other_unit(&text))
        .or_else(|| per_amount(&text))
        .or_else(|| how_many_it_takes(&text))
        .or_else(|| over_a_period(&text))
        .or_else(|| paid_off_in_parts(&text))
        .or_else(|| at_the_rate_given(&text))
        .or_else(|| share_of_two(&text))
        .or_else(|| split_between(&text))
        .or_else(|| amounts_for_each(&text))
        .or_else(|| for_the_group(&text))
        .or_else(|| price_of_one(&text))
        .or_else(|| many_at_the_price_of_one(&text))
        .or_else(|| simple_interest(&text))
        .or_else(|| tax_included(&text))
        .or_else(|| tax_on_it(&text))
        .or_else(|| percent_on_a_price(&text))
        .or_else(|| a_cut_of_an_amount(&text))
        .or_else(|| owed_after_payments(&text))
        .or_else(|| what_is_left(&text))
        .or_else(|| takings_less_costs(&text))
    {
        text = match SHARED_WITH_ONE_OTHER.is_match(&text) && !asked.contains('/') {
            true => format!("({asked}) / 2"),
            false => asked,
        };
    }
    if let Some(asked) = ANSWER_TO_THE_BEFORE.captures(&text) {
        let before = asked[1].to_string();
        let first = before.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
        text = before[first..].to_string();
    }
    text = crate::numbers::with_parts(&text);
    text = FRACTION_OF
        .replace_all(&text, |found: &Captures| {
            let parts = found
                .get(1)
                .map_or(Some(1), |n| numerator(n.as_str()))
                .unwrap_or(1);
            let whole = fraction_denominator(&found[2]);
            format!("({parts}/{whole}) *")
        })
        .into_owned();
    text = FRACTION_AS
        .replace_all(&text, |found: &Captures| {
            let parts = numerator(&found[1]).unwrap_or(1);
            let whole = fraction_denominator(&found[2]);
            match found[3].to_ascii_lowercase().as_str() {
                "decimal" => format!("({parts}/{whole})"),
                _ => format!("({parts}/{whole})*100"),
            }
        })
        .into_owned();
    for (pattern, to) in WORDS.iter() {
        text = pattern.replace_all(&text, *to).into_owned();
    }
    loop {
        let sequenced = THEN_ON.replace(&text, "($1) $2");
        if sequenced == text {
            break;
        }
        text = sequenced.into_owned();
    }
    loop {
        let mut failure = None;
        let replaced = LIST_FUNCTION.replace(&text, |found: &Captures| {
            match list_value(&found[1], &found[2], &evaluate) {
                Ok(value) if value < 0.0 => format!("({value})"),
                Ok(value) => format!("{value}"),
                Err(e) => {
                    failure = Some(e);
                    String::new()
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        if replaced == text {
            break;
        }
        text = replaced.into_owned();
    }
    Ok(THOUSANDS
        .replace_all(&text, |found: &Captures| found[1].replace(',', ""))
        .into_owned())
}

/// `68°C`, `70 °F`, `21°`: a temperature's sign after its number.
static DEGREES_AFTER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d)\s*°\s*(?:[CF]\b)?").expect("a valid regex"));

/// `62 grams`: a number and the word after it.
static NUMBER_AND_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+([a-z]+)\b").expect("a valid regex"));

/// `text` without the unit said after each number of a list (`62 grams
/// 58 grams 65 grams and 59 grams` → `62 58 65 and 59`): a word after
/// three numbers or more, dropped after every number.
fn without_a_unit_after_each(text: &str) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for found in NUMBER_AND_WORD.captures_iter(text) {
        let word = found[2].to_lowercase();
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => counts.push((word, 1)),
        }
    }
    let joins = |w: &str| matches!(w, "and" | "or" | "then") || is_operator_word(w);
    let Some((unit, _)) = counts.into_iter().find(|(w, n)| *n >= 3 && !joins(w)) else {
        return text.to_string();
    };
    NUMBER_AND_WORD
        .replace_all(text, |found: &Captures| {
            match found[2].eq_ignore_ascii_case(&unit) {
                true => found[1].to_string(),
                false => found[0].to_string(),
            }
        })
        .into_owned()
}

/// Words after a number that name no thing it counts (`makes 12 and …`).
const NOT_THINGS: &[&str] = &[
    "and", "uses", "use", "needs", "takes", "calls", "requires", "wants", "of", "with", "it", "is",
    "are", "the", "a", "an", "you", "i", "we", "but", "so",
];

/// A run of numbers joined by operators, as said (`18500 - 9750`); not
/// one a reading of a word problem wrote (`4200*(1-15/100)`), which is
/// computed only when it is the whole question.
static COMPUTATION_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-?\d+(?:\.\d+)?(?:\s*[-+*/^]\s*\d+(?:\.\d+)?)+").expect("a valid regex")
});

/// Words that would do something more to a computation said before or
/// after them ("… and then double it").
const MORE_TO_DO: &str = "\
    and then double triple half twice squared cubed percent times plus minus \
    divided over less more each per of by into root power discount off save \
    saving tip tax change left";

/// The computation of `text` (in the calculator's syntax) said among words
/// that add nothing to it, in a language or dialect of their own or as a
/// reason (`oya wetin be 18500 - 9750`, `9600 / 12 berapa ah`): its one run
/// of numbers joined by operators, when the words around hold no other
/// number, sign, function or word of an operation.
pub fn lone_computation(text: &str) -> Option<&str> {
    let mut runs = COMPUTATION_RUN.find_iter(text);
    let (run, None) = (runs.next()?, runs.next()) else {
        return None;
    };
    let around = [&text[..run.start()], &text[run.end()..]];
    if around.iter().any(|t| t.contains(['(', ')', '%'])) {
        return None;
    }
    let said_only_words = around
        .iter()
        .flat_map(|t| t.split_whitespace())
        .all(|word| {
            let word = word
                .trim_matches(|c: char| matches!(c, ',' | '.' | '?' | '!'))
                .to_lowercase();
            !word.is_empty()
                && word.chars().all(|c| c.is_alphabetic() || c == '\'')
                && !super::FUNCTIONS.contains(&word.as_str())
                && !["pi", "e", "tau"].contains(&word.as_str())
                && !MORE_TO_DO.split_whitespace().any(|w| w == word)
        });
    said_only_words.then_some(run.as_str())
}

/// A list of numbers (`112.40, 87.65 and 63.20`).
static NUMBER_LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d+(?:\.\d+)?(?:\s*(?:,\s*and|,|and)\s*\d+(?:\.\d+)?)+").expect("a valid regex")
});

/// The list function `text` names for a list: a total, a mean or a
/// median.
fn list_function(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let has = |w: &str| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
    if has("median") {
        Some("median")
    } else if has("average") || has("mean") {
        Some("mean")
    } else if has("total")
        || has("sum")
        || lower.contains("add up")
        || has("altogether")
        || ADD_THESE.is_match(&lower)
    {
        Some("sum")
    } else {
        None
    }
}

/// The list of `text` (in the calculator's syntax) said with words around
/// it that name what it is (`total of the kai bills for the week 112.40,
/// 87.65, 63.20`): its one list of numbers in the function the words name
/// (a total, a mean, a median), when no other number is said.
pub fn lone_list(text: &str) -> Option<String> {
    let mut lists = NUMBER_LIST.find_iter(text);
    let (list, None) = (lists.next()?, lists.next()) else {
        return None;
    };
    let around = format!("{} {}", &text[..list.start()], &text[list.end()..]);
    if around.contains(|c: char| c.is_ascii_digit() || "+-*/^%(".contains(c)) {
        return None;
    }
    let function = list_function(&around)?;
    let items: Vec<&str> = NUMBER
        .find_iter(list.as_str())
        .map(|n| n.as_str())
        .collect();
    Some(format!("{function}({})", items.join(", ")))
}

/// `a couple of`, `a pair of`: two.
static A_COUPLE_OF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\ba\s+(?:couple|pair)\s+of\b").expect("a valid regex"));

/// A number as written in digits, with its decimals.
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d+(?:\.\d+)?").expect("a valid regex"));

/// The value of `name(arguments)` for a list function.
fn list_value(
    name: &str,
    arguments: &str,
    evaluate: &impl Fn(&str) -> Result<f64, String>,
) -> Result<f64, String> {
    let values = arguments
        .split([',', ';'])
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(evaluate)
        .collect::<Result<Vec<f64>, String>>()?;
    if values.is_empty() {
        return Err(format!("{name}() needs at least one number"));
    }
    let n = values.len() as f64;
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    let (least, most) = (sorted[0], sorted[sorted.len() - 1]);
    Ok(match name.to_ascii_lowercase().as_str() {
        "sum" | "total" => values.iter().sum(),
        "max" | "maximum" => most,
        "min" | "minimum" => least,
        "range" => most - least,
        "count" => n,
        "median" => {
            let middle = sorted.len() / 2;
            if sorted.len() % 2 == 1 {
                sorted[middle]
            } else {
                (sorted[middle - 1] + sorted[middle]) / 2.0
            }
        }
        _ => values.iter().sum::<f64>() / n,
    })
}

#[cfg(test)]
mod tests;

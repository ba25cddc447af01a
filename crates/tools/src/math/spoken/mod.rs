//! What small models hand the calculator, read as arithmetic: numbers in
//! words (`fifteen percent of eighty`), words for
//! operators (`17 times 23`, `5 squared`, `square root of 169`, `half of
//! 350`), list functions (`mean(4, 8, 15)`, `sum`, `max`, `median`),
//! thousands separators and currency signs. A conversion written as an
//! expression (`3 m in ft`) is recognised so the caller can hand it on.
//!
//! Conversions asked in words are read in `units`, word problems that
//! come down to one sum (a tip, a recipe scaled, a bill split) in
//! `word_problems`; the word rewrites and the arithmetic they feed are here.

mod units;
mod word_problems;
mod work_and_travel;

pub use units::{conversion, converted, Conversion};
use word_problems::*;
use work_and_travel::*;

use regex::{Captures, Regex};
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

/// A sound or word said before a question (`um`, `okay`, `quick one`),
/// as a regex alternation.
const FILLER: &str = r"(?:um+|uh+|erm|okay|ok|so|hey|right|quick\s+one)";

/// `value` as it is said: at most two decimals (three significant digits
/// below 0.01), no trailing zeros.
pub fn number(value: f64) -> String {
    let rounded = if value != 0.0 && value.abs() < 0.01 {
        super::round_significant(value, 3)
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

/// Word rewrites, applied in order (case-insensitive).
static WORDS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"(?i)^\s*(?:(?:u+m+|e+r+m*|u+h+|h+m+|righto|right|alright|so|like|okay|ok|hey|yo|well|now|wait|hang\s+on|gimme|give\s+me|tell\s+me|(?:a\s+)?quick\s+(?:one|question|sum))\b[\s,.:]*)+",
            "",
        ),
        (
            r"(?i)^\s*(?:(?:a\s+)?quick\s+(?:one|question|sum)|hey|ok(?:ay)?|so|right|um|uh|question|sige|sasa)\s*[:,.!-]?\s+((?:what|how)[a-z']*)",
            "$1",
        ),
        (r"(?i)\s+po\s*([.?!]?)\s*$", "$1"),
        // "What a 17 times 23": speech recognition's "what's".
        (
            r"(?i)^\s*(what\s+is|what's|whats|what\s+a|what\s+be|how\s+much\s+(?:is|be)|calculate|compute|work\s+out)\s+",
            "",
        ),
        (r"(?i)^\s*what\s+(-?\d)", "$1"),
        // "can you times 265 by 12 for me", "what do you get if you times
        // 574 by 19".
        (
            r"(?i)^[^\d]*?\b(?:times|multiply)\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)(?:\s+for\s+me)?(?:\s+please)?\s*[?.!]?\s*$",
            "$1 * $2",
        ),
        // "we had 47 of our 60 rooms booked, what percent occupancy is that".
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:out\s+)?of\s+(?:our|the|my|their|his|her|all)?\s*(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+(?:%|percent(?:age)?)\b[^\d]*$",
            "($1)/($2)*100",
        ),
        // Notes and sums by their names: "a score plus a tenner plus three fivers".
        (r"(?i)\b(\d+)\s+fivers\b", "($1*5)"),
        (r"(?i)\b(\d+)\s+tenners\b", "($1*10)"),
        (r"(?i)\b(\d+)\s+twenties\b", "($1*20)"),
        (r"(?i)\b(\d+)\s+fifties\b", "($1*50)"),
        (r"(?i)\b(?:a|one)\s+fiver\b", "5"),
        (r"(?i)\b(?:a|one)\s+tenner\b", "10"),
        (r"(?i)\b(?:a|one)\s+score\s+(plus|and|minus|add)\b", "20 $1"),
        (r"(?i)\b(?:a|one)\s+pony\b", "25"),
        (r"(?i)\b(?:a|one)\s+monkey\b", "500"),
        // Pence written on the number: "151.9p".
        (r"(?i)\b(\d+(?:\.\d+)?)p\b", "$1"),
        // "gave me 60 for a 43.60 fare, how much change".
        (
            r"(?i)^[^\d(]*?\b(?:gave|paid|handed|give|pay)\s+(?:me\s+|him\s+|her\s+|them\s+)?(?:with\s+)?(?:a\s+)?[SIGNS]?(\d+(?:\.\d+)?|\(\d+\*\d+\))\s+(?:[a-z]+\s+){0,3}?(?:for|on)\s+(?:a\s+|the\s+|an\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$",
            "$1 - $2",
        ),
        // "A pint is 5.80. How much for a round of 9?"
        (
            r"(?i)^\s*(?:an?|one|each)\s+[a-z0-9' -]+?\s+(?:is|costs?)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bhow\s+much\s+(?:is\s+it\s+|would\s+it\s+be\s+|will\s+it\s+be\s+)?for\s+(?:a|the|my)\s+(?:round|family|group|party|table|team|class|crew)\s+of\s+(\d+)\b[^\d]*$",
            "$2 * $1",
        ),
        (r"(?i)^\s*take\s+([SIGNS]?\d)", "$1"),
        (r"(?i)\bwith\s+the\s+(\d+(?:\.\d+)?\s*(?:%|percent))", "with $1"),
        // "the 8.875% NYC sales tax", "a 6% state tax".
        (
            r"(?i)(\d\s*(?:%|percent))\s+(?:(?-i:[A-Z]{2,5})|state|city|local|county)\s+((?:sales\s+)?tax|vat|gst|gct|hst|pst)\b",
            "$1 $2",
        ),
        // "Split $186.40 evenly 8 ways", "split 90 between the 3 of us",
        // "share out 5625 by 15 for me".
        (
            r"(?i)^[^\d]*?\b(?:split|divide|share)\s+(?:out\s+|up\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s+(?:(?:up|evenly|equally)\s+)*(?:(\d+)\s+ways|(?:between|among|amongst|by|into)\s+(?:the\s+)?(\d+)(?:\s+[a-z]+){0,2})\b[^\d]*$",
            "$1 / $2$3",
        ),
        // "take 3846 away from 11000".
        (
            r"(?i)^\s*(?:take\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s+away\s+from\s+[SIGNS]?(\d+(?:\.\d+)?)\s*[?.!]?\s*$",
            "$2 - $1",
        ),
        // "lunch came to 312 cedis for 4 of us, how much each person".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bfor\s+(?:the\s+|all\s+)?(\d+)\s+of\s+us\b[^\d]*?\bhow\s+much\s+(?:is\s+(?:that|it)\s+|do\s+we\s+(?:pay|owe)\s+|does\s+)?(?:each|per\s+person|a\s+head|per\s+head|a\s+person|everyone|every\s+one)\b(?:\s+(?:person|one|pay|owe))?\s*[?.!]?\s*$",
            "$1 / $2",
        ),
        // "9600 divided up 32 ways", "8316 shared between 36".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,2}?(?:divided|split|shared)\s+(?:(?:up|out|evenly|equally)\s+)*(?:(?:by\s+|into\s+)?(\d+)\s+ways|(?:between|among|amongst)\s+(?:the\s+)?(\d+)(?:\s+[a-z]+){0,2})\b[^\d]*$",
            "$1 / $2$3",
        ),
        // "3 yards at 8200 a yard and she gave me 30000, how much change".
        (
            r"(?i)^.*?\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){1,3}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per|each)\b[^\d]*?\b(?:gave|give|paid|pay|handed|hand)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$",
            "$3 - $1*$2",
        ),
        // "it came to 37.84 and I gave him a 100 dollar bill, how much change".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:gave|give|paid|pay|handed|hand)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$",
            "$2 - $1",
        ),
        // "rent is 950 a month and i make 2500 a month, what percent of my pay goes to rent".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:i|we)\s+(?:make|earn|take\s+home|bring\s+home|get\s+paid)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+(?:percent|percentage|%)\s+of\s+(?:my|our)\s+(?:pay|income|salary|wages?|paycheck|earnings)\b[^\d]*$",
            "$1/$2*100",
        ),
        // "fees are 185000 a term for each of my 2 children. I have paid 250000. How much do I still owe?"
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bfor\s+each\s+of\s+(?:my|our|the|his|her|their)\s+(\d+)\s+[a-z]+\b[^\d]*?\b(?:paid|given|sent|put\s+down)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\b(?:owe|left\s+to\s+pay|remaining|outstanding|balance)\b[^\d]*$",
            "$1*$2 - $3",
        ),
        // "rent is 3450 and utilities are 165, both split evenly 3 ways, what's my share".
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b.*?\band\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:both|all|together|combined)\s+(?:split|divided|shared)\s+(?:(?:evenly|equally)\s+)?(?:(\d+)\s+ways|(?:between|among)\s+(?:the\s+)?(\d+)(?:\s+of\s+us)?)\b[^\d]*$",
            "($1+$2)/$3$4",
        ),
        // "My check is $2,150 and $645 of it goes to the truck. What percent is that?"
        (
            r"(?i)^[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\s+of\s+(?:it|that|this|them|those)\b[^\d]*\bwhat\s+(?:percent|percentage|%)[^\d]*$",
            "$2/$1*100",
        ),
        (r"(?i)\badd\s+up\s+(?:all\s+)?(?:of\s+)?(my|our|the|these|his|her|their)\b", "total of $1"),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:plus|with|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:sales\s+)?(?:tax|vat|gst|gct|hst|tip|gratuity|service(?:\s+charge)?)\b[^\d]*?\b(?:split|divided|shared)\s+(?:(\d+)\s+ways|(?:between|among)\s+(?:the\s+)?(\d+)(?:\s+of\s+us)?)\b[^\d]*$",
            "$1*(1+$2/100)/$3$4",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+[a-z]+\b[^\d]*?\beach(?:\s+(?:1|one))?\s+(?:takes|needs|uses|gets|holds|weighs|costs)\s+(\d+(?:\.\d+)?)\b[^\d]*\bhow\s+(?:much|many)\b[^\d]*$",
            "$1 * $2",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+hours?\b[^\d]*?\band\s+(\d+(?:\.\d+)?)\s+hours?\b[^\d]*?\bat\s+(\d+(?:\.\d+)?)\s+(?:an?|per)\s+hour\b[^\d]*\bhow\s+much\b[^\d]*$",
            "($1+$2)*$3",
        ),
        (r"(?i)\s+(?:is|equals|makes|comes\s+to)\s+what\s*\??\s*$", ""),
        (
            r"(?i)(\d|\))(?:\s+(?:CURRENCIES))?[,\s]+(?:how\s+much\s+is\s+(?:that|it)|what(?:'s|s|\s+is)\s+that|what\s+do(?:es)?\s+(?:i|you|we|that|it)\s+(?:get|come\s+to|make))(?:\s+(?:then|altogether|in\s+all|all\s+together))?\s*[?.!]?\s*$",
            "$1",
        ),
        (r"(?i)[,\s]+go\s+on(?:\s+then)?\s*[.!?]?\s*$", ""),
        (r"(?i)[,\s]*\bplease\s*[.!?]?\s*$", ""),
        (r"(\d|\))\s*[xX]\s*(\d|\()", "$1 * $2"),
        (r"(?i)^\s*(?:the|a|an)\s+", ""),
        (
            r"(?i)^\s*(?:which(?:\s+one)?\s+is\s+)?(?:the\s+)?(biggest|largest|highest|greatest|smallest|lowest)(?:\s+(?:number|one|value))?\s*[:,]\s*",
            "$1 of ",
        ),
        (r"[SIGNS](\d)", "$1"),
        (r"(?i)(\d)\s+(?:CURRENCIES)\b", "$1"),
        (
            r"(?i)\b(average|mean|median|sum|total|range)\s+of\s+(?:my|our|the|these|his|her|their)\s+(?:[a-z']+\s+){0,3}?((?:-?[\d.]+(?:\s*,\s*|\s*,?\s+and\s+))+-?[\d.]+)(?:\s+[a-z]+){0,4}\s*[.?]?\s*$",
            "$1($2)",
        ),
        (
            r"(?i)\b(average|mean|median|sum|total|range)\s+of\s+(?:my|our|the|these|his|her|their)\s+(?:[a-z'\d]+\s+){0,5}?[a-z']+\s*[:,]\s*(-?\d)",
            "$1 of $2",
        ),
        (
            r"(?i)\b(average|mean|median|sum|total|range|biggest|largest|highest|greatest|maximum|max|smallest|lowest|minimum|min)\s+(?:number\s+|value\s+)?(?:of\s+|in\s+|among\s+|these:?\s*|of\s+these:?\s*)((?:-?[\d.]+\s*(?:,|and|or|,\s*(?:and|or))?\s*)+?)\s*[.?]?\s*$",
            "$1($2)",
        ),
        (
            r"(?i)^.*?\b((?:-?[\d.]+\s*,\s*)+-?[\d.]+\s*(?:,?\s*and\s+|,\s*)-?[\d.]+)\b.*?\b(average|mean|median|total|sum|range)\b.*$",
            "$2($1)",
        ),
        (r"[?SIGNS]", ""),
        (r"(?i)\bRs\.?\s*(\d)", "$1"),
        (r"\.\s*$", ""),
        (r"(?i)\s*\b(CURRENCIES|cents)\b", ""),
        (r"(?i)^\s*what\s+percent(?:age)?\s+is\s+(.+?)\s+(?:of|out\s+of)\s+(.+?)\s*$", "($1)/($2)*100"),
        (
            r"(?i)^[^\d]*?\bhow\s+many\s+times\s+(?:does|do|will|can|would)\s+(-?[\d.,]*\d)\s+go\s+into\s+(-?[\d.,]*\d)\s*$",
            "$2 / $1",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*\bhow\s+much\s+(?:does\s+that\s+knock\s+off|(?:do|did|will|would|can|could)\s+(?:we|i|you|they)\s+save)\s*$",
            "$1*$2/100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?(\d+(?:\.\d+)?)[^\d]*\bhow\s+much\s+(?:does\s+that\s+knock\s+off|(?:do|did|will|would|can|could)\s+(?:we|i|you|they)\s+save)\s*$",
            "$2*$1/100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*\bhow\s+much\s+(?:do|did|will|would|can|could)\s+(?:we|i|you|they)\s+save\s+on\s+(?:an?\s+|the\s+|my\s+|our\s+)?(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*$1/100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\b[^\d]*?\b(\d+(?:\.\d+)?)\b[^\d]*\b(?:what(?:'s|s|\s+is)\s+)?(?:the\s+)?percent(?:age)?\s+(?:drop|fall|decrease|increase|rise|change)\s*$",
            "abs($2-$1)/$1*100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?(?:a|per|each|every)\s+(?:day|week|month|night)\b[^\d]*\bhow\s+many\s+(?:days|weeks|months|nights)\s+(?:will|would|does|do|can)\s+(?:the\s+|my\s+|our\s+)?(\d+(?:\.\d+)?)\b[^\d]*\blast\s*$",
            "$2 / $1",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)[^\d]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*\b(?:what|how\s+much)\s+(?:do|will|would|does|did|should)\s+(?:i|we|you|it|they)\s+(?:pay|cost|come\s+to)\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\b(?:what(?:'s|\s+is|\s+does)|how\s+much\s+(?:is|does))\s+(?:an?\s+|the\s+|my\s+)?(\d+(?:\.\d+)?)(?:\s+[a-z]+){0,3}?(?:\s+(?:now|cost|come\s+to|then))?\s*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)^[^\d]*\bfrom\s+(\d+(?:\.\d+)?)\b[^\d]*?\bto\s+(\d+(?:\.\d+)?)\b[^\d]*\bpercent(?:age)?\s+(?:increase|decrease|rise|drop|change|difference)(?:\s+is\s+(?:that|it))?\s*$",
            "abs($2-$1)/$1*100",
        ),
        (
            r"(?i)^[^\d]*\bfrom\s+(\d+(?:\.\d+)?)\b[^\d]*?\bto\s+(\d+(?:\.\d+)?)\b[^\d]*\b(?:by\s+)?(?:what|how\s+many)\s+(?:%|percent(?:age)?)\s+(?:did|has|have|does|do|is|was)\s+(?:it|that|they|the\s+[a-z]+|prices?)\s+(?:go(?:ne)?\s+(?:up|down)|ris(?:e|en)|increased?|drop(?:ped)?|f[ae]ll(?:en)?|changed?)(?:\s+by)?\s*$",
            "abs($2-$1)/$1*100",
        ),
        (
            r"(?i)^[^\d]*?\b(?:go(?:es|ing)?\s+up|went\s+up|ris(?:es|ing)|rose|increas(?:es|ed|ing)|put\s+up|goes\s+up)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:from|on)\s+(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1+$1/100)",
        ),
        (
            r"(?i)^[^\d]*?\b(?:go(?:es|ing)?\s+down|went\s+down|fall(?:s|ing)?|fell|drop(?:s|ped|ping)?|decreas(?:es|ed|ing)|cut)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:from|on)\s+(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:with|plus|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:(?:sales\s+)?tax|vat|gst|gct|hst|tip|gratuity|service(?:\s+charge)?|delivery(?:\s+charge)?)(?:\s+(?:on\s+top|added(?:\s+on)?|included|on))?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:less|minus|with)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:off|discount)\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?plus\s+(?:vat|tax)\s+at\s+(\d+(?:\.\d+)?)\s*(?:%|percent)[^\d]*\b(?:total|altogether|all\s+in|in\s+all|comes?\s+to|pay)\b[^\d]*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?plus\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|service(?:\s+charge)?|tip)\b[^\d]*\b(?:total|altogether|all\s+in|in\s+all|comes?\s+to|pay)\b[^\d]*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*\b(?:vat|tax|tip|gratuity)\s+on\s+(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?at\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*$",
            "$1*$2/100",
        ),
        (
            r"(?i)\b(including|inclusive\s+of|with|inc)\s+((?:sales\s+)?tax|vat|gst|gct|hst|pst|iva|tva)\s+(?:at|of)\s+(\d+(?:\.\d+)?)\s*(%|percent)",
            "$1 $3$4 $2",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:including|inclusive\s+of|with|inc)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|iva|tva|gst|gct|hst|pst)\b[^\d]*\bbefore\s+(?:the\s+)?(?:vat|tax|iva|tva|gst|gct|hst|pst)\s*$",
            "$1/(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?of\s+(?:the|our|my|a|an)\s+(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\s+(?:is\s+that|is\s+it|(?:have|has)\s+(?:we|i|you|they|he|she)\s+(?:done|covered|used|had))\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:including|inclusive\s+of|with|inc)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|iva|tva|gst|gct|hst|pst)\b[^\d]*\bhow\s+much\b[^\d]*?(?:\d+(?:\.\d+)?[^\d]*?)?\b(?:was|is)\s+(?:the\s+)?(?:vat|tax|iva|tva|gst|gct|hst|pst)\s*$",
            "$1-$1/(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*\b(?:vat|tax|iva|tva|gst)\b[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)[^\d]*?(\d+(?:\.\d+)?)[^\d]*\bwith\s+(?:the\s+)?(?:vat|tax|iva|tva|gst)\s*$",
            "$2*(1+$1/100)",
        ),
        (
            r"(?i)^[^\d]*(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,5}?out\s+of\s+(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\s+(?:is\s+that|is\s+it|did\s+(?:i|you|we|he|she|they)\s+get)\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^\s*what\s+percent(?:age)?\s+of\s+(-?\d+(?:\.\d+)?)\s+is\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "($2)/($1)*100",
        ),
        (
            r"(?i)^\s*(-?\d+(?:\.\d+)?)\s+is\s+what\s+percent(?:age)?\s+of\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^\s*multiply\s+(-?\d+(?:\.\d+)?)\s+(?:by|and|with|times)\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 * $2",
        ),
        (
            r"(?i)^\s*divide\s+(-?\d+(?:\.\d+)?)\s+(?:by|into)\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 / $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?divide\s+(?:it\s+|that\s+)?by\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 / $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?(?:multiply|times)\s+(?:it\s+|that\s+)?by\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 * $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?add\s+(-?\d+(?:\.\d+)?)(?:\s+to\s+(?:it|that))?\s*\.?\s*$",
            "$1 + $2",
        ),
        (
            r"(?i)^\s*(?:(?:if|when)\s+(?:you|i|we)\s+)?(?:take\s+)?(-?\d+(?:\.\d+)?)\s+and\s+(?:then\s+)?(?:subtract|take\s+away|take\s+off)\s+(-?\d+(?:\.\d+)?)(?:\s+from\s+(?:it|that))?\s*\.?\s*$",
            "$1 - $2",
        ),
        (
            r"(?i)^\s*(?:(?:what\s+do\s+(?:you|i|we)\s+get|what's\s+left)\s+(?:if|when)\s+(?:you|i|we)\s+)?(?:subtract|take(?:\s+away)?)\s+(-?[\d,]*\d(?:\.\d+)?)\s+(?:away\s+)?from\s+(-?[\d,]*\d(?:\.\d+)?)\s*\.?\s*$",
            "$2 - $1",
        ),
        (
            r"(?i)^\s*add\s+(-?\d+(?:\.\d+)?)\s+to\s+(-?\d+(?:\.\d+)?)\s*\.?\s*$",
            "$1 + $2",
        ),
        (
            r"(?i)^\s*(?:split|divide|share)\s+(?:the\s+bill\s+of\s+)?(\d+(?:\.\d+)?)\s+(\d+)\s+ways\s*\.?\s*$",
            "$1 / $2",
        ),
        // "out of 800 doubles 120 was with no pepper that is what percentage".
        (
            r"(?i)^[^\d]*\bout\s+of\s+(\d+(?:\.\d+)?)\s+(?:[a-z']+\s+){0,3}?(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\b[^\d]*$",
            "($2)/($1)*100",
        ),
        (
            r"(?i)^\s*(?:split|divide|share)\s+(?:the\s+bill\s+of\s+)?(\d+(?:\.\d+)?)\s+(?:between|among|amongst)\s+(\d+)(?:\s+(?:people|persons|friends|of\s+us))?\s*\.?\s*$",
            "$1 / $2",
        ),
        (
            r"(?i)^\s*(?:increase|raise)\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:increased|raised|marked\s+up)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*(?:decrease|reduce|lower|discount)\s+(\d+(?:\.\d+)?)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:decreased|reduced|lowered|discounted|marked\s+down)\s+by\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s*\.?\s*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^\s*(?:if\s+)?(?:a|an|the|my)?\s*(\d+(?:\.\d+)?)(?:\s+[a-z]+){0,3}\s+(?:is|are|was)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*$",
            "$1*(1-$2/100)",
        ),
        (
            r"(?i)^\s*(?:an?|the|my)?\s*(\d+(?:\.\d+)?)(?:\s+[a-z]+){0,3}\s+(?:with|plus|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:tip|tax|gratuity|service\s+charge)\s*,?\s*(?:comes\s+to\s+how\s+much|is\s+how\s+much|(?:what(?:s|\s+is)\s+)?(?:the\s+)?total|how\s+much\s+(?:in\s+total|altogether|is\s+that|do\s+i\s+pay))\s*\.?\s*$",
            "$1*(1+$2/100)",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+(?:the\s+nearest\s+)?(\d+)\s+decimals?(?:\s+places?)?\s*\.?\s*$",
            "round($1*10^$2)/10^$2",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+(?:to\s+the\s+nearest\s+(?:whole\s+number|integer|1|unit)|to\s+a\s+whole\s+number)\s*\.?\s*$",
            "round($1)",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+the\s+nearest\s+(10|100|1000)\s*\.?\s*$",
            "round($1/$2)*$2",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+the\s+nearest\s+hundred\s*\.?\s*$",
            "round($1/100)*100",
        ),
        (
            r"(?i)^\s*round\s+(-?\d+(?:\.\d+)?)\s+to\s+the\s+nearest\s+thousand\s*\.?\s*$",
            "round($1/1000)*1000",
        ),
        (r"(?i)\b(\d+)\s+factorial\b", "factorial($1)"),
        (r"(?i)\bfactorial\s+of\s+(\d+)\b", "factorial($1)"),
        (r"(\d+)\s*!(\s|$)", "factorial($1)$2"),
        (
            r"(?i)^\s*(?:add|sum)(?:\s+(?:these|those|them|all\s+(?:of\s+)?(?:these|this|those)))?(?:\s+(?:up|together))?(?:\s+for\s+me)?\s*:?\s+(.+)$",
            "sum($1)",
        ),
        (r"(?i)^\s*what\s+(?:do|does|would)\s+(.+?)\s+add\s+up\s+to\s*$", "sum($1)"),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:and\s+)?(?:it'?s|it\s+is|they'?re|they\s+are|is|are)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\b(?:sale\s+price|price|cost|what\s+(?:is|does|do)\s+(?:it|that|they)\s+(?:come\s+to|cost))\s*$",
            "$1*(1-$2/100)",
        ),
        // "20 percent off at the merchant this week, how much would a 389 dollar drill come to"
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\b(?:how\s+much|what)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:come\s+to|cost|be|set\s+me\s+back)\s*$",
            "$2*(1-$1/100)",
        ),
        // "15 percent off for nhs staff, how much do they pay for a 72 pound colour".
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+off\b[^\d]*?\bhow\s+much\s+(?:do|does|will|would|should)\s+(?:i|we|you|they|he|she)\s+pay\s+for\s+(?:an?\s+|the\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1-$1/100)",
        ),
        // "20% off €12.50 for the last of the crab meat".
        (
            r"(?i)^[^\d]*?([\d.]+)\s*(?:%|percent)\s+off\s+(?:an?\s+|the\s+)?([\d.]+)\s+(?:for|on)\s+[^\d]*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)([\d.]+)\s*(?:%|percent)\s+off\s+(?:an?\s+|the\s+)?([\d.]+)(?:\s+[a-z]+){1,2}\s*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)([\d.]+)\s*%\s*off\s+(?:an?\s+|the\s+)?([\d.]+)",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)([\d.]+)\s+percent\s+off\s+(?:an?\s+|the\s+)?([\d.]+)",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:tip|(?:sales\s+)?tax|vat|gst|gct|hst|pst|iva|gratuity|service\s+charge|discount|deposit)\s+on\s+(?:(?:a|an|the|my|our)\s+)?(?:[a-z]+\s+){0,2}?(?:of\s+)?(\d+(?:\.\d+)?)(?:\s+(?:pounds?|quid|dollars?|euros?)\b)?(?:(?:\s+[a-z]+){1,3}\s*$)?",
            "$1% of $2",
        ),
        (r"(?i)\b(?:tip|(?:sales\s+)?tax|vat|gst|gct|hst|pst|discount)\s+on\b", "of"),
        (r"(?i)(\d)\s*(%|percent)\s+on\b", "$1 $2 of"),
        (r"(?i)([\d.]+)\s*(?:million)\b", "$1*1000000"),
        (r"(?i)([\d.]+)\s*(?:thousand)\b", "$1*1000"),
        (r"(?i)([\d.]+)\s*(?:billion)\b", "$1*1000000000"),
        (r"(?i)([\d.]+)\s*(?:lakhs?|lacs?)\b", "$1*100000"),
        (r"(?i)([\d.]+)\s*(?:crores?)\b", "$1*10000000"),
        (
            r"(?i)^[^\d]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+(\d+(?:\.\d+)?)\s+[a-z][^\d]*$",
            "$1% of $2",
        ),
        (r"(\d)\s*,?\s+and\s+(\d)", "$1, $2"),
        (r"(\d)\s*,?\s+or\s+(\d)", "$1, $2"),
        (r"(?i)\b(?:biggest|largest|highest|greatest)\s*\(", "max("),
        (r"(?i)\b(?:smallest|lowest)\s*\(", "min("),
        (r"(?i)\bsquare\s+root\s+of\s+(-?[\d.]+)", "sqrt($1)"),
        (r"(?i)\bsqrt\s+(-?[\d.]+)", "sqrt($1)"),
        (r"(?i)\bcube\s+root\s+of\s+(-?[\d.]+)", "($1)^(1/3)"),
        (r"(?i)([\d.]+|\))\s*squared\b", "$1^2"),
        (r"(?i)([\d.]+)\s+square\s*$", "$1^2"),
        (r"(?i)([\d.]+|\))\s*cubed\b", "$1^3"),
        (r"²", "^2"),
        (r"³", "^3"),
        (r"(?i)\bto\s+the\s+(\d+)(?:st|nd|rd|th)?(?:\s+power)?\b", "^$1"),
        (r"(?i)\bto\s+the\s+second(?:\s+power)?\b", "^2"),
        (r"(?i)\bto\s+the\s+third(?:\s+power)?\b", "^3"),
        (r"(?i)\bto\s+the\s+fourth(?:\s+power)?\b", "^4"),
        (r"(?i)\bto\s+the\s+fifth(?:\s+power)?\b", "^5"),
        (r"(?i)\bto\s+the\s+sixth(?:\s+power)?\b", "^6"),
        (r"(?i)\b(?:to\s+the\s+power\s+of|raised\s+to(?:\s+the\s+power\s+of)?)\b", "^"),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:an?|per)\s+[a-z]+\s+(?:times|multiplied\s+by|x)\s+(\d+(?:\.\d+)?)(?:\s+[a-z]+)?\s*$",
            "$1 * $2",
        ),
        (r"(?i)(\d)\s+lots\s+of\s+([SIGNS]?\d)", "$1 * $2"),
        (r"(?i)\b(?:multiplied\s+by|times)\b", "*"),
        (r"(\d)\s+[xX]\s+(\d)", "$1 * $2"),
        (r"(?i)\b(?:divided\s+by|over)\b", "/"),
        (r"(?i)\bplus\b", "+"),
        (r"(?i)\bminus\b", "-"),
        (r"(?i)\btake\s+away\b", "-"),
        (r"(?i)\bpercent\b", "%"),
        (r"(?i)\bdouble\b", "2 *"),
        (r"(?i)\btriple\b", "3 *"),
        // Last, with the operators in signs: "sebo please whats 4750 * 18": words before a bare computation.
        (
            r"(?i)^\s*(?:[a-z']+[\s,]+){1,2}(?:what(?:'s|s|\s+is)|how\s+much\s+is)\s+(\(*-?\d[\d\s.+\-*/^()]*)\s*[?.!]?\s*$",
            "$1",
        ),
        // "quick sum for ya 486 * 24": a few words before a product, sum or
        // quotient said in words (a hyphen may be a range of years).
        (
            r"(?i)^\s*(?:[a-z']+[\s,]+){1,5}(\d+(?:\.\d+)?\s*[*/+]\s*\d+(?:\.\d+)?)\s*[?.!]?\s*$",
            "$1",
        ),
    ]
    .into_iter()
    .map(|(pattern, to)| {
        let pattern = crate::numbers::with_currencies(pattern);
        (Regex::new(&pattern).expect("a valid regex"), to)
    })
    .collect()
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

/// `12 9 15 7 11`: a list said with no word or comma between its
/// numbers, three or more of them.
static NUMBERS_IN_A_ROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d+(?:\.\d+)?(?:\s+\d+(?:\.\d+)?){2,}\b").expect("a valid regex")
});

/// `98 then 125 then 89`: a list said one number after another.
static THEN_BETWEEN_NUMBERS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(\d)\s*,?\s+(?:and\s+)?then\s+(\d)").expect("a valid regex"));

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
    if LIST_WORD.is_match(&text) {
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
        .or_else(|| added_to_what_was_had(&text))
        .or_else(|| with_overtime(&text))
        .or_else(|| change_for_items(&text))
        .or_else(|| profit_on_a_pack(&text))
        .or_else(|| price_for_a_profit_on_each(&text))
        .or_else(|| fares_over_weeks(&text))
        .or_else(|| pay_for_hours(&text))
        .or_else(|| profit_on_each_sold(&text))
        .or_else(|| profit_on_many_sold(&text))
        .or_else(|| percent_named_of(&text))
        .or_else(|| a_shift(&text))
        .or_else(|| dose_by_weight(&text))
        .or_else(|| cost_of_one_use(&text))
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

//! What small models hand the calculator, read as arithmetic: numbers in
//! words (`fifteen percent of eighty`), words for
//! operators (`17 times 23`, `5 squared`, `square root of 169`, `half of
//! 350`), list functions (`mean(4, 8, 15)`, `sum`, `max`, `median`),
//! thousands separators and currency signs. A conversion written as an
//! expression (`3 m in ft`) is recognised so the caller can hand it on.

use regex::{Captures, Regex};
use std::sync::LazyLock;

/// Longest run of digits a number in an expression may have.
pub const MAX_DIGITS: usize = 15;

/// A conversion written as an expression: `3 m in ft`, `26.2 miles to km`.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The amount.
    pub value: f64,
    /// The unit it is in.
    pub from: String,
    /// The unit wanted.
    pub to: String,
}

/// What a question about an amount starts with: dropped before reading it.
static QUESTION_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:(?:what|how\s+much|how\s+tall|how\s+far|how\s+long|how\s+heavy|how\s+big)\s+(?:is|are)|what's|convert|change|turn)\s+",
    )
    .expect("a valid regex")
});

/// `a 15K race`, `a 5k run`: kilometers.
static RACE_K: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*k\s+(race|run|walk|fun run)\b").expect("a valid regex")
});

/// `an hour and a half`, `a cup and a half`, `a pound and a quarter`,
/// `a mile and three quarters`: one of the unit and a part of another.
static ONE_AND_A_HALF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|an|one)\s+([a-z]+)\s+and\s+(a|three)\s+(half|quarters?)\b")
        .expect("a valid regex")
});

/// A unit's name for more than one of it: `foot` → `feet`, `hour` → `hours`.
fn plural_unit(unit: &str) -> String {
    match unit.to_lowercase().as_str() {
        "foot" => "feet".into(),
        "inch" => "inches".into(),
        lower if lower.ends_with('s') => unit.to_string(),
        _ => format!("{unit}s"),
    }
}

/// An amount that is a fraction of a unit: `a quarter cup`, `three
/// quarters of a cup`, `a third of a mile`.
/// `3/4 of a cup`, `1/2 cup`: a fraction written with a slash.
static SLASH_FRACTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)/(\d+)\s+(?:of\s+(?:a|an)\s+)?").expect("a valid regex")
});

static FRACTION_AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:({PARTS})\s+)({FRACTION})\s+(?:of\s+(?:a|an)\s+)?"
    ))
    .expect("a valid regex")
});

/// How many parts a fraction takes, as said or written: `a`, `three`, `3`
/// ([`numerator`] reads it).
const PARTS: &str = r"a|an|one|two|three|four|five|six|seven|eight|nine|\d+";

/// A fraction's word ([`fraction_denominator`] reads it).
const FRACTION: &str = r"half|halves|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?|hundredths?";

/// `minus 40 degrees`, `negative 3 meters`: an amount below zero.
static BELOW_ZERO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:minus|negative)\s+(\d)").expect("a valid regex"));

/// `half a cup`, `half an hour`.
static HALF_A: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bhalf\s+(?:a|an)\s+").expect("a valid regex"));

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

/// `3 m in ft`, `26.2 miles to kilometers`.
static AMOUNT_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(-?[\d,]*\.?\d+)\s*([a-zµ°/²³ .]+?)\s+(?:in|to|into|as|and)\s+([a-zµ°/²³ .]+?)\s*$",
    )
    .expect("a valid regex")
});

/// `how many cups are in a gallon`, `how many ounces in 2 pounds`.
static HOW_MANY_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*how\s+many\s+([a-zµ°/²³ .]+?)\s+(?:are\s+there\s+|are\s+|is\s+|make\s+up\s+)?(?:in|per|to)\s+(?:a|an|one|(-?[\d,]*\.?\d+))\s*([a-zµ°/²³ .]+?)\s*$",
    )
    .expect("a valid regex")
});

/// `how many kilometers is 26.2 miles`.
static HOW_MANY_IS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*how\s+many\s+([a-zµ°/²³ .]+?)\s+(?:is|are|makes?)\s+(?:a|an|one|(-?[\d,]*\.?\d+))\s*([a-zµ°/²³ .]+?)\s*$",
    )
    .expect("a valid regex")
});

/// `5 foot 10`, `6 feet 2 inches`, `5 ft 4 in`: a height in inches.
static FEET_AND_INCHES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d+)\s*(?:foot|feet|ft)\s+(?:and\s+)?(\d+(?:\.\d+)?)(?:\s*(?:inches|inch|in)\b)?",
    )
    .expect("a valid regex")
});

/// `2 stone 9 pounds`, `15 stone 4`: a weight in pounds.
static STONE_AND_POUNDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s*(?:stone|st)\s+(?:and\s+)?(\d+(?:\.\d+)?)(?:\s*(?:pounds?|lbs?)\b)?")
        .expect("a valid regex")
});

/// `a 12 ounce can of soda`, `a 2 liter bottle`: the amount, without the
/// container it comes in.
static IN_A_CONTAINER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|an)\s+(\d+(?:\.\d+)?)[\s-]*([a-z]+)\s+(?:can|bottle|glass|carton|jar|bag|box|pack|jug|mug|tub|tin|package)\b")
        .expect("a valid regex")
});

/// `How many pounds is that?`, `What's that in miles?`: a question about
/// an amount given in the sentence before.
static THAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)^(.*[^\d.-])?(-?\d+(?:\.\d+)?)\s*°?\s*((?:{UNIT})(?:\s+(?:fahrenheit|celsius))?)[^.!?]*[.!?]\s+(?:how\s+many\s+([a-z/ ]+?)\s+(?:is|are)\s+that|(?:what|how\s+(?:much|fast|far|long|heavy|tall|big|hot|cold))(?:\s+is|'s)\s+that\s+in\s+([a-z/ ]+?))\s*$"))
        .expect("a valid regex")
});

/// The conversion `text` asks for, if it is one: an amount in a unit to
/// another unit, as written (`3 m in ft`) or asked (`How many cups are in
/// a gallon?`, `What is 70 degrees Fahrenheit in Celsius?`, `I weigh 70
/// kilograms. How many pounds is that?`).
pub fn conversion(text: &str) -> Option<Conversion> {
    let text = crate::numbers::in_digits(text);
    let text = THOUSANDS.replace_all(&text, |found: &Captures| found[1].replace(',', ""));
    let text = text.trim().trim_end_matches(['?', '.', '!']);
    let text = FEET_AND_INCHES.replace_all(text, |found: &Captures| {
        let feet: f64 = found[1].parse().unwrap_or(0.0);
        let inches: f64 = found[2].parse().unwrap_or(0.0);
        format!("{} inches", feet * 12.0 + inches)
    });
    let text = STONE_AND_POUNDS.replace_all(&text, |found: &Captures| {
        let stone: f64 = found[1].parse().unwrap_or(0.0);
        let pounds: f64 = found[2].parse().unwrap_or(0.0);
        format!("{} pounds", stone * 14.0 + pounds)
    });
    let text = BELOW_ZERO.replace_all(&text, "-$1");
    let text = text.as_ref();
    if let Some(found) = THAT.captures(text) {
        let digits = crate::numbers::in_digits(text);
        let given = digits.split(char::is_whitespace).filter(|w| {
            w.trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_digit())
        });
        if given.count() != 1 {
            return None;
        }
        let to = found.get(4).or(found.get(5))?.as_str();
        let asked = conversion(&format!("{} {} in {to}", &found[2], &found[3]));
        if asked.as_ref().is_some_and(of_one_kind) {
            return asked;
        }
    }
    let text = IN_A_CONTAINER.replace_all(text, "$1 $2");
    let text = RACE_K.replace_all(&text, "$1 km $2");
    let text = crate::numbers::with_parts(&text);
    let text = ONE_AND_A_HALF.replace_all(&text, |found: &Captures| {
        let part = match (&found[2].to_lowercase()[..], &found[3].to_lowercase()[..]) {
            (_, "half") => 0.5,
            ("three", _) => 0.75,
            _ => 0.25,
        };
        format!("{} {}", 1.0 + part, plural_unit(&found[1]))
    });
    let text = FRACTION_AMOUNT.replace_all(&text, |found: &Captures| {
        let parts = found.get(1).map_or(Some(1), |n| numerator(n.as_str()));
        match parts {
            Some(parts) => format!(
                "{} ",
                parts as f64 / f64::from(fraction_denominator(&found[2]))
            ),
            None => found[0].to_string(),
        }
    });
    let text = SLASH_FRACTION.replace_all(&text, |found: &Captures| {
        let (parts, whole): (f64, f64) = (
            found[1].parse().unwrap_or(0.0),
            found[2].parse().unwrap_or(0.0),
        );
        match whole > 0.0 {
            true => format!("{} ", parts / whole),
            false => found[0].to_string(),
        }
    });
    let text = HALF_A.replace_all(&text, "0.5 ");
    let text = QUESTION_START.replace(&text, "");
    let amount = |written: Option<regex::Match>| match written {
        Some(n) => n.as_str().replace(',', "").parse().ok(),
        None => Some(1.0),
    };
    let (value, from, to) = if let Some(found) = AMOUNT_IN.captures(&text) {
        (
            amount(found.get(1))?,
            found[2].to_string(),
            found[3].to_string(),
        )
    } else if let Some(found) = HOW_MANY_IN.captures(&text) {
        (
            amount(found.get(2))?,
            found[3].to_string(),
            found[1].to_string(),
        )
    } else if let Some(found) = HOW_MANY_IS.captures(&text) {
        (
            amount(found.get(2))?,
            found[3].to_string(),
            found[1].to_string(),
        )
    } else {
        return loose(&text);
    };
    let (from, to) = (unit_words(&from), unit_words(&to));
    if from.eq_ignore_ascii_case("percent") || from.split_whitespace().any(is_operator_word) {
        return None;
    }
    let known = |said: String| named_unit(&said).map_or(said, |unit| unit.said);
    Some(Conversion {
        value,
        from: known(from),
        to: known(to),
    })
}

/// The unit a question wants, said anywhere: `how many pounds`, or `in
/// Celsius` at its end.
static WANTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)(?:\bhow\s+many\s+({UNIT})\s+(?:is|are|was|were|would|will|does|do|makes?|equals?|in|to)\b|\b(?:in|into|to)\s+({UNIT})\s*$)"
    ))
    .expect("a valid regex")
});

/// An amount in a unit: `450 grams`, `110 kilometers an hour`, `425
/// Fahrenheit`, `120 square feet`.
static AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(-?\d[\d,]*(?:\.\d+)?)\s*°?\s*({UNIT})")).expect("a valid regex")
});

/// A unit's name of one to four words (`US cups`, `miles per hour`,
/// `degrees Fahrenheit`, `kilometers an hour`).
const UNIT: &str = r"(?:degrees\s+)?(?:(?:square|sq\.?|cubic|cu\.?|fluid|fl\.?|us|imperial|british|uk)\s+){0,2}[a-z]+[²³]?(?:/[a-z]+|\s+(?:per|an|a)\s+[a-z]+)?";

/// A unit named in words: the longest reading first (`kilometers an hour`
/// as a speed before `kilometers`), without `US`.
fn named_unit(words: &str) -> Option<NamedUnit> {
    let words = words.replace(" an ", " per ").replace(" a ", " per ");
    let words = match words.to_lowercase().starts_with("us ") {
        true => &words[3..],
        false => &words,
    };
    let mut said = words.to_string();
    loop {
        if let Some((dimension, unit)) = super::find_unit(&said) {
            return Some(NamedUnit {
                kind: dimension.name,
                symbol: unit.symbol,
                said,
            });
        }
        said = said.rsplit_once(' ')?.0.to_string();
    }
}

/// Whether both units of a conversion are known and of one kind.
fn of_one_kind(asked: &Conversion) -> bool {
    match (named_unit(&asked.from), named_unit(&asked.to)) {
        (Some(from), Some(to)) => from.kind == to.kind,
        _ => false,
    }
}

/// A unit found in words: its kind, its symbol, and the words that named it.
struct NamedUnit {
    kind: &'static str,
    symbol: &'static str,
    said: String,
}

/// A conversion said loosely, when the text holds one number: an amount
/// in a unit anywhere (`The recipe wants 450 grams of mince.`) and the unit
/// wanted (`Roughly how many pounds is that?`, `What's 425 Fahrenheit in
/// Celsius?`), both units known and of one kind.
fn loose(text: &str) -> Option<Conversion> {
    if NUMBER.find_iter(text).count() != 1 {
        return None;
    }
    let found = AMOUNT.captures(text)?;
    let from = named_unit(&found[2])?;
    let wanted = WANTED
        .captures(text)
        .and_then(|wanted| named_unit(wanted.get(1).or(wanted.get(2))?.as_str()));
    let to = match wanted {
        Some(unit) => unit,
        None => other_scale(text, &from).or_else(|| unit_asked_in(text, &from))?,
    };
    if from.kind != to.kind || from.symbol == to.symbol {
        return None;
    }
    Some(Conversion {
        value: found[1].replace(',', "").parse().ok()?,
        from: from.said,
        to: to.said,
    })
}

/// `in UNIT` said before more words (`56 miles in kilometres, that's our
/// longest day`): the first unit of `said`'s kind and not `said` itself.
static IN_A_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:in|into|to)\s+([a-z]+(?:\s+[a-z]+)?)").expect("a valid regex")
});

fn unit_asked_in(text: &str, said: &NamedUnit) -> Option<NamedUnit> {
    IN_A_UNIT
        .captures_iter(text)
        .filter_map(|found| named_unit(&found[1]))
        .find(|unit| unit.kind == said.kind && unit.symbol != said.symbol)
}

/// The other temperature scale `text` names, when `said` is a
/// temperature: `two hundred and thirty celsius … the dial only does
/// fahrenheit`.
fn other_scale(text: &str, said: &NamedUnit) -> Option<NamedUnit> {
    if said.kind != "temperature" {
        return None;
    }
    text.split(|c: char| !c.is_alphabetic())
        .filter(|word| word.len() >= 6)
        .filter_map(named_unit)
        .find(|unit| unit.kind == said.kind && unit.symbol != said.symbol)
}

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
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    let money =
        has(&["$", "dollar", "€", "euro", "£", "quid"]) && !has(&["what percent", "as a percent"]);
    let said = match money && value.fract() != 0.0 && value.abs() >= 0.01 {
        true => format!("{value:.2}"),
        false => number(value),
    };
    let unit = if has(&["what percent", "as a percent", "in percent"]) {
        " percent"
    } else if has(&["$", "dollar"]) {
        if said == "1" {
            " dollar"
        } else {
            " dollars"
        }
    } else if has(&["€", "euro"]) {
        if said == "1" {
            " euro"
        } else {
            " euros"
        }
    } else if has(&["£", "quid"]) {
        if said == "1" {
            " pound"
        } else {
            " pounds"
        }
    } else {
        ""
    };
    format!("It's {said}{unit}.")
}

/// The answer to say for a conversion asked in words: `1 mile is 5280
/// feet.`, `70 degrees Fahrenheit is 21.11 degrees Celsius.`, in the
/// question's own words for the units.
pub fn converted(asked: &Conversion, result: f64) -> String {
    let degree = |unit: &str| unit.to_lowercase().starts_with("degree");
    let to = match degree(&asked.from) && !degree(&asked.to) {
        true => format!("degrees {}", asked.to),
        false => asked.to.clone(),
    };
    let said = number(result);
    let to = match said.as_str() {
        "1" => singular(&to),
        _ => to,
    };
    format!("{} {} is {said} {to}.", number(asked.value), asked.from)
}

/// A unit's name for one of it: `feet` → `foot`, `cups` → `cup`.
fn singular(unit: &str) -> String {
    let (head, last) = match unit.rsplit_once(' ') {
        Some((head, last)) => (format!("{head} "), last),
        None => (String::new(), unit),
    };
    let one = match last.to_lowercase().as_str() {
        "feet" => "foot".to_string(),
        "inches" => "inch".to_string(),
        "degrees" => "degree".to_string(),
        lower
            if lower.len() > 3
                && lower.ends_with('s')
                && !lower.ends_with("ss")
                && !lower.ends_with("us") =>
        {
            last[..last.len() - 1].to_string()
        }
        _ => last.to_string(),
    };
    format!("{head}{one}")
}

/// A unit as named in a question, without the words around it
/// (`the`, `of`, `are there`).
fn unit_words(text: &str) -> String {
    let text = match text.to_ascii_lowercase().find(" of ") {
        Some(at) if at > 0 => &text[..at],
        _ => text,
    };
    text.split_whitespace()
        .filter(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "the" | "of" | "us" | "there"
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_operator_word(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "times" | "plus" | "minus" | "divided" | "over" | "of" | "squared" | "cubed" | "x"
    )
}

/// Word rewrites, applied in order (case-insensitive).
static WORDS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"(?i)^\s*(?:(?:u+m+|e+r+m*|u+h+|h+m+|right|so|okay|ok|well|now|hang\s+on)\b[\s,.]*)+",
            "",
        ),
        // "What a 17 times 23": speech recognition's "what's".
        (
            r"(?i)^\s*(what\s+is|what's|whats|what\s+a|how\s+much\s+is|calculate|compute|work\s+out)\s+",
            "",
        ),
        (r"(?i)^\s*what\s+(-?\d)", "$1"),
        (r"(?i)\s+(?:is|equals|makes|comes\s+to)\s+what\s*\??\s*$", ""),
        (r"(?i)^\s*(?:the|a|an)\s+", ""),
        (
            r"(?i)^\s*(?:which(?:\s+one)?\s+is\s+)?(?:the\s+)?(biggest|largest|highest|greatest|smallest|lowest)(?:\s+(?:number|one|value))?\s*[:,]\s*",
            "$1 of ",
        ),
        (
            r"(?i)\b(average|mean|median|sum|total|range)\s+of\s+(?:my|our|the|these|his|her|their)\s+(?:[a-z'\d]+\s+){0,3}?[a-z']+\s*[:,]\s*(-?\d)",
            "$1 of $2",
        ),
        (
            r"(?i)\b(average|mean|median|sum|total|range|biggest|largest|highest|greatest|maximum|max|smallest|lowest|minimum|min)\s+(?:number\s+|value\s+)?(?:of\s+|in\s+|among\s+|these:?\s*|of\s+these:?\s*)((?:-?[\d.]+\s*(?:,|and|or|,\s*(?:and|or))?\s*)+?)\s*[.?]?\s*$",
            "$1($2)",
        ),
        (
            r"(?i)^.*?\b((?:-?[\d.]+\s*,\s*)+-?[\d.]+\s*(?:,?\s*and\s+|,\s*)-?[\d.]+)\b.*?\b(average|mean|median|total|sum)\b.*$",
            "$2($1)",
        ),
        (r"[?$€£]", ""),
        (r"\.\s*$", ""),
        (r"(?i)\s*\b(dollars?|euros?|cents|bucks)\b", ""),
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
            r"(?i)^[^\d]*?\b(?:go(?:es|ing)?\s+up|went\s+up|ris(?:es|ing)|rose|increas(?:es|ed|ing)|put\s+up|goes\s+up)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:from|on)\s+(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1+$1/100)",
        ),
        (
            r"(?i)^[^\d]*?\b(?:go(?:es|ing)?\s+down|went\s+down|fall(?:s|ing)?|fell|drop(?:s|ped|ping)?|decreas(?:es|ed|ing)|cut)\s+(?:by\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:from|on)\s+(\d+(?:\.\d+)?)\b[^\d]*$",
            "$2*(1-$1/100)",
        ),
        (
            r"(?i)^\s*(\d+(?:\.\d+)?)\s+(?:with|plus|and)\s+(?:an?\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|tip|gratuity|service(?:\s+charge)?|delivery(?:\s+charge)?)(?:\s+(?:on\s+top|added|included))?\s*$",
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
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:including|inclusive\s+of|with)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax)\b[^\d]*\bbefore\s+(?:the\s+)?(?:vat|tax)\s*$",
            "$1/(1+$2/100)",
        ),
        (
            r"(?i)^[^\d]*(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?of\s+(?:the|our|my|a|an)\s+(\d+(?:\.\d+)?)\b[^\d]*\bwhat\s+percent(?:age)?\s+(?:is\s+that|is\s+it|(?:have|has)\s+(?:we|i|you|they|he|she)\s+(?:done|covered|used|had))\s*$",
            "($1)/($2)*100",
        ),
        (
            r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:including|inclusive\s+of|with|inc)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:vat|tax|iva|tva|gst)\b[^\d]*\bhow\s+much\b[^\d]*?(?:\d+(?:\.\d+)?[^\d]*?)?\b(?:was|is)\s+(?:the\s+)?(?:vat|tax|iva|tva|gst)\s*$",
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
        (r"(?i)^\s*(?:add|sum(?:\s+up)?)\s+(.+)$", "sum($1)"),
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
            r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:tip|tax|vat|service\s+charge|discount|deposit)\s+on\s+(?:(?:a|an|the|my|our)\s+)?(?:[a-z]+\s+){0,2}?(?:of\s+)?(\d+(?:\.\d+)?)(?:\s+(?:pounds?|quid|dollars?|euros?)\b)?",
            "$1% of $2",
        ),
        (r"(?i)\b(?:tip|tax|discount)\s+on\b", "of"),
        (r"(?i)(\d)\s*(%|percent)\s+on\b", "$1 $2 of"),
        (r"(?i)([\d.]+)\s*(?:million)\b", "$1*1000000"),
        (r"(?i)([\d.]+)\s*(?:thousand)\b", "$1*1000"),
        (r"(?i)([\d.]+)\s*(?:billion)\b", "$1*1000000000"),
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
        (r"(?i)\b(?:multiplied\s+by|times)\b", "*"),
        (r"(\d)\s+[xX]\s+(\d)", "$1 * $2"),
        (r"(?i)\b(?:divided\s+by|over)\b", "/"),
        (r"(?i)\bplus\b", "+"),
        (r"(?i)\bminus\b", "-"),
        (r"(?i)\btake\s+away\b", "-"),
        (r"(?i)\bpercent\b", "%"),
        (r"(?i)\bdouble\b", "2 *"),
        (r"(?i)\btriple\b", "3 *"),
    ]
    .into_iter()
    .map(|(pattern, to)| (Regex::new(pattern).expect("a valid regex"), to))
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

/// `98 then 125 then 89`: a list said one number after another.
static THEN_BETWEEN_NUMBERS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(\d)\s*,?\s+(?:and\s+)?then\s+(\d)").expect("a valid regex"));

/// `32 pounds 50`, `4 dollars 99`: a price said in two parts.
static POUNDS_AND_PENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s+(?:dollars?|euros?|pounds?|quid|bucks)\s+(\d{2})\b(?:\s*(?:p|pence|cents?)\b)?(\s+[a-z]+|[.,?!]|$)")
        .expect("a valid regex")
});

/// `58 dollars and 75 cents`: 58.75.
static DOLLARS_AND_CENTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d+)\s+(?:dollars?|euros?|pounds?|bucks)\s+and\s+(\d{1,2})\s+(?:cents?|pence|p)\b",
    )
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

static THOUSANDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{1,3}(?:,\d{3})+)\b").expect("a valid regex"));

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
    let mut text = crate::numbers::in_digits(text.trim());
    text = THOUSANDS
        .replace_all(&text, |found: &Captures| found[1].replace(',', ""))
        .into_owned();
    text = crate::numbers::with_parts(&text);
    if LIST_WORD.is_match(&text) {
        text = THEN_BETWEEN_NUMBERS
            .replace_all(&text, "$1, $2")
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
    if let Some(asked) = scaled(&text)
        .or_else(|| doses(&text))
        .or_else(|| at_a_rate(&text))
        .or_else(|| per_amount(&text))
        .or_else(|| over_a_period(&text))
        .or_else(|| at_the_rate_given(&text))
        .or_else(|| share_of_two(&text))
        .or_else(|| split_between(&text))
        .or_else(|| for_the_group(&text))
    {
        text = asked;
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

/// `The bill is 73.40. What's an 18 percent tip?`: a percentage asked of
/// the one amount the sentence before gives, as arithmetic.
static PERCENT_OF_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(.*[^\d.])?(\d[\d,]*(?:\.\d+)?)[^.!?]*[.!?]\s+(?:what(?:'s|\s+is|\s+would\s+be)|how\s+much\s+is)\s+(?:an?\s+|the\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(tip|tax|gratuity|discount|off)\s*[?.!]?\s*$")
        .expect("a valid regex")
});

fn percent_of_the_amount_before(text: &str) -> Option<String> {
    let found = PERCENT_OF_BEFORE.captures(text)?;
    let given = DIGIT_RUN
        .find_iter(found.get(1).map_or("", |m| m.as_str()))
        .count();
    if given != 0 {
        return None;
    }
    let (amount, percent) = (found[2].replace(',', ""), &found[3]);
    Some(match found[4].to_ascii_lowercase().as_str() {
        "discount" | "off" => format!("{amount}*(1-{percent}/100)"),
        _ => format!("{amount}*{percent}/100"),
    })
}

/// `How much flour do I need for 18 muffins?`: an amount asked for a
/// number of things, at the end of the question.
static ASKED_FOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bhow\s+(?:much|many)\b[^.!?]*?\bfor\s+(\d+(?:\.\d+)?)(?:\s+([a-z]+))?(?:\s+(?:for|at|in|on)\s+[a-z' ]+)?\s*[?.!]?\s*$",
    )
    .expect("a valid regex")
});

/// `makes 12`, `for every 4 people`, `serves 6`, `per 100 km`: what an
/// amount is given for.
static GIVEN_FOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:makes|serves|feeds|yields|for\s+every|for|per|every)\s+(\d+(?:\.\d+)?)(?:\s+([a-z]+))?")
        .expect("a valid regex")
});

/// An amount given for some things, asked for another number of them, as
/// arithmetic: `The recipe makes 12 and uses 250 grams of flour. How much
/// flour do I need for 18 muffins?` is `250 * 18 / 12`. Only when the text
/// holds these three numbers and nothing else, and the things are the same
/// where both are named.
fn scaled(text: &str) -> Option<String> {
    let asked = ASKED_FOR.captures(text)?;
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    if numbers.len() != 3 {
        return None;
    }
    let wanted = asked.get(1)?;
    let given = GIVEN_FOR
        .captures_iter(&text[..asked.get(0)?.start()])
        .find(|found| found.get(1).is_some())?;
    let (per, per_thing) = (given.get(1)?, given.get(2));
    let same = |a: &str, b: &str| singular(a).eq_ignore_ascii_case(&singular(b));
    let per_thing = per_thing.filter(|thing| !NOT_THINGS.contains(&thing.as_str()));
    if let (Some(a), Some(b)) = (per_thing, asked.get(2)) {
        if !same(a.as_str(), b.as_str()) {
            return None;
        }
    }
    let amount = numbers
        .iter()
        .find(|n| n.start() != per.start() && n.start() != wanted.start())?;
    Some(format!(
        "{} * {} / {}",
        amount.as_str(),
        wanted.as_str(),
        per.as_str()
    ))
}

/// `2 tablets 3 times a day for 10 days`, `one pill twice a day for 2
/// weeks`: a course of doses.
static DOSES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?|an?|one)\s+([a-z]+)\s+(?:(\d+)\s+times|(once|twice))\s+(?:a|per|each)\s+day\s+for\s+(\d+)\s+(days?|weeks?)\b")
        .expect("a valid regex")
});

/// How many doses a course of them comes to, as arithmetic, when the
/// question asks how many.
fn doses(text: &str) -> Option<String> {
    if !text.to_ascii_lowercase().contains("how many") {
        return None;
    }
    let found = DOSES.captures(text)?;
    let each = match found[1].to_ascii_lowercase().as_str() {
        "a" | "an" | "one" => "1".to_string(),
        n => n.to_string(),
    };
    let times = match found.get(4).map(|m| m.as_str().to_ascii_lowercase()) {
        Some(once) if once == "once" => "1".to_string(),
        Some(_) => "2".to_string(),
        None => found[3].to_string(),
    };
    let days = match found[6].to_ascii_lowercase().starts_with("week") {
        true => format!("{} * 7", &found[5]),
        false => found[5].to_string(),
    };
    Some(format!("{each} * {times} * {days}"))
}

/// `45 p a mile`, `3.45 a gallon`, `12 dollars per hour`: a price or
/// rate for one of something.
static RATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(p|pence|cents?|dollars?|pounds?|quid|euros?|bucks)?\s+(?:a|an|per|each)\s+([a-z]+)\b")
        .expect("a valid regex")
});

/// What so many of something come to at a rate given for one, as
/// arithmetic, when the text holds those two numbers only and asks what
/// they cost or are worth: `if i claim 45 p a mile whats 1380 business
/// miles worth` is `1380 * 0.45`.
fn at_a_rate(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let asks = [
        "worth", "cost", "how much", "come to", "total", "bill", "charge", "earn", "owe",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    if !asks || numbers.len() != 2 {
        return None;
    }
    let rate = RATE.captures(text)?;
    let per = singular(&rate[3]).to_lowercase();
    let price = match rate.get(2).map(|m| m.as_str().to_lowercase()) {
        Some(cents) if matches!(cents.as_str(), "p" | "pence" | "cent" | "cents") => {
            format!("{}/100", &rate[1])
        }
        _ => rate[1].to_string(),
    };
    let rate_at = rate.get(1)?.start();
    let quantity = numbers.iter().find(|n| n.start() != rate_at)?;
    let counted = text[quantity.end()..]
        .split_whitespace()
        .take(3)
        .map(|w| singular(w.trim_matches(|c: char| !c.is_alphanumeric())).to_lowercase())
        .any(|w| w == per);
    counted.then(|| format!("{} * {price}", quantity.as_str()))
}

/// `6 litres per 100 km`, `3 scoops for every 2 litres`: an amount given
/// for a number of things.
static PER_AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*([a-z]+)\s+(?:per|every|for\s+every)\s+(\d+(?:\.\d+)?)\s*([a-z]+)\b")
        .expect("a valid regex")
});

/// What an amount given per so many things comes to for another number
/// of them (said before or after), as arithmetic, when the text holds
/// those three numbers and asks how many or how much: `the car uses 6
/// litres per 100 km and we are driving 900 km, how many litres is that`
/// is `6 * 900 / 100`.
fn per_amount(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("how m") {
        return None;
    }
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    let given = PER_AMOUNT.captures(text)?;
    let (amount, per, rate) = (given.get(1)?, given.get(3)?, given.get(0)?);
    if numbers.len() != 3 {
        return None;
    }
    let outside = |n: &&regex::Match| n.end() <= rate.start() || n.start() >= rate.end();
    let asked = numbers.iter().find(outside)?;
    let thing = text[asked.end()..].split_whitespace().next()?;
    let thing = thing.trim_matches(|c: char| !c.is_alphanumeric());
    let same = match (named_unit(&given[4]), named_unit(thing)) {
        (Some(a), Some(b)) => a.symbol == b.symbol,
        _ => singular(&given[4]).eq_ignore_ascii_case(&singular(thing)),
    };
    same.then(|| {
        format!(
            "{} * {} / {}",
            amount.as_str(),
            asked.as_str(),
            per.as_str()
        )
    })
}

/// `4 eggs a day`, `2 walks per day`: an amount for each of a period.
static PER_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,2}?(?:a|per|each|every)\s+(minute|hour|day|week|month)\b")
        .expect("a valid regex")
});

/// `in a fortnight`, `over 3 weeks`: the period asked about, at the end.
static OVER_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:in|over|for|during|across)\s+(?:a|an|one|(\d+))\s+(minute|hour|day|week|fortnight|month|year)s?\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// How many of one period fit in another, where that is a fixed number.
fn periods_in(each: &str, over: &str) -> Option<u32> {
    Some(match (each, over) {
        (a, b) if a == b => 1,
        ("minute", "hour") => 60,
        ("minute", "day") => 1440,
        ("hour", "day") => 24,
        ("hour", "week") => 168,
        ("day", "week") => 7,
        ("day", "fortnight") => 14,
        ("day", "year") => 365,
        ("week", "fortnight") => 2,
        ("week", "year") => 52,
        ("month", "year") => 12,
        _ => return None,
    })
}

/// What an amount for each day (hour, week, …) comes to over a longer
/// period, as arithmetic, when the question asks how many or how much:
/// `my hens lay 4 eggs a day how many eggs is that in a fortnight` is `4 *
/// 14`. Only when the text holds the amount and at most the count of
/// periods.
fn over_a_period(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("how m") {
        return None;
    }
    let each = PER_PERIOD.captures(text)?;
    let over = OVER_PERIOD.captures(text)?;
    let count = over.get(1).map(|n| n.as_str());
    let numbers = NUMBER.find_iter(text).count();
    if numbers != 1 + usize::from(count.is_some()) {
        return None;
    }
    let factor = periods_in(&each[2].to_lowercase(), &over[2].to_lowercase())?;
    Some(match count {
        Some(count) => format!("{} * {factor} * {count}", &each[1]),
        None => format!("{} * {factor}", &each[1]),
    })
}

/// `a dollar is about 150 yen`, `1 pound = 1.2 euros`: how many of one
/// thing another is, as the user gives it.
static RATE_GIVEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|an|one|1)\s+([a-z]+)\s+(?:is|=|equals|gets(?:\s+you)?|buys|is\s+worth)\s+(?:about\s+|roughly\s+|around\s+|like\s+)?(\d+(?:\.\d+)?)\s+([a-z]+)\b")
        .expect("a valid regex")
});

/// `how many dollars is 12000 yen`, `how many euros do I get for 300
/// pounds`: so many of one thing asked in another.
static ASKED_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow\s+(?:many|much)\s+([a-z]+)\s+(?:is|are|would\s+be|will\s+be|do\s+(?:i|we|you)\s+get\s+for|for)\s+(\d+(?:\.\d+)?)\s+([a-z]+)\b")
        .expect("a valid regex")
});

/// An amount converted at the rate the user gave, as arithmetic: `if a
/// dollar is about 150 yen how many dollars is 12000 yen` is `12000 /
/// 150`, and asked the other way round, a product.
fn at_the_rate_given(text: &str) -> Option<String> {
    let rate = RATE_GIVEN.captures(text)?;
    let asked = ASKED_IN.captures(&text[rate.get(0)?.end()..])?;
    let said_one = rate[0].starts_with('1');
    if NUMBER.find_iter(text).count() != 2 + usize::from(said_one) {
        return None;
    }
    let same = |a: &str, b: &str| singular(a).eq_ignore_ascii_case(&singular(b));
    let (one, per, many) = (&rate[1], &rate[2], &rate[3]);
    let (wanted, amount, given) = (&asked[1], &asked[2], &asked[3]);
    if same(wanted, one) && same(given, many) {
        Some(format!("{amount} / {per}"))
    } else if same(wanted, many) && same(given, one) {
        Some(format!("{amount} * {per}"))
    } else {
        None
    }
}

/// `… what percent is that`, `… what percentage is that`, at the end.
static WHAT_PERCENT_IS_THAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bwhat\s+percent(?:age)?(?:\s+[a-z]+){0,2}?\s+is\s+(?:that|it)\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// Words that make two amounts a change, not a part of a whole.
const CHANGES: &[&str] = &[
    "from", "increase", "decrease", "rise", "rose", "risen", "grew", "grown", "went", "up", "down",
    "more", "less", "fell", "drop", "dropped", "change", "changed",
];

/// The share of the larger of two amounts the smaller is, in percent,
/// when a question gives the two and asks what percent that is: `we
/// budgeted 3000 and we've spent 1800 what percent is that` is `1800 /
/// 3000 * 100`. Not for a change from one amount to another.
fn share_of_two(text: &str) -> Option<String> {
    WHAT_PERCENT_IS_THAT.find(text)?;
    let numbers: Vec<f64> = NUMBER
        .find_iter(text)
        .filter_map(|n| n.as_str().parse().ok())
        .collect();
    let [a, b] = numbers.as_slice() else {
        return None;
    };
    let lower = text.to_lowercase();
    let changes = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|word| CHANGES.contains(&word));
    if changes
        || text.contains(['%', '$'])
        || lower.contains("percent of")
        || lower.contains(" out of ")
    {
        return None;
    }
    let (part, whole) = if a <= b { (a, b) } else { (b, a) };
    Some(format!("{part} / {whole} * 100"))
}

/// `split between the 4 of us`, `shared among 6`: how many share.
static SPLIT_BETWEEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:split|shared?|divided?)\s+(?:[a-z]+\s+){0,2}?(?:equally\s+|evenly\s+)?(?:between|among|amongst)\s+(?:the\s+|all\s+|us\s+)?(\d+)\b")
        .expect("a valid regex")
});

/// `a table of 4`, `a party of 6`, `6 of us`, `4 people`: how many share,
/// said without `between`.
static GROUP_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:table|party|group)\s+of\s+(\d+)|(\d+)\s+(?:of\s+us|people|friends|ways))\b",
    )
    .expect("a valid regex")
});

/// What each pays of an amount split between some people, when the text
/// gives the two numbers and asks for each one's share: `The villa costs
/// 1540 euros, split between the 4 of us. How much each?` is `1540 / 4`.
fn split_between(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let each = ["each", "per person", "a head", "apiece", "a person"]
        .iter()
        .any(|w| lower.contains(w));
    if !each || !lower.contains("how much") {
        return None;
    }
    let per_head = ["per person", "a head", "per head", "a person"]
        .iter()
        .any(|w| lower.contains(w));
    let people = match SPLIT_BETWEEN.captures(text) {
        Some(split) => split.get(1)?,
        None if lower.contains("split") || lower.contains("share") || per_head => {
            let group = GROUP_OF.captures(text)?;
            group.get(1).or(group.get(2))?
        }
        None => return None,
    };
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    let [a, b] = numbers.as_slice() else {
        return None;
    };
    let amount = if a.start() == people.start() { b } else { a };
    Some(format!("{} / {}", amount.as_str(), people.as_str()))
}

/// `28.50 a head`, `12 each`: an amount for each one of a group.
static EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:a\s+head|per\s+head|each|per\s+person|a\s+person|apiece)\b")
        .expect("a valid regex")
});

/// What a group pays in all for an amount each, when the text gives the
/// two numbers, the other one a whole number, and asks for the total: `the
/// coach trip is 28.50 a head and there's 9 of us going, what's the total`
/// is `28.50 * 9`.
fn for_the_group(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let total = [
        "total",
        "altogether",
        "all together",
        "in all",
        "for all of us",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    if !total || numbers.len() != 2 {
        return None;
    }
    let each = EACH.captures(text)?.get(1)?;
    let people = numbers.iter().find(|n| n.start() != each.start())?;
    let whole = !people.as_str().contains('.');
    whole.then(|| format!("{} * {}", each.as_str(), people.as_str()))
}

/// Words after a number that name no thing it counts (`makes 12 and …`).
const NOT_THINGS: &[&str] = &[
    "and", "uses", "use", "needs", "takes", "calls", "requires", "wants", "of", "with", "it", "is",
    "are", "the", "a", "an", "you", "i", "we", "but", "so",
];

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
mod tests {
    use super::*;

    fn plain(text: &str) -> Result<f64, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("not a number: {text}"))
    }

    fn read(text: &str) -> String {
        as_arithmetic(text, plain).unwrap()
    }

    #[test]
    fn operator_words_become_operators() {
        assert_eq!(read("17 times 23"), "17 * 23");
        assert_eq!(read("What is 1234 plus 5678?"), "1234 + 5678");
        assert_eq!(read("144 divided by 12"), "144 / 12");
        assert_eq!(read("15 squared"), "15^2");
        assert_eq!(read("(2+3) cubed"), "(2+3)^3");
        assert_eq!(read("square root of 169"), "sqrt(169)");
        assert_eq!(read("sqrt 2"), "sqrt(2)");
        assert_eq!(read("2 to the 10th power"), "2 ^10");
        assert_eq!(read("9 to the power of 3"), "9 ^ 3");
        assert_eq!(read("half of 350"), "(1/2) * 350");
        assert_eq!(read("What is a third of 90?"), "(1/3) * 90");
        assert_eq!(read("Two fifths of 200"), "(2/5) * 200");
        assert_eq!(read("three quarters of 48"), "(3/4) * 48");
        assert_eq!(read("Multiply 125 by 16."), "125 * 16");
        assert_eq!(read("Divide 144 by 12"), "144 / 12");
        assert_eq!(read("Subtract 58 from 230."), "230 - 58");
        assert_eq!(read("Add 15 to 27"), "15 + 27");
        assert_eq!(
            read("the kids in swim class are eight six nine seven and eleven years old whats the median age"),
            "8"
        );
        for (said, written) in [
            ("Quick question, how many times does 35 go into 1,470?", "1470 / 35"),
            (
                "the lego castle is sixty dollars and it's thirty five percent off how much do we save",
                "60*35/100",
            ),
            (
                "customer wants five percent off for paying cash on a two thousand three hundred invoice how much does that knock off",
                "2300*5/100",
            ),
            (
                "our weekly food shop went from 160 to 184 dollars whats the percent increase",
                "abs(184-160)/160*100",
            ),
            (
                "uh whats the vat on six hundred and forty pounds at twenty percent",
                "640*20/100",
            ),
            (
                "my invoice total is one thousand four hundred and forty including twenty percent vat whats it before vat",
                "1440/(1+20/100)",
            ),
        ] {
            assert_eq!(read(said), written, "{said}");
        }
        assert_eq!(
            read(
                "The muffin recipe makes 12 and uses 250 grams of flour. \
                 How much flour do I need for 18 muffins?"
            ),
            "250 * 18 / 12"
        );
        assert_eq!(
            read(
                "Pancakes for the flat: the recipe uses two eggs for every four people. \
                 How many eggs for ten people?"
            ),
            "2 * 10 / 4"
        );
        assert_eq!(
            read(
                "The doctor said two tablets three times a day for ten days. \
                 How many tablets is that altogether?"
            ),
            "2 * 3 * 10"
        );
        assert_eq!(
            read("One pill twice a day for 2 weeks: how many pills?"),
            "1 * 2 * 2 * 7"
        );
        assert_eq!(
            read("if i claim forty five p a mile whats one thousand three hundred and eighty business miles worth"),
            "1380 * 45/100"
        );
        assert_eq!(
            read("At 3.45 a gallon, what will 12 gallons cost?"),
            "12 * 3.45"
        );
        assert_eq!(
            read("My car does 32 miles per gallon. How much is 380 miles?"),
            "My car does 32 miles per gallon. How much is 380 miles"
        );
        assert_eq!(
            read("My car uses 6 liters per 100 km. How much fuel for 250 km?"),
            "6 * 250 / 100"
        );
        assert_ne!(
            read("I bake 3 trays of 12 cookies. How many cookies for 4 trays?"),
            "12 * 4 / 3"
        );
        assert_eq!(
            read("What's the range of my exam marks: 62, 88, 71, 55 and 79?"),
            "33"
        );
        assert_eq!(read("what's three eighths as a decimal?"), "(3/8)");
        assert_eq!(read("Two thirds as a percentage"), "(2/3)*100");
        assert_eq!(
            read("what's a twenty percent tip on fifty-eight dollars and seventy-five cents?"),
            "20% of 58.75"
        );
        assert_eq!(
            read("Hey, I got 57 out of 75 on my chemistry mock. What percentage is that?"),
            "(57)/(75)*100"
        );
        assert_eq!(
            read("What do you get if you take 1,789 away from 4,096?"),
            "4096 - 1789"
        );
        assert_eq!(
            read("Lily has to write down thirteen cubed. What's the answer?"),
            "13^3"
        );
        assert_eq!(
            read("The homework asks for three eighths of six hundred and eighty. What is it?"),
            "(3/8) * 680"
        );
        assert_eq!(read("Split 120 dollars three ways."), "120 / 3");
        assert_eq!(read("split $85 between 5 people"), "85 / 5");
        assert_eq!(read("What percent of 50 is 10?"), "(10)/(50)*100");
        assert_eq!(read("12 is what percentage of 48?"), "(12)/(48)*100");
        assert_eq!(
            read("What is 200 increased by 15 percent?"),
            "200*(1+15/100)"
        );
        assert_eq!(read("Reduce 80 by 25%"), "80*(1-25/100)");
        assert_eq!(read("What's 5 factorial?"), "factorial(5)");
        assert_eq!(read("What 43 times 17?"), "43 * 17");
        assert_eq!(read("What's 19 square?"), "19^2");
        assert_eq!(read("What's 3.5 times 6.2."), "3.5 * 6.2");
        assert_eq!(
            read("We just finished dinner and the bill is 73.40. What's an 18 percent tip?"),
            "73.40*18/100"
        );
        assert_eq!(
            read("The boots are 120 dollars. What's 40% off?"),
            "120*(1-40/100)"
        );
        assert_eq!(read("What's 12% on 450?"), "12 % of 450");
        assert_eq!(read("What's 1 and a half times 8?"), "1.5 * 8");
        assert_eq!(read("2 and three quarters plus 1"), "2.75 + 1");
        assert_eq!(
            read("Work out seventeen and a half percent of two hundred"),
            "17.5 % of 200"
        );
        assert_eq!(read("What is 5 to the third power?"), "5 ^3");
        assert_eq!(read("6!"), "factorial(6)");
        assert_eq!(
            read("Round 3.14159 to two decimal places."),
            "round(3.14159*10^2)/10^2"
        );
        assert_eq!(
            read("round 17.6 to the nearest whole number"),
            "round(17.6)"
        );
        assert_eq!(
            read("round 1234 to the nearest hundred"),
            "round(1234/100)*100"
        );
        assert_eq!(
            read("A 60 dollar meal with a 15 percent tip comes to how much?"),
            "60*(1+15/100)"
        );
        assert_eq!(
            read("If a 40 dollar shirt is 25 percent off, what does it cost?"),
            "40*(1-25/100)"
        );
        assert_eq!(read("15 percent of 80"), "15 % of 80");
        assert_eq!(read("3 x 4"), "3 * 4");
        assert_eq!(read("$1,234.50 + 2,000"), "1234.50 + 2000");
        assert_eq!(read("How much is 48 times 52?"), "48 * 52");
        assert_eq!(read("What a 17 times 23"), "17 * 23");
        assert_eq!(read("Whats 9 minus 4?"), "9 - 4");
        assert_eq!(read("What is 500 take away 125?"), "500 - 125");
        assert_eq!(read("Add 345, 678 and 912."), "1935");
        assert_eq!(read("What percent is 30 of 120?"), "(30)/(120)*100");
        assert_eq!(read("25% off 88 dollars"), "88*(1-25/100)");
        assert_eq!(read("5 percent of 1 million"), "5 % of 1*1000000");
        assert_eq!(read("what is (25 times 4) divided by 8?"), "(25 * 4) / 8");
        assert_eq!(
            read("What's half of (1234 plus 5678)?"),
            "(1/2) * (1234 + 5678)"
        );
    }

    #[test]
    fn answers_to_questions_in_words_are_said() {
        assert!(in_words("What is 3 percent of 900?"));
        assert!(in_words("17 times 23"));
        assert!(!in_words("17*23"));
        assert!(!in_words("sqrt(16) + round(2.5)"));
        assert!(!in_words("3 m in ft"));
        assert!(about_percent("What is 3 percent of 900?"));
        assert!(about_percent("25% off 88"));
        assert!(!about_percent("What is 17 times 23?"));
        assert_eq!(number(27.0), "27");
        assert_eq!(number(86.333333), "86.33");
        assert_eq!(number(0.004567), "0.00457");
        assert_eq!(result("What is 3 percent of 900?", 27.0), "It's 27.");
        assert_eq!(
            result("What percent of 50 is 10?", 20.0),
            "It's 20 percent."
        );
        assert_eq!(
            result("Split 120 dollars three ways.", 40.0),
            "It's 40 dollars."
        );
        assert_eq!(result("What's 20% of $5?", 1.0), "It's 1 dollar.");
        assert_eq!(
            list_answer("98 then 125 then 89 whats the median", 98.0).as_deref(),
            Some("The median is 98.")
        );
        assert_eq!(list_answer("What is 17 times 23?", 391.0), None);
        assert_eq!(list_answer("the mean and the median of 1, 2", 1.5), None);
        assert_eq!(
            result("What's an 18 percent tip on 60 dollars?", 10.8),
            "It's 10.80 dollars."
        );
    }

    #[test]
    fn conversions_asked_in_words_are_said_in_their_words() {
        let say = |question: &str, result: f64| converted(&conversion(question).unwrap(), result);
        assert_eq!(
            say("How many feet are in a mile?", 5280.0),
            "1 mile is 5280 feet."
        );
        assert_eq!(
            say("What is 70 degrees Fahrenheit in Celsius?", 21.1111),
            "70 degrees Fahrenheit is 21.11 degrees Celsius."
        );
        assert_eq!(
            say("How many liters is 1000 milliliters?", 1.0),
            "1000 milliliters is 1 liter."
        );
        assert_eq!(
            say("How many inches in 2.54 cm?", 1.0),
            "2.54 cm is 1 inch."
        );
        assert_eq!(
            say("What is 2 and a half hours in minutes?", 150.0),
            "2.5 hours is 150 minutes."
        );
        assert_eq!(
            say("How many minutes are in an hour and a half?", 90.0),
            "1.5 hours is 90 minutes."
        );
        assert_eq!(
            say("How many inches is a foot and a half?", 18.0),
            "1.5 feet is 18 inches."
        );
        assert_eq!(
            say("What is minus 40 degrees Celsius in Fahrenheit?", -40.0),
            "-40 degrees Celsius is -40 degrees Fahrenheit."
        );
    }

    #[test]
    fn list_functions_are_computed() {
        assert_eq!(read("mean(4, 8, 15, 16, 23, 42)"), "18");
        assert_eq!(read("avg(1,2) + 1"), "1.5 + 1");
        assert_eq!(read("SUM(12, 45, 33, 10)"), "100");
        assert_eq!(read("max(17, 42, 8) - min(3, 9)"), "42 - 3");
        assert_eq!(read("median(3, 9, 1, 7, 5)"), "5");
        assert_eq!(read("median(10, 20, 30, 40)"), "25");
        assert_eq!(read("range(5, 18, 11, 2)"), "16");
        assert_eq!(read("Average these: 100, 200, 300, 400."), "250");
        assert_eq!(
            read("My test scores were 88, 92 and 79. What's my average?"),
            "86.33333333333333"
        );
        assert_eq!(read("average(max(1, 5), 3)"), "4");
        assert_eq!(read("Which is the largest: 0.8, 0.75, 0.09 or 0.6?"), "0.8");
        assert_eq!(read("What is the smallest number, 12, 7 or 9?"), "7");
        assert!(as_arithmetic("mean()", plain)
            .unwrap_err()
            .contains("at least one"));
        assert!(as_arithmetic("mean(a, b)", plain).is_err());
    }

    #[test]
    fn lists_with_thousands_and_lists_said_in_turn_are_read() {
        assert_eq!(
            read("What's the median of my last 7 paychecks: 1,480, 1,620, 1,395, 1,710, 1,550, 1,480 and 1,640?"),
            "1550"
        );
        assert_eq!(
            read("ok so the hotels we looked at are ninety eight then a hundred and twenty five then eighty nine then a hundred and forty and a hundred and ten a night whats the median"),
            "110"
        );
    }

    #[test]
    fn rates_are_taken_over_amounts_and_periods() {
        assert_eq!(read("4,380 divided by 12 is what?"), "4380 / 12");
        assert_eq!(
            read("um the hire car uses about six litres per hundred kilometres and were driving nine hundred kilometres how many litres is that"),
            "6 * 900 / 100"
        );
        assert_eq!(
            read("The sprayer takes 3 scoops per 2 litres. How many scoops for a 10 litre tank?"),
            "3 * 10 / 2"
        );
        assert_eq!(
            read("my hens lay four eggs a day between them how many eggs is that in a fortnight"),
            "4 * 14"
        );
        assert_eq!(
            read("The dog gets 2 walks a day. How many walks over 3 weeks?"),
            "2 * 7 * 3"
        );
        assert_eq!(
            read("The villa costs 1540 euros for the fortnight, split between the 6 of us. How much each?"),
            "1540 / 6"
        );
        assert_eq!(
            read("Dinner was 96 dollars, shared among 4 friends. How much does each pay?"),
            "96 / 4"
        );
        assert_eq!(
            read("a table of four from italy want to split the bill evenly its fifty seven euros sixty how much each"),
            "57.60 / 4"
        );
        assert_eq!(
            read("um my part timer gets twelve pounds sixty an hour and she does twenty two hours a week what does that come to"),
            "22 * 12.60"
        );
        assert_eq!(
            read("whats a twelve and a half percent service charge on a bill of sixty four pounds"),
            "12.5% of 64"
        );
        assert_eq!(
            read("ok so takings the last five saturdays were eleven hundred and twenty then nine hundred and eighty then fourteen hundred and five then twelve hundred and ten and then a thousand and ninety whats the median"),
            "1120"
        );
        assert_eq!(
            read("The flapjack recipe makes 12 bars with 250 g of oats. How many grams of oats for 30 bars for the form bake sale?"),
            "250 * 30 / 12"
        );
        assert_eq!(
            read("ok so we budgeted three thousand for the trip and weve spent eighteen hundred what percent is that"),
            "1800 / 3000 * 100"
        );
        assert!(!read(
            "My 6 hens could have laid 42 eggs but I collected 31. What percentage laying rate is that?"
        )
        .contains(" / "));
        assert_eq!(
            read("hey if a dollar is about a hundred and fifty yen how many dollars is twelve thousand yen"),
            "12000 / 150"
        );
        assert_eq!(
            read("If one pound gets you 1.15 euros, how many euros do I get for 400 pounds?"),
            "400 * 1.15"
        );
        assert_eq!(
            read("a bag of layers pellets is thirty two pounds fifty and its twenty percent off what do i pay"),
            "32.50*(1-20/100)"
        );
        assert_eq!(
            read("right so the coach trip to whitby is twenty eight pounds fifty a head and theres nine of us going whats the total"),
            "28.50 * 9"
        );
        assert_eq!(
            read("The walking group's Christmas meal is £23.50 a head and 19 have booked. What's the total?"),
            "23.50 * 19"
        );
        assert_eq!(
            read("um our state pension is going up four point eight percent from two hundred and thirty pounds twenty five a week what will it be"),
            "230.25*(1+4.8/100)"
        );
        assert_eq!(
            read("the boilers two thousand one hundred and fifty plus vat at twenty percent whats the total"),
            "2150*(1+20/100)"
        );
        assert_eq!(
            read("i spent three hundred and sixty on diesel out of four thousand eight hundred takings this month what percent is that"),
            "(360)/(4800)*100"
        );
        assert_eq!(
            read("I charge £55 an hour labour and the job took six and three quarter hours. What's the labour bill?"),
            "6.75 * 55"
        );
        assert_eq!(read("erm whats seventeen times forty three"), "17 * 43");
        assert_eq!(read("What's 15% off a 486 euro week?"), "486*(1-15/100)");
        assert_eq!(
            read("The co-op gives 12% off fencing wire to members. How much do I save on a €385 order?"),
            "385*12/100"
        );
        assert_eq!(
            read("the shop took five thousand euro in october and four thousand three hundred in november whats the percentage drop"),
            "abs(4300-5000)/5000*100"
        );
        assert_eq!(
            read("I'm feeding 3 bales of silage a day. How many days will 180 bales last?"),
            "180 / 3"
        );
        assert_eq!(
            read("ok so weve done one thousand three hundred and sixty kilometres of the two thousand one hundred and twenty five down to the algarve what percent is that"),
            "(1360)/(2125)*100"
        );
        assert_eq!(
            read("The new caravan awning was £395 including 20% VAT. How much of that £395 was the VAT?"),
            "395-395/(1+20/100)"
        );
        assert_eq!(
            read("um spanish iva on the campsite is ten percent and the pitch is thirty eight euros a night before iva whats it with iva"),
            "38*(1+10/100)"
        );
        assert_eq!(
            read("the site in brittany has gone up from twenty nine euros a night last year to thirty three euros fifty what percentage increase is that"),
            "abs(33.50-29)/29*100"
        );
        assert_eq!(
            read("um weve driven two thousand four hundred and sixty kilometres and the car does nine point two litres per hundred kilometres when its towing how many litres is that"),
            "9.2 * 2460 / 100"
        );
        assert_eq!(
            read("The ferry is £1,320 for the car, the caravan and the four of us. How much is that per person?"),
            "1320 / 4"
        );
        assert_eq!(
            read("What is 696 with 20 percent VAT on top?"),
            "696*(1+20/100)"
        );
        assert_eq!(
            read("What is 80 less 15 percent discount?"),
            "80*(1-15/100)"
        );
    }

    #[test]
    fn runaway_numbers_are_refused() {
        let long = format!("128/16{}", "0".repeat(90));
        assert!(as_arithmetic(&long, plain)
            .unwrap_err()
            .contains("92 digits"));
        assert!(as_arithmetic("123456789012345 + 1", plain).is_ok());
    }

    #[test]
    fn conversions_are_recognised() {
        assert_eq!(
            conversion("3 m in ft"),
            Some(Conversion {
                value: 3.0,
                from: "m".into(),
                to: "ft".into()
            })
        );
        assert_eq!(
            conversion("26.2 miles to kilometers"),
            Some(Conversion {
                value: 26.2,
                from: "miles".into(),
                to: "kilometers".into()
            })
        );
        assert_eq!(
            conversion("1,000 fl oz into liters"),
            Some(Conversion {
                value: 1000.0,
                from: "fl oz".into(),
                to: "liters".into()
            })
        );
        let asked = |text: &str| {
            let c = conversion(text).unwrap_or_else(|| panic!("{text}"));
            (c.value, c.from, c.to)
        };
        let units = |text: &str| {
            let c = conversion(text).unwrap_or_else(|| panic!("{text}"));
            (c.value, c.from.to_lowercase(), c.to.to_lowercase())
        };
        assert_eq!(
            units("i want the oven at two hundred and thirty celsius for the sourdough but the dial only does fahrenheit what number do i set"),
            (230.0, "celsius".into(), "fahrenheit".into())
        );
        assert_eq!(
            units("Our allotment plots are 250 m² each. Roughly how many sq ft does that come to?"),
            (250.0, "m²".into(), "sq ft".into())
        );
        assert_eq!(
            units("The fridge should be below 40°F. What's that in Celsius?"),
            (40.0, "f".into(), "celsius".into())
        );
        assert_eq!(
            units("An American customer wants a 12 US fl oz latte. How many ml is that?"),
            (12.0, "fl oz".into(), "ml".into())
        );
        assert_eq!(
            units("My son wants to know: the speed of sound is about 343 metres per second. What's that in km/h?"),
            (343.0, "metres per second".into(), "km/h".into())
        );
        assert_eq!(
            units("How many tbsp in 3/4 of a US cup?"),
            (0.75, "cup".into(), "tbsp".into())
        );
        assert_eq!(
            units("20 kg sack of layers pellets in pounds?"),
            (20.0, "kg".into(), "pounds".into())
        );
        assert_eq!(
            asked("Our granddaughter weighs 2 stone 9 pounds. How many kilograms is that?"),
            (37.0, "pounds".into(), "kilograms".into())
        );
        assert_eq!(
            asked("how many millilitres is three imperial pints"),
            (3.0, "imperial pints".into(), "millilitres".into())
        );
        assert_eq!(
            asked("It's meant to be minus 3 Celsius for tomorrow morning's ride. What's that in Fahrenheit?"),
            (-3.0, "Celsius".into(), "Fahrenheit".into())
        );
        assert_eq!(
            asked("My mother's Christmas cake recipe wants a pound and a quarter of currants. How many grams is that?"),
            (1.25, "pounds".into(), "grams".into())
        );
        assert_eq!(
            asked("um whats fifty six miles in kilometres thats our longest day on the coast to coast"),
            (56.0, "miles".into(), "kilometres".into())
        );
        assert_eq!(
            asked("How many cups are in a gallon?"),
            (1.0, "gallon".into(), "cups".into())
        );
        assert_eq!(
            asked("how many ounces in 2 pounds"),
            (2.0, "pounds".into(), "ounces".into())
        );
        assert_eq!(
            asked("How many kilometers is 26.2 miles?"),
            (26.2, "miles".into(), "kilometers".into())
        );
        assert_eq!(
            asked("What is 70 degrees Fahrenheit in Celsius?"),
            (70.0, "degrees Fahrenheit".into(), "Celsius".into())
        );
        assert_eq!(
            asked("Convert 3 meters to feet."),
            (3.0, "meters".into(), "feet".into())
        );
        assert_eq!(
            asked("How tall is 180 centimeters in feet?"),
            (180.0, "centimeters".into(), "feet".into())
        );
        assert_eq!(
            asked("How many seconds are there in a day"),
            (1.0, "day".into(), "seconds".into())
        );
        assert_eq!(
            asked("How many minutes is 2 and a half hours?"),
            (2.5, "hours".into(), "minutes".into())
        );
        assert_eq!(
            asked("How many tablespoons are in a quarter cup?"),
            (0.25, "cup".into(), "tablespoons".into())
        );
        assert_eq!(
            asked("How many teaspoons are in three quarters of a cup?"),
            (0.75, "cup".into(), "teaspoons".into())
        );
        assert_eq!(
            asked("How many minutes are in half an hour?"),
            (0.5, "hour".into(), "minutes".into())
        );
        assert_eq!(
            asked("How many centimeters is 5 foot 10?"),
            (70.0, "inches".into(), "centimeters".into())
        );
        assert_eq!(
            asked("What is 6 feet 2 inches in meters?"),
            (74.0, "inches".into(), "meters".into())
        );
        assert_eq!(
            asked("How many liters is half a gallon of milk?"),
            (0.5, "gallon".into(), "liters".into())
        );
        assert_eq!(
            asked("How many milliliters is a 12 ounce can of soda?"),
            (12.0, "ounce".into(), "milliliters".into())
        );
        assert_eq!(
            asked("My suitcase weighs 23 kilograms. How many pounds is that?"),
            (23.0, "kilograms".into(), "pounds".into())
        );
        assert_eq!(
            asked("It's 30 degrees Celsius outside. What's that in Fahrenheit?"),
            (30.0, "degrees Celsius".into(), "Fahrenheit".into())
        );
        assert_eq!(
            asked("The nurse said the baby weighs 3.4 kilograms. How many pounds is that?"),
            (3.4, "kilograms".into(), "pounds".into())
        );
        assert_eq!(
            asked("I'm 5 foot 4. What's that in centimeters?"),
            (64.0, "inches".into(), "centimeters".into())
        );
        assert_eq!(
            asked("The limit is 130 kilometers per hour. How fast is that in miles per hour?"),
            (130.0, "kilometers per hour".into(), "miles per hour".into())
        );
        assert_eq!(
            conversion("I sleep 7 hours a night. How many hours is that in a week?"),
            None
        );
        assert_eq!(
            conversion("I have 3 hours and 45 minutes left. How many minutes is that?"),
            None
        );
        assert_eq!(
            conversion("I worked 7.5 hours a day for 5 days. How many hours is that?"),
            None
        );
        assert_eq!(
            conversion("I have three hours and 45 minutes left. How many minutes is that?"),
            None
        );
        assert_eq!(
            asked("What's 11 pounds and kilograms?"),
            (11.0, "pounds".into(), "kilograms".into())
        );
        for (question, from, to) in [
            (
                "The lasagne recipe wants 450 grams of mince. Roughly how many pounds is that?",
                (450.0, "grams"),
                "pounds",
            ),
            (
                "Our oven only shows Celsius. What's 425 Fahrenheit in Celsius?",
                (425.0, "Fahrenheit"),
                "Celsius",
            ),
            (
                "so I deadlift a hundred kilos, what's that in pounds",
                (100.0, "kilos"),
                "pounds",
            ),
            (
                "The new vegetable bed is 120 square feet. How many square meters is that?",
                (120.0, "square feet"),
                "square meters",
            ),
            (
                "The speed limit is 110 kilometers an hour. What's that in miles per hour?",
                (110.0, "kilometers per hour"),
                "miles per hour",
            ),
            (
                "How many milliliters is two and a quarter US cups?",
                (2.25, "cups"),
                "milliliters",
            ),
            ("How far is a 15K race in miles?", (15.0, "km"), "miles"),
            (
                "A pallet of concrete blocks is 1,200 kilos. How many pounds is that?",
                (1200.0, "kilos"),
                "pounds",
            ),
        ] {
            assert_eq!(
                conversion(question),
                Some(Conversion {
                    value: from.0,
                    from: from.1.into(),
                    to: to.into()
                }),
                "{question}"
            );
        }
        assert_eq!(
            conversion("How many grams is a stick of butter?"),
            Some(Conversion {
                value: 1.0,
                from: "stick".into(),
                to: "grams".into()
            })
        );
        for not_one in [
            "How many months have 31 days?",
            "I ran 5 miles in 40 minutes. How many kilometers an hour is that?",
            "A recipe for 4 uses 2 cups of flour. How many cups for 6 people?",
        ] {
            assert_eq!(conversion(not_one), None, "{not_one}");
        }
        assert_eq!(conversion("17 times 23"), None);
        assert_eq!(
            conversion("how many apples are in 3 baskets"),
            Some(Conversion {
                value: 3.0,
                from: "baskets".into(),
                to: "apples".into()
            })
        );
        assert_eq!(conversion("15 percent of 80"), None);
        assert_eq!(conversion("2 + 3"), None);
    }
}

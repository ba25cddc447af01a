//! Numbers as people say them, and as speech recognition writes small
//! ones: `fifteen`, `twenty three`, `forty-two`, `one hundred and five`,
//! `two thousand`, `two point five`.

use regex::Regex;
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
        match run(&words[i..]).filter(|(_, used)| !one_as_a_pronoun(&words, i, *used)) {
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

/// `text` with each price said the way people read one out, whole
/// dollars then cents with no word between (`sixty four fifty`,
/// `eighty nine ninety nine`, `seventeen twenty an hour`), written in
/// digits (`64.50`); the other number words stay as they were. Only in a
/// text about money ([`ABOUT_MONEY`]): elsewhere such a pair is two
/// numbers or a year. A pair that tells a clock time (`at nine thirty`,
/// `ten fifteen pm`) stays. A text with no such price is returned as it
/// was.
pub fn prices_in_digits(text: &str) -> String {
    if !ABOUT_MONEY.is_match(text) {
        return text.to_string();
    }
    let words = split_words(text);
    let mut out: Vec<String> = Vec::new();
    let mut found = false;
    let mut i = 0;
    while i < words.len() {
        match price(&words, i, found) {
            Some((written, used)) => {
                out.push(written);
                found = true;
                i += used;
            }
            None => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    match found {
        true => out.join(" "),
        false => text.to_string(),
    }
}

/// `R3,795`, `RM 25.90`, `K640`: an amount after the sign of the rand,
/// the ringgit or the kwacha, which are letters.
static LETTER_SIGNED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(R|RM|K)\s?(\d[\d,]*(?:\.\d+)?)\b").expect("a valid regex"));

/// Words of buying and selling that, beside [`ABOUT_MONEY`], make a `K`
/// before an amount the kwacha's sign (not `K9` the dog or `K2` the
/// mountain).
static TRADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:sold|sell|selling|sales|bought|buy|rent|profit|charged|owe|owes|kwacha|how\s+much)\b",
    )
    .expect("a valid regex")
});

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

/// `GH₵`, `NZ$`, `US$`: a country's letters before a currency sign.
static COUNTRY_BEFORE_SIGN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&with_currencies(r"\b[A-Z]{1,3}([SIGNS])")).expect("a valid regex")
});

/// `text` with amounts signed by letters written as the amount and the
/// currency's name: `R3,795` → `3,795 rand`, `RM25` → `25 ringgit`,
/// `K640` → `640 kwacha` in a text about money (digits run into a letter
/// sign read as no number); a country's letters before a sign dropped
/// (`GH₵420` → `₵420`).
pub fn letter_signs_named(text: &str) -> String {
    let text = COUNTRY_BEFORE_SIGN.replace_all(text, "$1");
    let kwacha = ABOUT_MONEY.is_match(&text) || TRADE.is_match(&text);
    LETTER_SIGNED
        .replace_all(&text, |found: &regex::Captures| {
            let name = match &found[1] {
                "R" => "rand",
                "RM" => "ringgit",
                _ if kwacha => "kwacha",
                _ => return found[0].to_string(),
            };
            format!("{} {name}", &found[2])
        })
        .into_owned()
}

/// A currency as people say it: the signs written before an amount and
/// its names.
pub struct Currency {
    /// Signs written before an amount (`$`).
    pub signs: &'static [char],
    /// Its name for one (`dollar`).
    pub one: &'static str,
    /// Its name for more than one (`dollars`).
    pub many: &'static str,
    /// What else it is called (`bucks`).
    pub also: &'static [&'static str],
}

/// Names of currencies that are also other words: a pound is a weight,
/// and "won" a verb.
const NOT_ONLY_MONEY: &[&str] = &["pound", "pounds", "won"];

const fn currency(
    signs: &'static [char],
    one: &'static str,
    many: &'static str,
    also: &'static [&'static str],
) -> Currency {
    Currency {
        signs,
        one,
        many,
        also,
    }
}

/// The currencies read in amounts. A text that names more than one is
/// taken to be about the first of them here.
pub const CURRENCIES: &[Currency] = &[
    currency(&['$'], "dollar", "dollars", &["bucks", "buck"]),
    currency(&['€'], "euro", "euros", &[]),
    currency(&['£'], "pound", "pounds", &["quid"]),
    currency(&['₹'], "rupee", "rupees", &[]),
    currency(&['₱'], "peso", "pesos", &[]),
    currency(&[], "shilling", "shillings", &["bob"]),
    currency(&[], "rand", "rand", &[]),
    currency(&[], "ringgit", "ringgit", &[]),
    currency(&['₦'], "naira", "naira", &[]),
    currency(&['¥'], "yen", "yen", &["yuan"]),
    currency(&['₩'], "won", "won", &[]),
    currency(&['₺'], "lira", "lira", &["liras"]),
    currency(&['₽'], "ruble", "rubles", &["rouble", "roubles"]),
    currency(&['₫'], "dong", "dong", &[]),
    currency(&['₪'], "shekel", "shekels", &[]),
    currency(&['₵'], "cedi", "cedis", &[]),
    currency(&['฿'], "baht", "baht", &[]),
    currency(&['৳'], "taka", "taka", &[]),
    currency(&[], "dirham", "dirhams", &[]),
    currency(&[], "riyal", "riyals", &[]),
    currency(&[], "franc", "francs", &[]),
    currency(&[], "kwacha", "kwacha", &[]),
];

/// The signs written before an amount of money: those of [`CURRENCIES`].
pub const CURRENCY_SIGNS: [char; 15] = [
    '$', '€', '£', '₹', '₱', '₦', '¥', '₩', '₺', '₽', '₫', '₪', '₵', '฿', '৳',
];

/// The currency `text` (any case) is about: the first of [`CURRENCIES`]
/// whose sign it holds or whose name it says as a word.
pub fn currency_of(text: &str) -> Option<&'static Currency> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    CURRENCIES.iter().find(|currency| {
        currency.signs.iter().any(|sign| lower.contains(*sign))
            || currency.names().any(|name| words.contains(&name))
    })
}

impl Currency {
    /// All its names: for one, for more, and the others.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        [self.one, self.many]
            .into_iter()
            .chain(self.also.iter().copied())
    }

    /// Its name for `amount` as said (`1`: one dollar; else dollars).
    pub fn name_for(&self, amount: &str) -> &'static str {
        match amount {
            "1" => self.one,
            _ => self.many,
        }
    }
}

/// The currency that `word` (lower case) names and that means only money
/// (`naira`, `bucks`; not `pounds`, also a weight).
pub fn money_named(word: &str) -> Option<&'static Currency> {
    if NOT_ONLY_MONEY.contains(&word) {
        return None;
    }
    CURRENCIES
        .iter()
        .find(|c| c.names().any(|name| name == word))
}

/// The names of currencies that mean only money, as a regex alternation
/// (`dollars|dollar|bucks|…`), longest first.
static MONEY_NAMES: LazyLock<String> = LazyLock::new(|| {
    let mut names: Vec<&str> = CURRENCIES
        .iter()
        .flat_map(Currency::names)
        .filter(|name| !NOT_ONLY_MONEY.contains(name))
        .collect();
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    names.dedup();
    names.join("|")
});

/// `pattern` with `SIGNS` written as the characters of [`CURRENCY_SIGNS`]
/// (for a character class, `[SIGNS]`) and `CURRENCIES` as the names of the
/// currencies that mean only money (for an alternation,
/// `(?:CURRENCIES)`): one list of each for every pattern that reads money.
pub fn with_currencies(pattern: &str) -> String {
    pattern
        .replace("SIGNS", &CURRENCY_SIGNS.iter().collect::<String>())
        .replace("CURRENCIES", &MONEY_NAMES)
}

/// Words that make a text about money.
static ABOUT_MONEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&with_currencies(r"(?i)[SIGNS]|\b(?:CURRENCIES|cents|rs|ksh|tips?|tax|gst|gct|hst|pst|vat|price|priced|costs?|costing|pay|paid|bill|sale|off|discount|spent|spend|earn|earns|earned|wage|salary|charge|charges|came\s+to|comes\s+to|an\s+hour|a\s+month|a\s+week|a\s+kilo|a\s+pound|fares?|a\s+gallon|a\s+litre|a\s+liter|a\s+dozen|each|apiece)\b"))
        .expect("a valid regex")
});

/// Words that put a clock time after them.
const BEFORE_A_TIME: &[&str] = &["at", "from", "until", "till", "til", "to", "by", "around"];

/// Words that make the pair before them a clock time.
const AFTER_A_TIME: &[&str] = &["am", "pm", "a.m.", "p.m.", "o'clock", "oclock"];

/// The price said at `words[at..]`, in digits, and how many words it took.
/// After another price, `to` before a pair does not make it a clock time
/// (`from two seventy nine a gallon to three fifteen`).
fn price(words: &[&str], at: usize, after_a_price: bool) -> Option<(String, usize)> {
    if one_as_a_pronoun(words, at, 1) {
        return None;
    }
    let a_currency =
        words[at].eq_ignore_ascii_case("a") && words.get(at + 1).is_some_and(|w| is_currency(w));
    let (dollars, used) = match a_currency {
        true => ("1".to_string(), 1),
        false => run(&words[at..])?,
    };
    let dollars: u64 = dollars.parse().ok()?;
    let (dollars, used) = hundreds_said_short(words, at, dollars, used).unwrap_or((dollars, used));
    let mut cents_at = at + used;
    let last = words[cents_at - 1];
    if core(last) != last || dollars >= 10_000 {
        return None;
    }
    let currency = words
        .get(cents_at)
        .filter(|w| is_currency(w))
        .map(|w| format!(" {w}"));
    if currency.is_some() {
        cents_at += 1;
    }
    let cents_words: Vec<&str> = words[cents_at..]
        .iter()
        .take(2)
        .copied()
        .take_while(|w| small(core(w)).is_some())
        .collect();
    let oh_then_a_unit = words
        .get(cents_at)
        .is_some_and(|w| matches!(w.to_ascii_lowercase().as_str(), "oh" | "o"))
        && words
            .get(cents_at + 1)
            .and_then(|w| small(core(w)))
            .is_some_and(|n| (1..10).contains(&n));
    let (cents, cents_used) = match cents_words.as_slice() {
        // `three oh nine`: 3.09.
        _ if oh_then_a_unit => (small(core(words[cents_at + 1]))?, 2),
        [tens, unit, ..]
            if core(tens) == *tens
                && small(tens).is_some_and(|n| n >= 20 && n.is_multiple_of(10))
                && small(core(unit)).is_some_and(|n| (1..10).contains(&n)) =>
        {
            (small(tens)? + small(core(unit))?, 2)
        }
        [word, ..] if small(core(word)).is_some_and(|n| n >= 10) => (small(core(word))?, 1),
        _ => return None,
    };
    let cents_named = words.get(cents_at + cents_used).is_some_and(|w| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "cents" | "cent" | "pence" | "centavos" | "pesewas" | "kobo" | "paise"
        )
    });
    let cents_used = cents_used + usize::from(cents_named);
    let after = words
        .get(cents_at + cents_used)
        .map(|w| w.to_ascii_lowercase());
    let more_number = after.as_deref().is_some_and(|w| {
        small(core(w)).is_some()
            || matches!(
                core(w).to_ascii_lowercase().as_str(),
                "hundred" | "thousand" | "point"
            )
    });
    let weighed = after
        .as_deref()
        .is_some_and(|w| matches!(core(w), "ounces" | "ounce" | "oz" | "of"));
    let per_thing = after
        .as_deref()
        .is_some_and(|w| matches!(w, "a" | "an" | "per" | "each" | "apiece"));
    let end = cents_at + cents_used;
    let from_price_to_price = at
        .checked_sub(1)
        .is_some_and(|b| words[b].eq_ignore_ascii_case("from"))
        && after.as_deref() == Some("to")
        && price(words, end + 1, true).is_some_and(|(_, used)| {
            words.get(end + 1 + used).is_some_and(|w| {
                matches!(w.to_ascii_lowercase().as_str(), "a" | "an" | "per" | "each")
                    || is_currency(w)
            })
        });
    let a_time = currency.is_none()
        && !from_price_to_price
        && (after.as_deref().is_some_and(|w| AFTER_A_TIME.contains(&w))
            || (dollars <= 12
                && !per_thing
                && at
                    .checked_sub(1)
                    .map(|b| words[b].to_ascii_lowercase())
                    .is_some_and(|b| {
                        BEFORE_A_TIME.contains(&b.as_str()) && !(after_a_price && b == "to")
                    })));
    let number_before = at
        .checked_sub(1)
        .is_some_and(|b| small(core(words[b])).is_some());
    if more_number || a_time || number_before || weighed {
        return None;
    }
    let last = words[cents_at + cents_used - 1];
    let tail = &last[last.trim_end_matches(is_mark).len()..];
    let currency = currency.unwrap_or_default();
    // `eighty seven pound fifty`: pounds with pence are money, not weight.
    let written = match currency.trim().to_ascii_lowercase().as_str() {
        "pound" | "pounds" => format!("£{dollars}.{cents:02}{tail}"),
        _ => format!("{dollars}.{cents:02}{currency}{tail}"),
    };
    Some((written, cents_at + cents_used - at))
}

/// `one twenty eight` before cents (`fifty`): the hundreds said as one
/// digit before the tens, as a price is read out (128), with the words
/// it took; `None` unless two-digit cents follow.
fn hundreds_said_short(
    words: &[&str],
    at: usize,
    hundreds: u64,
    used: usize,
) -> Option<(u64, usize)> {
    if used != 1 || !(1..=9).contains(&hundreds) || core(words[at]) != words[at] {
        return None;
    }
    let (tens, tens_used) = two_digits(words, at + 1)?;
    let last = words[at + tens_used];
    if core(last) != last {
        return None;
    }
    two_digits(words, at + 1 + tens_used)?;
    Some((hundreds * 100 + tens, 1 + tens_used))
}

/// A number from 10 to 99 said at `words[at..]` (`twenty eight`,
/// `fifteen`, `forty`), with the words it took.
fn two_digits(words: &[&str], at: usize) -> Option<(u64, usize)> {
    let first = small(core(words.get(at)?)).filter(|n| (10..100).contains(n))?;
    let unit = words
        .get(at + 1)
        .filter(|_| first >= 20 && first.is_multiple_of(10) && core(words[at]) == words[at])
        .and_then(|w| small(core(w)))
        .filter(|n| (1..10).contains(n));
    Some(match unit {
        Some(unit) => (first + unit, 2),
        None => (first, 1),
    })
}

/// Whether `word` (any case) names money (`dollars`, `euro`, `quid`), as
/// said after an amount.
pub fn is_currency(word: &str) -> bool {
    let word = word.to_lowercase();
    CURRENCIES
        .iter()
        .any(|c| c.names().any(|name| name == word))
        || word == "rs"
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

/// What may come next in a run of number words.
#[derive(Clone, Copy, PartialEq)]
enum After {
    /// A unit or teen: `hundred`, a scale, `point`.
    Unit,
    /// A tens word: a unit from one to nine, a scale, `point`.
    Tens,
    /// `hundred`: `and`, a number below a hundred, a scale.
    Hundred,
    /// A scale (`thousand`, `lakh`, `crore`, `million`): `and`, a number
    /// below it.
    Scale,
}

/// The number a run of words at the start of `words` says, written in
/// digits, and how many words it took; `None` when it starts with no
/// number word.
fn run(words: &[&str]) -> Option<(String, usize)> {
    let scale_next = words.get(1).is_some_and(|w| {
        matches!(
            core(w).to_ascii_lowercase().as_str(),
            "hundred" | "thousand" | "lakh" | "lakhs" | "crore" | "crores" | "million"
        )
    });
    let and_a_number = words
        .get(1)
        .is_some_and(|w| core(w).eq_ignore_ascii_case("and"))
        && words.get(2).is_some_and(|w| small(core(w)).is_some());
    let (first, first_after) = match core(words.first()?).to_ascii_lowercase().as_str() {
        "a" | "an" if scale_next => (1, kind(1)),
        "hundred" if and_a_number => (100, After::Hundred),
        word => {
            let n = small(word)?;
            (n, kind(n))
        }
    };
    let (mut total, mut current, mut after, mut used) = (0u64, first, first_after, 1);
    // The last scale said, and where the number after it began: a scale
    // no smaller than the last starts another number (`six thousand four
    // thousand` is a list).
    let (mut last_scale, mut current_from) = (u64::MAX, 0);
    // The last `and` inside the number, and the number before it: `three
    // thousand five hundred and eight thousand` ends the first at `and`.
    let (mut and_at, mut before_and) = (0, 0);
    // The unit word last added after a tens word or a hundred: `two hundred
    // and forty one hundred` is a list, whose second number that unit begins.
    let mut last_unit = 0;
    while used < words.len() && core(words[used - 1]) == words[used - 1] {
        let word = core(words[used]).to_ascii_lowercase();
        let next = small(&word);
        match (after, word.as_str(), next) {
            (After::Unit, "hundred", _) if current >= 100 && last_unit > 0 => {
                let ends = used - 1;
                let ends = if and_at + 1 == ends { and_at } else { ends };
                return Some(((total + current - last_unit).to_string(), ends));
            }
            (After::Unit | After::Tens, "hundred", _)
                if !current.is_multiple_of(100) || current == 0 =>
            {
                current = current.max(1) * 100;
                after = After::Hundred;
            }
            (_, "thousand" | "lakh" | "lakhs" | "crore" | "crores" | "million", _) => {
                let scale = scale(&word);
                let unit_before = small(&core(words[used - 1]).to_ascii_lowercase())
                    .is_some_and(|n| n == last_unit && n > 0);
                if scale >= last_scale && current_from > 0 && unit_before && and_at + 2 != used {
                    // `two thousand one hundred two thousand`, `… four
                    // hundred and fifty one thousand`: the unit before the
                    // scale begins the next number.
                    return Some(((total + current - last_unit).to_string(), used - 1));
                }
                if scale >= last_scale && current_from > 0 {
                    return Some(if and_at > current_from {
                        ((total + before_and).to_string(), and_at)
                    } else if and_at > 0 && and_at + 1 == current_from {
                        (total.to_string(), and_at)
                    } else {
                        (total.to_string(), current_from)
                    });
                }
                total += current.max(1) * scale;
                current = 0;
                after = After::Scale;
                last_scale = scale;
            }
            (After::Tens, _, Some(n)) if (1..10).contains(&n) => {
                current += n;
                after = After::Unit;
                last_unit = n;
            }
            (After::Hundred | After::Scale, "and", _)
                if words
                    .get(used + 1)
                    .is_some_and(|w| small(core(w)).is_some()) =>
            {
                (and_at, before_and) = (used, current);
                used += 1;
                continue;
            }
            (After::Hundred | After::Scale, _, Some(n)) => {
                if after == After::Scale {
                    current_from = used;
                }
                current += n;
                after = kind(n);
                last_unit = if n < 10 { n } else { 0 };
            }
            (After::Unit | After::Tens | After::Hundred, "point", _) => {
                let mut decimals: Vec<u64> = words[used + 1..]
                    .iter()
                    .map_while(|w| small(core(w)).filter(|d| *d < 10))
                    .collect();
                // `three point five four point two` is a list: the digit
                // before the next `point` begins the next number.
                let point_next = words
                    .get(used + 1 + decimals.len())
                    .is_some_and(|w| core(w).eq_ignore_ascii_case("point"));
                if point_next && decimals.len() > 1 {
                    decimals.pop();
                }
                if decimals.is_empty() {
                    break;
                }
                let digits: String = decimals.iter().map(u64::to_string).collect();
                let taken = used + 1 + decimals.len();
                return Some((format!("{}.{digits}", total + current), taken));
            }
            _ => break,
        }
        used += 1;
    }
    Some(((total + current).to_string(), used))
}

/// What a scale word multiplies by: `thousand`, the Indian `lakh` (a
/// hundred thousand) and `crore` (ten million), `million`.
fn scale(word: &str) -> u64 {
    match word.trim_end_matches('s') {
        "thousand" => 1_000,
        "lakh" => 100_000,
        "crore" => 10_000_000,
        _ => 1_000_000,
    }
}

fn kind(n: u64) -> After {
    match n {
        20.. if n.is_multiple_of(10) => After::Tens,
        _ => After::Unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_said_short_or_in_a_list_are_written_out() {
        assert_eq!(
            in_digits("rent is 650k and 2.5K more"),
            "rent is 650000 and 2500 more"
        );
        assert_eq!(in_digits("a 15K race"), "a 15K race");
        assert_eq!(in_digits("eight grand"), "8000");
        assert_eq!(in_digits("i owe him a grand"), "i owe him 1000");
        assert_eq!(in_digits("the grand total"), "the grand total");
        assert_eq!(
            in_digits("how much does a grand piano weigh"),
            "how much does a grand piano weigh"
        );
        assert_eq!(in_digits("a grand a month"), "1000 a month");
        assert_eq!(
            in_digits("six thousand four thousand and three thousand five hundred"),
            "6000 4000 and 3500"
        );
        assert_eq!(
            in_digits("three thousand five hundred and eight thousand"),
            "3500 and 8000"
        );
        assert_eq!(in_digits("two million three hundred thousand"), "2300000");
        assert_eq!(
            in_digits("two thousand one hundred two thousand four hundred and fifty one thousand nine hundred and eighty and two thousand six hundred"),
            "2100 2450 1980 and 2600"
        );
        assert_eq!(
            in_digits("four hundred and fifty one thousand"),
            "451000",
            "a number's first scale takes all before it"
        );
    }

    #[test]
    fn amounts_joined_to_their_unit_are_written_apart() {
        assert_eq!(amounts_apart("a 40-pound box"), "a 40 pound box");
        assert_eq!(amounts_apart("30-day terms"), "30 day terms");
        assert_eq!(amounts_apart("3-in-1 coffee"), "3-in-1 coffee");
    }

    #[test]
    fn the_signs_are_those_of_the_currencies() {
        let mut of_currencies: Vec<char> = CURRENCIES
            .iter()
            .flat_map(|c| c.signs.iter().copied())
            .collect();
        let mut signs = CURRENCY_SIGNS.to_vec();
        of_currencies.sort_unstable();
        signs.sort_unstable();
        assert_eq!(of_currencies, signs);
    }

    #[test]
    fn a_text_is_about_the_currency_it_names() {
        for (text, name) in [
            ("₦185,000 per term", Some("naira")),
            ("two thousand naira a yard", Some("naira")),
            ("20 bucks each", Some("dollars")),
            ("a 3 pound bag", Some("pounds")),
            ("15 percent off", None),
            ("the randy dog", None),
        ] {
            assert_eq!(currency_of(text).map(|c| c.many), name, "{text}");
        }
        assert!(is_currency("Naira") && is_currency("quid") && !is_currency("yard"));
        let names = Regex::new(&with_currencies(r"^(?:CURRENCIES)$")).unwrap();
        assert!(names.is_match("cedis") && names.is_match("dollar") && names.is_match("quid"));
        assert!(!names.is_match("won") && !names.is_match("pounds"));
    }

    #[test]
    fn prices_read_out_are_written_in_digits() {
        for (said, written) in [
            (
                "an eighteen percent tip on sixty four fifty",
                "an eighteen percent tip on 64.50",
            ),
            (
                "a jacket on sale is eighty nine ninety nine",
                "a jacket on sale is 89.99",
            ),
            (
                "whats nineteen eighty four minus nineteen fifty",
                "whats nineteen eighty four minus nineteen fifty",
            ),
            ("at seventeen twenty an hour", "at 17.20 an hour"),
            (
                "and at three twenty nine a gallon what did that cost me",
                "and at 3.29 a gallon what did that cost me",
            ),
            ("twenty seven fifty an hour?", "27.50 an hour?"),
            (
                "eighty seven pound fifty plus a hundred quid",
                "£87.50 plus a hundred quid",
            ),
            (
                "diesel went from three oh nine to three forty five a gallon",
                "diesel went from 3.09 to 3.45 a gallon",
            ),
            (
                "at nine oh five for 20 an hour",
                "at nine oh five for 20 an hour",
            ),
            (
                "from nine thirty to five fifteen at 20 dollars an hour",
                "from nine thirty to five fifteen at 20 dollars an hour",
            ),
            ("it cost four hundred and twelve thirty", "it cost 412.30"),
            (
                "start at nine thirty for 20 an hour",
                "start at nine thirty for 20 an hour",
            ),
            ("ten fifteen pm", "ten fifteen pm"),
            ("sixty four dollars", "sixty four dollars"),
            (
                "a bag is fourteen euro fifty and i go through nine bags a week",
                "a bag is 14.50 euro and i go through nine bags a week",
            ),
            (
                "it weighs five pounds twelve ounces each",
                "it weighs five pounds twelve ounces each",
            ),
            (
                "twenty five dollars an hour times thirty eight hours",
                "twenty five dollars an hour times thirty eight hours",
            ),
            (
                "forty two thirty eight fifty five",
                "forty two thirty eight fifty five",
            ),
        ] {
            assert_eq!(prices_in_digits(said), written, "{said}");
        }
    }

    #[test]
    fn years_said_in_pairs_are_written_in_digits() {
        assert_eq!(
            years_in_digits("Is twenty thirty-six a leap year"),
            "Is 2036 a leap year"
        );
        assert_eq!(
            years_in_digits("June 6th, nineteen forty four?"),
            "June 6th, 1944?"
        );
        assert_eq!(years_in_digits("in nineteen fifteen."), "in 1915.");
        assert_eq!(
            years_in_digits("in twenty five days"),
            "in twenty five days"
        );
        assert_eq!(years_in_digits("nineteen hundred"), "nineteen hundred");
    }

    #[test]
    fn runs_of_number_words_are_written_in_digits() {
        let cases = [
            (
                "what is fifteen percent of eighty?",
                "what is 15 percent of 80?",
            ),
            ("Seventeen times twenty three", "17 times 23"),
            ("forty-two plus one hundred and five", "42 plus 105"),
            ("two thousand three hundred", "2300"),
            ("twelve thousand and one", "12001"),
            ("one lakh twenty thousand", "120000"),
            ("two crore fifty lakh", "25000000"),
            ("eighty seven thousand five hundred", "87500"),
            ("two point five times four", "2.5 times 4"),
            ("one, two, three", "1, 2, 3"),
            ("one two", "1 2"),
            ("the point is seven", "the point is 7"),
            ("a hundred kilos", "100 kilos"),
            (
                "the whole hundred and ninety two miles",
                "the whole 192 miles",
            ),
            ("hundred and", "hundred and"),
            ("a thousand and fifty", "1050"),
            ("a hundred point eight", "100.8"),
            (
                "three point five four point two two point eight and three point nine",
                "3.5 4.2 2.8 and 3.9",
            ),
            ("three point one four", "3.14"),
            (
                "two hundred and ten one hundred and eighty five two hundred and forty one hundred and ninety eight",
                "210 185 240 198",
            ),
            ("three hundred five hundred", "300 500"),
            ("two hundred and one hundred", "200 and 100"),
            ("twenty one hundred", "2100"),
            ("two thousand one hundred and five", "2105"),
            ("a hundred times a hundred", "100 times 100"),
            ("a few hundred", "a few hundred"),
            ("nothing to see", "nothing to see"),
            ("the twenty second of september", "the 22nd of september"),
            ("thirty-first of May?", "31st of May?"),
            ("twenty, first", "20, first"),
            (
                "six litres per hundred kilometres",
                "6 litres per 100 kilometres",
            ),
        ];
        for (said, written) in cases {
            assert_eq!(in_digits(said), written, "{said:?}");
        }
    }

    #[test]
    fn a_whole_number_and_a_part_is_one_number() {
        for (said, written) in [
            ("6 and a half hours", "6.5 hours"),
            ("6 and 3 quarter hours", "6.75 hours"),
            ("2 and three quarters", "2.75"),
            ("1 and a quarter pounds", "1.25 pounds"),
            ("6 and 3 more", "6 and 3 more"),
            (
                "and a pound and a half of currants",
                "and 1.5 pound of currants",
            ),
            ("What about a dozen bags?", "What about 12 bags?"),
            ("half a dozen eggs", "6 eggs"),
            ("2 dozen rolls", "24 rolls"),
            ("eggs are £3 a dozen", "eggs are £3 a dozen"),
            ("eggs are 3 pounds a dozen", "eggs are 3 pounds a dozen"),
        ] {
            assert_eq!(with_parts(said), written, "{said:?}");
        }
    }
}

//! Prices said the way people read one out (`sixty four fifty`, `one
//! twenty eight fifty`), written in digits in a text about money.

use super::currencies::{is_currency, with_currencies, CURRENCY_SIGNS};
use super::run::run;
use super::{core, is_mark, one_as_a_pronoun, small, split_words};
use regex::Regex;
use std::sync::LazyLock;

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
    let mut priced_to = None;
    let mut said_short = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let right_after_a_price = priced_to == Some(i);
        match price(&words, i, found).filter(|_| right_after_a_price || !number_before(&words, i)) {
            Some((written, used)) => {
                if words[i].chars().all(|c| c.is_ascii_alphabetic()) {
                    said_short.push(out.len());
                }
                out.push(written);
                found = true;
                i += used;
                priced_to = Some(i);
            }
            None => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    if !found {
        return text.to_string();
    }
    if ASKS_FOR_CHANGE.is_match(text) {
        hundreds_when_paid_more(&mut out, &said_short, &words);
    }
    out.join(" ")
}

/// Words that ask what is given back from the cash handed over.
static ASKS_FOR_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:change|get\s+back|give\s+back|hand\s+back)\b").expect("a valid regex")
});

/// A short price said as one digit then two (`three twenty five`, 3.25)
/// read as hundreds (325) where the cash handed over for it is a hundred
/// or more and covers the hundreds: no one pays 3.25 with 400 and asks
/// for change. `out` holds the words with prices written in digits
/// (`said_short`: where such a price was said in words), `words` the
/// words said.
fn hundreds_when_paid_more(out: &mut [String], said_short: &[usize], words: &[&str]) {
    let cash = words
        .iter()
        .enumerate()
        .filter_map(|(i, _)| run(&words[i..]))
        .filter_map(|(n, _)| n.parse::<f64>().ok())
        .chain(words.iter().filter_map(|w| {
            w.trim_start_matches(CURRENCY_SIGNS)
                .replace(',', "")
                .parse()
                .ok()
        }))
        .fold(0.0f64, f64::max);
    if cash < 100.0 {
        return;
    }
    for &at in said_short {
        let Some((dollars, cents)) = out[at].split_once('.') else {
            continue;
        };
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if dollars.len() != 1 || cents.len() != 2 || !digits(dollars) || !digits(cents) {
            continue;
        }
        let hundreds = format!("{dollars}{cents}");
        if hundreds.parse::<f64>().is_ok_and(|h| h <= cash) {
            out[at] = hundreds;
        }
    }
}

/// Whether `word` names the hundredth part of a currency.
fn names_cents(word: &str) -> bool {
    matches!(
        word.to_ascii_lowercase().as_str(),
        "cents" | "cent" | "pence" | "centavos" | "pesewas" | "kobo" | "paise"
    )
}

/// Whether `words[at..]` is an amount of its own with its currency and
/// then its cents named (`sixty seven cedis fifty pesewas`), so it is not
/// the cents of the amount before.
fn an_amount_with_its_cents(words: &[&str], at: usize) -> bool {
    let Some((_, used)) = words.get(at..).and_then(run) else {
        return false;
    };
    let cents_at = at + used + 1;
    words.get(at + used).is_some_and(|w| is_currency(w))
        && words
            .get(cents_at..)
            .and_then(run)
            .is_some_and(|(_, used)| words.get(cents_at + used).is_some_and(|w| names_cents(w)))
}

/// Words that make a text about money.
pub(super) static ABOUT_MONEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&with_currencies(r"(?i)[SIGNS]|\b(?:CURRENCIES|cents|rs|ksh|tips?|tax|gst|gct|hst|pst|vat|price|priced|costs?|costing|pay|paid|bill|sale|off|discount|spent|spend|earn|earns|earned|wage|salary|charge|charges|came\s+to|comes\s+to|an\s+hour|a\s+month|a\s+week|a\s+kilo|a\s+pound|fares?|(?:a|per)\s+gallon|(?:a|per)\s+litre|(?:a|per)\s+liter|a\s+dozen|each|apiece)\b"))
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
    // `fifty two dollars and forty cents`: the cents named after "and".
    let and_cents = currency.is_some()
        && words
            .get(cents_at)
            .is_some_and(|w| w.eq_ignore_ascii_case("and"));
    if and_cents {
        cents_at += 1;
    }
    if currency.is_some() && an_amount_with_its_cents(words, cents_at) {
        return None;
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
        // `seven cedis fifty nine cedis`: 7.50, then 9 cedis.
        [tens, unit, ..]
            if core(tens) == *tens
                && small(tens).is_some_and(|n| n >= 20 && n.is_multiple_of(10))
                && small(core(unit)).is_some_and(|n| (1..10).contains(&n))
                && !words.get(cents_at + 2).is_some_and(|w| is_currency(w)) =>
        {
            (small(tens)? + small(core(unit))?, 2)
        }
        [word, ..] if small(core(word)).is_some_and(|n| n >= 10) => (small(core(word))?, 1),
        _ => return None,
    };
    let cents_named = words
        .get(cents_at + cents_used)
        .is_some_and(|w| names_cents(w));
    if and_cents && !cents_named {
        return None;
    }
    let cents_used = cents_used + usize::from(cents_named);
    let after = words
        .get(cents_at + cents_used)
        .map(|w| w.to_ascii_lowercase());
    // `… dollars forty eighty seven dollars sixty five`: the next number
    // is an amount of its own, named with its currency.
    let next_at = cents_at + cents_used;
    let another_amount = words.get(next_at + 1).is_some_and(|w| is_currency(w))
        || words
            .get(next_at..)
            .and_then(run)
            .is_some_and(|(_, used)| words.get(next_at + used).is_some_and(|w| is_currency(w)));
    let more_number = after.as_deref().is_some_and(|w| {
        (small(core(w)).is_some() && !another_amount)
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
    if more_number || a_time || weighed {
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

/// Whether a number word is said just before `words[at]`: a price does
/// not start inside a run of numbers, unless a price ended there.
fn number_before(words: &[&str], at: usize) -> bool {
    at.checked_sub(1)
        .is_some_and(|b| small(core(words[b])).is_some())
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

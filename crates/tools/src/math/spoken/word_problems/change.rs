//! Coins counted by name, and the change from a payment for things
//! bought.

use super::*;

/// `3 mince pies at 5.20 each`: a count of things at a price for each.
pub(super) static ITEMS_AT_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+)\s+(?:[a-z'-]+\s+){1,4}?(?:at|for|@)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per|each)\b"))
        .expect("a valid regex")
});

/// Coins by their names and their worth in dollars: Canada's toonie and
/// loonie, and the quarter, dime, nickel and penny.
const COINS: &[(&str, &str)] = &[
    ("toonie", "2"),
    ("loonie", "1"),
    ("quarter", "0.25"),
    ("dime", "0.10"),
    ("nickel", "0.05"),
    ("penn", "0.01"),
];

/// `7 toonies`, `3 quarters`, `a loonie`: so many coins of one name.
static COINS_COUNTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d+|a|an|one)\s+(toonies?|loonies?|quarters?|dimes?|nickels?|pennies|penny)\b",
    )
    .expect("a valid regex")
});

/// What coins counted by name are worth, when every number of the text
/// counts coins, it asks how much, and it names a coin that is no
/// fraction (a toonie, loonie, dime, nickel or penny) or says `coins`:
/// `seven toonies nine loonies and three quarters in the cup holder how
/// much is that altogether` is `7*2 + 9*1 + 3*0.25`.
pub(in crate::math::spoken) fn coins_by_name(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let asked = [
        "how much",
        "how many dollars",
        "total",
        "altogether",
        "worth",
        "in all",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let counted: Vec<regex::Captures> = COINS_COUNTED.captures_iter(text).collect();
    let no_fraction = counted
        .iter()
        .any(|coin| !coin[2].to_lowercase().starts_with("quarter"))
        || lower.contains("coins");
    let counts = counted
        .iter()
        .filter(|coin| coin[1].starts_with(|c: char| c.is_ascii_digit()))
        .count();
    if !asked || !no_fraction || counted.is_empty() || NUMBER.find_iter(text).count() != counts {
        return None;
    }
    let worth: Vec<String> = counted
        .iter()
        .map(|coin| {
            let name = coin[2].to_lowercase();
            let value = COINS
                .iter()
                .find(|(prefix, _)| name.starts_with(prefix))
                .map_or("0", |(_, value)| value);
            let count = match coin[1].parse::<u64>() {
                Ok(n) => n.to_string(),
                Err(_) => "1".to_string(),
            };
            format!("{count}*{value}")
        })
        .collect();
    Some(worth.join(" + "))
}

/// `a go on the tombola for a pound fifty`: one thing at a price.
static ONE_AT_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(
        r"(?i)\b(?:a|an|one)\s+(?:[a-z'-]+\s+){1,4}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\b",
    ))
    .expect("a valid regex")
});

/// `a tenner`, `a fiver`: a note paid with, by its name.
static NOTE_PAID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:a|one)\s+(tenner|fiver)\b").expect("a valid regex"));

/// What was paid, then the change asked for, at the end of a text.
static PAID_FOR_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:gave|give|paid|pay|handed|hand)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\bchange\b[^\d]*$"))
        .expect("a valid regex")
});

/// A payment, then what it paid for, then the change asked: `paid with a
/// 100 note for a 35 puncture repair and a 28.50 set of wiper blades, how
/// much change`.
static PAID_THEN_FOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:gave|paid|pays|handed)\s+(?:[a-z']+\s+){0,6}?(?:with\s+)?(?:a\s+|an\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bfor\s+(.+?)\bchange\b[^\d]*$"))
        .expect("a valid regex")
});

/// `a 35 puncture repair`, `a $28.50 set`: one thing by its price.
static A_PRICED_THING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(
        r"(?i)\b(?:a|an|the|one)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?[a-z]",
    ))
    .expect("a valid regex")
});

/// `a magazine at 4.20`, `sweeties for 3.65`: one thing, then its price
/// (not a price of each: `at 2.50 each`).
static A_THING_AT_ITS_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(
        r"(?i)\b(?:at|for|costing|costs?)\s+[SIGNS]?(\d+(?:\.\d+)?)\b(\s+(?:each|a|an|per|apiece)\b)?",
    ))
    .expect("a valid regex")
});

/// The change from a payment for things named after it, each one by its
/// price: `paid with a hundred dollar note for a thirty five dollar
/// puncture repair and a twenty eight fifty set of wiper blades how much
/// change` is `100 - (35 + 28.50)`. Every number after the payment is one
/// thing's price.
fn change_paid_for_things(text: &str) -> Option<String> {
    let paid = PAID_THEN_FOR.captures(text)?;
    let after = text[paid.get(1)?.end()..]
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_lowercase();
    let one_sum = after == "for"
        || matches!(after.as_str(), "note" | "bill")
        || crate::numbers::is_currency(&after);
    if !one_sum {
        return None;
    }
    let things = paid.get(2)?.as_str();
    let mut prices: Vec<&str> = A_PRICED_THING
        .captures_iter(things)
        .filter_map(|thing| thing.get(1))
        .map(|n| n.as_str())
        .collect();
    if prices.is_empty() {
        let priced: Vec<regex::Captures> = A_THING_AT_ITS_PRICE.captures_iter(things).collect();
        if priced.iter().all(|found| found.get(2).is_none()) {
            prices = priced
                .iter()
                .filter_map(|found| found.get(1))
                .map(|n| n.as_str())
                .collect();
        }
    }
    if prices.is_empty()
        || NUMBER.find_iter(things).count() != prices.len()
        || NUMBER.find_iter(text).count() != prices.len() + 1
    {
        return None;
    }
    Some(format!("{} - ({})", &paid[1], prices.join(" + ")))
}

/// The change from a payment for several kinds of things, each so many at
/// a price (or one at a price): `3 mince pies at $5.20 each and 2 flat whites at $4.80 each
/// and paid with a $50 note, how much change` is `50 - (3*5.20 + 2*4.80)`.
/// Every number before the payment is one of the things' counts or prices.
pub(in crate::math::spoken) fn change_for_items(text: &str) -> Option<String> {
    let text = NOTE_PAID.replace(text, |found: &Captures| {
        match found[1].to_lowercase().as_str() {
            "fiver" => "5",
            _ => "10",
        }
        .to_string()
    });
    let text = text.as_ref();
    if let Some(asked) = change_paid_for_things(text) {
        return Some(asked);
    }
    let paid = PAID_FOR_CHANGE.captures(text)?;
    let before = &text[..paid.get(0)?.start()];
    let mut items: Vec<String> = ITEMS_AT_A_PRICE
        .captures_iter(before)
        .map(|item| format!("{}*{}", &item[1], &item[2]))
        .collect();
    let counted = items.len();
    items.extend(
        ONE_AT_A_PRICE
            .captures_iter(before)
            .map(|item| item[1].to_string()),
    );
    let given = 2 * counted + (items.len() - counted);
    if items.len() < 2 || NUMBER.find_iter(before).count() != given {
        return None;
    }
    Some(format!("{} - ({})", &paid[1], items.join(" + ")))
}

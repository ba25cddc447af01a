//! Rates: so many of something at a price for one, a price per one unit
//! asked per another, a speed over a time or a distance, and an amount
//! converted at a rate the user gives.

use super::*;

/// `45 p a mile`, `3.45 a gallon`, `12 dollars per hour`: a price or
/// rate for one of something.
pub(in crate::math::spoken) static RATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+(?:\.\d+)?)\s*(p|pence|cents?|pounds?|CURRENCIES)?\s+(?:a|an|per|each)\s+([a-z]+)\b"))
        .expect("a valid regex")
});

/// What so many of something come to at a rate given for one, as
/// arithmetic, when the text holds those two numbers only and asks what
/// they cost, pay or are worth: `if i claim 45 p a mile whats 1380
/// business miles worth` is `1380 * 0.45`.
pub(in crate::math::spoken) fn at_a_rate(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let asks = [
        "worth", "cost", "how much", "come to", "total", "bill", "charge", "earn", "owe", "pay",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    if !asks || numbers.len() != 2 {
        return None;
    }
    let other = |price: &regex::Match| numbers.iter().find(|n| n.start() != price.start());
    let by_rate = RATE.captures(text).and_then(|rate| {
        let per = singular(&rate[3]).to_lowercase();
        let price = rate.get(1)?;
        let quantity = other(&price)?;
        let after: Vec<String> = text[quantity.end()..]
            .split_whitespace()
            .take(3)
            .map(|w| singular(w.trim_matches(|c: char| !c.is_alphanumeric())).to_lowercase())
            .collect();
        let another_rate = after
            .first()
            .is_some_and(|w| matches!(w.as_str(), "a" | "an" | "per" | "each" | "every"));
        let counted = !another_rate && after.contains(&per);
        let amount = in_whole_money(price.as_str(), rate.get(2));
        counted.then(|| format!("{} * {amount}", quantity.as_str()))
    });
    by_rate.or_else(|| {
        let each = EACH_PRICE.captures(text)?;
        let price = each.get(1)?;
        let quantity = other(&price)?;
        (quantity.start() < price.start()).then(|| {
            let amount = in_whole_money(price.as_str(), each.get(2));
            format!("{} * {amount}", quantity.as_str())
        })
    })
}

/// `at 12 pounds each`, `for 3.50 apiece`: the price of one of the things
/// counted before it.
static EACH_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:at|for|costing|cost)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(p|pence|cents?|pounds?|CURRENCIES)?\s+(?:each|apiece|a\s+piece)\b"))
        .expect("a valid regex")
});

/// `45` said with `p` or `cents` as `45/100`; any other amount as it is.
fn in_whole_money(amount: &str, unit: Option<regex::Match>) -> String {
    match unit.map(|m| m.as_str().to_lowercase()) {
        Some(cents) if matches!(cents.as_str(), "p" | "pence" | "cent" | "cents") => {
            format!("{amount}/100")
        }
        _ => amount.to_string(),
    }
}

/// `80 km/h`, `60 mph`, `50 miles an hour`: a speed, per hour.
static SPEED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(?:km\s*/\s*h|kph|kmh|mph|(?:kilomet(?:er|re)s?|kms?|miles?)\s+(?:an|a|per)\s+hour)")
        .expect("a valid regex")
});

/// `2.5 hours`, `45 minutes`: how long, in hours or minutes.
static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(hours?|hrs?|minutes?|mins?)\b").expect("a valid regex")
});

/// `13.20 a kilo … what's that per pound`: a price per one unit, asked
/// per another.
static PRICE_PER_OTHER_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[^\d]*?(\d+(?:\.\d+)?)\s+(?:a|an|per)\s+([a-z]+)\b[^\d]*\b(?:per|a|an)\s+([a-z]+)\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// A price per one unit of weight, volume, length or area asked per
/// another of the same kind (`Chicken thighs are $13.20 a kilo. What's
/// that per pound?` is `13.20 * 0.453592`), when the text holds that one
/// number.
pub(in crate::math::spoken) fn price_per_other_unit(text: &str) -> Option<String> {
    let found = PRICE_PER_OTHER_UNIT.captures(text)?;
    if NUMBER.find_iter(text).count() != 1 {
        return None;
    }
    let (given, asked) = (named_unit(&found[2])?, named_unit(&found[3])?);
    let kinds = ["mass", "volume", "length", "area"];
    if given.symbol == asked.symbol || !kinds.contains(&given.kind) || given.kind != asked.kind {
        return None;
    }
    let one = crate::math::convert_units(crate::math::ConvertArgs {
        value: 1.0,
        from: asked.symbol.into(),
        to: given.symbol.into(),
    })
    .ok()?;
    Some(format!("{} * {}", &found[1], one.result))
}

/// `150 miles`, `42 km`: a distance.
pub(in crate::math::spoken) static DISTANCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(?:km|kms|kilomet(?:er|re)s?|miles?)\b")
        .expect("a valid regex")
});

/// How far a speed goes in a time (`80 km/h for 2.5 hours, how far is
/// that` is `80 * 2.5`), or how long a distance takes at it (`how long to
/// drive 150 miles at 60 mph` is `150 / 60`, hours; `* 60` when minutes
/// are asked), when the text holds those two numbers only.
pub(in crate::math::spoken) fn at_a_speed(text: &str) -> Option<String> {
    if NUMBER.find_iter(text).count() != 2 {
        return None;
    }
    let speed = SPEED.captures(text)?;
    let lower = text.to_lowercase();
    let asks_far = [
        "how far",
        "distance",
        "how many miles",
        "how many km",
        "how many kilomet",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let asks_long = ["how long", "how many hours", "how many minutes"]
        .iter()
        .any(|w| lower.contains(w));
    let per_hour = &speed[1];
    if asks_far && !asks_long {
        let time = DURATION.captures(text)?;
        let hours = match time[2].to_lowercase().starts_with('m') {
            true => format!("{} / 60", &time[1]),
            false => time[1].to_string(),
        };
        return Some(format!("{per_hour} * {hours}"));
    }
    if asks_long && !asks_far {
        let at = speed.get(0)?.range();
        let distance = DISTANCE
            .captures_iter(text)
            .find(|d| d.get(0).is_some_and(|m| !at.contains(&m.start())))?;
        let in_minutes = lower.contains("how many minutes");
        let hours = format!("{} / {per_hour}", &distance[1]);
        return Some(match in_minutes {
            true => format!("{hours} * 60"),
            false => hours,
        });
    }
    None
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
pub(in crate::math::spoken) fn at_the_rate_given(text: &str) -> Option<String> {
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

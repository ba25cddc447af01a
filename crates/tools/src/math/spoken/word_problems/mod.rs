//! Word problems read as one sum: a percentage of the amount the sentence
//! before gives, a recipe scaled, doses, rates over amounts and periods,
//! shares, a bill split between people or a price for a group.

use super::units::{named_unit, singular};
use super::*;

/// `The bill is 73.40. What's an 18 percent tip?`: a percentage asked of
/// the one amount the sentence before gives, as arithmetic.
static PERCENT_OF_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(.*[^\d.])?(\d[\d,]*(?:\.\d+)?)[^.!?\d]*?(?:[.!?]\s+|\s+)(?:what(?:'s|s|\s+is|\s+would\s+be)|how\s+much\s+is)\s+(?:an?\s+|the\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(tip|tax|gratuity|discount|off|service\s+charge|vat|gst|surcharge)(?:\s+on\s+(?:that|it|this|the\s+(?:bill|check|total)))?\s*[?.!]?\s*$")
        .expect("a valid regex")
});

pub(super) fn percent_of_the_amount_before(text: &str) -> Option<String> {
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
pub(super) fn scaled(text: &str) -> Option<String> {
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
pub(super) fn doses(text: &str) -> Option<String> {
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
pub(super) static RATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+(?:\.\d+)?)\s*(p|pence|cents?|pounds?|CURRENCIES)?\s+(?:a|an|per|each)\s+([a-z]+)\b"))
        .expect("a valid regex")
});

/// What so many of something come to at a rate given for one, as
/// arithmetic, when the text holds those two numbers only and asks what
/// they cost or are worth: `if i claim 45 p a mile whats 1380 business
/// miles worth` is `1380 * 0.45`.
pub(super) fn at_a_rate(text: &str) -> Option<String> {
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
    let other = |price: &regex::Match| numbers.iter().find(|n| n.start() != price.start());
    let by_rate = RATE.captures(text).and_then(|rate| {
        let per = singular(&rate[3]).to_lowercase();
        let price = rate.get(1)?;
        let quantity = other(&price)?;
        let counted = text[quantity.end()..]
            .split_whitespace()
            .take(3)
            .map(|w| singular(w.trim_matches(|c: char| !c.is_alphanumeric())).to_lowercase())
            .any(|w| w == per);
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
pub(super) fn price_per_other_unit(text: &str) -> Option<String> {
    let found = PRICE_PER_OTHER_UNIT.captures(text)?;
    if NUMBER.find_iter(text).count() != 1 {
        return None;
    }
    let (given, asked) = (named_unit(&found[2])?, named_unit(&found[3])?);
    let kinds = ["mass", "volume", "length", "area"];
    if given.symbol == asked.symbol || !kinds.contains(&given.kind) || given.kind != asked.kind {
        return None;
    }
    let one = super::super::convert_units(super::super::ConvertArgs {
        value: 1.0,
        from: asked.symbol.into(),
        to: given.symbol.into(),
    })
    .ok()?;
    Some(format!("{} * {}", &found[1], one.result))
}

/// `150 miles`, `42 km`: a distance.
pub(super) static DISTANCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(?:km|kms|kilomet(?:er|re)s?|miles?)\b")
        .expect("a valid regex")
});

/// How far a speed goes in a time (`80 km/h for 2.5 hours, how far is
/// that` is `80 * 2.5`), or how long a distance takes at it (`how long to
/// drive 150 miles at 60 mph` is `150 / 60`, hours; `* 60` when minutes
/// are asked), when the text holds those two numbers only.
pub(super) fn at_a_speed(text: &str) -> Option<String> {
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
pub(super) fn per_amount(text: &str) -> Option<String> {
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

/// `4 eggs a day`, `2 walks per day`, `2.5 miles every morning`: an amount
/// for each of a period.
static PER_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?(?:a|per|each|every)\s+(minute|hour|day|morning|afternoon|evening|night|week|month)\b")
        .expect("a valid regex")
});

/// `in a fortnight`, `over 3 weeks`, `for a whole year`: the period asked
/// about, at the end.
static OVER_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:in|over|for|during|across|after)\s+(?:a|an|one|(\d+))\s+(?:whole\s+|full\s+|entire\s+)?(minute|hour|day|week|fortnight|month|year)s?\s*[?.!]?\s*$")
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
pub(super) fn over_a_period(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("how m") {
        return None;
    }
    let each = PER_PERIOD.captures(text)?;
    let amount = each[1].to_string();
    let over = OVER_PERIOD.captures(text)?;
    let count = over.get(1).map(|n| n.as_str());
    let numbers = NUMBER.find_iter(text).count();
    if numbers != 1 + usize::from(count.is_some()) {
        return None;
    }
    let each = match each[2].to_lowercase().as_str() {
        "morning" | "afternoon" | "evening" | "night" => "day".to_string(),
        period => period.to_string(),
    };
    let factor = periods_in(&each, &over[2].to_lowercase())?;
    Some(match count {
        Some(count) => format!("{amount} * {factor} * {count}"),
        None => format!("{amount} * {factor}"),
    })
}

/// `pay it off over 24 months`: a price paid in so many equal parts.
static PAID_OVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:pay|paying|paid|spread|split)\s+(?:it\s+|that\s+|this\s+|them\s+)?(?:off\s+|back\s+|out\s+)?over\s+(\d+)\s+(day|week|fortnight|month|year)s?\b")
        .expect("a valid regex")
});

/// `how much is that a month`, `what's the monthly payment`: one part asked.
static ONE_PART_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|per|each|every)\s+(day|week|fortnight|month|year)\b[^\d]*$|\b(daily|weekly|monthly|yearly)\b[^\d]*$")
        .expect("a valid regex")
});

/// A price paid off in equal parts: `The new combi oven is £3,600. If we
/// pay it off over 24 months, how much is that a month?` is `3600 / 24`.
/// The text gives those two numbers only.
pub(super) fn paid_off_in_parts(text: &str) -> Option<String> {
    let over = PAID_OVER.captures(text)?;
    let asked = ONE_PART_ASKED.captures(text)?;
    let period = over[2].to_lowercase();
    let same = match (asked.get(1), asked.get(2)) {
        (Some(each), _) => each.as_str().eq_ignore_ascii_case(&period),
        (None, Some(ly)) => {
            let ly = ly.as_str().to_lowercase();
            ly == format!("{period}ly") || (ly == "daily" && period == "day")
        }
        (None, None) => false,
    };
    let count = over.get(1)?;
    let mut others = NUMBER
        .find_iter(text)
        .filter(|n| n.start() != count.start());
    let (Some(price), None) = (others.next(), others.next()) else {
        return None;
    };
    same.then(|| format!("{} / {}", price.as_str(), count.as_str()))
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
pub(super) fn at_the_rate_given(text: &str) -> Option<String> {
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

/// `What percent of the week's money came on Saturday?`: a share asked of
/// a whole named, not given, at the end.
static WHAT_PERCENT_OF_THE_WHOLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bwhat\s+percent(?:age)?\s+of\s+(?:the|my|our|his|her|their|that|this)\b[^\d]*$",
    )
    .expect("a valid regex")
});

/// Words that make two amounts a change, not a part of a whole.
const CHANGES: &[&str] = &[
    "from", "increase", "decrease", "rise", "rose", "risen", "grew", "grown", "went", "up", "down",
    "more", "less", "fell", "drop", "dropped", "change", "changed",
];

/// The share of the larger of two amounts the smaller is, in percent,
/// when a question gives the two and asks what percent that is (`we
/// budgeted 3000 and we've spent 1800 what percent is that` is `1800 /
/// 3000 * 100`) or what percent of the whole the part is. Not for a change
/// from one amount to another.
pub(super) fn share_of_two(text: &str) -> Option<String> {
    let asks_that = WHAT_PERCENT_IS_THAT.is_match(text);
    if !asks_that && !WHAT_PERCENT_OF_THE_WHOLE.is_match(text) {
        return None;
    }
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
        || (asks_that && lower.contains("percent of"))
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
pub(super) fn split_between(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let each = ["each", "per person", "a head", "apiece", "a person"]
        .iter()
        .any(|w| lower.contains(w));
    let split_ways = SPLIT_WAYS.is_match(text);
    let asks_each = each && lower.contains("how much");
    if !(asks_each || split_ways) {
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
    let mut numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    if split_ways {
        numbers.retain(|n| n.start() == people.start() || n.as_str() != people.as_str());
    }
    let [a, b] = numbers.as_slice() else {
        return None;
    };
    let amount = if a.start() == people.start() { b } else { a };
    Some(format!("{} / {}", amount.as_str(), people.as_str()))
}

/// `split it 4 ways`: a share asked, however the people were counted
/// before (`4 of us`).
static SPLIT_WAYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bsplit\s+(?:it\s+|that\s+|this\s+|the\s+bill\s+)?\d+\s+ways\b")
        .expect("a valid regex")
});

/// `28.50 a head`, `12 each`: an amount for each one of a group.
static EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(?:a\s+head|per\s+head|each|per\s+person|a\s+person|apiece)\b")
        .expect("a valid regex")
});

/// What a group pays in all for an amount each, when the text gives the
/// two numbers, the other one a whole number, and asks for the total: `the
/// coach trip is 28.50 a head and there's 9 of us going, what's the total`
/// is `28.50 * 9`.
pub(super) fn for_the_group(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let total = [
        "total",
        "altogether",
        "all together",
        "in all",
        "for all of us",
        "how much for",
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

/// `A sachet of coffee is ₱7. How much for 35 sachets?`: the price of
/// one thing, then how much so many of them come to.
static ONE_THEN_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)^\s*(?:if\s+)?(?:(an?|one|1|each|the)\s+)?([a-z0-9' -]+?)\s+(?:is|costs?|sells\s+for|goes\s+for)\s+(?:[A-Z]{3}\s?)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\bhow\s+much\s+(?:is\s+it\s+|are\s+|would\s+|will\s+|do\s+|does\s+)?(?:[a-z]+\s+){0,3}?for\s+(\d+)(?:\s+([a-z]+))?\s*[?.!]?\s*$"))
        .expect("a valid regex")
});

/// `5 litres of developer for £40`: an amount of something bought by its
/// volume or weight, and its price.
static MEASURE_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+(?:\.\d+)?)\s*(litres?|liters?|l|ml|millilit(?:er|re)s?|kilos?|kg|kilograms?|grams?|g)\s+(?:of\s+)?(?:[a-z'-]+\s+){0,4}?(?:for|at|costs?|cost\s+me)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `each colour uses 150 ml`: how much of it one use takes, and what a
/// use is called.
static EACH_USES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\beach\s+([a-z]+)\s+(?:uses|takes|needs)\s+(?:about\s+)?(\d+(?:\.\d+)?)\s*(litres?|liters?|l|ml|millilit(?:er|re)s?|kilos?|kg|kilograms?|grams?|g)\b")
        .expect("a valid regex")
});

/// Millilitres or grams in one of a unit of [`MEASURE_BOUGHT`].
fn in_small_units(unit: &str) -> f64 {
    match unit.to_lowercase().as_str() {
        "ml" | "g" => 1.0,
        u if u.starts_with("milli") || u.starts_with("gram") => 1.0,
        _ => 1000.0,
    }
}

/// What one use of something bought by its measure costs: `I bought 5
/// litres of developer for £40 and each colour uses 150 ml. What does the
/// developer cost me per colour?` is `40 * 150 / 5000`. The text gives
/// those numbers only, both measures of one kind, and asks per use.
pub(super) fn cost_of_one_use(text: &str) -> Option<String> {
    let bought = MEASURE_BOUGHT.captures(text)?;
    let uses = EACH_USES.captures(text)?;
    let asked = ASKED_PER.captures(text)?;
    let volume = |u: &str| u.to_lowercase().starts_with(['l', 'm']);
    if volume(&bought[2]) != volume(&uses[3])
        || singular(&asked[1].to_lowercase()) != singular(&uses[1].to_lowercase())
        || NUMBER.find_iter(text).count() != 3
    {
        return None;
    }
    let bought_small = bought[1].parse::<f64>().ok()? * in_small_units(&bought[2]);
    let use_small = uses[2].parse::<f64>().ok()? * in_small_units(&uses[3]);
    Some(format!("{} * {use_small} / {bought_small}", &bought[3]))
}

/// `$19.20 a hundredweight. What's that for 850 hundredweight?`: a price
/// for each of a unit, then so many of the unit asked.
static A_UNITS_PRICE_THEN_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per)\s+([a-z]+)\b[^\d]*?\b(?:what(?:'s|s|\s+is)|how\s+much\s+is)\s+(?:that|it)\s+(?:for|on)\s+(\d+(?:\.\d+)?)\s+([a-z]+)\s*[?.!]?\s*$"))
        .expect("a valid regex")
});

/// So many things at the price of one said before: `A sachet of 3-in-1
/// coffee is ₱7. How much for 35 sachets?` is `35 * 7`, when the things
/// counted are the thing priced.
pub(super) fn many_at_the_price_of_one(text: &str) -> Option<String> {
    if let Some(found) = A_UNITS_PRICE_THEN_MANY.captures(text) {
        let same = singular(&found[2].to_lowercase()) == singular(&found[4].to_lowercase());
        if same && NUMBER.find_iter(text).count() == 2 {
            return Some(format!("{} * {}", &found[3], &found[1]));
        }
    }
    let text = NAMED_WITH_NUMBERS.replace_all(text, "combo");
    let found = ONE_THEN_MANY.captures(&text)?;
    let the_one = found
        .get(1)
        .is_none_or(|det| det.as_str().eq_ignore_ascii_case("the"));
    let product = format!("{} * {}", &found[4], &found[3]);
    let Some(counted) = found.get(5) else {
        return (!the_one).then_some(product);
    };
    let counted = singular(&counted.as_str().to_lowercase());
    let thing = found[2].to_lowercase();
    let named = thing.split_whitespace().any(|w| singular(w) == counted);
    let a_head = PAID_A_HEAD.contains(&thing.split_whitespace().next().unwrap_or(""))
        && PEOPLE.contains(&counted.as_str());
    (named || a_head).then_some(product)
}

/// What each person pays for themselves (`the fare is 21 rand`).
const PAID_A_HEAD: &[&str] = &[
    "fare",
    "ticket",
    "entry",
    "admission",
    "ride",
    "seat",
    "plate",
    "meal",
    "entrance",
    "pass",
];

/// People counted, in the singular (`15 passengers`).
const PEOPLE: &[&str] = &[
    "person",
    "people",
    "passenger",
    "adult",
    "kid",
    "child",
    "children",
    "guest",
    "rider",
    "student",
    "pupil",
    "customer",
];

/// `3-in-1`, `2-in-1`: a name with numbers in it.
static NAMED_WITH_NUMBERS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+-in-\d+\b").expect("a valid regex"));

/// `a sleeve of 50 plastic cups is 12.50, how much is that per cup`: a
/// pack of so many things at a price, asked per thing.
static PACK_PRICED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+)\s+(?:[a-z-]+\s+){0,2}?([a-z]+)\s+(?:is|are|costs?|for|at)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*\b(?:per|each|a|an|for\s+(?:one|1|each|a|an))\s+([a-z]+)\b[^\d]*$"))
        .expect("a valid regex")
});

/// The price of one of a pack's things, when the text holds the two
/// numbers only (and perhaps the `1` of `for 1 egg`) and asks per the
/// thing counted, or per anything but the container: `a sleeve of 50
/// plastic cups is 12.50 how much is that per cup` is `12.50 / 50`.
pub(super) fn price_of_one(text: &str) -> Option<String> {
    let one_asked = usize::from(FOR_ONE_AT_THE_END.is_match(text));
    if NUMBER.find_iter(text).count() != 2 + one_asked {
        return None;
    }
    if let Some(found) = PACK_PRICED.captures(text) {
        let same = singular(&found[2].to_lowercase()) == singular(&found[4].to_lowercase());
        if same {
            return Some(format!("{} / {}", &found[3], &found[1]));
        }
    }
    let found = CONTAINER_PRICED.captures(text)?;
    let asked = found.get(4).map(|m| singular(&m.as_str().to_lowercase()));
    let container = singular(&found[1].to_lowercase());
    (asked.as_ref() != Some(&container)).then(|| format!("{} / {}", &found[3], &found[2]))
}

/// `how much for 1 egg`: the price of one asked, its `1` no amount given.
static FOR_ONE_AT_THE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bfor\s+1\s+[a-z]+\s*[?.!]?\s*$").expect("a valid regex"));

/// `A case of 24 Red Stripe costs me J$6,720. How much is that per
/// bottle?`: a container of so many at a price, asked per one of them,
/// whatever the one is called (not the container itself).
static CONTAINER_PRICED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(case|pack|packet|box|crate|carton|tray|bag|sack|bundle|sleeve|tub|jar|tin|flat|pallet|set|roll|block)\s+of\s+(\d+)\b[^\d]*?\b(?:is|are|costs?|was|were|for|at)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*(?:\b(?:per|a|an|for\s+(?:one|1|each|a|an))\s+([a-z]+)|\b(?:each|apiece))\b[^\d]*$"))
        .expect("a valid regex")
});

/// `what's left`, `how much do I have left`, `what's my profit`: asks
/// what remains of an amount, at the end of a text.
static ASKS_WHAT_IS_LEFT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:what'?s|whats|what\s+is|how\s+much\s+(?:is|do\s+i\s+have|have\s+i\s+got|will\s+i\s+have|does\s+that\s+leave))\s+(?:left|remaining|left\s+over)(?:\s+(?:for|to)\s+(?:me|us|spend)|\s+in\s+(?:there|it|the\s+account))?|\b(?:what'?s|whats|what\s+is|how\s+much\s+is)\s+(?:my|our|the)\s+profit|\b(?:how\s+much|what)\s+(?:did|do|will)\s+(?:i|we)\s+clear)\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// `took 1240 quid`, `I earned 900`, `I quoted 4800`: the amount
/// something is taken from.
static TAKEN_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:took|made|earned|got|had|have|brought\s+in|received|was\s+paid|get\s+paid|started\s+with|quoted|charged|billed|invoiced|pays)\s+(?:in\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// Whether the number `amount` of `text` is an amount of its own, not a
/// rate, a count or a percentage (no `each`, `a`, `per`, `percent`,
/// `times` or `%` after it).
fn a_plain_amount(text: &str, amount: &regex::Match) -> bool {
    let after = text[amount.end()..].trim_start().to_lowercase();
    let next = after.split_whitespace().next().unwrap_or("");
    !matches!(
        next.trim_matches(|c: char| !c.is_alphanumeric()),
        "each" | "a" | "an" | "per" | "percent" | "times" | "x"
    ) && !after.starts_with('%')
}

/// `the loan was $24,000`, `borrowed 5000`: what was owed at first.
static BORROWED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(
        r"(?i)\b(?:loan|borrowed|owed?|debt|financed)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b",
    ))
    .expect("a valid regex")
});

/// `14 monthly payments of $850`: how many payments of how much.
static PAYMENTS_MADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+)\s+(?:monthly\s+|weekly\s+|yearly\s+)?(?:payments|instal?ments|repayments)\s+of\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `paid 3250 a month for 6 months`: so much paid each period, for so
/// many of them.
static PAID_A_PERIOD_FOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\bpaid\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|per|each)\s+(?:month|week|fortnight|year)\s+for\s+(?:the\s+(?:last|past)\s+)?(\d+)\s+(?:months|weeks|fortnights|years)\b"))
        .expect("a valid regex")
});

/// `how much is still owed`, `what's left to pay`: asks what is owed now.
static STILL_OWED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:still\s+owe[ds]?|still\s+owing|left\s+owing|owe[ds]?\s+now|left\s+to\s+pay|still\s+to\s+pay|remaining|outstanding|left\s+on\s+(?:it|the\s+loan))\b")
        .expect("a valid regex")
});

/// What is still owed of a debt with no interest after equal payments
/// (`The skid steer loan was $24,000 with no interest and I've made 14
/// monthly payments of $850. How much is still owed?` is `24000 - 14 *
/// 850`) or after amounts paid (`Rent is 650k for the month. I sent 200k
/// on Monday and 275k today. How much do I still owe?` is `650000 -
/// 200000 - 275000`). The text gives those numbers only, and no rate.
pub(super) fn owed_after_payments(text: &str) -> Option<String> {
    STILL_OWED.find(text)?;
    if text.contains('%') || text.to_lowercase().contains("percent") {
        return None;
    }
    let debt = BORROWED.captures(text).or_else(|| DUE.captures(text))?;
    let debt = debt.get(1)?;
    let equal_payments = PAYMENTS_MADE
        .captures(text)
        .or_else(|| PAID_A_PERIOD_FOR.captures(text));
    if let Some(paid) = equal_payments {
        return (NUMBER.find_iter(text).count() == 3)
            .then(|| format!("{} - {} * {}", debt.as_str(), &paid[1], &paid[2]));
    }
    let paid: Vec<regex::Match> = NUMBER
        .find_iter(text)
        .filter(|n| n.start() != debt.start())
        .collect();
    let plain = paid.iter().all(|amount| a_plain_amount(text, amount));
    if paid.is_empty() || !plain || !PAYING.is_match(text) {
        return None;
    }
    let paid: Vec<&str> = paid.iter().map(|amount| amount.as_str()).collect();
    Some(format!("{} - {}", debt.as_str(), paid.join(" - ")))
}

/// `Rent is 650000`, `the bill came to 1200`: an amount due.
static DUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:rent|bill|fees?|invoice|balance|tab)\s+(?:is|was|came\s+to|comes\s+to|of)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `sent`, `paid`, `transferred`: a payment made.
static PAYING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:sent|paid|gave|transferred|deposited|put\s+down)\b")
        .expect("a valid regex")
});

/// What is left of an amount taken in after the costs said after it:
/// `took 1240 quid this week diesel was 215 insurance 38 and the app took
/// 62 whats left for me` is `1240 - 215 - 38 - 62`. Each cost is a plain
/// amount (no `each`, `a`, `per` or percentage after it).
pub(super) fn what_is_left(text: &str) -> Option<String> {
    let asked = ASKS_WHAT_IS_LEFT.find(text)?;
    let taken = TAKEN_IN.captures(text)?.get(1)?;
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    let (first, costs) = numbers.split_first()?;
    if first.start() != taken.start() || costs.is_empty() || text.contains('%') {
        return None;
    }
    let plain = costs
        .iter()
        .all(|cost| cost.end() <= asked.start() && a_plain_amount(text, cost));
    plain.then(|| {
        std::iter::once(first.as_str())
            .chain(costs.iter().map(|c| c.as_str()))
            .collect::<Vec<_>>()
            .join(" - ")
    })
}

/// `interest` in a text, and words that make it other than simple yearly
/// interest (compounding, a monthly rate).
static INTEREST: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\binterest\b").expect("a valid regex"));
static NOT_SIMPLE_YEARLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:compound(?:ed|ing)?|month(?:ly|s)?|week(?:ly|s)?|days?|daily)\b")
        .expect("a valid regex")
});

/// `12 months`: a year.
static TWELVE_MONTHS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b12\s+months\b").expect("a valid regex"));

/// A rate in percent, and a number of years.
static PERCENT_RATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)").expect("a valid regex"));
static YEARS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+years?\b").expect("a valid regex"));

/// What is asked is the amount with its interest, not the interest alone.
static WITH_THE_INTEREST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:how\s+much\s+will\s+(?:i|we|it)\s+have|in\s+total|altogether|total\s+(?:amount|balance)|(?:the\s+)?balance\s+be|be\s+worth|grow\s+to)\b")
        .expect("a valid regex")
});

/// Simple interest on one amount at a yearly rate: `If I put $8,000 in a
/// term deposit at 5.25% for one year, how much interest do I earn?` is
/// `8000 * 5.25 / 100 * 1`. Over several years only where the text says
/// simple interest (compounding is not assumed either way); with the
/// amount added where the total is asked.
pub(super) fn simple_interest(text: &str) -> Option<String> {
    let text = &TWELVE_MONTHS.replace_all(text, "1 year");
    if !INTEREST.is_match(text) || NOT_SIMPLE_YEARLY.is_match(text) {
        return None;
    }
    let mut rates = PERCENT_RATE.captures_iter(text);
    let (Some(rate), None) = (rates.next(), rates.next()) else {
        return None;
    };
    let rate = rate.get(1)?;
    let mut years = YEARS.captures_iter(text);
    let years = match (years.next(), years.next()) {
        (None, _) => None,
        (Some(found), None) => found.get(1),
        _ => return None,
    };
    let count = years.map_or(Ok(1.0), |y| y.as_str().parse::<f64>());
    let simple = text.to_lowercase().contains("simple");
    if count != Ok(1.0) && !simple {
        return None;
    }
    let mut amounts = NUMBER
        .find_iter(text)
        .filter(|n| n.start() != rate.start() && years.is_none_or(|y| n.start() != y.start()));
    let (Some(amount), None) = (amounts.next(), amounts.next()) else {
        return None;
    };
    let interest = format!(
        "{} * {} / 100 * {}",
        amount.as_str(),
        rate.as_str(),
        years.map_or("1", |y| y.as_str())
    );
    Some(match WITH_THE_INTEREST.is_match(text) {
        true => format!("{} + {interest}", amount.as_str()),
        false => interest,
    })
}

/// `3 mince pies at 5.20 each`: a count of things at a price for each.
static ITEMS_AT_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
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
pub(super) fn coins_by_name(text: &str) -> Option<String> {
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
pub(super) fn change_for_items(text: &str) -> Option<String> {
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

/// `2 kids`: a count of things.
static COUNTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(\d+)\s+([a-z]+)\b").expect("a valid regex"));

/// The total of several amounts for each one of something, times how
/// many there are: `subs are $85 a kid for the season, plus $42 a kid for
/// new boots. I've got two kids playing. What's the total?` is `(85 +
/// 42) * 2`. The text gives those numbers only, and asks for a total.
pub(super) fn amounts_for_each(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let total = ["total", "altogether", "all together", "in all", "all up"]
        .iter()
        .any(|w| lower.contains(w));
    if !total {
        return None;
    }
    let amounts: Vec<regex::Captures> = RATE.captures_iter(text).collect();
    let one = singular(&amounts.first()?[3].to_lowercase());
    if amounts.len() < 2
        || amounts
            .iter()
            .any(|a| singular(&a[3].to_lowercase()) != one)
    {
        return None;
    }
    let is_an_amount = |at: usize| {
        amounts
            .iter()
            .any(|a| a.get(1).is_some_and(|n| n.start() == at))
    };
    let mut counts = COUNTED.captures_iter(text).filter(|found| {
        found.get(1).is_some_and(|n| !is_an_amount(n.start()))
            && singular(&found[2].to_lowercase()) == one
    });
    let (Some(count), None) = (counts.next(), counts.next()) else {
        return None;
    };
    if NUMBER.find_iter(text).count() != amounts.len() + 1 {
        return None;
    }
    let each: Vec<&str> = amounts
        .iter()
        .filter_map(|a| a.get(1))
        .map(|n| n.as_str())
        .collect();
    Some(format!("({}) * {}", each.join(" + "), &count[1]))
}

/// `a pack of 10 shampoo sachets costs me ₱65`: a pack's count and price.
static PACK_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:pack|packet|box|case|crate|carton|bag|tray|sack|bundle|sleeve|tub|jar)\s+of\s+(\d+)\s+(?:[a-z'-]+\s+){0,2}?[a-z'-]+\s+(?:costs?|is|was|for)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `a 10 kilo box of prawns for €145`: a pack's weight and price.
static WEIGHT_BOUGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(\d+(?:\.\d+)?)\s*(kilos?|kg|pounds?|lbs?)\s+(?:pack|box|case|crate|bag|tray|sack|tub|bucket)\s+(?:of\s+)?(?:[a-z'-]+\s+){0,2}?(?:costs?|is|was|for|at)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `sold the lot at €22 a kilo`: the price of each unit of weight sold.
static SOLD_BY_WEIGHT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:sold|sell)\s+(?:[a-z'-]+\s+){0,3}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\s*(?:a|an|per|the)\s+(kilo|kg|pound|lb)\b"))
        .expect("a valid regex")
});

/// The profit on a pack bought by its weight and sold by the weight: `a
/// 10 kilo box of prawns for €145 and sold the lot at €22 a kilo` is
/// `10 * 22 - 145`, when both weigh in the same unit and the text gives
/// those numbers only.
fn profit_on_a_weight(text: &str) -> Option<String> {
    let bought = WEIGHT_BOUGHT.captures(text)?;
    let sold = SOLD_BY_WEIGHT.captures(text)?;
    let unit = |u: &str| u.to_lowercase().starts_with(['k']);
    if unit(&bought[2]) != unit(&sold[2]) || NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    Some(format!("{} * {} - {}", &bought[1], &sold[1], &bought[3]))
}

/// `each strip has 10 tablets`: how many of a smaller thing each holds.
static EACH_HOLDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\beach\s+(?:one\s+|[a-z]+\s+)?(?:has|holds|contains|is)\s+(\d+)\s+[a-z]+")
        .expect("a valid regex")
});

/// `I sell them at ₱8 each`, `i sell one tablet for 4 rupees`: the price
/// each one sells for.
static SOLD_EACH_AT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\bsell\s+(?:them|it|each|one|a|an|every)?\s*(?:[a-z'-]+\s+){0,2}?(?:at|for)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `sell 1 tablet`, `on 1 pack`: one of the things, no number given.
static ONE_OF_THEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(on|sell)\s+1\s+([a-z])").expect("a valid regex"));

/// `a sack of 25 cabbages cost me 175`: so many things bought together
/// for a price.
static BOUGHT_TOGETHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:case|pack|packet|box|crate|carton|tray|bag|sack|bundle|tub|pallet|bale|lot)\s+of\s+(\d+)\s+(?:[a-z'-]+\s+){1,2}?(?:costs?|cost\s+me|costing|was|were|for|at)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// `make 3 kwacha profit on each cabbage`: the profit wanted on one.
static PROFIT_ON_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:profit|more)\s+(?:on|per|for|from)\s+(?:each|every|a|one)\b"))
        .expect("a valid regex")
});

/// `what price should i sell each one`, `how much should I sell them for`:
/// asks the price of one to sell at.
static SELLING_PRICE_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:what\s+price|how\s+much)\s+(?:should|do|must|would)\s+(?:i|we)\s+(?:sell|charge)\b")
        .expect("a valid regex")
});

/// The price to sell each of things bought together at for a profit on
/// each: `a sack of 25 cabbages cost me 175 kwacha and i want to make 3
/// kwacha profit on each cabbage what price should i sell each one` is
/// `175 / 25 + 3`. The text gives those numbers only.
pub(super) fn price_for_a_profit_on_each(text: &str) -> Option<String> {
    SELLING_PRICE_ASKED.find(text)?;
    let bought = BOUGHT_TOGETHER.captures(text)?;
    let profit = PROFIT_ON_EACH.captures(text)?;
    (NUMBER.find_iter(text).count() == 3)
        .then(|| format!("{} / {} + {}", &bought[2], &bought[1], &profit[1]))
}

/// The profit on a pack bought whole and sold by the piece: `A pack of 10
/// shampoo sachets costs me ₱65 and I sell them at ₱8 each. How much
/// profit do I make on one pack?` is `10 * 1 * 8 - 65`; with `each strip
/// has 10 tablets` the pieces of each thing counted in. The text gives
/// those numbers only, and asks the profit on the pack, not on a piece.
pub(super) fn profit_on_a_pack(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let per_piece = [
        "profit per",
        "profit on each",
        "profit on one tablet",
        "profit each",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if !lower.contains("profit") || per_piece {
        return None;
    }
    if let Some(weighed) = profit_on_a_weight(text) {
        return Some(weighed);
    }
    let text = ONE_OF_THEM.replace_all(text, "$1 one $2");
    let text = text.as_ref();
    let pack = PACK_BOUGHT.captures(text)?;
    let sold = SOLD_EACH_AT.captures(text)?;
    let inner = EACH_HOLDS.captures(text);
    let given = 3 + usize::from(inner.is_some());
    if NUMBER.find_iter(text).count() != given {
        return None;
    }
    let pieces = inner
        .as_ref()
        .map_or("1", |found| found.get(1).map_or("1", |n| n.as_str()));
    Some(format!(
        "{} * {pieces} * {} - {}",
        &pack[1], &sold[1], &pack[2]
    ))
}

/// `13 pesos each way`, `$3 a trip`, `26 a day`, `3000 and the same back`:
/// a fare, and what it is for.
static FARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(each\s+way|one\s+way|a\s+trip|per\s+trip|a\s+ride|per\s+ride|a\s+day|per\s+day|and\s+the\s+same\s+(?:back|coming\s+back|on\s+the\s+way\s+back))\b"))
        .expect("a valid regex")
});

/// A journey made there and back.
static THERE_AND_BACK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:and\s+back|both\s+ways|round\s+trip|there\s+and\s+back|return)\b")
        .expect("a valid regex")
});

/// `six days a week`: how many days a week.
static DAYS_A_WEEK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s+days?\s+(?:a|per|each|every)\s+week\b").expect("a valid regex")
});

/// `in four weeks`, `over 3 weeks`, `over a fortnight`; or `a week` asked
/// at the end.
static WEEKS_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:in|over|for)\s+(\d+)\s+weeks?\b|\b(?:in|over|for)\s+(?:a|the)\s+(fortnight)\b|\b(?:a|per|each|every)\s+week\s*[?.!]?\s*$",
    )
    .expect("a valid regex")
});

/// What getting somewhere costs over some weeks: `jeepney fare is thirteen
/// pesos each way and i go to the palengke and back six days a week how
/// much do i spend on fare in four weeks` is `13 * 2 * 6 * 4`. A fare
/// "each way" is paid twice a day, one "one way" only for a journey there
/// and back. The text gives those numbers only, and asks how much.
pub(super) fn fares_over_weeks(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("how much") {
        return None;
    }
    let fare = FARE.captures(text)?;
    let days = DAYS_A_WEEK.captures(text)?;
    let asked = WEEKS_ASKED.captures(text)?;
    let weeks = asked.get(1);
    if NUMBER.find_iter(text).count() != 2 + usize::from(weeks.is_some()) {
        return None;
    }
    let weeks = match (weeks, asked.get(2)) {
        (Some(n), _) => n.as_str(),
        (None, Some(_)) => "2",
        (None, None) => "1",
    };
    let for_a_way = fare[2].to_lowercase();
    let both = match for_a_way.starts_with("each")
        || for_a_way.starts_with("and")
        || (for_a_way.ends_with("way") && THERE_AND_BACK.is_match(text))
    {
        true => " * 2",
        false => "",
    };
    Some(format!("{}{both} * {} * {weeks}", &fare[1], &days[1]))
}

/// `four hours a day`: hours worked each day.
static HOURS_A_DAY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+hours?\s+(?:a|per|each|every)\s+(?:day|shift)\b")
        .expect("a valid regex")
});

/// `how much is that a week`, `in 4 weeks`: the weeks the pay is asked for.
static PAY_ASKED_FOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow\s+much\b[^\d]*?(?:\b(?:a|per|each)\s+week\b|\b(?:in|over|for)\s+(\d+)\s+weeks?\b)|\b(?:pay|wages?|earnings)\s+(?:for|in)\s+(?:the|a)\s+week\b")
        .expect("a valid regex")
});

/// A week's pay (or some weeks') from hours a day, pay an hour and days a
/// week: `i do four hours a day in the school kitchen at thirteen pound
/// twenty an hour five days a week how much is that a week before tax` is
/// `4 * 13.20 * 5 * 1`. The text gives those numbers only.
pub(super) fn pay_for_hours(text: &str) -> Option<String> {
    let hours = HOURS_A_DAY.captures(text)?;
    let pay = hourly(text)?;
    let days = DAYS_A_WEEK.captures(text)?;
    let weeks = PAY_ASKED_FOR.captures(text)?.get(1);
    if NUMBER.find_iter(text).count() != 3 + usize::from(weeks.is_some()) {
        return None;
    }
    Some(format!(
        "{} * {} * {} * {}",
        &hours[1],
        &pay[1],
        &days[1],
        weeks.map_or("1", |n| n.as_str())
    ))
}

/// `Each bag cost me GH₵5.50`, `they cost me 5.50 a bag`: what each cost.
static COST_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\beach(?:\s+[a-z]+)?\s+(?:cost|costs)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)|\b(?:cost|costs)\s+(?:me\s+|us\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:a|an|per|each)\b"))
        .expect("a valid regex")
});

/// The profit on so many sold, each at a price and each costing less:
/// `I sold 36 bags of sachet water at GH₵7 a bag. Each bag cost me
/// GH₵5.50. What is my total profit?` is `36 * (7 - 5.50)`. The text gives
/// those numbers only.
pub(super) fn profit_on_each_sold(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("profit") {
        return None;
    }
    let (_, sold) = items_sold(text)?;
    let cost = COST_EACH.captures(text)?;
    let cost = cost.get(1).or(cost.get(2))?;
    if NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    Some(format!("{} * ({} - {})", &sold[1], &sold[2], cost.as_str()))
}

/// `it costs me J$520 to make`: what one costs to make or buy.
static COST_TO_MAKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\bcosts?\s+(?:me\s+|us\s+|him\s+|her\s+|them\s+)?(?:about\s+)?[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?to\s+(?:make|produce|cook|bake|prepare|grow|buy|get|brew)\b"))
        .expect("a valid regex")
});

/// `If I sell 45 quarters today`: how many are sold.
static SELL_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:sell|sold|sells|selling)\s+(\d+)\s+[a-z]").expect("a valid regex")
});

/// The profit on so many sold, when one sells at a price and costs less
/// to make: `I sell a quarter chicken for J$900 and it costs me J$520 to
/// make. If I sell 45 quarters today, what's my profit?` is `45 * (900 -
/// 520)`. The text gives those numbers only.
pub(super) fn profit_on_many_sold(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("profit") || NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    let price = SOLD_EACH_AT.captures(text)?.get(1)?;
    let cost = COST_TO_MAKE
        .captures(text)
        .and_then(|found| found.get(1))
        .or_else(|| {
            let found = COST_EACH.captures(text)?;
            found.get(1).or(found.get(2))
        })?;
    let count = SELL_MANY.captures(text)?.get(1)?;
    let distinct = count.start() != price.start() && count.start() != cost.start();
    distinct.then(|| {
        format!(
            "{} * ({} - {})",
            count.as_str(),
            price.as_str(),
            cost.as_str()
        )
    })
}

/// `5% bonus`, `3 percent commission`: a percentage and what it is of.
static PERCENT_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+([a-z]+)").expect("a valid regex")
});

/// A percentage named by what it is (`The dealer gives 5% bonus on data
/// bundles. How much bonus if I buy GH₵200 worth?`), asked of the one
/// other amount the text gives: `200 * 5 / 100`. Not for a discount or a
/// rise, whose price after is asked as often as the amount.
pub(super) fn percent_named_of(text: &str) -> Option<String> {
    let found = PERCENT_NAMED.captures(text)?;
    let what = found[2].to_lowercase();
    if matches!(
        what.as_str(),
        "off" | "of" | "more" | "less" | "discount" | "increase" | "decrease" | "rise" | "interest"
    ) {
        return None;
    }
    let asked = format!("how much {what}");
    if !text.to_lowercase().contains(&asked) {
        return None;
    }
    let percent = found.get(1)?;
    let mut others = NUMBER
        .find_iter(text)
        .filter(|n| n.start() != percent.start());
    let (Some(amount), None) = (others.next(), others.next()) else {
        return None;
    };
    Some(format!("{} * {} / 100", amount.as_str(), percent.as_str()))
}

/// `How much did she make?`: asks what was made after the costs.
static ASKS_WHAT_WAS_MADE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:how\s+much|what)\s+did\s+(?:i|we|she|he|they|you)\s+(?:actually\s+|really\s+)?(?:make|clear|come\s+away\s+with|take\s+home)\b[^\d]*$")
        .expect("a valid regex")
});

/// What was made: the amount taken in less the costs said around it, in
/// any order: `Our kid did a car boot sale: £15 for the pitch, £8.50 in
/// petrol, and she took £96.40. How much did she make?` is `96.40 - 15 -
/// 8.50`. Each cost is a plain amount (no `each`, `a`, `per` or
/// percentage after it).
pub(super) fn takings_less_costs(text: &str) -> Option<String> {
    ASKS_WHAT_WAS_MADE.find(text)?;
    let mut taken = TAKEN_IN.captures_iter(text);
    let (taken, counted) = match (taken.next(), taken.next()) {
        (Some(taken), None) => {
            let amount = taken.get(1)?;
            (amount.as_str().to_string(), vec![amount.start()])
        }
        (None, _) => sold_at_a_price(text)?,
        _ => return None,
    };
    let costs: Vec<regex::Match> = NUMBER
        .find_iter(text)
        .filter(|n| !counted.contains(&n.start()))
        .collect();
    let plain = costs.iter().all(|cost| a_plain_amount(text, cost));
    if costs.is_empty() || !plain {
        return None;
    }
    let costs: Vec<&str> = costs.iter().map(|c| c.as_str()).collect();
    Some(format!("{taken} - {}", costs.join(" - ")))
}

/// `sold 36 bags at 7 a bag`: the [`ITEMS_AT_A_PRICE`] right after
/// `sold`, read from the byte offset returned with it.
fn items_sold(text: &str) -> Option<(usize, Captures<'_>)> {
    // ASCII lowercase keeps every byte offset of `text`.
    let from = text.to_ascii_lowercase().find("sold ")? + "sold ".len();
    let sold = ITEMS_AT_A_PRICE
        .captures(&text[from..])
        .filter(|items| items.get(0).is_some_and(|m| m.start() == 0))?;
    Some((from, sold))
}

/// `sold 1800 bushels of corn at 4.12 a bushel`: what was taken in for so
/// many sold at a price, and where its two numbers start.
fn sold_at_a_price(text: &str) -> Option<(String, Vec<usize>)> {
    let (from, sold) = items_sold(text)?;
    let (count, price) = (sold.get(1)?, sold.get(2)?);
    Some((
        format!("{} * {}", count.as_str(), price.as_str()),
        vec![from + count.start(), from + price.start()],
    ))
}

/// `had $1,200 saved … and put in $275, $340 and $185`: an amount, then
/// the amounts added to it.
static HAD_THEN_ADDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:had|have|started\s+with|got)\s+[SIGNS]?(\d+(?:\.\d+)?)\b[^\d]*?\b(?:put\s+in|added|deposited|paid\s+in|put\s+away|topped\s+(?:it\s+)?up\s+with)\s+([SIGNS]?\d[^?]*)"))
        .expect("a valid regex")
});

/// `what's my total now`, `how much have I got now`: asks what an amount
/// came to after what was added.
static TOTAL_NOW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:total|altogether|in\s+all)\b|\bhow\s+much\s+(?:do|have)\s+(?:i|we)\s+(?:got\s+)?(?:have\s+)?now\b")
        .expect("a valid regex")
});

/// An amount with the amounts added to it after: `I had $1,200 saved for
/// tuition and put in $275, $340 and $185 this month. What's my total
/// now?` is `1200 + 275 + 340 + 185`, not the total of the three. Every
/// number after the first is one added.
pub(super) fn added_to_what_was_had(text: &str) -> Option<String> {
    TOTAL_NOW.find(text)?;
    let found = HAD_THEN_ADDED.captures(text)?;
    let first = found.get(1)?;
    let added: Vec<&str> = NUMBER
        .find_iter(&text[found.get(2)?.start()..])
        .map(|n| n.as_str())
        .collect();
    let all = NUMBER.find_iter(text).count();
    let before_first = NUMBER.find_iter(&text[..first.start()]).count();
    (!added.is_empty() && before_first == 0 && all == added.len() + 1)
        .then(|| format!("{} + {}", first.as_str(), added.join(" + ")))
}

//! Shares: a price paid off in equal parts, an amount split between
//! people, what a group pays for an amount each, and amounts for each of
//! so many.

use super::*;

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
pub(in crate::math::spoken) fn paid_off_in_parts(text: &str) -> Option<String> {
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
pub(in crate::math::spoken) fn split_between(text: &str) -> Option<String> {
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
    let said_between = SPLIT_BETWEEN.captures(text);
    let people = match &said_between {
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
    if said_between.is_some() {
        numbers.retain(|n| !companions_of(text, n, people));
    }
    let [a, b] = numbers.as_slice() else {
        return None;
    };
    let amount = if a.start() == people.start() { b } else { a };
    Some(format!("{} / {}", amount.as_str(), people.as_str()))
}

/// `3 friends`, `two mates`: people counted who are among those who share.
static COMPANIONS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s+(?:friends|mates|others|colleagues|guests|cousins|pals|buddies)\b")
        .expect("a valid regex")
});

/// Whether `number` counts the speaker's companions (`dinner with 3
/// friends … split between 4 of us`): fewer than the `people` who share,
/// so they are among them, not another amount.
fn companions_of(text: &str, number: &regex::Match, people: regex::Match) -> bool {
    let fewer = match (
        number.as_str().parse::<u32>(),
        people.as_str().parse::<u32>(),
    ) {
        (Ok(some), Ok(all)) => some < all,
        _ => false,
    };
    number.start() != people.start() && fewer && COMPANIONS.is_match(&text[number.end()..])
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
pub(in crate::math::spoken) fn for_the_group(text: &str) -> Option<String> {
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

/// `2 kids`: a count of things.
static COUNTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(\d+)\s+([a-z]+)\b").expect("a valid regex"));

/// The total of several amounts for each one of something, times how
/// many there are: `subs are $85 a kid for the season, plus $42 a kid for
/// new boots. I've got two kids playing. What's the total?` is `(85 +
/// 42) * 2`. The text gives those numbers only, and asks for a total.
pub(in crate::math::spoken) fn amounts_for_each(text: &str) -> Option<String> {
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

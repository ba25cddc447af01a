//! Amounts scaled: a recipe for another number of things, a course of
//! doses, an amount per so many things, and an amount each period over a
//! longer one.

use super::*;

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
pub(in crate::math::spoken) fn scaled(text: &str) -> Option<String> {
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
pub(in crate::math::spoken) fn doses(text: &str) -> Option<String> {
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
pub(in crate::math::spoken) fn per_amount(text: &str) -> Option<String> {
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

/// `in a fortnight`, `over 3 weeks`, `for the whole year`: the period asked
/// about, at the end.
static OVER_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:in|over|for|during|across|after)\s+(?:a|an|one|the|(\d+))\s+(?:whole\s+|full\s+|entire\s+)?(minute|hour|day|week|fortnight|month|year)s?\s*[?.!]?\s*$")
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
/// 14`. Amounts of money for the same period are summed when it asks how
/// much (`rent is 1800 a month plus 320 every month for electricity how
/// much is that for the whole year` is `(1800 + 320) * 12`). Only when the
/// text holds the amounts and at most the count of periods.
pub(in crate::math::spoken) fn over_a_period(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    if !lower.contains("how m") {
        return None;
    }
    let day_part = |period: &str| match period.to_lowercase().as_str() {
        "morning" | "afternoon" | "evening" | "night" => "day".to_string(),
        period => period.to_string(),
    };
    let amounts: Vec<Captures> = PER_PERIOD.captures_iter(text).collect();
    let first = amounts.first()?;
    let each = day_part(&first[2]);
    if amounts.iter().any(|a| day_part(&a[2]) != each)
        || (amounts.len() > 1 && !lower.contains("how much"))
    {
        return None;
    }
    let amount = match amounts.as_slice() {
        [one] => one[1].to_string(),
        several => format!(
            "({})",
            several
                .iter()
                .map(|a| &a[1])
                .collect::<Vec<_>>()
                .join(" + ")
        ),
    };
    let over = OVER_PERIOD.captures(text)?;
    let count = over.get(1).map(|n| n.as_str());
    let numbers = NUMBER.find_iter(text).count();
    if numbers != amounts.len() + usize::from(count.is_some()) {
        return None;
    }
    let factor = periods_in(&each, &over[2].to_lowercase())?;
    Some(match count {
        Some(count) => format!("{amount} * {factor} * {count}"),
        None => format!("{amount} * {factor}"),
    })
}

//! Fares and pay by the week: getting somewhere some days a week (its
//! fares, its miles), and pay from hours a day at a rate an hour.

use super::*;

/// `13 pesos each way`, `$3 a trip`, `26 a day`, `3000 and the same back`:
/// a fare, and what it is for.
static FARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)[SIGNS]?(\d+(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(each\s+way|one\s+way|a\s+trip|per\s+trip|a\s+ride|per\s+ride|a\s+day|per\s+day|and\s+the\s+same\s+(?:back|coming\s+back|on\s+the\s+way\s+back))\b"))
        .expect("a valid regex")
});

/// `the tram ticket bought on board is 3.10`: the price of one journey's
/// ticket or fare.
static TICKET_PRICED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:ticket|fare)s?\b[^\d.?!]{0,40}?\b(?:is|are|costs?|was)\s+[SIGNS]?(\d+(?:\.\d+)?)\b"))
        .expect("a valid regex")
});

/// A journey made there and back.
static THERE_AND_BACK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:and\s+back|both\s+ways|round\s+trip|there\s+and\s+back|return)\b")
        .expect("a valid regex")
});

/// `six days a week`, `three times a week`: how many days (or journeys)
/// a week.
static DAYS_A_WEEK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s+(?:days?|times|trips)\s+(?:a|per|each|every)\s+week\b")
        .expect("a valid regex")
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
/// "each way" is paid twice a day, one "one way" or "a trip" (or a
/// ticket's price) only for a journey there and back ("over and back").
/// The text gives those numbers only, and asks how much.
pub(in crate::math::spoken) fn fares_over_weeks(text: &str) -> Option<String> {
    if !text.to_lowercase().contains("how much") {
        return None;
    }
    let (fare, for_a_way) = match FARE.captures(text) {
        Some(fare) => (fare.get(1)?, fare[2].to_lowercase()),
        None => (TICKET_PRICED.captures(text)?.get(1)?, "one way".to_string()),
    };
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
    let both = match for_a_way.starts_with("each")
        || for_a_way.starts_with("and")
        || (["way", "trip", "ride"]
            .iter()
            .any(|one| for_a_way.ends_with(one))
            && THERE_AND_BACK.is_match(text))
    {
        true => " * 2",
        false => "",
    };
    Some(format!("{}{both} * {} * {weeks}", fare.as_str(), &days[1]))
}

/// `eighteen miles there and back`, `12 km each way`: the distance of one
/// journey, and whether it is one way.
static JOURNEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(miles?|km|kms|kilomet(?:er|re)s?|k)\s+(there\s+and\s+back|round\s+trip|return|each\s+way|one\s+way)\b")
        .expect("a valid regex")
});

/// `how many miles is that in four weeks`: the distance asked over weeks.
static DISTANCE_OVER_WEEKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow\s+(?:many\s+(?:miles|km|kms|kilomet(?:er|re)s)|far)\b[^\d]*?\b(?:in|over|for)\s+(\d+)\s+weeks?\b")
        .expect("a valid regex")
});

/// How far some journeys a week come to over some weeks: `i drive into
/// ames three times a week and its eighteen miles there and back how many
/// miles is that in four weeks` is `3 * 18 * 4`; a distance "each way" or
/// "one way" is driven twice a journey. The text gives those numbers only.
pub(in crate::math::spoken) fn miles_over_weeks(text: &str) -> Option<String> {
    let trips = DAYS_A_WEEK.captures(text)?;
    let journey = JOURNEY.captures(text)?;
    let weeks = DISTANCE_OVER_WEEKS.captures(text)?;
    if NUMBER.find_iter(text).count() != 3 {
        return None;
    }
    let both = match journey[3].to_lowercase().ends_with("way") {
        true => " * 2",
        false => "",
    };
    Some(format!(
        "{} * {}{both} * {}",
        &trips[1], &journey[1], &weeks[1]
    ))
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
pub(in crate::math::spoken) fn pay_for_hours(text: &str) -> Option<String> {
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

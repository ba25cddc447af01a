//! Percentages: of the amount the sentence before gives, the share one
//! amount is of another, a percentage named by what it is (a bonus), and
//! simple interest.

use super::*;

/// `The bill is 73.40. What's an 18 percent tip?`: a percentage asked of
/// the one amount the sentence before gives, as arithmetic.
static PERCENT_OF_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(.*[^\d.])?(\d[\d,]*(?:\.\d+)?)[^.!?\d]*?(?:[.!?]\s+|\s+)(?:what(?:'s|s|\s+is|\s+would\s+be)|how\s+much\s+is)\s+(?:an?\s+|the\s+)?(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(tip|tax|gratuity|discount|off|service\s+charge|vat|gst|surcharge)(?:\s+on\s+(?:that|it|this|the\s+(?:bill|check|total)))?\s*[?.!]?\s*$")
        .expect("a valid regex")
});

pub(in crate::math::spoken) fn percent_of_the_amount_before(text: &str) -> Option<String> {
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

/// `… what percent were kente?`, `what percentage of them are girls`: the
/// share of the whole that the part named after it is, at the end (not
/// what is left of it).
static WHAT_PERCENT_WERE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bwhat\s+percent(?:age)?\s+(?:of\s+(?:them|those|these)\s+)?(?:were|are|was|is)\s+((?:[a-z]+\s*){1,3})[?.!]?\s*$")
        .expect("a valid regex")
});

/// Words after `what percent were` that ask for the rest, not the part.
static THE_REST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:left|remain|remaining|unsold|not|that|it)\b").expect("a valid regex")
});

/// Words that make two amounts a change, not a part of a whole.
const CHANGES: &[&str] = &[
    "increase", "decrease", "rise", "rose", "risen", "grew", "grown", "went", "up", "down", "more",
    "less", "fell", "drop", "dropped", "change", "changed",
];

/// `from 1200`, `from $1.52`: a change from an amount (not `made 42000
/// from catering`).
static FROM_AN_AMOUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bfrom\s+\S{0,3}\d").expect("a valid regex"));

/// The share of the larger of two amounts the smaller is, in percent,
/// when a question gives the two and asks what percent that is (`we
/// budgeted 3000 and we've spent 1800 what percent is that` is `1800 /
/// 3000 * 100`) or what percent of the whole the part is. Not for a change
/// from one amount to another.
pub(in crate::math::spoken) fn share_of_two(text: &str) -> Option<String> {
    let asks_that = WHAT_PERCENT_IS_THAT.is_match(text);
    let asks_the_part = WHAT_PERCENT_WERE
        .captures(text)
        .is_some_and(|asked| !THE_REST.is_match(&asked[1]));
    if !asks_that && !asks_the_part && !WHAT_PERCENT_OF_THE_WHOLE.is_match(text) {
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
        .any(|word| CHANGES.contains(&word))
        || FROM_AN_AMOUNT.is_match(&lower);
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

/// `5% bonus`, `3 percent commission`: a percentage and what it is of.
static PERCENT_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+([a-z]+)").expect("a valid regex")
});

/// A percentage named by what it is (`The dealer gives 5% bonus on data
/// bundles. How much bonus if I buy GH₵200 worth?`), asked of the one
/// other amount the text gives: `200 * 5 / 100`. Not for a discount or a
/// rise, whose price after is asked as often as the amount.
pub(in crate::math::spoken) fn percent_named_of(text: &str) -> Option<String> {
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
pub(in crate::math::spoken) fn simple_interest(text: &str) -> Option<String> {
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

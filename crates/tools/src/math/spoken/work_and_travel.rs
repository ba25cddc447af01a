//! Word problems of work, care and travel read as one sum: a shift and
//! its pay with overtime, a dose by body weight, a cost for each thing
//! counted in a period, fuel for a distance and its cost, how long a
//! supply lasts, a price with a percentage or a tax included.

use super::units::singular;
use super::word_problems::{DISTANCE, RATE};
use super::*;
use crate::clock_time::{ClockTime, Minutes};

/// The clock times in `lower` (a lower-case text), in hours after
/// midnight and whether am or pm was said with them: those with minutes
/// or a half of the day, minutes apart (`6 45`) only with a half, none at
/// `rate_at` (an hourly rate's byte offset) or before a `-`, `%` or
/// minutes.
fn clock_times(lower: &str, rate_at: Option<usize>) -> Vec<(f64, bool)> {
    let spans: Vec<(usize, &str)> = lower
        .split_whitespace()
        .map(|w| {
            let at = w.as_ptr() as usize - lower.as_ptr() as usize;
            (at, w.trim_end_matches([',', ';', '!', '?', '.']))
        })
        .collect();
    let words: Vec<&str> = spans.iter().map(|(_, w)| *w).collect();
    let mut times = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (at, word) = spans[i];
        let Some(time) = ClockTime::read(&words[i..]) else {
            i += 1;
            continue;
        };
        let next = words.get(i + time.words).copied().unwrap_or_default();
        let counted = match time.minutes {
            Some(Minutes::Apart) | None => time.half.is_some(),
            Some(Minutes::Joined) => true,
        } && !rate_at.is_some_and(|r| (at..at + word.len()).contains(&r))
            && !next.starts_with(['-', '%'])
            && !next.starts_with("min");
        if let (true, Some(hours)) = (counted, time.hours()) {
            times.push((hours, time.half.is_some()));
        }
        i += time.words;
    }
    times
}

/// `a 30-minute unpaid break`, `half an hour lunch break`, `an hour
/// break`: the time off in a shift (`paid` or `unpaid` said before it).
static BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(\d+)[\s-]*min(?:ute)?s?|(half)[\s-]+(?:an\s+)?hour|(?:an|one)\s+hour)(?:'s)?\s+((?:un)?paid\s+)?(?:lunch\s+|meal\s+)?break\b")
        .expect("a valid regex")
});

/// `$28.40 an hour`, `17.20 per hour`: an hourly rate, the number its
/// first group.
pub(super) fn hourly(text: &str) -> Option<Captures<'_>> {
    RATE.captures_iter(text)
        .find(|rate| rate[3].eq_ignore_ascii_case("hour"))
}

/// The hours worked in a shift from its start to its end, less an unpaid
/// break, or what they pay at an hourly rate, when the question asks how
/// many hours or how much is earned: `clocked in at 6:45 pm and out at
/// 7:15 am with a 30 minute unpaid break, how many hours do I get paid
/// for` is `(31.25 - 18.75 - 30/60)`. A shift that ends at an earlier
/// hour than it starts goes past noon (no am or pm said) or midnight.
pub(super) fn a_shift(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let worked = [
        "worked", "work ", "shift", "clocked", "clock in", "started", "finished", "on from",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let hours_asked = lower.contains("how many hours");
    let rate = hourly(&lower);
    let pay_asked = rate.is_some()
        && ["how much", "earn", "make", "paid", "take home"]
            .iter()
            .any(|w| lower.contains(w));
    if !worked || !(hours_asked || pay_asked) {
        return None;
    }
    let rate_at = rate.as_ref().and_then(|r| r.get(1)).map(|m| m.start());
    let times = clock_times(&lower, rate_at);
    let [(from, from_half), (to, to_half)] = times.as_slice() else {
        return None;
    };
    let mut to = *to;
    if to <= *from {
        let whole_day = *from_half || *to_half || *from >= 12.0;
        to += if whole_day { 24.0 } else { 12.0 };
    }
    let unpaid = BREAK
        .captures(text)
        .filter(|b| {
            !b.get(4)
                .is_some_and(|p| p.as_str().to_lowercase().starts_with("paid"))
        })
        .map(|b| match (b.get(1), b.get(2)) {
            (Some(minutes), _) => minutes.as_str().parse::<f64>().unwrap_or(0.0),
            (None, Some(_)) => 30.0,
            _ => 60.0,
        })
        .unwrap_or(0.0);
    let worked = format!("({to} - {from} - {unpaid}/60)");
    Some(match (hours_asked, rate) {
        (false, Some(rate)) => format!("{worked} * {}", &rate[1]),
        _ => worked,
    })
}

/// `15 mg per kg`, `0.1 mL/kg`, `10 milligrams a kilo`: a dose for each
/// kilogram the patient weighs.
static PER_KILO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(mg|mcg|micrograms?|milligrams?|g|grams?|ml|millilit(?:er|re)s?|units?)\s*(?:/|per|a|an|for\s+every|for\s+each)\s*(?:kg|kilos?|kilograms?)\b")
        .expect("a valid regex")
});

/// `weighs 44 pounds`, `is 20 kg`, `weight is 18.5 kilos`: what someone
/// weighs, and in what.
static WEIGHS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:weighs?|weighing|weight\s+(?:is|of)|is)\s+(\d+(?:\.\d+)?)\s*(pounds?|lbs?|kg|kilos?|kilograms?)\b")
        .expect("a valid regex")
});

/// `split into 2 equal doses`, `given in 3 divided doses`: how many doses
/// a day's amount is given in.
static SPLIT_INTO_DOSES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:split|divided|given|taken|spread)\s+(?:into|in|as|over)\s+(\d+)\s+(?:equal\s+|divided\s+|separate\s+)?doses\b")
        .expect("a valid regex")
});

/// `each dose`, `per dose`, `a dose`: the question asks for one dose.
static ONE_DOSE_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:each|per|a|every|one|single)\s+dose\b").expect("a valid regex")
});

/// A dose by body weight, when the question asks how much: `The order is
/// 15 mg per kg and the kid weighs 44 pounds. How many mg is the dose?`
/// is `15 * 44 * 0.45359237`. A day's amount `split into 2 equal doses`
/// is halved when one dose is asked for.
pub(super) fn dose_by_weight(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    if !lower.contains("how m") && !lower.contains("what") {
        return None;
    }
    let dose = PER_KILO.captures(text)?;
    let weight = WEIGHS.captures(text)?;
    let split = SPLIT_INTO_DOSES.captures(text);
    if NUMBER.find_iter(text).count() != 2 + usize::from(split.is_some()) {
        return None;
    }
    let in_pounds = weight[2].to_lowercase().starts_with(['p', 'l']);
    let day = match in_pounds {
        true => format!("{} * {} * 0.45359237", &dose[1], &weight[1]),
        false => format!("{} * {}", &dose[1], &weight[1]),
    };
    Some(match split {
        Some(doses) if ONE_DOSE_ASKED.is_match(text) => format!("{day} / {}", &doses[1]),
        _ => day,
    })
}

/// `$115 a month`, `40 shifts a month`: an amount in a period.
static IN_A_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+(?:\.\d+)?)\s+(?:([a-z]+)\s+)?(?:a|per|each|every)\s+(day|week|fortnight|month|year)\b")
        .expect("a valid regex")
});

/// `per shift`, `a visit`, `for each lesson`: the thing a cost is asked
/// for one of, at the end of a question.
pub(super) static ASKED_PER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:per|a|each|for\s+each|for\s+every)\s+([a-z]+?)s?\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// What an amount in a period comes to for each of the things counted in
/// the same period: `My parking pass is $115 a month and I work 13 shifts
/// a month. How much does parking cost me per shift?` is `115 / 13`.
pub(super) fn each_in_a_period(text: &str) -> Option<String> {
    let asked = ASKED_PER.captures(text)?;
    let thing = singular(&asked[1]);
    let given: Vec<Captures> = IN_A_PERIOD.captures_iter(text).collect();
    let [first, second] = given.as_slice() else {
        return None;
    };
    if NUMBER.find_iter(text).count() != 2 || !first[3].eq_ignore_ascii_case(&second[3]) {
        return None;
    }
    let counts = |found: &Captures| {
        found
            .get(2)
            .is_some_and(|t| singular(t.as_str()).eq_ignore_ascii_case(&thing))
    };
    match (counts(first), counts(second)) {
        (false, true) => Some(format!("{} / {}", &first[1], &second[1])),
        (true, false) => Some(format!("{} / {}", &second[1], &first[1])),
        _ => None,
    }
}

/// `takes 12% of my`, `puts 10 percent of the`: a share that someone
/// takes or sets aside of an amount said elsewhere.
static A_CUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:takes?|took|keeps?|charges?|gets?|deducts?|collects?|gives?|pays?|contributes?|saves?|puts?\s+(?:in|aside|away)|sets?\s+aside)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)\s+of\s+(?:my|the|our|his|her|their|your|each|every)\b")
        .expect("a valid regex")
});

/// The share of [`A_CUT`] of the one other amount the text gives, when it
/// asks how much that share is: `The sacco takes 12% of my daily
/// collection. I collected KSh 9500 today, so how much goes to the
/// sacco?` is `9500*12/100`. Not when it asks what is left, or over a
/// period (`how much do I save in a year`).
pub(super) fn a_cut_of_an_amount(text: &str) -> Option<String> {
    let cut = A_CUT.captures(text)?;
    let percent = cut.get(1)?;
    let lower = text.to_lowercase();
    let asked = &lower[lower.rfind("how much")?..];
    let left = [
        "left",
        "keep",
        "remain",
        "after",
        "take home",
        "net",
        "end up",
        "rest",
        "year",
        "month",
        "week",
        "day",
    ]
    .iter()
    .any(|w| asked.contains(w));
    let amounts: Vec<regex::Match> = NUMBER
        .find_iter(text)
        .filter(|n| n.start() != percent.start())
        .collect();
    let [amount] = amounts.as_slice() else {
        return None;
    };
    (!left).then(|| format!("{}*{}/100", amount.as_str(), percent.as_str()))
}

/// `15 percent diwali discount`, `20% off`, `13 percent HST`, `35
/// percent on top`: a percentage off a price or on top of it (a word or
/// two may name it).
static PERCENT_ON_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:[a-z]+\s+){0,2}?(?:(discount|off)|((?:sales\s+)?tax|gst|gct|hst|pst|vat|tip|service\s+charge|on\s+top|mark-?up|markup))\b")
        .expect("a valid regex")
});

/// `how much is the discount`, `how much do we save`: the amount taken
/// off asked for, not the price after it.
static DISCOUNT_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(?:how\s+much|what(?:'s|s|\s+is))\s+(?:is\s+)?(?:the|my|our|that)\s+discount|how\s+much\s+discount|how\s+much\s+(?:do|will|would|can|did)\s+(?:i|we|you|they)\s+save)\b")
        .expect("a valid regex")
});

/// What is paid for a price with a percentage off or on top, when the
/// text gives only those two numbers and asks what is paid: `the mixer
/// grinder mrp is 3200 and im giving 15 percent diwali discount what will
/// the customer pay` is `3200*(1-15/100)`. A price with a percentage on
/// top is given before it; one with a percentage off may come after
/// (`fifteen percent off fencing gear and ive got 360 dollars worth`).
/// Where the amount taken off is asked for ([`DISCOUNT_ASKED`]), that
/// amount.
pub(super) fn percent_on_a_price(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let paid = [
        " pay",
        "cost",
        "total",
        "come to",
        "comes to",
        "final price",
        "sell it for",
        "sell them for",
        "sell the ",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    let included = [
        "includ",
        "inclusive",
        "before",
        " inc ",
        "original",
        "full price",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if numbers.len() != 2 || included || lower.contains("what percent") {
        return None;
    }
    let found = PERCENT_ON_A_PRICE.captures(text)?;
    let percent = found.get(1)?;
    let price = numbers.iter().find(|n| n.start() != percent.start())?;
    if found.get(2).is_some() && DISCOUNT_ASKED.is_match(text) {
        return Some(format!("{}*{}/100", price.as_str(), percent.as_str()));
    }
    if !paid {
        return None;
    }
    let of_a_price = text[found.get(0)?.end()..]
        .trim_start()
        .to_lowercase()
        .starts_with("on ");
    let off = found.get(2).is_some();
    let asks_the_price = off
        && lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "pay")
        && !["save", "knock", "how much off"]
            .iter()
            .any(|w| lower.contains(w));
    if (price.start() > percent.start() && !asks_the_price) || of_a_price {
        return None;
    }
    Some(match found.get(2) {
        Some(_) => format!("{}*(1-{}/100)", price.as_str(), percent.as_str()),
        None => format!("{}*(1+{}/100)", price.as_str(), percent.as_str()),
    })
}

/// `45 miles to the gallon`, `28 mpg`, `15 km a litre`, `20 km per
/// liter`: how far a car goes on a gallon or litre of fuel.
static ECONOMY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(?:mpg|(?:miles?|km|kms|kilomet(?:er|re)s?)\s+(?:to\s+the|to\s+a|per|a|an|on\s+a|for\s+every)\s+(gallon|lit(?:er|re)))\b")
        .expect("a valid regex")
});

/// How many numbers `text` gives as amounts: not the `1` of `one way`,
/// written in digits.
fn amounts_given(text: &str) -> usize {
    NUMBER
        .find_iter(text)
        .filter(|n| {
            !text[n.end()..]
                .trim_start()
                .to_lowercase()
                .starts_with("way")
        })
        .count()
}

/// The fuel a distance takes at a car's economy, when the text gives
/// those two numbers only and asks how many gallons or litres: `its 420
/// miles to my sisters and the car does 45 miles to the gallon how many
/// gallons is that one way` is `420 / 45`.
pub(super) fn fuel_for_a_distance(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let asked = [
        "how many gallons",
        "how many litres",
        "how many liters",
        "how much fuel",
        "how much petrol",
        "how much gas",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if !asked || amounts_given(text) != 2 {
        return None;
    }
    let economy = ECONOMY.captures(text)?;
    let rate = economy.get(1)?;
    let distance = DISTANCE
        .captures_iter(text)
        .filter_map(|d| d.get(1))
        .find(|d| d.start() != rate.start())?;
    let each_way = ["each way", "one way", "1 way"]
        .iter()
        .any(|w| lower.contains(w));
    let both_ways = ["round trip", "there and back", "both ways", "return trip"]
        .iter()
        .any(|w| lower.contains(w));
    Some(match each_way && both_ways {
        true => format!("2 * {} / {}", distance.as_str(), rate.as_str()),
        false => format!("{} / {}", distance.as_str(), rate.as_str()),
    })
}

/// `40 mg per mL`, `5 mg in 5 mL`, `12 eggs to a tray`: so much of one
/// thing in (so many of) another.
static SO_MUCH_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*([a-z]+)\s+(?:per|a|an|/|in|to|for|in\s+(?:a|each|every)|to\s+(?:a|the|each)|for\s+(?:a|each|every))\s+(?:(\d+(?:\.\d+)?)\s*)?([a-z]+)\b")
        .expect("a valid regex")
});

/// `how many mL`: the thing a question counts.
static HOW_MANY_OF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bhow\s+many\s+([a-z]+)").expect("a valid regex"));

/// How many of the second thing an amount of the first takes, when the
/// text gives that rate and one more amount of the first thing, and asks
/// how many of the second: `The vial is 40 mg per mL and the order is 100
/// mg. How many mL do I draw up?` is `100 / 40`.
pub(super) fn how_many_it_takes(text: &str) -> Option<String> {
    let asked = HOW_MANY_OF.captures(text)?;
    let wanted = singular(&asked[1]);
    let rate = SO_MUCH_IN
        .captures_iter(text)
        .find(|r| singular(&r[4]).eq_ignore_ascii_case(&wanted))?;
    let of = singular(&rate[2]);
    let whole = rate.get(0)?;
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    let outside: Vec<&regex::Match> = numbers
        .iter()
        .filter(|n| n.end() <= whole.start() || n.start() >= whole.end())
        .collect();
    let [amount] = outside.as_slice() else {
        return None;
    };
    let thing = text[amount.end()..].split_whitespace().next()?;
    let thing = singular(thing.trim_matches(|c: char| !c.is_alphanumeric()));
    if !thing.eq_ignore_ascii_case(&of) || of.eq_ignore_ascii_case(&wanted) {
        return None;
    }
    Some(match rate.get(3) {
        Some(per) => format!("{} * {} / {}", amount.as_str(), per.as_str(), &rate[1]),
        None => format!("{} / {}", amount.as_str(), &rate[1]),
    })
}

/// `three 12-hour shifts`, `5 8 hour shifts`: the hours of so many shifts.
static SHIFTS_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s+(\d+(?:\.\d+)?)[\s-]*hours?\s+(?:shifts?|days?)\b")
        .expect("a valid regex")
});

/// `4 hours of overtime`, `6 overtime hours`, `overtime of 3 hours`.
static OVERTIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:hours?\s+(?:of\s+)?overtime|overtime\s+hours?)\b|\bovertime\s+of\s+(\d+(?:\.\d+)?)\s+hours?\b")
        .expect("a valid regex")
});

/// `37.5 hours`: hours worked at the base rate.
static HOURS_WORKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:regular\s+|normal\s+|base\s+)?hours?\b")
        .expect("a valid regex")
});

/// Pay at an hourly rate with overtime at time and a half (or double
/// time), when the question asks what is earned: `I worked three 12-hour
/// shifts plus 4 hours of overtime. Base pay is $42 an hour and overtime
/// is time and a half. What's my gross pay?` is `3 * 12 * 42 + 4 * 42 *
/// 1.5`; `my base rate is 44 an hour whats time and a half on that` is
/// `44 * 1.5`; with the overtime hours alone (`nine hours of overtime`)
/// what they earn.
pub(super) fn with_overtime(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let times = if lower.contains("time and a half") {
        "1.5"
    } else if lower.contains("double time") {
        "2"
    } else {
        return None;
    };
    let rate = hourly(text)?;
    let rate_at = rate.get(1)?;
    let numbers = NUMBER.find_iter(text).count();
    if numbers == 1 {
        return Some(format!("{} * {times}", rate_at.as_str()));
    }
    let earned = [
        "pay", "earn", "make", "gross", "total", "how much", "come to",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let overtime = OVERTIME.captures(text)?;
    let extra = overtime.get(1).or(overtime.get(2))?;
    if !earned {
        return None;
    }
    if numbers == 2 {
        return Some(format!(
            "{} * {} * {times}",
            extra.as_str(),
            rate_at.as_str()
        ));
    }
    let (regular, used) = match SHIFTS_OF.captures(text) {
        Some(shifts) => (format!("{} * {}", &shifts[1], &shifts[2]), 2),
        None => {
            let hours = HOURS_WORKED
                .captures_iter(text)
                .filter_map(|h| h.get(1))
                .find(|h| h.start() != extra.start() && h.start() != rate_at.start())?;
            (hours.as_str().to_string(), 1)
        }
    };
    if numbers != used + 2 {
        return None;
    }
    let rate = rate_at.as_str();
    Some(format!(
        "{regular} * {rate} + {} * {rate} * {times}",
        extra.as_str()
    ))
}

/// `8.5 litres per 100 km`, `6 l/100km`: fuel used over a hundred
/// kilometres.
static PER_HUNDRED_KM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(?:l|litres?|liters?)\s*(?:per|/|every|for\s+every)\s*100\s*(?:km|kms|kilomet(?:er|re)s?)\b")
        .expect("a valid regex")
});

/// `1.62 a litre`, `102 rupees a litre`, `$3.29 per gallon`: the price of
/// a litre or gallon (of what is not a distance).
static FUEL_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+(?:\.\d+)?)\s*([a-z]+\s+)?(?:a|per|/|for\s+a)\s+(?:litre|liter|gallon)\b")
        .expect("a valid regex")
});

/// `30 kilometres every day`, `12 miles a day`: a distance each day.
static DAILY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*(?:every|a|per|each)\s+day\b").expect("a valid regex"));

/// `in a thirty day month` (in digits), `over 5 days`, `a week`: how many
/// days a daily distance is asked over.
static DAYS_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(\d+)[\s-]*days?(?:\s+month)?|a\s+(week|fortnight))\b")
        .expect("a valid regex")
});

/// A journey there and back.
static ROUND_TRIP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:round|return)\s+trip|\bthere\s+and\s+back\b|\bboth\s+ways\b")
        .expect("a valid regex")
});

/// What the fuel for a distance costs at a car's economy (distance per
/// litre or gallon, or litres per 100 km) and a price per litre or
/// gallon, when the question asks what it costs: `the van does 8.5 litres
/// per 100 km and diesel is 1.62 a litre what will a 340 km trip cost`
/// is `340 * 8.5 / 100 * 1.62`; a distance each day is taken over the
/// days asked (`30 km every day … in a 30 day month`), one each way twice
/// for a round trip. A `1` counts no amount (`for one return trip`).
pub(super) fn fuel_cost(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let asked = ["cost", "spend", "how much", "pay"]
        .iter()
        .any(|w| lower.contains(w));
    if !asked {
        return None;
    }
    let (used, rate_span, per_hundred) = match PER_HUNDRED_KM.captures(text) {
        Some(found) => (found.get(1)?, found.get(0)?, true),
        None => {
            let found = ECONOMY.captures(text)?;
            (found.get(1)?, found.get(0)?, false)
        }
    };
    let price = FUEL_PRICE.captures_iter(text).find(|p| {
        let at = p.get(0).map_or(0, |m| m.start());
        let named = p.get(2).map_or("", |w| w.as_str().trim());
        (at < rate_span.start() || at >= rate_span.end())
            && DISTANCE.find(&format!("1 {named}")).is_none()
    })?;
    let price_at = price.get(1)?;
    let (distance, said) = DISTANCE
        .captures_iter(text)
        .filter_map(|d| Some((d.get(1)?, d.get(0)?)))
        .find(|(d, _)| d.start() < rate_span.start() || d.start() >= rate_span.end())?;
    let after = &text[said.end()..];
    let daily = DAILY.is_match(after);
    let days = match daily {
        true => {
            let found = DAYS_ASKED.captures(after)?;
            Some(match (found.get(1), found.get(2)) {
                (Some(n), _) => (n.as_str().to_string(), 1),
                (None, Some(w)) if w.as_str().eq_ignore_ascii_case("week") => ("7".to_string(), 0),
                _ => ("14".to_string(), 0),
            })
        }
        false => None,
    };
    let given = 3 + usize::from(per_hundred) + days.as_ref().map_or(0, |(_, said)| *said);
    let numbers = NUMBER.find_iter(text).filter(|n| n.as_str() != "1");
    if numbers.count() != given {
        return None;
    }
    let each_way = after.trim_start().to_lowercase().starts_with("each way")
        && ROUND_TRIP.is_match(&text[said.end()..]);
    let distance = match each_way {
        true => format!("2 * {}", distance.as_str()),
        false => distance.as_str().to_string(),
    };
    let fuel = match per_hundred {
        true => format!("{distance} * {} / 100", used.as_str()),
        false => format!("{distance} / {}", used.as_str()),
    };
    Some(match days {
        Some((days, _)) => format!("{fuel} * {days} * {}", price_at.as_str()),
        None => format!("{fuel} * {}", price_at.as_str()),
    })
}

/// `lasts 3 hours`, `will last 10 days`: how long something lasts.
static LASTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\blasts?\s+(?:for\s+)?(\d+(?:\.\d+)?)\s+(minutes?|hours?|days?|weeks?)\b")
        .expect("a valid regex")
});

/// `40 minutes a day`, `2 hours every week`: how much of it is used in a
/// period.
static USED_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(minutes?|hours?)\s+(?:a|per|each|every)\s+(day|week)\b")
        .expect("a valid regex")
});

/// Minutes in a unit of [`LASTS`] or [`USED_EACH`].
fn minutes_in(unit: &str) -> f64 {
    match unit.to_lowercase().trim_end_matches('s') {
        "minute" => 1.0,
        "hour" => 60.0,
        "day" => 1440.0,
        _ => 10080.0,
    }
}

/// How many days (or weeks) something lasts at so much use a day (or
/// week), when the question asks how many: `A gas cartridge lasts 3
/// hours and we cook for 40 minutes a day. How many days does one
/// cartridge last?` is `3 * 60 / 40`.
pub(super) fn how_long_it_lasts(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let lasts = LASTS.captures(text)?;
    let used = USED_EACH.captures(text)?;
    let period = used[3].to_lowercase();
    if !lower.contains(&format!("how many {period}s")) {
        return None;
    }
    let counted = NUMBER.find_iter(text).filter(|n| n.as_str() != "1").count();
    if counted != 2 {
        return None;
    }
    let total = minutes_in(&lasts[2]);
    let each = minutes_in(&used[2]);
    Some(format!("{} * {total} / ({} * {each})", &lasts[1], &used[1]))
}

/// `before gst`, `without the vat`, `excluding tax`: a price asked
/// without the tax it includes.
static WITHOUT_TAX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:before|without|excluding|ex|less|minus|remove|strip(?:ped)?\s+out|take\s+out|took\s+out)\s+(?:the\s+)?(?:(?:sales\s+)?tax|gst|gct|hst|pst|vat)\b")
        .expect("a valid regex")
});

/// `how much is the gst`, `how much of that was the VAT`: the tax asked.
static TAX_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow\s+much\s+(?:of\s+(?:that|it)\s+(?:\S+\s+){0,2}?)?(?:is|was)\s+(?:the\s+)?(?:(?:sales\s+)?tax|gst|gct|hst|pst|vat)\b")
        .expect("a valid regex")
});

/// `VAT-inclusive at 12.5%`, `including vat at twenty percent`: a tax
/// named before its rate.
static TAX_AT_A_PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(?:sales\s+)?tax|gst|gct|hst|pst|vat)(?:[\s-]+inclusive)?\s+(?:at|of)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)")
        .expect("a valid regex")
});

/// `whats the vat on it at sixteen percent`: a tax on an amount said
/// before, then its rate.
static TAX_ON_IT_AT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:what(?:'s|s|\s+is|\s+will\s+be|\s+would\s+be)|how\s+much\s+(?:is|will\s+be|would\s+be))\s+(?:the\s+)?(?:(?:sales\s+)?tax|gst|gct|hst|pst|vat)\s+(?:on|for)\s+(?:it|that|this)\s+at\s+(\d+(?:\.\d+)?)\s*(?:%|percent)")
        .expect("a valid regex")
});

/// The tax on the one amount a text gives, asked with its rate after it:
/// `the bill is 1240 kwacha before vat whats the vat on it at 16 percent`
/// is `1240 * 16/100`.
pub(super) fn tax_on_it(text: &str) -> Option<String> {
    let percent = TAX_ON_IT_AT.captures(text)?.get(1)?;
    let numbers: Vec<regex::Match> = NUMBER.find_iter(text).collect();
    let [first, second] = numbers.as_slice() else {
        return None;
    };
    let amount = if first.start() == percent.start() {
        second
    } else {
        first
    };
    Some(format!("{} * {}/100", amount.as_str(), percent.as_str()))
}

/// A price that includes a tax, said in any order, when the text gives
/// those two numbers and asks for the price without it or for the tax:
/// `the supplier price already include 9 percent gst its 327 dollars how
/// much before gst` is `327/(1+9/100)`. The price named again (`how much
/// of that K696 is the VAT`) is the same number.
pub(super) fn tax_included(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let mut seen = Vec::new();
    let numbers: Vec<regex::Match> = NUMBER
        .find_iter(text)
        .filter(|n| {
            let new = !seen.contains(&n.as_str());
            seen.push(n.as_str());
            new
        })
        .collect();
    let included = ["includ", "inclusive", "already in"]
        .iter()
        .any(|w| lower.contains(w));
    if !included || numbers.len() != 2 {
        return None;
    }
    let percent = PERCENT_ON_A_PRICE
        .captures(text)
        .filter(|found| found.get(3).is_some())
        .or_else(|| TAX_AT_A_PERCENT.captures(text))?
        .get(1)?;
    let price = numbers.iter().find(|n| n.start() != percent.start())?;
    let percent = percent.as_str();
    let price = price.as_str();
    let tax_asked = TAX_ASKED.is_match(text);
    if WITHOUT_TAX.is_match(text) {
        Some(format!("{price}/(1+{percent}/100)"))
    } else if tax_asked {
        Some(format!("{price}-{price}/(1+{percent}/100)"))
    } else {
        None
    }
}

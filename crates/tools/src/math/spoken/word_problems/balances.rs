//! What is left, owed or had: an amount less the costs or payments said
//! with it, what was made after costs, and an amount with more added.

use super::*;

/// `what's left`, `how much do I have left`, `what's my profit`: asks
/// what remains of an amount, at the end of a text.
static ASKS_WHAT_IS_LEFT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:what'?s|whats|what\s+is|how\s+much\s+(?:is|do\s+i\s+have|have\s+i\s+got|will\s+i\s+have|does\s+that\s+leave))\s+(?:left|remaining|left\s+over)(?:\s+(?:for|to)\s+(?:me|us|spend)|\s+in\s+(?:there|it|the\s+account))?(?:\s+after\s+(?:th(?:at|ose|ese|em)|the|all|my|our)\b(?:\s+\d+)?[^.?!\d]*)?|\b(?:what'?s|whats|what\s+is|how\s+much\s+is)\s+(?:my|our|the)\s+profit|\b(?:how\s+much|what)\s+(?:did|do|will)\s+(?:i|we)\s+clear)\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// `took 1240 quid`, `I earned 900`, `I quoted 4800`, `the cheque came
/// to 38420`: the amount something is taken from.
static TAKEN_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&crate::numbers::with_currencies(r"(?i)\b(?:took|made|earned|got|had|have|brought\s+in|received|withdrew|took\s+out|was\s+paid|get\s+paid|started\s+with|quoted|charged|billed|invoiced|pays|(?:cheque|check|sale|takings|income)\s+(?:came\s+to|was))\s+(?:in\s+)?[SIGNS]?(\d+(?:\.\d+)?)\b"))
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
        r"(?i)\b(?:loan|borrowed|owed?|debt|financed|lent)\b[^\d]*?[SIGNS]?(\d+(?:\.\d+)?)\b",
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
pub(in crate::math::spoken) fn owed_after_payments(text: &str) -> Option<String> {
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

/// `today`: the amounts are one day's.
static TODAY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\btoday\b").expect("a valid regex"));

/// `a day`, `per day` right after a cost: one day's cost.
static A_DAY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s+(?:a|per|each)\s+day\b").expect("a valid regex"));

/// What is left of an amount taken in after the costs said after it:
/// `took 1240 quid this week diesel was 215 insurance 38 and the app took
/// 62 whats left for me` is `1240 - 215 - 38 - 62`. Each cost is a plain
/// amount (no `each`, `a`, `per` or percentage after it), or a cost `a
/// day` taken from what came in `today`.
pub(in crate::math::spoken) fn what_is_left(text: &str) -> Option<String> {
    let asked = ASKS_WHAT_IS_LEFT.find(text)?;
    let taken = TAKEN_IN.captures(text)?.get(1)?;
    let numbers: Vec<regex::Match> = NUMBER
        .find_iter(text)
        .filter(|n| n.start() < asked.start())
        .collect();
    let (first, costs) = numbers.split_first()?;
    if first.start() != taken.start() || costs.is_empty() || text.contains('%') {
        return None;
    }
    let of_today = TODAY.is_match(text);
    let plain = costs.iter().all(|cost| {
        cost.end() <= asked.start()
            && (a_plain_amount(text, cost) || (of_today && A_DAY.is_match(&text[cost.end()..])))
    });
    plain.then(|| {
        std::iter::once(first.as_str())
            .chain(costs.iter().map(|c| c.as_str()))
            .collect::<Vec<_>>()
            .join(" - ")
    })
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
pub(in crate::math::spoken) fn takings_less_costs(text: &str) -> Option<String> {
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
pub(in crate::math::spoken) fn added_to_what_was_had(text: &str) -> Option<String> {
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

//! What a follow-up puts on the answer before or says anew of its kind:
//! a percentage on top or off ("And with 20 percent VAT?"), a price per
//! unit ("and at 3.29 a gallon"), a new percentage or reading ("okay and
//! for eighty five percent").

use super::*;

/// Whether the number `amount` of `text` is a percentage.
fn is_percentage(text: &str, amount: &regex::Match) -> bool {
    let after = text[amount.end()..].trim_start().to_lowercase();
    after.starts_with('%') || after.starts_with("percent")
}

/// `before` with its one amount of a kind replaced by the one amount a
/// follow-up says anew: a percentage for its one percentage ("okay and
/// for eighty five percent" after "… how many marks do I need to get
/// seventy percent"), a number for the one number of a conversion ("And
/// the overnight low of 24?" after "… said 41 degrees tomorrow … what
/// that is in Fahrenheit").
pub(super) fn an_amount_said_anew(question: &str, before: &str) -> Option<String> {
    if !opened(question) && !tells_it_anew(question) {
        return None;
    }
    let said_instead = PRICED_ONE.is_match(question) || question.to_lowercase().contains("instead");
    let question = PRICED_ONE.replace_all(question, "$1 thing");
    let question = loopd_tools::numbers::with_parts(&in_digits(&question));
    let new = the_one_amount(&question)?;
    let before = in_digits(before);
    let percent = is_percentage(&question, &new);
    let another_thing = said_instead && is_money(&question, new.start());
    let olds: Vec<regex::Match> = AMOUNT
        .find_iter(&before)
        .filter(|old| match (percent, another_thing) {
            (true, _) => is_percentage(&before, old),
            (false, true) => is_money(&before, old.start()),
            (false, false) => true,
        })
        .collect();
    let [old] = olds.as_slice() else {
        return None;
    };
    if !percent
        && !another_thing
        && (is_money(&question, new.start())
            || loopd_tools::math::spoken::conversion(&before).is_none())
    {
        return None;
    }
    let start = minus_before(&before, old.start()).unwrap_or(old.start());
    let sign = if minus_before(&question, new.start()).is_some() {
        "minus "
    } else {
        ""
    };
    Some(format!(
        "{}{sign}{}{}",
        &before[..start],
        new.as_str(),
        &before[old.end()..]
    ))
}

/// `the $1,200 one`: another thing of the kind asked about before, by its
/// price ("And if I get the $1,200 one?").
static PRICED_ONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&loopd_tools::numbers::with_currencies(
        r"(?i)([SIGNS]\s?\d[\d,]*(?:\.\d+)?)\s+one\b",
    ))
    .expect("a valid regex")
});

/// Whether a follow-up with no opener tells the amount anew rather than
/// asking something ("my daughter says it's only forty five in denver"
/// after a temperature converted): it says what "it" is and asks nothing.
fn tells_it_anew(question: &str) -> bool {
    let words: Vec<String> = bare_words(&question.replace('’', "'")).collect();
    let says_it = words.iter().enumerate().any(|(i, w)| {
        w == "its"
            || w == "it's"
            || (w == "it" && words.get(i + 1).is_some_and(|n| n == "is" || n == "was"))
    });
    let asks = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "what" | "whats" | "what's" | "how" | "which" | "when" | "who" | "why"
        )
    });
    says_it && !asks && !question.trim_end().ends_with('?')
}

/// `at 3.29 a gallon`: a price per unit said at a follow-up's start.
static AT_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&loopd_tools::numbers::with_currencies(r"(?i)^(?:at|for|if\s+(?:it'?s|it\s+is|they'?re|(?:the\s+)?[a-z]+\s+(?:is|are|costs?)))\s+[SIGNS]?(\d+(?:\.\d+)?)\s+(?:a|an|per)\s+([a-z]+)\b"))
        .expect("a valid regex")
});

/// The one new number of the answer before (one the question before did
/// not give), of `unit` when the answer names it.
fn answered_value(conversation: &[Message], unit: Option<&str>) -> Option<f64> {
    let answer = conversation
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)?;
    if let Some(unit) = unit {
        let said = answer.content.to_lowercase();
        if !said_in(unit).iter().any(|name| said.contains(name)) {
            return None;
        }
    }
    let asked_before = conversation
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .nth(1)
        .map(|m| numbers(&in_digits(&m.content)))
        .unwrap_or_default();
    let values: Vec<_> = numbers(&answer.content)
        .into_iter()
        .filter(|n| !asked_before.iter().any(|given| given.value == n.value))
        .collect();
    match values.as_slice() {
        [value] => Some(value.value),
        _ => None,
    }
}

/// The names a unit may be said by in an answer (`kilo`: `kilo`, `kg`).
fn said_in(unit: &str) -> Vec<&str> {
    match unit {
        "kilo" | "kg" | "kilogram" => vec!["kilo", "kg"],
        "pound" | "lb" => vec!["pound", "lb"],
        "litre" | "liter" => vec!["litre", "liter", " l "],
        "gallon" | "gal" => vec!["gallon", "gal"],
        _ => vec![unit],
    }
}

/// A price per unit put on the amount of the answer before: "and at 3.29
/// a gallon what did that cost me" after "You burned 1.5 gallons." asks
/// "What is 1.5 times 3.29?".
pub(super) fn priced_on_the_answer(question: &str, conversation: &[Message]) -> Option<String> {
    let body = without_opener(&in_digits(question)).to_string();
    let found = AT_A_PRICE.captures(&body)?;
    let asks_cost = bare_words(&body).any(|w| {
        matches!(
            w.as_str(),
            "cost" | "much" | "spend" | "spent" | "pay" | "price" | "worth"
        )
    });
    if !asks_cost {
        return None;
    }
    let unit = found[2].to_lowercase();
    let value = answered_value(conversation, Some(unit.trim_end_matches('s')))?;
    Some(format!("What is {value} times {}?", &found[1]))
}

/// `for the 38 weeks of the school year`: so many of a period, said in a
/// follow-up.
static FOR_PERIODS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:if\s+[a-z]+\s+[a-z]+\s+(?:that|this|it|the\s+same)(?:\s+(?:every|each)\s+(?:day|week|month|shift))?\s+)?(?:for\s+)?(?:the\s+|a\s+whole\s+|all\s+)?(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+)?(day|week|month|year|shift|term)s\b")
        .expect("a valid regex")
});

/// `a week`, `for a five day week`, `per month`: one period, asked for.
static ONE_PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:for\s+)?(?:a|an|one|per|each)\s+(?:[a-z0-9-]+\s+){0,2}(day|week|month|year|shift|term)\b")
        .expect("a valid regex")
});

/// `today`, `tonight`: a question before about one day.
static TODAY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:today|tonight)\b").expect("a valid regex"));

/// The answer before for one period, taken for so many of them: "and for
/// the thirty eight weeks of the school year" after "… how much is that
/// for a five day week" answered "13.75" asks "What is 13.75 times 38?";
/// "and if I do that every day for 26 days" after a day's takings, the
/// same. Only where the question before asked for one such period (`a
/// week`, `a five day week`, `per month`, `today` for a day).
/// `for the whole year`, ahead of the periods it is counted in (`for the
/// whole year 12 months`).
static WHOLE_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:for\s+)?(?:the|a)\s+(?:whole|full|entire)\s+year,?\s+")
        .expect("a valid regex")
});

pub(super) fn for_more_periods(question: &str, conversation: &[Message]) -> Option<String> {
    let body = in_digits(question);
    let body = WHOLE_YEAR.replace(without_opener(&body), "");
    let found = FOR_PERIODS.captures(&body)?;
    let period = found[2].to_lowercase();
    let before = conversation
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .nth(1)?;
    let asked_for_one = ONE_PERIOD
        .captures_iter(&before.content)
        .any(|one| one[1].eq_ignore_ascii_case(&period))
        || (period == "day" && TODAY.is_match(&before.content));
    if !asked_for_one {
        return None;
    }
    let value = answered_value(conversation, None)?;
    Some(format!("What is {value} times {}?", &found[1]))
}

/// Words a follow-up may start with that put a percentage on the answer
/// before ("And with 20 percent VAT on top?", "Less 10 percent?").
const ON_TOP: [&str; 5] = ["with", "plus", "adding", "less", "minus"];

/// A percentage put on the one number of the answer before that the
/// question before did not give: "And with 20 percent VAT on top?" after
/// "That comes to 696." asks "What is 696 with 20 percent VAT on top?".
pub(super) fn on_the_answer(question: &str, conversation: &[Message]) -> Option<String> {
    // "And if I knock 30% off instead?": a percentage in place of the one
    // before ([`an_amount_said_anew`]), not one more on the answer.
    if question.to_lowercase().contains("instead") {
        return None;
    }
    if let Some(put) = put_on_if(question) {
        if put.ends_with(" off") && took_a_percent_off(conversation) {
            return None;
        }
        let value = answered_value(conversation, None)?;
        return Some(format!("What is {value} {put}?"));
    }
    let body = without_opener(question);
    let body = ASKS_OF_IT.replace(body, "");
    let body = body.as_ref();
    let first = body.split_whitespace().next()?.to_lowercase();
    let percent = body.contains('%') || body.to_lowercase().contains("percent");
    if !ON_TOP.contains(&first.as_str()) || !percent {
        return None;
    }
    let value = answered_value(conversation, None)?;
    let body = body.trim_end_matches(['?', '.', '!']).trim();
    let body = THE_AFTER_WITH.replace(body, "$1 ");
    Some(format!("What is {value} {body}?"))
}

/// Whether the question before took a percentage off: another
/// percentage off asked after it ("And if I give her 15% off?") takes its
/// place, not one more off the answer.
fn took_a_percent_off(conversation: &[Message]) -> bool {
    conversation
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .nth(1)
        .is_some_and(|before| PERCENT_OFF.is_match(&in_digits(&before.content)))
}

/// `with the 13% tax`: `the` before a percentage put on.
static THE_AFTER_WITH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(with|plus|less|minus)\s+the\s+").expect("a valid regex"));

/// `if I give her 10 percent discount`, `if there's 15% GST`: a
/// percentage off or on top, said as a condition.
static PERCENT_IF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^if\b[^?.!]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:(discount|off)|(tax|gst|vat|hst|tip|service))\b")
        .expect("a valid regex")
});

/// What a follow-up of [`PERCENT_IF`] puts on the answer before: `less 10
/// percent off`, `with 15 percent tax`.
fn put_on_if(question: &str) -> Option<String> {
    let body = in_digits(question);
    let found = PERCENT_IF.captures(without_opener(&body))?;
    Some(match found.get(2) {
        Some(_) => format!("less {} percent off", &found[1]),
        None => format!("with {} percent {}", &found[1], found[3].to_lowercase()),
    })
}

/// Words that ask for the answer before again (`what is it`, `how much
/// is that`, `what's that come to`) ahead of what is put on it.
static ASKS_OF_IT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:what(?:'s|\s+is|\s+would\s+it\s+be|s)|how\s+much\s+is)\s+(?:it|that)\s+(?:(?:come|comes|be|cost|costs)\s+(?:to\s+)?)?")
        .expect("a valid regex")
});

/// `12% VAT on ₱1,500`, `15 percent tip on $80`: a percentage of an amount.
static PERCENT_ON_AN_AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&loopd_tools::numbers::with_currencies(r"(?i)(\d+(?:\.\d+)?)\s*(?:%|percent)\s+((?:sales\s+)?tax|vat|gst|gct|hst|tip|service\s+charge)\s+(?:on|of|for)\s+(?:an?\s+|the\s+)?[SIGNS]?(\d[\d,]*(?:\.\d+)?)"))
        .expect("a valid regex")
});

/// `the vat on 360 dollars at 12.5 percent`: a tax, the amount it is
/// on, then its rate.
static TAX_ON_AN_AMOUNT_AT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&loopd_tools::numbers::with_currencies(r"(?i)\b((?:sales\s+)?tax|vat|gst|gct|hst|tip|service\s+charge)\s+(?:on|of|for)\s+(?:an?\s+|the\s+)?[SIGNS]?(\d[\d,]*(?:\.\d+)?)\s*(?:(?:CURRENCIES)\s+)?(?:at|of)\s+(\d+(?:\.\d+)?)\s*(?:%|percent)"))
        .expect("a valid regex")
});

/// `lunch for 65 dollars … 18 percent on that`: an amount, then a
/// percentage of it.
static AMOUNT_THEN_PERCENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&loopd_tools::numbers::with_currencies(r"(?i)[SIGNS]?(\d[\d,]*(?:\.\d+)?)\s*(?:(?:CURRENCIES)\b)?[^\d%]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:(?:(?:sales\s+)?tax|vat|gst|gct|hst|tip|service\s+charge)\s+)?(?:on|of)\s+(?:that|it|this)\b"))
        .expect("a valid regex")
});

/// The total with the percentage the question before asked of an
/// amount: "And what's the total with the VAT?" after "How much is 12% VAT
/// on ₱1,500?" asks "What is 1500 with 12% VAT?".
pub(super) fn the_total_with_it(question: &str, before: &str) -> Option<String> {
    let lower = question.to_lowercase();
    let total = ["total", "altogether", "in all", "all in", "all together"]
        .iter()
        .any(|w| lower.contains(w));
    let refers_back = bare_words(question).any(|w| {
        matches!(
            w.as_str(),
            "that" | "it" | "vat" | "tax" | "tip" | "gst" | "hst" | "gratuity"
        )
    });
    if !(opened(question) || refers_back) || !total || has_numbers(&in_digits(question)) {
        return None;
    }
    let before = in_digits(before);
    let with = |amount: &str, percent: &str, what: &str| {
        Some(format!(
            "What is {} with {percent}% {}?",
            amount.replace(',', ""),
            what.to_lowercase()
        ))
    };
    if let Some(found) = PERCENT_ON_AN_AMOUNT.captures(&before) {
        return with(&found[3], &found[1], &found[2]);
    }
    if let Some(found) = TAX_ON_AN_AMOUNT_AT.captures(&before) {
        return with(&found[2], &found[3], &found[1]);
    }
    let found = AMOUNT_THEN_PERCENT.captures(&before)?;
    let tipped = bare_words(&before).any(|w| {
        matches!(
            w.as_str(),
            "tip" | "tips" | "waiter" | "waitress" | "server" | "gratuity"
        )
    });
    with(&found[1], &found[2], if tipped { "tip" } else { "tax" })
}

/// `20% off`, `15 percent discount`: a percentage taken off a price.
static PERCENT_OFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:off|discount)\b")
        .expect("a valid regex")
});

/// The price paid after the percentage off that the question before asked
/// about: "And what do I pay for it then?" after "There's 20% off a £72
/// dress. How much is that off?" asks "What is 72 less 20 percent off?".
/// Only when the question before gives that percentage and one price.
pub(super) fn the_price_after_it(question: &str, before: &str) -> Option<String> {
    let asks_paid = bare_words(question)
        .any(|w| matches!(w.as_str(), "pay" | "paying" | "price" | "cost" | "costs"));
    if !asks_paid || has_numbers(&in_digits(question)) {
        return None;
    }
    let before = in_digits(&loopd_tools::numbers::letter_signs_named(before));
    let off = PERCENT_OFF.captures(&before)?;
    let percent = off.get(1)?;
    let mut prices = AMOUNT
        .find_iter(&before)
        .filter(|n| n.start() != percent.start());
    let (Some(price), None) = (prices.next(), prices.next()) else {
        return None;
    };
    Some(format!(
        "What is {} less {} percent off?",
        price.as_str().replace(',', ""),
        percent.as_str()
    ))
}

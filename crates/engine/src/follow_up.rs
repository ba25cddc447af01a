//! A short follow-up read in the light of the question before it: "And in
//! London?" after "What time is it in Tokyo?" asks "What time is it in
//! London?"; "And what is that divided by 8?" after "What is 25 times 4?"
//! asks "what is (25 times 4) divided by 8?". The rewritten question is
//! what the tools that read questions are offered when the follow-up alone
//! means nothing to them.

use super::parse::{has_numbers, numbers};
use loopd_brain::{Message, Role};
use loopd_tools::numbers::CURRENCY_SIGNS;
use regex::Regex;
use std::sync::LazyLock;

/// How a follow-up may start.
const OPENERS: [&str; 4] = ["what about", "how about", "and", "also"];

/// Most words a follow-up fragment may have.
const MAX_FRAGMENT_WORDS: usize = 6;

/// Words a follow-up's fragment may start with that frame a part of the
/// question before it ("in Tokyo", "until Christmas", "of Spain").
const FRAMES: [&str; 11] = [
    "in", "until", "till", "to", "of", "for", "from", "on", "at", "by", "as",
];

/// Words that stand for the value asked for before ("that divided by 8").
const PRONOUNS: [&str; 2] = ["that", "it"];

/// Words a follow-up may start with that go on computing from the value
/// asked for before ("And plus 40?", "Divided by 3?").
const OPERATORS: [&str; 8] = [
    "plus",
    "minus",
    "times",
    "divided",
    "multiplied",
    "over",
    "squared",
    "cubed",
];

/// A question that asks for a value: what it asks for.
static ASKS_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:what\s+is|what's|how\s+much\s+is)\s+(.+?)\s*[?.!]*$")
        .expect("a valid regex")
});

/// The conversation's last question rewritten with the frame of the user
/// question before it, when it is a short follow-up that fits it: a place,
/// date or thing after the same preposition ("And in London?"), an amount
/// in the same unit ("And 20 miles?"), or "that" for the value a question
/// with numbers asked for ("And what is that divided by 8?"). `None`
/// otherwise.
pub fn in_context(conversation: &[Message]) -> Option<String> {
    let mut asked = conversation.iter().rev().filter(|m| m.role == Role::User);
    let question = asked.next()?.content.trim();
    let before = asked.next()?.content.trim();
    let before = super::heard::request(before).unwrap_or_else(|| before.to_string());
    framed(question, &before)
        .or_else(|| with_value_before(question, &before))
        .or_else(|| with_a_count_changed(question, &before))
        .or_else(|| with_more_added(question, &before))
        .or_else(|| on_the_answer(question, conversation))
        .or_else(|| priced_on_the_answer(question, conversation))
        .or_else(|| an_amount_said_anew(question, &before))
        .or_else(|| split_anew(question, &before))
}

/// `split it three ways`, `between the 4 of us`: a sharing said anew.
static SPLIT_WAYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:split|share|divide)\b[^?.!]*?\b(\d+)\s+ways\b|\bbetween\s+(?:the\s+)?(\d+)\s+of\s+us\b")
        .expect("a valid regex")
});

/// The one amount of `before` shared out as a follow-up says: "And if my
/// cousin chips in too and we split it three ways?" after "Groceries came
/// to $86.40 and my roommate and I split it evenly. What's my share?"
/// asks "What is 86.40 divided by 3?".
fn split_anew(question: &str, before: &str) -> Option<String> {
    if !opened(question) {
        return None;
    }
    let question = loopd_tools::numbers::in_digits(question);
    let found = SPLIT_WAYS.captures(&question)?;
    let ways = found.get(1).or(found.get(2))?.as_str();
    let before = loopd_tools::numbers::in_digits(before);
    let mut amounts = AMOUNT.find_iter(&before);
    let (Some(amount), None) = (amounts.next(), amounts.next()) else {
        return None;
    };
    Some(format!(
        "What is {} divided by {ways}?",
        amount.as_str().replace(',', "")
    ))
}

/// Words said before a follow-up's opener (`okay and what about …`).
const FILLERS: [&str; 6] = ["okay", "ok", "alright", "right", "oh", "um"];

/// `question` without one filler word of [`FILLERS`] before an opener.
fn without_filler(question: &str) -> &str {
    let Some((first, rest)) = question.split_once(char::is_whitespace) else {
        return question;
    };
    let first = first.trim_end_matches(',').to_lowercase();
    let rest = rest.trim_start();
    let opens = OPENERS
        .iter()
        .any(|o| rest.to_lowercase().starts_with(&format!("{o} ")));
    match FILLERS.contains(&first.as_str()) && opens {
        true => rest,
        false => question,
    }
}

/// Whether `question` starts with one of [`OPENERS`], after a filler.
fn opened(question: &str) -> bool {
    let lower = without_filler(question.trim_start()).to_lowercase();
    OPENERS.iter().any(|o| {
        lower
            .strip_prefix(o)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_whitespace() || c == ','))
    })
}

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
fn an_amount_said_anew(question: &str, before: &str) -> Option<String> {
    if !opened(question) {
        return None;
    }
    let question = loopd_tools::numbers::in_digits(question);
    let mut given = AMOUNT.find_iter(&question);
    let (Some(new), None) = (given.next(), given.next()) else {
        return None;
    };
    let before = loopd_tools::numbers::in_digits(before);
    let percent = is_percentage(&question, &new);
    let olds: Vec<regex::Match> = AMOUNT
        .find_iter(&before)
        .filter(|old| !percent || is_percentage(&before, old))
        .collect();
    let [old] = olds.as_slice() else {
        return None;
    };
    let money = |text: &str, at: usize| text[..at].trim_end().ends_with(CURRENCY_SIGNS);
    if !percent
        && (money(&question, new.start())
            || loopd_tools::math::spoken::conversion(&before).is_none())
    {
        return None;
    }
    Some(format!(
        "{}{}{}",
        &before[..old.start()],
        new.as_str(),
        &before[old.end()..]
    ))
}

/// `at 3.29 a gallon`: a price per unit said at a follow-up's start.
static AT_A_PRICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:at|for|if\s+(?:it'?s|it\s+is|they'?re|(?:the\s+)?[a-z]+\s+(?:is|are|costs?)))\s+[$£€¥₹]?(\d+(?:\.\d+)?)\s+(?:a|an|per)\s+([a-z]+)\b")
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
        .map(|m| numbers(&loopd_tools::numbers::in_digits(&m.content)))
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
fn priced_on_the_answer(question: &str, conversation: &[Message]) -> Option<String> {
    let body = without_opener(&loopd_tools::numbers::in_digits(question)).to_string();
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

/// Words a follow-up may start with that put a percentage on the answer
/// before ("And with 20 percent VAT on top?", "Less 10 percent?").
const ON_TOP: [&str; 5] = ["with", "plus", "adding", "less", "minus"];

/// A percentage put on the one number of the answer before that the
/// question before did not give: "And with 20 percent VAT on top?" after
/// "That comes to 696." asks "What is 696 with 20 percent VAT on top?".
fn on_the_answer(question: &str, conversation: &[Message]) -> Option<String> {
    if let Some(put) = put_on_if(question) {
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
    Some(format!("What is {value} {body}?"))
}

/// `if I give her 10 percent discount`, `if there's 15% GST`: a
/// percentage off or on top, said as a condition.
static PERCENT_IF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^if\b[^?.!]*?\b(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:(discount|off)|(tax|gst|vat|hst|tip|service))\b")
        .expect("a valid regex")
});

/// What a follow-up of [`PERCENT_IF`] puts on the answer before: `less 10
/// percent off`, `with 15 percent tax`.
fn put_on_if(question: &str) -> Option<String> {
    let body = loopd_tools::numbers::in_digits(question);
    let found = PERCENT_IF.captures(without_opener(&body))?;
    Some(match found.get(2) {
        Some(_) => format!("less {} percent off", &found[1]),
        None => format!("with {} percent {}", &found[1], found[3].to_lowercase()),
    })
}

/// Words that ask for the answer before again (`what is it`, `how much
/// is that`) ahead of what is put on it.
static ASKS_OF_IT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:what(?:'s|\s+is|\s+would\s+it\s+be|s)|how\s+much\s+is)\s+(?:it|that)\s+")
        .expect("a valid regex")
});

/// `another 5`, `3 more`, `an extra 2`: a count grown by so many.
static MORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:another|an\s+extra|extra)\s+(\d+)\b|\b(\d+)\s+(?:more|extra)\b")
        .expect("a valid regex")
});

/// `before` with its one count grown by the number a follow-up adds: "And
/// if another 5 join?" after "The meal is £23.50 a head and 14 have
/// booked. What's the total?" asks it with 19. The count is the one whole
/// number of `before` that is no price, percentage or part of a date or
/// time; `None` when there is not exactly one.
fn with_more_added(question: &str, before: &str) -> Option<String> {
    let question = loopd_tools::numbers::in_digits(question);
    let mut given = AMOUNT.find_iter(&question);
    let (Some(_), None) = (given.next(), given.next()) else {
        return None;
    };
    let added: u64 = MORE
        .captures(&question)
        .and_then(|more| more.get(1).or(more.get(2)))?
        .as_str()
        .parse()
        .ok()?;
    let before = loopd_tools::numbers::in_digits(before);
    let counts: Vec<regex::Match> = AMOUNT
        .find_iter(&before)
        .filter(|n| {
            let ahead = before[..n.start()].trim_end();
            let behind = before[n.end()..].trim_start().to_lowercase();
            let money = ahead.ends_with(CURRENCY_SIGNS);
            let part = behind.starts_with(['%', ':', '/']) || behind.starts_with("percent");
            !money && !part && n.as_str().parse::<u64>().is_ok()
        })
        .collect();
    let [count] = counts.as_slice() else {
        return None;
    };
    let grown = count.as_str().parse::<u64>().ok()?.checked_add(added)?;
    Some(format!(
        "{}{grown}{}",
        &before[..count.start()],
        &before[count.end()..]
    ))
}

/// `before` with the count of the things a follow-up counts anew: "And if
/// two more come, so there are 6 of us?" after "… split between the 4 of
/// us. How much each?" asks "… split between the 6 of us. How much
/// each?". Only when the follow-up gives one number and `before` one of
/// the same things.
fn with_a_count_changed(question: &str, before: &str) -> Option<String> {
    let lower = question.trim_start().to_lowercase();
    if !OPENERS.iter().any(|o| lower.starts_with(&format!("{o} "))) && !lower.starts_with("so ") {
        return None;
    }
    let question = loopd_tools::numbers::with_parts(&loopd_tools::numbers::in_digits(question));
    let question = A_NTH.replace(&question, |found: &regex::Captures| {
        format!("{} ", ordinal(&found[1]))
    });
    let said = before;
    let before = loopd_tools::numbers::in_digits(before);
    let mut given = AMOUNT.find_iter(&question);
    let (Some(count), None) = (given.next(), given.next()) else {
        return None;
    };
    let things = counted(&question[count.end()..])?;
    let same: Vec<regex::Match> = AMOUNT
        .find_iter(&before)
        .filter(|amount| counted(&before[amount.end()..]).as_deref() == Some(things.as_str()))
        .collect();
    let period = per_period(&question[count.end()..]);
    let old = match same.as_slice() {
        [old] => *old,
        _ if period.is_some() => {
            let mut at_the_rate = same
                .iter()
                .filter(|amount| per_period(&before[amount.end()..]) == period);
            match (at_the_rate.next(), at_the_rate.next()) {
                (Some(old), None) => *old,
                _ => return None,
            }
        }
        _ => return None,
    };
    let mut in_said = AMOUNT
        .find_iter(said)
        .filter(|n| n.as_str() == old.as_str());
    let (text, old) = match (in_said.next(), in_said.next()) {
        (Some(old), None) => (said, old),
        _ => (before.as_str(), old),
    };
    Some(format!(
        "{}{}{}",
        &text[..old.start()],
        count.as_str(),
        &text[old.end()..]
    ))
}

/// `a fourth roll`: the count one more makes, said as an ordinal.
static A_NTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\ba\s+(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+")
        .expect("a valid regex")
});

/// The number of an ordinal word of [`A_NTH`].
fn ordinal(word: &str) -> u32 {
    match word.to_lowercase().as_str() {
        "second" => 2,
        "third" => 3,
        "fourth" => 4,
        "fifth" => 5,
        "sixth" => 6,
        "seventh" => 7,
        "eighth" => 8,
        "ninth" => 9,
        _ => 10,
    }
}

/// The words that say what a number counts (`of us`, `people`, `guests`),
/// lower case, without a plural `s`.
fn counted(after: &str) -> Option<String> {
    let words: Vec<String> = bare_words(after)
        .skip_while(|w| loopd_tools::numbers::is_currency(w))
        .take(2)
        .collect();
    let thing = match words.as_slice() {
        [of, who, ..] if of == "of" => format!("of {who}"),
        [a, unit, ..] if matches!(a.as_str(), "a" | "an" | "per") => {
            format!("per {}", unit.trim_end_matches('s'))
        }
        [thing, ..] if thing.len() > 2 && !thing.chars().any(|c| c.is_ascii_digit()) => {
            thing.trim_end_matches('s').to_string()
        }
        _ => return None,
    };
    Some(thing)
}

/// The period a count is said per within the few words after it (`bales
/// of silage a day`: day), singular.
fn per_period(after: &str) -> Option<String> {
    let words: Vec<String> = bare_words(after).take(5).collect();
    words.windows(2).find_map(|pair| {
        matches!(pair[0].as_str(), "a" | "an" | "per" | "every" | "each")
            .then(|| pair[1].trim_end_matches('s').to_string())
    })
}

/// The words of `text`, lower case, without the punctuation around them.
fn bare_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    })
}

/// `question` without the one opener it starts with ("And", "What about").
fn without_opener(question: &str) -> &str {
    let question = without_filler(question);
    OPENERS
        .iter()
        .find_map(|opener| {
            let head = question.get(..opener.len())?;
            let rest = question[opener.len()..].strip_prefix(' ')?;
            head.eq_ignore_ascii_case(opener).then(|| rest.trim_start())
        })
        .unwrap_or(question)
}

/// "that" (or "it") in `question` replaced by the value `before` asked
/// for, in parentheses, and a leading "And" dropped; or that value put
/// before a `question` that starts with an operator ("And plus 40?"), or,
/// when it is the operator of that value, the number after it replaced
/// ("And times 13?" after "18 times 12").
fn with_value_before(question: &str, before: &str) -> Option<String> {
    let value = ASKS_VALUE.captures(before)?.get(1)?.as_str();
    if !has_numbers(value) {
        return None;
    }
    let body = without_opener(question);
    let first = body.split_whitespace().next()?.to_lowercase();
    if OPERATORS.contains(&first.as_str()) {
        let rest = body.trim_end_matches(['?', '.', '!']).trim();
        if let Some(head) = up_to_the_same_operator(value, &first) {
            let operand = rest.split_once(char::is_whitespace)?.1;
            return Some(format!("What is {head} {operand}?"));
        }
        return Some(format!("What is ({value}) {rest}?"));
    }
    let at = PRONOUNS
        .iter()
        .find_map(|p| find_word(body, p).map(|at| (at, p.len())));
    let (at, len) = at?;
    Some(format!("{}({value}){}", &body[..at], &body[at + len..]))
}

/// `value` up to its one operator when that is `operator`: "18 times 12"
/// then "And times 13?" asks 18 times 13, not (18 times 12) times 13.
fn up_to_the_same_operator(value: &str, operator: &str) -> Option<String> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut operators = words
        .iter()
        .enumerate()
        .filter(|(_, w)| OPERATORS.contains(&w.to_lowercase().as_str()));
    let (at, word) = operators.next()?;
    let only = operators.next().is_none();
    (only && word.eq_ignore_ascii_case(operator)).then(|| words[..=at].join(" "))
}

/// `question` as a fragment in the frame of `before` (a preposition's
/// object or an amount in a unit replaced).
fn framed(question: &str, before: &str) -> Option<String> {
    let fragment = match fragment(question) {
        Some(fragment) => {
            let fragment = loopd_tools::numbers::in_digits(fragment);
            let head = fragment
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_lowercase();
            let plain = !FRAMES.contains(&head.as_str()) && !has_numbers(&fragment);
            match place_within(&fragment) {
                Some(place)
                    if plain && !is_a_name(&fragment.split_whitespace().collect::<Vec<_>>()) =>
                {
                    place
                }
                _ => fragment,
            }
        }
        None => a_place_and_more(question)?,
    };
    let fragment = loopd_tools::numbers::with_parts(&fragment);
    let fragment = fragment.as_str();
    let words: Vec<&str> = fragment.split_whitespace().collect();
    let head = words.first()?.to_lowercase();
    let before_body = before.trim_end_matches(['?', '.', '!']);
    let rewritten = if let Some(year) = a_year(fragment) {
        let said = YEAR_SAID.find(before_body)?;
        format!(
            "{}{year}{}",
            &before_body[..said.start()],
            &before_body[said.end()..]
        )
    } else if FRAMES.contains(&head.as_str()) && find_word(before_body, &head).is_some() {
        let at = find_word(before_body, &head)?;
        let rest = the_question_after(&before_body[at + head.len()..]);
        format!("{} {fragment}{rest}", before_body[..at].trim_end())
    } else if is_a_name(&words) {
        let (start, end) = place_named(before_body)?;
        format!("{}{fragment}{}", &before_body[..start], &before_body[end..])
    } else if let Some(price) = the_priced_one(&words, before_body) {
        price
    } else {
        let words: Vec<&str> = words
            .iter()
            .skip_while(|w| FRAMES.contains(&w.to_lowercase().as_str()))
            .skip_while(|w| matches!(w.to_lowercase().as_str(), "a" | "an" | "the"))
            .copied()
            .collect();
        numbers(words.first()?).first()?;
        let before_body = loopd_tools::numbers::in_digits(before_body);
        let before_body = before_body.as_str();
        let (start, end, said) = match words.get(1) {
            Some(unit) => {
                let unit = unit.to_lowercase();
                match amount_before(before_body, &unit) {
                    Some((start, end)) => (start, end, words[0].to_string()),
                    None => {
                        let (start, end) = one_before(before_body, &unit)?;
                        (start, end, format!("{} {}", words[0], words[1]))
                    }
                }
            }
            None => {
                let (start, end) = only_amount(before_body)?;
                (start, end, words[0].to_string())
            }
        };
        format!("{}{said}{}", &before_body[..start], &before_body[end..])
    };
    let ending = if before.ends_with('?') { "?" } else { "" };
    Some(format!("{rewritten}{ending}"))
}

/// `before` with its one price in the fragment's currency replaced by the
/// fragment's, when the fragment names a thing by its price only ("And
/// the £22 one?" after "What's a £14 coat now?"; the fragment comes with
/// its `one` written `1`).
fn the_priced_one(words: &[&str], before: &str) -> Option<String> {
    let words = match words.first()?.to_lowercase().as_str() {
        "the" | "a" | "an" => &words[1..],
        _ => words,
    };
    let [price, one] = words else {
        return None;
    };
    let currency = price
        .chars()
        .next()
        .filter(|c| CURRENCY_SIGNS.contains(c))?;
    let amount = price[currency.len_utf8()..].trim_end_matches(|c: char| !c.is_ascii_digit());
    let whole_amount = AMOUNT.find(amount).is_some_and(|m| m.as_str() == amount);
    if !matches!(one.to_lowercase().as_str(), "one" | "ones" | "1") || !whole_amount {
        return None;
    }
    let mut priced = AMOUNT
        .find_iter(before)
        .filter(|n| before[..n.start()].ends_with(currency));
    let (Some(old), None) = (priced.next(), priced.next()) else {
        return None;
    };
    Some(format!(
        "{}{amount}{}",
        &before[..old.start()],
        &before[old.end()..]
    ))
}

/// `this year`, `next year` or `last year` in a question.
static YEAR_SAID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:this|next|last)\s+year\b").expect("a valid regex"));

/// The fragment when it is only a year said so (`next year`), lower case.
fn a_year(fragment: &str) -> Option<String> {
    let whole = YEAR_SAID.find(fragment)?;
    (whole.as_str().len() == fragment.trim().len()).then(|| whole.as_str().to_lowercase())
}

/// What follows a place in a question that names it first: `after dinner
/// what time is it there` after `kuala lumpur` gives ` what time is it
/// there`; nothing when no question word follows.
fn the_question_after(text: &str) -> &str {
    let lower = text.to_lowercase();
    lower
        .match_indices(' ')
        .map(|(at, _)| at)
        .find(|&at| {
            let next = lower[at + 1..].split_whitespace().next().unwrap_or("");
            matches!(
                next,
                "what" | "whats" | "what's" | "how" | "when" | "which" | "is"
            )
        })
        .map_or("", |at| &text[at..])
}

/// Whether the words are a name: one to four, each capitalized but an
/// `in` between them (`Kathmandu`, `Buenos Aires`, `Santiago in Chile`).
fn is_a_name(words: &[&str]) -> bool {
    let last = words.len().saturating_sub(1);
    (1..=4).contains(&words.len())
        && (words.iter().enumerate().all(|(i, w)| {
            w.starts_with(|c: char| c.is_uppercase()) || (*w == "in" && i != 0 && i != last)
        }) || loopd_tools::clock::knows_place(&words.join(" ")))
}

/// Where the last place named after `in` is in `text` (`my friend in Lima`,
/// `the time in New York`), as a byte range.
fn place_named(text: &str) -> Option<(usize, usize)> {
    let Some(start) = text.rmatch_indices(" in ").find_map(|(at, found)| {
        let name = at + found.len();
        text[name..]
            .starts_with(|c: char| c.is_uppercase())
            .then_some(name)
    }) else {
        return place_known_after_in(text);
    };
    let (mut end, mut at) = (start, start);
    for word in text[start..].split(' ') {
        let bare = word.trim_end_matches([',', '.', '?', '!']);
        if !bare.starts_with(|c: char| c.is_uppercase()) {
            break;
        }
        end = at + bare.len();
        if bare.len() != word.len() {
            break;
        }
        at += word.len() + 1;
    }
    Some((start, end))
}

/// Where the last place the clock knows is named after `in` in `text`,
/// written in any case (`is in seoul what time is it there`), as a byte
/// range.
fn place_known_after_in(text: &str) -> Option<(usize, usize)> {
    text.rmatch_indices(" in ").find_map(|(at, found)| {
        let start = at + found.len();
        let words: Vec<&str> = text[start..].split(' ').take(3).collect();
        (1..=words.len()).rev().find_map(|n| {
            let said = words[..n].join(" ");
            let bare = said.trim_end_matches([',', '.', '?', '!']);
            loopd_tools::clock::knows_place(bare).then(|| (start, start + bare.len()))
        })
    })
}

/// `in`, and a place the clock knows, in a follow-up that goes on with
/// words of its own ("and in singapore hes got a stopover there", "okay
/// and my other cousin in perth"): `in singapore`, `in perth`.
fn a_place_and_more(question: &str) -> Option<String> {
    if !opened(question) {
        return None;
    }
    place_within(without_opener(question.trim()))
}

/// The last `in` and a place the clock knows in `text`: `in perth`.
fn place_within(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let ins = words
        .iter()
        .enumerate()
        .filter(|(_, w)| w.eq_ignore_ascii_case("in"))
        .map(|(at, _)| at);
    ins.rev().find_map(|at| {
        let most = 3.min(words.len() - at - 1);
        (1..=most).rev().find_map(|n| {
            let place = words[at + 1..=at + n].join(" ");
            loopd_tools::clock::knows_place(&place).then(|| format!("in {place}"))
        })
    })
}

/// The fragment of a follow-up after its opener ("And in London?" gives
/// "in London"), when it is short.
fn fragment(question: &str) -> Option<&str> {
    let mut rest = without_filler(question.trim());
    let mut opened = false;
    while let Some(opener) = OPENERS.iter().find(|o| {
        let lower = rest.to_lowercase();
        lower.starts_with(*o)
            && lower[o.len()..].starts_with(|c: char| c.is_whitespace() || c == ',')
    }) {
        rest = rest[opener.len()..].trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        opened = true;
    }
    if !opened {
        return None;
    }
    let rest = rest.trim_end_matches(['?', '.', '!']).trim();
    let count = loopd_tools::numbers::in_digits(rest)
        .split_whitespace()
        .count();
    (1..=MAX_FRAGMENT_WORDS).contains(&count).then_some(rest)
}

/// The byte offset of the last whole word `word` (any case) in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let lower = text.to_lowercase();
    lower.rmatch_indices(word).map(|(at, _)| at).find(|&at| {
        let before_ok = lower[..at]
            .chars()
            .last()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = lower[at + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        before_ok && after_ok
    })
}

/// The byte range of the one number written in `text`, when it has only
/// one ("25" in "What's 25 kilometers in miles"): what a bare number
/// ("And 42?") takes the place of.
fn only_amount(text: &str) -> Option<(usize, usize)> {
    let mut found = AMOUNT.find_iter(text);
    let amount = found.next()?;
    found
        .next()
        .is_none()
        .then_some((amount.start(), amount.end()))
}

/// The byte range of `a stick` (`an`, `one`) in `text`, for the plural
/// `sticks`: the one thing a follow-up ("And 2.5 sticks?") counts anew.
fn one_before(text: &str, unit: &str) -> Option<(usize, usize)> {
    let one = unit
        .strip_suffix("es")
        .filter(|u| u.ends_with(['s', 'x', 'h']));
    let one = one.or_else(|| unit.strip_suffix('s'))?;
    let at = find_word(text, one)?;
    let head = text[..at].trim_end();
    let article = head.rsplit(' ').next()?;
    matches!(article.to_lowercase().as_str(), "a" | "an" | "one")
        .then(|| (head.len() - article.len(), at + one.len()))
}

/// A number as written in a question: `25`, `1,500`, `-3.5`.
static AMOUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"-?\d[\d,]*(?:\.\d+)?").expect("a valid regex"));

/// The byte range of the number written just before the word `unit` in
/// `text`, or before one word that describes it ("10 miles", "1380
/// business miles" for `miles`).
fn amount_before(text: &str, unit: &str) -> Option<(usize, usize)> {
    let at = find_word(text, unit)?;
    let last_word = |head: &str| {
        head.rfind(|c: char| c.is_whitespace())
            .map_or(0, |space| space + 1)
    };
    let is_number = |word: &str| {
        !word.is_empty()
            && word.starts_with(|c: char| c.is_ascii_digit() || c == '$' || c == '-')
            && word
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '$'))
    };
    let head = text[..at].trim_end();
    let start = last_word(head);
    if is_number(&head[start..]) {
        return Some((start, head.len()));
    }
    let described = &head[start..];
    if !described.chars().all(char::is_alphabetic) {
        return None;
    }
    let head = head[..start].trim_end();
    let start = last_word(head);
    is_number(&head[start..]).then_some((start, head.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(before: &str, question: &str) -> Option<String> {
        in_context(&[
            Message::user(before),
            Message::assistant("…"),
            Message::user(question),
        ])
    }

    #[test]
    fn a_place_said_in_lower_case_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked(
                "what time is it in los angeles right now my brother just moved out there",
                "and what about chicago"
            )
            .as_deref(),
            Some("what time is it in chicago right now my brother just moved out there")
        );
        assert_eq!(
            asked(
                "my pen pal class is in seoul what time is it there right now",
                "and what about beijing"
            )
            .as_deref(),
            Some("my pen pal class is in beijing what time is it there right now")
        );
        assert_eq!(
            asked("What time is it in Los Angeles?", "and what about chicago").as_deref(),
            Some("What time is it in chicago?")
        );
    }

    #[test]
    fn a_place_named_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked(
                "I'm about to ring my friend in Lima. What time is it there?",
                "And what about Kathmandu?"
            )
            .as_deref(),
            Some("I'm about to ring my friend in Kathmandu. What time is it there?")
        );
        assert_eq!(
            asked(
                "What's the time in New York right now?",
                "What about Buenos Aires?"
            )
            .as_deref(),
            Some("What's the time in Buenos Aires right now?")
        );
        assert_eq!(asked("What is 5 plus 5?", "And Paris?"), None);
        assert_eq!(
            asked(
                "My coffee supplier is in Bogotá. What time is it there?",
                "And Santiago in Chile?"
            )
            .as_deref(),
            Some("My coffee supplier is in Santiago in Chile. What time is it there?")
        );
        assert_eq!(
            asked(
                "we're ringing aunt mei in kuala lumpur after dinner what time is it there",
                "and in sydney"
            )
            .as_deref(),
            Some("we're ringing aunt mei in sydney what time is it there")
        );
    }

    #[test]
    fn a_place_date_or_thing_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked(
                "For my grandson's homework, what's three eighths as a decimal?",
                "And as a percentage?"
            )
            .as_deref(),
            Some("What's three eighths as a percentage?")
        );
        assert_eq!(
            asked("What time is it in Tokyo right now?", "And in London?").as_deref(),
            Some("What time is it in London?")
        );
        assert_eq!(
            asked(
                "How many days until Christmas?",
                "And until New Year's Day?"
            )
            .as_deref(),
            Some("How many days until New Year's Day?")
        );
        assert_eq!(
            asked("What is the capital of Spain?", "And of Portugal?").as_deref(),
            Some("What is the capital of Portugal?")
        );
    }

    #[test]
    fn an_amount_in_the_same_unit_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked("How many kilometers is 10 miles?", "And 20 miles?").as_deref(),
            Some("How many kilometers is 20 miles?")
        );
        assert_eq!(
            asked(
                "What is 50 degrees Fahrenheit in Celsius?",
                "And 86 degrees?"
            )
            .as_deref(),
            Some("What is 86 degrees Fahrenheit in Celsius?")
        );
        assert_eq!(
            asked("What is 15 percent of 200?", "and 20 percent?").as_deref(),
            Some("What is 20 percent of 200?")
        );
        assert_eq!(
            asked("What's 25 kilometers in miles?", "And 42?").as_deref(),
            Some("What's 42 kilometers in miles?")
        );
        assert_eq!(asked("What is 15 percent of 200?", "And 30?"), None);
        assert_eq!(
            asked(
                "How many grams is a stick of butter?",
                "And two and a half sticks?"
            )
            .as_deref(),
            Some("How many grams is 2.5 sticks of butter?")
        );
        assert_eq!(
            asked(
                "if i claim forty five p a mile whats one thousand three hundred and eighty business miles worth",
                "and two thousand one hundred and fifty miles"
            )
            .as_deref(),
            Some("if i claim 45 p a mile whats 2150 business miles worth")
        );
        assert_eq!(
            asked(
                "hey how many miles is a hundred and sixty kilometres",
                "what about two hundred and forty"
            )
            .as_deref(),
            Some("How many miles is 240 kilometres?")
        );
        assert_eq!(
            asked(
                "My birthday's September 23. What day of the week does it fall on this year?",
                "And next year?"
            )
            .as_deref(),
            Some("My birthday's September 23. What day of the week does it fall on next year?")
        );
        assert_eq!(
            asked("Um, what's eighteen times twelve?", "And times thirteen?").as_deref(),
            Some("What is eighteen times thirteen?")
        );
        assert_eq!(
            asked(
                "What's 45 degrees Fahrenheit in Celsius?",
                "And what about sixty?"
            )
            .as_deref(),
            Some("What's 60 degrees Fahrenheit in Celsius?")
        );
    }

    #[test]
    fn that_is_the_value_asked_for_before() {
        assert_eq!(
            asked("What is 25 times 4?", "And what is that divided by 8?").as_deref(),
            Some("what is (25 times 4) divided by 8?")
        );
        assert_eq!(
            asked("What's 1234 plus 5678?", "What's half of it?").as_deref(),
            Some("What's half of (1234 plus 5678)?")
        );
        assert_eq!(
            asked(
                "What is the capital of France?",
                "And what is that in German?"
            ),
            None
        );
        assert_eq!(
            asked("What is 25 times 4?", "And what is this about?"),
            None
        );
        assert_eq!(
            asked("What is 15 times 4?", "And plus 40?").as_deref(),
            Some("What is (15 times 4) plus 40?")
        );
        assert_eq!(
            asked("What's 90 minus 18?", "Divided by 3?").as_deref(),
            Some("What is (90 minus 18) Divided by 3?")
        );
        assert_eq!(
            asked("What is the capital of France?", "And plus 40?"),
            None
        );
    }

    #[test]
    fn a_count_said_anew_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked(
                "The villa costs 1540 euros for the fortnight, split between the 4 of us. How much each?",
                "And if Tom and Jess come too, so there are 6 of us?"
            )
            .as_deref(),
            Some("The villa costs 1540 euros for the fortnight, split between the 6 of us. How much each?")
        );
        assert_eq!(
            asked(
                "Pizza for 8 people needs 3 pizzas, how many slices each?",
                "And if 2 more people come?"
            ),
            None
        );
        assert_eq!(
            asked(
                "The walking group's Christmas meal is £23.50 a head and 14 have booked. What's the total?",
                "And if another 5 join?"
            )
            .as_deref(),
            Some("The walking group's Christmas meal is £23.50 a head and 19 have booked. What's the total?")
        );
        assert_eq!(
            asked(
                "Tickets are £18 each and 34 pupils are going. What's the total?",
                "what if three more sign up"
            )
            .as_deref(),
            Some("Tickets are £18 each and 37 pupils are going. What's the total?")
        );
        assert_eq!(
            asked(
                "We need 24 scones and each one takes 45 grams of butter. How much butter is that?",
                "And if they want 36 scones instead?"
            )
            .as_deref(),
            Some(
                "We need 36 scones and each one takes 45 grams of butter. How much butter is that?"
            )
        );
        assert_eq!(
            asked(
                "I'm feeding 3 bales of silage a day. How many days will 180 bales last?",
                "And if I go up to 4 bales a day?"
            )
            .as_deref(),
            Some("I'm feeding 4 bales of silage a day. How many days will 180 bales last?")
        );
        assert_eq!(
            asked(
                "whats 25 dollars an hour times 38 hours",
                "and what if she gets bumped up to 27.50 an hour"
            )
            .as_deref(),
            Some("whats 27.50 dollars an hour times 38 hours")
        );
        assert_eq!(
            asked(
                "Mangoes are $4.40 a kilo and I grabbed 1.75 kilos. How much is that?",
                "and what if i got two and a half kilos instead"
            )
            .as_deref(),
            Some("Mangoes are $4.40 a kilo and I grabbed 2.5 kilos. How much is that?")
        );
    }

    #[test]
    fn a_thing_named_by_its_price_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked(
                "Everything on the winter coat rail is 30 percent off. What's a £14 coat now?",
                "And the £22 one?"
            )
            .as_deref(),
            Some("Everything on the winter coat rail is 30 percent off. What's a £22 coat now?")
        );
        assert_eq!(
            asked("Is £14 or £20 the better deal?", "And the £22 one?"),
            None
        );
    }

    #[test]
    fn an_opener_is_dropped_only_as_written() {
        assert_eq!(without_opener("And plus 40?"), "plus 40?");
        assert_eq!(without_opener("what about that"), "that");
        assert_eq!(without_opener("Andorra?"), "Andorra?");
        assert_eq!(without_opener("\u{212A}nd plus"), "\u{212A}nd plus");
    }

    #[test]
    fn a_percentage_goes_on_the_answer_before() {
        let conversation = [
            Message::user("I'm billing 14.5 hours at £48 an hour. What does that come to?"),
            Message::assistant("That comes to £696."),
            Message::user("And with 20 percent VAT on top?"),
        ];
        assert_eq!(
            in_context(&conversation).as_deref(),
            Some("What is 696 with 20 percent VAT on top?")
        );
        let conversation = [
            Message::user("24 shirts at $13.50 each. What's the total?"),
            Message::assistant("The total cost of 24 T-shirts at $13.50 each is $324.00."),
            Message::user("And what is it with 8.25 percent sales tax?"),
        ];
        assert_eq!(
            in_context(&conversation).as_deref(),
            Some("What is 324 with 8.25 percent sales tax?")
        );
        let conversation = [
            Message::user("I drove 42 miles and my car gets 28 miles per gallon. How many gallons did I burn?"),
            Message::assistant("You burned 1.5 gallons."),
            Message::user("and at 3.29 a gallon what did that cost me"),
        ];
        assert_eq!(
            in_context(&conversation).as_deref(),
            Some("What is 1.5 times 3.29?")
        );
        let conversation = [
            Message::user("i need 2.4 kilo of pork for one pot of soup how much for three pots"),
            Message::assistant("You need 7.2 kilos of pork."),
            Message::user("and if pork is 12.80 a kilo how much does that cost"),
        ];
        assert_eq!(
            in_context(&conversation).as_deref(),
            Some("What is 7.2 times 12.80?")
        );
        let conversation = [
            Message::user("We've got 420 cows averaging 1.8 kg of milk solids a day each. How many kilos is that a day for the herd?"),
            Message::assistant("The herd produces 756 kg of milk solids per day."),
            Message::user("And at $7.90 a kilo, what's that worth a day?"),
        ];
        assert_eq!(
            in_context(&conversation).as_deref(),
            Some("What is 756 times 7.90?")
        );
    }

    #[test]
    fn an_amount_said_anew_takes_the_place_of_the_one_of_its_kind() {
        assert_eq!(
            asked(
                "so the final exam is out of eighty marks how many marks do i need to get seventy percent",
                "okay and for eighty five percent"
            )
            .as_deref(),
            Some("The final exam is out of 80 marks how many marks do i need to get 85 percent?")
        );
        assert_eq!(
            asked(
                "The forecast said 41 degrees tomorrow. My cousin wants to know what that is in Fahrenheit.",
                "And the overnight low of 24?"
            )
            .as_deref(),
            Some("The forecast said 24 degrees tomorrow. My cousin wants to know what that is in Fahrenheit.")
        );
        assert_eq!(
            asked(
                "My sister says it's 41 Fahrenheit there today. What's that in Celsius?",
                "And tomorrow? She says it will be 50."
            )
            .as_deref(),
            Some("My sister says it's 50 Fahrenheit there today. What's that in Celsius?")
        );
        assert_eq!(
            asked(
                "I walked 12 miles and 3 more the day after. How far?",
                "And 20?"
            ),
            None
        );
    }

    #[test]
    fn a_count_said_as_an_ordinal_and_a_discount_said_as_a_condition() {
        assert_eq!(
            asked(
                "I need 3 rolls of wallpaper at £14.99 each. How much is that?",
                "And if I get a fourth roll to be safe?"
            )
            .as_deref(),
            Some("I need 4 rolls of wallpaper at £14.99 each. How much is that?")
        );
        let conversation = [
            Message::user(
                "kaju katli is 650 rupees a kilo and she wants 3.5 kilos how much is that",
            ),
            Message::assistant("That is 2275 rupees."),
            Message::user("and if i give her ten percent discount"),
        ];
        assert_eq!(
            in_context(&conversation).as_deref(),
            Some("What is 2275 less 10 percent off?")
        );
    }

    #[test]
    fn a_sharing_said_anew_divides_the_one_amount_before() {
        assert_eq!(
            asked(
                "Groceries after shift came to $86.40 and my roommate and I split it evenly. What's my share?",
                "And if my cousin chips in too and we split it three ways?"
            )
            .as_deref(),
            Some("What is 86.40 divided by 3?")
        );
    }

    #[test]
    fn an_amount_after_a_frame_the_question_before_lacks() {
        assert_eq!(
            asked(
                "The vial is 40 mg per mL and the order is 60 mg. How many mL do I draw up?",
                "What about for a 100 mg dose?"
            )
            .as_deref(),
            Some("The vial is 40 mg per mL and the order is 100 mg. How many mL do I draw up?")
        );
        assert_eq!(
            asked(
                "hey what time is it in manila right now i wanna call my mom",
                "okay and what about honolulu"
            )
            .as_deref(),
            Some("What time is it in honolulu right now i wanna call my mom?")
        );
    }

    #[test]
    fn a_place_with_a_clause_after_it_takes_the_place_of_the_one_before() {
        assert_eq!(
            asked(
                "what time is it in london my brothers over there",
                "and in singapore hes got a stopover there on the way home"
            )
            .as_deref(),
            Some("what time is it in singapore")
        );
    }

    #[test]
    fn other_questions_are_left_alone() {
        assert_eq!(
            asked("What time is it in Tokyo?", "What is 2 plus 2?"),
            None
        );
        assert_eq!(asked("What time is it in Tokyo?", "And 20 miles?"), None);
        assert_eq!(asked("What is 5 plus 5?", "And in London?"), None);
        assert_eq!(
            asked(
                "Hi",
                "And then tell me a very long story about dragons and knights please"
            ),
            None
        );
        assert_eq!(in_context(&[Message::user("And in London?")]), None);
    }
}

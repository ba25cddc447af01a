//! A count said anew in the question before: more people ("if another 5
//! join"), a new number of them ("so there are 6 of us", "a fourth roll"),
//! a sharing ("we split it three ways"); or another figure of the same
//! numbers ("how about the median").

use super::*;

/// `split it three ways`, `between the 4 of us`: a sharing said anew.
static SPLIT_WAYS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:split|share|divide)\b[^?.!]*?\b(\d+)\s+ways\b|\bbetween\s+(?:the\s+)?(\d+)\s+of\s+us\b")
        .expect("a valid regex")
});

/// Words that share an amount out.
static SHARED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:split|share|shared|divide|divided|ways|each|between)\b")
        .expect("a valid regex")
});

/// `so 5 of us`, `5 ways`, `5 people`: how many share it now, after a
/// question that shared it.
static WAYS_NOW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s+(?:of\s+us|ways|people)\b").expect("a valid regex")
});

/// The one amount of `before` shared out as a follow-up says: "And if my
/// cousin chips in too and we split it three ways?" after "Groceries came
/// to $86.40 and my roommate and I split it evenly. What's my share?"
/// asks "What is 86.40 divided by 3?"; "And if my daughter comes too, so
/// five of us?" after "… $420 for the weekend, split four ways" asks it
/// divided by 5.
pub(super) fn split_anew(question: &str, before: &str) -> Option<String> {
    if !opened(question) {
        return None;
    }
    let question = in_digits(question);
    let shared_before = SHARED.is_match(before);
    let ways = match SPLIT_WAYS.captures(&question) {
        Some(found) => found.get(1).or(found.get(2))?.as_str(),
        None if shared_before => WAYS_NOW.captures(&question)?.get(1)?.as_str(),
        None => return None,
    };
    let before = in_digits(before);
    let before = SPLIT_WAYS.replace_all(&before, "");
    let before = WAYS_NOW.replace_all(&before, "");
    let mut amounts = AMOUNT.find_iter(&before);
    let (Some(amount), None) = (amounts.next(), amounts.next()) else {
        return None;
    };
    Some(format!(
        "What is {} divided by {ways}?",
        amount.as_str().replace(',', "")
    ))
}

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
pub(super) fn with_more_added(question: &str, before: &str) -> Option<String> {
    let question = in_digits(question);
    the_one_amount(&question)?;
    let added: u64 = MORE
        .captures(&question)
        .and_then(|more| more.get(1).or(more.get(2)))?
        .as_str()
        .parse()
        .ok()?;
    let before = in_digits(before);
    let counts = counts_in(&before);
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

/// `if I get 7`, `if we sell 12`, `make it 9`: a count said anew with no
/// thing named after it.
static IF_SO_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:if\s+(?:i|we|you|she|he|they)\s+(?:get|have|do|book|sell|buy|need|make|take)|make\s+it)\s+\d|\bif\s+(?:only\s+|just\s+)?\d+\s+(?:get|come|go|show|turn|sign|are|travel|ride)\b|\bif\s+all\s+(?:the\s+)?\d+\s+[a-z]+\s+(?:are|get|go|come)\b|\bif\s+(?:it'?s|it\s+is|we)\s+(?:split|shared|divided)\s+(?:between\s+|among\s+|by\s+|into\s+)?\d")
        .expect("a valid regex")
});

/// The numbers of `text` that count things: whole numbers that are no
/// money (a sign before, a currency after), percentage, clock time or
/// fraction.
fn counts_in(text: &str) -> Vec<regex::Match<'_>> {
    AMOUNT
        .find_iter(text)
        .filter(|n| {
            let behind = text[n.end()..].trim_start().to_lowercase();
            let next = behind.split_whitespace().next().unwrap_or_default();
            let part = behind.starts_with(['%', ':', '/']) || behind.starts_with("percent");
            !is_money(text, n.start())
                && !part
                && !loopd_tools::numbers::is_currency(
                    next.trim_end_matches(|c: char| !c.is_alphanumeric()),
                )
                && n.as_str().parse::<u64>().is_ok()
        })
        .collect()
}

/// `before` with its one count ([`counts_in`]) replaced by the one a
/// follow-up of [`IF_SO_MANY`] says: "and if i get seven" after "a half
/// head of foils is £65. I've got 4 booked this week, what's that in
/// total?" asks of 7 booked; "and if only nine get in" after "… how much
/// for fifteen passengers" asks of 9 passengers, "and if all 14 seats are
/// full" after "… from 11 passengers" of 14.
fn a_bare_count_anew(question: &str, count: &regex::Match, before: &str) -> Option<String> {
    IF_SO_MANY.find(question)?;
    with_the_one_count(before, count.as_str())
}

/// `before` with its one count ([`counts_in`]) replaced by `count`; `None`
/// when it has not exactly one.
fn with_the_one_count(before: &str, count: &str) -> Option<String> {
    let counts = counts_in(before);
    let [old] = counts.as_slice() else {
        return None;
    };
    Some(format!(
        "{}{count}{}",
        &before[..old.start()],
        &before[old.end()..]
    ))
}

/// `before` with its one count ([`counts_in`]) replaced by the bare
/// number a follow-up says, when `before` prices the things counted:
/// "What about 25?" after "A galão is €1.60. How much for 14 of them?"
/// asks it for 25 (not "And 30?" after "What is 15 percent of 200?").
pub(super) fn a_bare_number_for_the_count(question: &str, before: &str) -> Option<String> {
    let said = in_digits(fragment(question)?);
    let number = the_one_amount(&said)?;
    if number.as_str() != said.trim() {
        return None;
    }
    let before = in_digits(&loopd_tools::numbers::letter_signs_named(before));
    loopd_tools::numbers::currency_of(&before)?;
    with_the_one_count(&before, number.as_str())
}

/// `before` with the count of the things a follow-up counts anew: "And if
/// two more come, so there are 6 of us?" after "… split between the 4 of
/// us. How much each?" asks "… split between the 6 of us. How much
/// each?". Only when the follow-up gives one number and `before` one of
/// the same things.
pub(super) fn with_a_count_changed(question: &str, before: &str) -> Option<String> {
    let lower = question.trim_start().to_lowercase();
    if !OPENERS.iter().any(|o| lower.starts_with(&format!("{o} ")))
        && !lower.starts_with("so ")
        && !lower.starts_with("what if ")
    {
        return None;
    }
    let question = loopd_tools::numbers::with_parts(&in_digits(question));
    let question = A_NTH.replace(&question, |found: &regex::Captures| {
        format!("{} ", ordinal(&found[1]))
    });
    let said = before;
    let before = in_digits(&loopd_tools::numbers::letter_signs_named(before));
    let count = the_one_amount(&question)?;
    let Some(things) = counted(&question[count.end()..]) else {
        return a_bare_count_anew(&question, &count, &before);
    };
    let same: Vec<regex::Match> = AMOUNT
        .find_iter(&before)
        .filter(|amount| counted(&before[amount.end()..]).as_deref() == Some(things.as_str()))
        .collect();
    if same.is_empty() {
        return a_bare_count_anew(&question, &count, &before);
    }
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

/// `the fifth hour was 24`, `add 17`, `one more game of 88`: one more
/// number for a list, said in a follow-up.
static ONE_MORE_IN_THE_LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:the\s+)?(?:next|fifth|sixth|seventh|eighth|ninth|tenth|last|another|one\s+more|a\s+new)\b[^\d]*?\b(?:was|is|were|had|got|scored|made|sold|came\s+to|of)\s+|\badd(?:ed)?\s+(?:a\s+|an?\s+other\s+)?|\bplus\s+(?:a\s+)?)(-?\d+(?:\.\d+)?)\b")
        .expect("a valid regex")
});

/// `12, 15, 9 and 20`: a list of numbers said with commas and `and`.
static A_LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+)\s*,?\s+and\s+(-?\d+(?:\.\d+)?)")
        .expect("a valid regex")
});

/// `before` with one more number in its list, as a follow-up gives it:
/// "And if the fifth hour was 24?" after "Cups we sold in the first four
/// hours: 12, 15, 9 and 20. What's the average per hour?" asks it of 12,
/// 15, 9, 20 and 24.
pub(super) fn one_more_in_the_list(question: &str, before: &str) -> Option<String> {
    let question = in_digits(question);
    the_one_amount(&question)?;
    let added = ONE_MORE_IN_THE_LIST.captures(&question)?.get(1)?;
    let before = in_digits(before);
    if !loopd_tools::numbers::asks_of_a_list(&before) {
        return None;
    }
    let list = A_LIST.captures(&before)?;
    let whole = list.get(0)?;
    Some(format!(
        "{}{}, {} and {}{}",
        &before[..whole.start()],
        &list[1],
        &list[2],
        added.as_str(),
        &before[whole.end()..]
    ))
}

/// The figures asked of a list of numbers.
const FIGURES: [&str; 7] = ["average", "mean", "median", "mode", "range", "total", "sum"];

/// `before` asking another figure of its numbers, the one a follow-up
/// names: "how about the middle mark the median one" after "… marks 78 85
/// 62 91 69 whats his average" asks "… whats his median".
pub(super) fn another_figure(question: &str, before: &str) -> Option<String> {
    if !opened(question) {
        return None;
    }
    let named: Vec<String> = bare_words(question)
        .filter(|w| FIGURES.contains(&w.as_str()))
        .collect();
    let [figure] = named.as_slice() else {
        return None;
    };
    let lower = before.to_lowercase();
    let mut asked = FIGURES.iter().filter(|f| *f != figure).filter_map(|f| {
        let at = lower.match_indices(f).find(|(at, _)| {
            let whole = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            whole(lower[..*at].chars().next_back()) && whole(lower[at + f.len()..].chars().next())
        })?;
        Some((at.0, f.len()))
    });
    let (Some((at, len)), None) = (asked.next(), asked.next()) else {
        return None;
    };
    Some(format!("{}{figure}{}", &before[..at], &before[at + len..]))
}

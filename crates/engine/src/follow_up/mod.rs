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

mod counts;
mod frame;
mod on_the_answer;
#[cfg(test)]
mod tests;
mod value_before;

use counts::{
    a_bare_number_for_the_count, another_figure, one_more_in_the_list, split_anew,
    with_a_count_changed, with_more_added,
};
use frame::framed;
use on_the_answer::{
    an_amount_said_anew, for_more_periods, on_the_answer, priced_on_the_answer, the_price_after_it,
    the_total_with_it,
};
use value_before::with_value_before;

/// `text` with its numbers in digits, a price read out (`one twenty eight
/// fifty`) as one amount.
fn in_digits(text: &str) -> String {
    loopd_tools::numbers::in_digits(&loopd_tools::numbers::prices_in_digits(text))
}

/// How a follow-up may start.
const OPENERS: [&str; 4] = ["what about", "how about", "and", "also"];

/// Most words a follow-up fragment may have.
const MAX_FRAGMENT_WORDS: usize = 6;

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
    read_after(question, &before, conversation)
        .or_else(|| {
            let plain = in_plain_words(question)?;
            read_after(&plain, &before, conversation)
        })
        .or_else(|| {
            let supposed = the_amount_supposed(question)?;
            read_after(&supposed, &before, conversation)
        })
        .or_else(|| {
            let asked = asked_before_a_reason(question)?;
            read_after(asked, &before, conversation).or_else(|| {
                let plain = in_plain_words(asked)?;
                read_after(&plain, &before, conversation)
            })
        })
}

/// The follow-up's question when what is said after it only says why
/// ("What about 25? The office up the street wants them for a meeting.",
/// "and whit about sydney thats where wee gary stays"): the text up to its
/// first question mark or `that's where`, when what follows gives no
/// number.
fn asked_before_a_reason(question: &str) -> Option<&str> {
    let lower = question.to_lowercase();
    let at = [
        " thats where ",
        " that's where ",
        " its where ",
        " it's where ",
    ]
    .iter()
    .filter_map(|said| lower.find(said))
    .chain(question.find('?'))
    .min()?;
    let (asked, after) = question.split_at(at);
    let after = after.trim_start_matches('?');
    let why = !after.trim().is_empty() && !has_numbers(&in_digits(after));
    why.then_some(asked)
}

/// `and if I bump it up to 100 kg a hectare`, `what if it's 300 hectares`,
/// `so what if we make it 12`, `what if the rate was 8.75% instead`: a
/// follow-up that supposes a new amount.
static SUPPOSED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:(?:and|so|okay|ok|um|but)[,\s]+)*(?:what\s+)?if\s+(?:(?:i|we|you|they)\s+(?:[a-z]+\s+){0,2}?(?:(?:it|that|them|this)\s+)?(?:(?:up|down)\s+)?to|(?:i|we|you|they)\s+(?:make|made)\s+(?:it|that|them)|(?:it|that|the\s+[a-z]+)(?:'s|’s|\s+is|\s+was|\s+were))\s+(\S.*)$")
        .expect("a valid regex")
});

/// The follow-up `question` as the amount it supposes, after `And`
/// ("And 100 kg a hectare?" for "And if I bump it up to 100 kg a
/// hectare?"), when it supposes one.
fn the_amount_supposed(question: &str) -> Option<String> {
    let question = in_digits(question.trim());
    let supposed = SUPPOSED.captures(&question)?;
    let amount = supposed.get(1)?.as_str();
    amount
        .starts_with(|c: char| c.is_ascii_digit())
        .then(|| format!("And {amount}"))
}

/// `question` read after `before`, by the first reading that fits.
fn read_after(question: &str, before: &str, conversation: &[Message]) -> Option<String> {
    for_more_periods(question, conversation)
        .or_else(|| framed(question, before))
        .or_else(|| with_value_before(question, before))
        .or_else(|| with_a_count_changed(question, before))
        .or_else(|| one_more_in_the_list(question, before))
        .or_else(|| with_more_added(question, before))
        .or_else(|| the_total_with_it(question, before))
        .or_else(|| the_price_after_it(question, before))
        .or_else(|| on_the_answer(question, conversation))
        .or_else(|| priced_on_the_answer(question, conversation))
        .or_else(|| an_amount_said_anew(question, before))
        .or_else(|| split_anew(question, before))
        .or_else(|| another_figure(question, before))
        .or_else(|| a_bare_number_for_the_count(question, before))
        .or_else(|| the_weekday_of_the_day_before(question, before))
}

/// `and what day of the week is that`, `what day will that be`: the
/// weekday of the day the question before counted to.
static WEEKDAY_OF_THAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:(?:and|so|okay|ok|um)[,\s]+)*(?:what|which)\s+day(?:\s+of\s+the\s+week)?\s+(?:is|will|would|was)\s+(?:that|it|this)(?:\s+be)?(?:\s+on)?\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// `how many days until my daughter's birthday on the twentieth of
/// january`: the day counted to, after `until`.
static COUNTED_TO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow\s+(?:many\s+(?:days|weeks|sleeps)|long)\b.*?\b(?:until|till|til|to|before)\s+(\S.*?)\s*[?.!]?\s*$")
        .expect("a valid regex")
});

/// "What day of the week is my daughter's birthday on the twentieth of
/// january?" for "and what day of the week is that" after "how many days
/// until my daughter's birthday on the twentieth of january".
fn the_weekday_of_the_day_before(question: &str, before: &str) -> Option<String> {
    if !WEEKDAY_OF_THAT.is_match(question) {
        return None;
    }
    let day = COUNTED_TO.captures(before)?.get(1)?.as_str();
    Some(format!("What day of the week is {day}?"))
}

/// A follow-up in English words, when it was said in dialect: the words
/// of [`super::heard::in_plain_words`], and `an` for `and` at its start
/// before a word no article goes with ("an what bout london", "an fifty
/// pound"). `None` when nothing changes.
fn in_plain_words(question: &str) -> Option<String> {
    let question = question.trim();
    let mut words = question.splitn(3, ' ');
    let said_and = match (words.next(), words.next()) {
        (Some(an), Some(next)) if an.eq_ignore_ascii_case("an") => {
            let next = next.to_lowercase();
            matches!(
                next.as_str(),
                "what" | "wha" | "wah" | "how" | "if" | "for" | "in"
            ) || !loopd_tools::numbers::in_digits(&next).contains(char::is_alphabetic)
        }
        _ => false,
    };
    let question = match said_and {
        true => format!("and{}", &question[2..]),
        false => question.to_string(),
    };
    super::heard::in_plain_words(&question).or(said_and.then_some(question))
}

/// Words said before a follow-up's opener (`okay and what about …`).
const FILLERS: [&str; 13] = [
    "okay", "ok", "alright", "right", "oh", "um", "so", "well", "hmm", "yeah", "cool", "sure",
    "sawa",
];

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
    let count = in_digits(rest).split_whitespace().count();
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

/// A number as written in a question: `25`, `1,500`, `-3.5`.
static AMOUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"-?\d[\d,]*(?:\.\d+)?").expect("a valid regex"));

/// Whether the number at byte `at` of `text` is money: a currency's sign
/// stands before it.
fn is_money(text: &str, at: usize) -> bool {
    text[..at].trim_end().ends_with(CURRENCY_SIGNS)
}

/// Where "minus " or "negative " said before the number at `at` of `text`
/// begins, if one is.
fn minus_before(text: &str, at: usize) -> Option<usize> {
    let lead = text[..at].to_lowercase();
    ["minus ", "negative "]
        .iter()
        .find(|sign| lead.ends_with(*sign))
        .map(|sign| at - sign.len())
}

/// The one number written in `text` (`25` in "What's 25 kilometers in
/// miles"), when it has only one: what a bare number ("And 42?") takes the
/// place of, or the one number a follow-up gives.
fn the_one_amount(text: &str) -> Option<regex::Match<'_>> {
    let mut found = AMOUNT.find_iter(text);
    let amount = found.next()?;
    found.next().is_none().then_some(amount)
}

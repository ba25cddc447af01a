//! Questions of fact that hold a number ("How many months have 31 days?",
//! "Who won the World Cup in 2018?"): the number is part of what is asked
//! about, not something to compute with, so the question is answered from
//! knowledge like one without numbers. The answer's own numbers are still
//! checked ([`super::grounding`]): one that needed arithmetic is sent back
//! to the tools.

use super::parse::{number_words, numbers};
use super::sentences::{sentence_end, split_sentences};
use loopd_tools::numbers::CURRENCY_SIGNS;
use regex::Regex;
use std::sync::LazyLock;

/// Words that ask for a computation, a quantity of money or time, or a
/// date: a question holding one of them is worked out with the tools.
const COMPUTES: &str = "\
    add after ago average before cent cents convert cost costs cube cubed \
    degrees divide divided dollar dollars double each euro euros every factorial \
    fewer half late later left less mean median minus next more multiplied \
    multiply now pay per percent percentage plus pound pounds power price \
    quarter rate remain root share since split square squared subtract sum take \
    tax than this times tip today tomorrow total triple twice until will \
    yesterday";

/// Signs that write arithmetic (money's are [`CURRENCY_SIGNS`]).
const OPERATOR_SIGNS: &[char] = &['%', '+', '*', '/', '=', '^', '×', '÷'];

/// Whether `text` holds a sign of arithmetic or money.
fn has_signs(text: &str) -> bool {
    text.contains(OPERATOR_SIGNS) || text.contains(CURRENCY_SIGNS)
}

/// How a question of fact begins.
const ASKS: &str = "\
    who what what's whats which when where why name tell is are was were does do \
    did";

/// Whether `question` asks a fact about something it names with one
/// number: one sentence (after a colon, if it has one: "Chem hw real
/// quick: which element has atomic number 10?"), begun as a question of
/// fact ("How" only as "How many"), with no word or sign of arithmetic,
/// money or dates in it.
pub(super) fn asks_about_a_number(question: &str) -> bool {
    let question = question
        .rsplit_once(": ")
        .map_or(question, |(_, asked)| asked)
        .trim();
    let question = super::heard::without_openers(question);
    let years = loopd_tools::numbers::years_in_digits(question);
    let given = numbers(&loopd_tools::numbers::in_digits(&years)).len();
    if given != 1 || sentence_end(question).is_some() || has_signs(question) {
        return false;
    }
    let words = words(question);
    let begun = match words.as_slice() {
        [how, many, ..] if how == "how" => many == "many" && counts_what_has_it(&words),
        [on, first, ..] if among("in on at", on) => among("what which", first),
        [first, ..] => among(ASKS, first),
        [] => false,
    };
    let worked_out = match words.first() {
        Some(first) if among("who whom whose", first) => words
            .iter()
            .any(|w| among(OPERATIONS, w) || among(COMPARES, w)),
        _ => computes(&words, true),
    };
    begun && !worked_out && !converts(&words)
}

/// Words that make a question about a person a comparison to work out
/// ("Who is older, …"); the words of time and dates in one ("Who became
/// president after Quezon died in 1944?", "who founded the Katipunan we
/// remember every November 30") place the person, not a computation.
const COMPARES: &str = "more less fewer than older younger most least longer shorter";

/// Words that point back to something said before the question (or at
/// the user): a question holding one needs what was told around it.
const POINTS_BACK: &str = "\
    that it its them this these those he she they his her their him my our \
    i we me us you your";

/// Whether the one question of `text`, among sentences or after a colon
/// that tell something around it ("Worked 35 years at the refinery and
/// never thought to ask: what's the main gas in natural gas?"), is a
/// question of fact of its own: no number, no word that points back to
/// what was told, begun as a question of fact, and asking nothing worked
/// out. The numbers told around it are not to compute with. Or a question
/// about one number of its own ([`asks_about_a_number`]: "Who captained
/// England when they won the World Cup in 1966? Played for West Ham, I
/// know that much.") when what is told around it gives no number.
pub(super) fn asks_a_fact_apart(text: &str) -> bool {
    let text = text.trim();
    let asked = the_question(text);
    if asked.len() == text.len() {
        return false;
    }
    let words = words(asked);
    let begun = match words.as_slice() {
        [on, first, ..] if among("in on at", on) => among("what which", first),
        [first, ..] => among("who what what's whats which where name", first),
        [] => false,
    };
    let count = |text: &str| numbers(text).len() + number_words(text).len();
    let told_a_number = count(text) > count(asked);
    let apart = count(asked) == 0
        && begun
        && !words.iter().any(|w| among(POINTS_BACK, w))
        && asks_nothing_worked_out(asked, text);
    apart || (!told_a_number && asks_about_a_number(asked))
}

/// Words of a question whose answer changes with the day or the price:
/// what one remembers of them is out of date.
const CHANGES: &str = "\
    age aged born clock date much old time";

/// The one question of `text` (its one sentence that ends with a question
/// mark, after a colon if it has one), or the whole text.
pub(super) fn the_question(text: &str) -> &str {
    let text = text.trim();
    let sentences = split_sentences(text);
    let mut questions = sentences.into_iter().filter(|s| s.ends_with('?'));
    let (Some(asked), None) = (questions.next(), questions.next()) else {
        return text;
    };
    asked
        .rsplit_once(':')
        .map_or(asked, |(_, after)| after)
        .trim()
}

/// Whether `question` asks nothing a tool works out or that changes with
/// the day: no word or sign of arithmetic, money, time, dates or age ("How
/// many continents are there?", not "How many days are left until
/// Christmas?" or "How old is Tom Hanks?"), a word of an operation only
/// where `told` (the whole text the question was asked in) gives a number
/// to work on. A number in its answer is remembered, not computed.
pub(super) fn asks_nothing_worked_out(question: &str, told: &str) -> bool {
    let asked = super::heard::request(question).unwrap_or_else(|| question.to_string());
    let operands = gives_numbers(&words(super::heard::without_openers(told)));
    let words = words(&asked);
    !has_signs(question) && !computes(&words, operands) && !words.iter().any(|w| among(CHANGES, w))
}

/// Whether `words` give a number to work on (the words of an operation,
/// "half" or "double", aside).
fn gives_numbers(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| !among(OPERATIONS, w) && (is_number(w) || !number_words(w).is_empty()))
}

/// `one of my customers`, `one of the kids`: one person or thing among
/// some, not a number to work with.
static ONE_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bone\s+of\s+(?:my|our|the|his|her|their|your|them|us|those|these)\b")
        .expect("a valid regex")
});

/// `December 16`, `16th of December`: a day of a month, a date told, not
/// a number to work with.
static DAY_OF_A_MONTH: LazyLock<Regex> = LazyLock::new(|| {
    let months: Vec<&str> = (1..=12)
        .filter_map(|m| chrono::Month::try_from(m).ok())
        .map(|m| m.name())
        .collect();
    let months = months.join("|");
    Regex::new(&format!(
        r"(?i)\b(?:{months})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{months})\b"
    ))
    .expect("a valid regex")
});

/// Whether `asked` (a question, its numbers in digits or words) gives a
/// number, `one of my …` and days of a month (`December 16`) aside.
pub(super) fn gives_a_number(asked: &str) -> bool {
    let asked = ONE_OF.replace_all(asked, "");
    let asked = loopd_tools::numbers::in_digits(&asked);
    !numbers(&DAY_OF_A_MONTH.replace_all(&asked, "")).is_empty()
}

/// Whether `answer` tells a clock time ("3:42") or an amount of money.
pub(super) fn tells_time_or_money(answer: &str) -> bool {
    let clock = answer
        .as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && w[1] == b':' && w[2].is_ascii_digit());
    let money = words(answer)
        .iter()
        .any(|w| among("cent cents dollar dollars euro euros pound pounds", w));
    clock || money || answer.contains(CURRENCY_SIGNS)
}

/// The words of `text`, lowercased, split at anything but letters, digits
/// and the straight apostrophe ("today’s" gives "today").
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether one of `words` asks for a computation, money, time or a date
/// ([`COMPUTES`]), money only as an amount, and an operation
/// ([`OPERATIONS`]) only where the question gives a number (`operands`):
/// "fed half the world" and "how many percent silver" compute nothing.
fn computes(words: &[String], operands: bool) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        among(COMPUTES, w)
            && (operands || !among(OPERATIONS, w))
            && !words
                .get(i + 1)
                .is_some_and(|next| among(MONEY_ITSELF, next))
    })
}

/// Words of [`COMPUTES`] that are operations on numbers said with them
/// (and the fractions and multiples among the number words).
const OPERATIONS: &str = "\
    add average cube cubed divide divided double factorial half mean median minus \
    multiplied multiply percent percentage plus power quarter quarters root \
    square squared subtract sum third times triple twice once";

/// What makes a currency the name of a thing, not an amount: "the 5
/// dollar bill", "a pound coin".
const MONEY_ITSELF: &str = "bill bills note notes coin coins";

/// Whether the words just after a plain number say what unit to turn it
/// into ("5 kilometers in miles", "98.6 degrees Fahrenheit in Celsius",
/// not "two hours in Vienna"); a number written into a name ("the 9th
/// Symphony with the Ode to Joy") is not converted.
fn converts(words: &[String]) -> bool {
    let Some(at) = words.iter().position(|w| is_number(w)) else {
        return false;
    };
    let after = &words[at + 1..];
    let into_a_unit = after.iter().take(3).enumerate().any(|(i, w)| {
        matches!(w.as_str(), "in" | "into" | "to" | "as")
            && after[i + 1..]
                .iter()
                .take(2)
                .any(|unit| loopd_tools::math::is_unit(unit))
    });
    !named(&words[at]) && into_a_unit
}

/// Whether `word` is one of the space-separated `words`.
fn among(words: &str, word: &str) -> bool {
    words.split_whitespace().any(|w| w == word)
}

/// A number written into a name: `H2O`, `3rd`, `9th`.
fn named(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit()) && word.chars().any(char::is_alphabetic)
}

fn is_number(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit()) || !number_words(word).is_empty()
}

/// Whether a "How many" question's number says what the things counted
/// have ("months have 31 days", "zeros in a million"), not how many
/// things there are ("wheels do 3 tricycles have", "days in 3 weeks"):
/// the word before it is a verb of having or an article, or the number is
/// written into a name ("H2O", "3rd").
fn counts_what_has_it(words: &[String]) -> bool {
    let Some(at) = words.iter().position(|w| is_number(w)) else {
        return false;
    };
    let before = at.checked_sub(1).map(|i| words[i].as_str());
    named(&words[at])
        || matches!(
            before,
            Some("have" | "has" | "had" | "with" | "a" | "an" | "the")
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_among_some_is_no_number_to_work_with() {
        assert!(!gives_a_number(
            "okay so one of my customers is going to timbuktu for a music festival which country is timbuktu in"
        ));
        assert!(gives_a_number(
            "if one of the five of us drops out how much does each pay"
        ));
        assert!(gives_a_number("what is one plus one"));
    }

    #[test]
    fn a_day_of_a_month_is_no_number_to_work_with() {
        assert!(!gives_a_number(
            "Simbang Gabi starts on December 16 this year. How many dawn masses are there in the whole novena?"
        ));
        assert!(!gives_a_number("what happens on the 4th of july"));
        assert!(gives_a_number("december 16 and 20 more days is what date"));
        assert!(gives_a_number("what happened in july 1969"));
    }

    #[test]
    fn a_number_named_in_a_question_of_fact_is_asked_about() {
        for question in [
            "Chem hw real quick: which element has atomic number 10?",
            "How many months have 31 days?",
            "How many zeros are in a million?",
            "How many planets have 2 moons?",
            "Who won the World Cup in 2018?",
            "What is the 3rd planet from the sun?",
            "What is H2O commonly called?",
            "When did Apollo 11 land on the moon?",
            "Who composed the 9th Symphony with the Ode to Joy?",
            "Which president is on the US 5 dollar bill?",
            "who is the kenyan guy who ran a marathon in under two hours in vienna",
            "Which portuguese navigator landed in brazil in fifteen hundred?",
            "Who became president of the Commonwealth after Manuel Quezon died in 1944?",
            "who founded the katipunan the one we remember every november thirty",
            "um who was the datu of mactan that fought magellan in fifteen twenty one",
            "um at which station was gandhi thrown off the train in eighteen ninety three",
        ] {
            assert!(asks_about_a_number(question), "{question}");
        }
    }

    #[test]
    fn a_question_of_fact_after_what_is_told_is_apart() {
        for text in [
            "Worked 35 years at the refinery and never thought to ask: what's the main gas in natural gas?",
            "I'm 68 and still curious. Who wrote Moby Dick?",
            "In what year did Nigeria get independence from Britain? We celebrate it every October 1.",
            "Who captained England when they won the World Cup in 1966? Played for West Ham, I know that much.",
        ] {
            assert!(asks_a_fact_apart(text), "{text}");
        }
        for text in [
            "I bought 3 shirts for 20 each. What did I spend?",
            "I have 35 apples. What is half of them?",
            "My son is 12. What's his age in months?",
            "Who wrote Moby Dick?",
            "The bill is 80 dollars: what's the tip at 15 percent?",
            "I drove 300 miles. What is that in kilometers?",
            "My daughter was born in 2010. Who won the World Cup in 2010?",
        ] {
            assert!(!asks_a_fact_apart(text), "{text}");
        }
    }

    #[test]
    fn a_question_of_remembered_fact_asks_nothing_worked_out() {
        for fact in [
            "How many continents are there?",
            "How many legs does a spider have?",
            "What is the boiling point of water in Fahrenheit?",
            "Norman Borlaug, the Cresco boy who fed half the world with his wheat, won which Nobel Prize?",
            "quick one sterling silver is how many percent silver i want to put it on my product page",
        ] {
            assert!(asks_nothing_worked_out(the_question(fact), fact), "{fact}");
        }
        for worked in [
            "How many days are left until Christmas?",
            "What time is it now?",
            "How much does a coffee cost?",
            "What day is it tomorrow?",
            "How much is half of that?",
            "What's the price in euros?",
            "How old is Tom Hanks?",
            "How much is a stamp?",
            "What’s the time in Bali?",
            "What is today’s date?",
            "What's half of 350?",
            "What is fifteen percent of eighty?",
            "Gas went from $1.52 a litre to $1.67 in two weeks. What's the percent increase?",
            "My rent went from 1200 to 1350. What's the percent increase?",
        ] {
            assert!(
                !asks_nothing_worked_out(the_question(worked), worked),
                "{worked}"
            );
        }
        assert!(tells_time_or_money("It's 3:42 PM."));
        assert!(tells_time_or_money("A stamp costs 73 cents."));
        assert!(tells_time_or_money("It is $5."));
        assert!(!tells_time_or_money("There are 7 continents."));
    }

    #[test]
    fn arithmetic_money_dates_and_word_problems_are_not() {
        for question in [
            "What is the square of 12?",
            "How much is 3 dozen eggs?",
            "How many dollars is 5 euros?",
            "What is 17 times 23?",
            "What's 3/4 as a percentage?",
            "I sleep 7 hours a night. How many hours is that in a week?",
            "If I save 50 dollars a week, how much will I have after a year?",
            "What day is it 10 days from now?",
            "How far is 5 miles in kilometers?",
            "How many days until 25 December?",
            "What is 15% on maybe?",
            "How many legs do 3 spiders have?",
            "How many days are in 3 weeks?",
            "How many days are in three weeks?",
            "What's 5 kilometers in miles?",
            "What's 5 factorial?",
            "Set a timer for 5 minutes.",
            "Who pays more than 40 in the group?",
            "who gets half of the 90",
        ] {
            assert!(!asks_about_a_number(question), "{question}");
        }
    }
}

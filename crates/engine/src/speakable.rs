//! What a voice can say. Answers are rewritten as people speak them:
//! numbers rounded to two decimals (three significant digits below one), ISO dates and times in words, markdown
//! marks and protocol labels dropped. [`problems`] says what in a text a
//! voice could not say well (the benchmark's check).
//!
//! The rewrite works word by word, so a [`Speaker`] that rewrites a stream
//! as it comes gives the same text as [`rewrite`] on the whole answer.

use super::sentences::{sentence_end, split_sentences};
use chrono::NaiveDate;
use loopd_tools::clock::{spoken_date, spoken_time};
use regex::Regex;
use std::sync::LazyLock;

/// Most sentences a spoken answer should have.
pub const MAX_SENTENCES: usize = 2;

/// Most words a spoken answer should have.
pub const MAX_WORDS: usize = 45;

static ISO_MOMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$",
    )
    .expect("a valid regex")
});

static CLOCK_WITH_SECONDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{1,2}):(\d{2}):\d{2}$").expect("a valid regex"));

static LONG_DECIMAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^-?(?:\d{1,3}(?:,\d{3})+|\d+)\.(?:\d{3,}|0+)$").expect("a valid regex")
});

/// An amount of money with one decimal (`$0.7`), said with two.
static MONEY_ONE_DECIMAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&loopd_tools::numbers::with_currencies(
        r"^[SIGNS]-?\d[\d,]*\.\d$",
    ))
    .expect("a valid regex")
});

static UNSAYABLE: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}:\d{2}|T\d{2}:\d{2}",
            "an ISO date or time",
        ),
        (r"[{}\[\]<>|`]|\*\*|__|(?m)^\s*#", "JSON or markup"),
        (r"\w_\w", "a code identifier"),
        (
            r"(?i)final[_ ]answer|\bthought:|\baction( input)?:|\bobservation:|tool_call",
            "protocol words",
        ),
        (
            r"(?:^|[^\d.])[1-9]\d*\.\d{3,}",
            "a number with more than two decimals",
        ),
        (r"\d[eE][+-]?\d", "a number in exponent notation"),
    ]
    .into_iter()
    .map(|(pattern, what)| (Regex::new(pattern).expect("a valid regex"), what))
    .collect()
});

/// The whole text as it should be spoken.
pub fn rewrite(text: &str) -> String {
    let mut speaker = Speaker::default();
    let mut out = speaker.push(text);
    out.push_str(&speaker.finish());
    out
}

/// Rewrites streamed text as it comes, holding back only the word not yet
/// finished.
#[derive(Debug)]
pub struct Speaker {
    pending: String,
    line_start: bool,
}

impl Default for Speaker {
    fn default() -> Self {
        Speaker {
            pending: String::new(),
            line_start: true,
        }
    }
}

impl Speaker {
    /// Takes new text; returns what is ready to say.
    pub fn push(&mut self, text: &str) -> String {
        self.pending.push_str(text);
        let Some(cut) = self.pending.rfind(char::is_whitespace) else {
            return String::new();
        };
        let cut = cut + self.pending[cut..].chars().next().map_or(1, char::len_utf8);
        let rest = self.pending.split_off(cut);
        let ready = std::mem::replace(&mut self.pending, rest);
        rewrite_words(&ready, &mut self.line_start)
    }

    /// The end of the text: the last word.
    pub fn finish(&mut self) -> String {
        rewrite_words(&std::mem::take(&mut self.pending), &mut self.line_start)
    }
}

/// Rewrites each whitespace-separated word, keeping the whitespace; a
/// markup mark, or a protocol label at the start of a line, is dropped with
/// the whitespace after it. `line_start` says whether the text starts a
/// line, and is left saying whether what follows does.
fn rewrite_words(text: &str, line_start: &mut bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, after) = rest.split_at(word_end);
        let space_end = after
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(after.len());
        let (space, next) = after.split_at(space_end);
        match rewrite_word(word, *line_start) {
            Some(said) => {
                out.push_str(&said);
                out.push_str(space);
                if !word.is_empty() {
                    *line_start = false;
                }
            }
            None if out.is_empty() => {}
            None => {
                if space.contains('\n') && !out.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        if space.contains('\n') {
            *line_start = true;
        }
        rest = next;
    }
    out
}

/// One word as it should be said; `None` drops it.
fn rewrite_word(word: &str, line_start: bool) -> Option<String> {
    if word.is_empty() {
        return Some(String::new());
    }
    if word == "*" && !line_start {
        return Some(word.to_string());
    }
    if word
        .chars()
        .all(|c| matches!(c, '*' | '`' | '#' | '-' | '•'))
        && (line_start || word.len() > 1)
    {
        return if word == "-" && !line_start {
            Some(word.to_string())
        } else {
            None
        };
    }
    let lead_end = word
        .find(|c: char| !matches!(c, '(' | '"' | '\'' | '*' | '`' | '_'))
        .unwrap_or(word.len());
    let (lead, rest) = word.split_at(lead_end);
    let core_len = rest
        .trim_end_matches(|c: char| {
            matches!(
                c,
                '.' | ',' | ';' | ':' | '!' | '?' | ')' | '"' | '\'' | '*' | '`' | '_'
            )
        })
        .len();
    let (core, tail) = rest.split_at(core_len);
    let lead: String = lead.chars().filter(|c| !matches!(c, '*' | '`')).collect();
    let tail: String = tail.chars().filter(|c| !matches!(c, '*' | '`')).collect();
    let lower = core.to_ascii_lowercase();
    let label = matches!(
        lower.as_str(),
        "final_answer" | "thought" | "observation" | "action"
    );
    if label && line_start && tail.starts_with(':') {
        return None;
    }
    let core = core.trim_matches('*');
    let said = said_core(core).unwrap_or_else(|| core.to_string());
    Some(format!("{lead}{said}{tail}"))
}

/// A date, a time, or a long decimal or whole number written with
/// decimals, in words; `None` when the word is none
/// of these.
fn said_core(core: &str) -> Option<String> {
    if let Some(found) = ISO_MOMENT.captures(core) {
        let number = |i: usize| found.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
        let date = NaiveDate::from_ymd_opt(number(1)? as i32, number(2)?, number(3)?)?;
        return Some(match (number(4), number(5)) {
            (Some(hour), Some(minute)) if hour < 24 && minute < 60 => {
                format!("{} on {}", spoken_time(hour, minute), spoken_date(date))
            }
            _ => spoken_date(date),
        });
    }
    if let Some(found) = CLOCK_WITH_SECONDS.captures(core) {
        return Some(format!("{}:{}", &found[1], &found[2]));
    }
    if MONEY_ONE_DECIMAL.is_match(core) {
        return Some(format!("{core}0"));
    }
    if LONG_DECIMAL.is_match(core) {
        let value: f64 = core.replace(',', "").parse().ok()?;
        return Some(round_as_said(value));
    }
    None
}

/// Whether `sentence` only repeats the question, or one of its sentences,
/// word for word (small models often start an answer by copying it), a
/// word or two it opens with aside ("sasa", "okay so").
pub fn echoes(sentence: &str, question: &str) -> bool {
    let said = plain_words(sentence);
    let repeats = |asked: &str| {
        let asked = plain_words(asked);
        let words: Vec<&str> = asked.split(' ').collect();
        (0..=OPENING_WORDS.min(words.len().saturating_sub(MIN_ECHO_WORDS)))
            .any(|skipped| words[skipped..].join(" ") == said)
    };
    !said.is_empty() && (repeats(question) || sentences_of(question).any(repeats))
}

/// Words a question may open with that an echo of it leaves out.
const OPENING_WORDS: usize = 2;

/// Fewest words an echo that leaves out the question's opening has.
const MIN_ECHO_WORDS: usize = 4;

/// `answer` without the sentences that only repeat the question; the
/// answer as it was when nothing else is left.
pub fn without_echo(answer: &str, question: &str) -> String {
    let kept: String = sentences_of(answer)
        .filter(|sentence| !echoes(sentence, question))
        .collect();
    if kept.trim().is_empty() {
        answer.to_string()
    } else {
        kept.trim_start().to_string()
    }
}

/// The sentences of `text`, each with the whitespace after it.
fn sentences_of(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = sentence_end(rest).unwrap_or(rest.len());
        let (sentence, after) = rest.split_at(end);
        rest = after;
        Some(sentence)
    })
}

/// The words of `text`, lowercase, without punctuation.
fn plain_words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A number as people say it: two decimals at most (more below one, so
/// it keeps three significant digits: 0.375), no trailing zeros.
pub fn round_as_said(value: f64) -> String {
    let magnitude = value.abs();
    let decimals = if magnitude >= 1.0 || magnitude == 0.0 {
        2
    } else {
        (3 - magnitude.log10().floor() as i32 - 1).clamp(2, 12) as usize
    };
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_string()
    } else {
        text.to_string()
    }
}

/// What in `text` a voice could not say well: empty for a speakable
/// answer of one or two sentences.
pub fn problems(text: &str) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return vec!["nothing to say".into()];
    }
    let mut found: Vec<String> = UNSAYABLE
        .iter()
        .filter(|(pattern, _)| pattern.is_match(text))
        .map(|(_, what)| what.to_string())
        .collect();
    let sentences = sentence_count(text);
    if sentences > MAX_SENTENCES {
        found.push(format!("{sentences} sentences"));
    }
    let words = text.split_whitespace().count();
    if words > MAX_WORDS {
        found.push(format!("{words} words"));
    }
    found
}

fn sentence_count(text: &str) -> usize {
    split_sentences(text)
        .iter()
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_that_repeats_the_question_loses_the_copy() {
        let question = "My test scores were 88, 92 and 79. What's my average?";
        assert_eq!(
            without_echo(
                "My test scores were 88, 92 and 79. What's my average? 86.33",
                question
            ),
            "86.33"
        );
        assert!(echoes("what's my average", question));
        assert!(!echoes("Your average is 86.33.", question));
        let opened = "sasa who is the kenyan guy who ran a marathon in under two hours in vienna";
        assert!(echoes(
            "Who is the Kenyan guy who ran a marathon in under two hours in Vienna?",
            opened
        ));
        assert!(!echoes("my average", "okay so what's my average"));
        assert_eq!(
            without_echo("What's my average?", question),
            "What's my average?"
        );
        assert_eq!(
            without_echo("It is 86.33. Well done.", question),
            "It is 86.33. Well done."
        );
    }

    #[test]
    fn long_decimals_are_rounded_as_people_say_them() {
        assert_eq!(rewrite("5 km is 3.10686 miles."), "5 km is 3.11 miles.");
        assert_eq!(
            rewrite("It is 1,234.5678 or 0.000123456"),
            "It is 1234.57 or 0.000123"
        );
        assert_eq!(round_as_said(0.375), "0.375");
        assert_eq!(round_as_said(0.12345), "0.123");
        assert_eq!(rewrite("Pi is 3.14, e is 2.718."), "Pi is 3.14, e is 2.72.");
        assert_eq!(
            rewrite("Version 1.2.345 and 2.500"),
            "Version 1.2.345 and 2.5"
        );
        assert_eq!(round_as_said(-0.0001), "-0.0001");
        assert_eq!(round_as_said(-0.001), "-0.001");
        assert_eq!(round_as_said(12.0), "12");
        assert_eq!(
            rewrite("7 cubed is 343.0, not 343.00."),
            "7 cubed is 343, not 343."
        );
        assert_eq!(rewrite("Paid 1,200.0 and 2.50"), "Paid 1200 and 2.50");
        assert_eq!(
            rewrite("Each soda costs $0.7, each egg €1.5."),
            "Each soda costs $0.70, each egg €1.50."
        );
    }

    #[test]
    fn iso_dates_and_times_are_said_in_words() {
        assert_eq!(
            rewrite("It is 2026-11-26T04:48:00+09:00."),
            "It is 4:48 in the morning on Thursday 26 November 2026."
        );
        assert_eq!(
            rewrite("Christmas is on 2026-12-25, a Friday."),
            "Christmas is on Friday 25 December 2026, a Friday."
        );
        assert_eq!(rewrite("It is 16:48:09 now"), "It is 16:48 now");
        assert_eq!(
            rewrite("Not a date: 2026-13-45."),
            "Not a date: 2026-13-45."
        );
    }

    #[test]
    fn markup_and_protocol_labels_are_dropped() {
        assert_eq!(rewrite("FINAL_ANSWER: It is **391**."), "It is 391.");
        assert_eq!(rewrite("The `answer` is **4** ##"), "The answer is 4 ");
        assert_eq!(rewrite("Thought: hmm"), "hmm");
        assert_eq!(rewrite("50 * 12 - 3 = 597"), "50 * 12 - 3 = 597");
        assert_eq!(rewrite("* one\n- two"), "one\ntwo");
        assert_eq!(rewrite("a thought: yes"), "a thought: yes");
    }

    #[test]
    fn streaming_gives_the_same_text_as_the_whole() {
        let text = "FINAL_ANSWER: 5 km is 3.10686 mi, on 2026-11-26T16:48:00Z. **Done**";
        for size in 1..8 {
            let mut speaker = Speaker::default();
            let chars: Vec<char> = text.chars().collect();
            let mut out = String::new();
            for piece in chars.chunks(size) {
                out.push_str(&speaker.push(&piece.iter().collect::<String>()));
            }
            out.push_str(&speaker.finish());
            assert_eq!(out, rewrite(text), "pieces of {size}");
        }
    }

    #[test]
    fn speakable_answers_have_no_problems() {
        for text in [
            "17 times 23 is 391.",
            "It is 4:48 in the morning in Tokyo, Thursday 26 November.",
            "There are 7 continents. Asia is the largest.",
            "5 km is about 3.11 miles.",
        ] {
            assert!(problems(text).is_empty(), "{text}: {:?}", problems(text));
        }
    }

    #[test]
    fn what_a_voice_cannot_say_is_named() {
        for (text, problem) in [
            ("It is 2026-11-26T04:48:00+09:00.", "an ISO date or time"),
            ("{\"result\": 391}", "JSON or markup"),
            ("It is **391**.", "JSON or markup"),
            ("Use current_time for that.", "a code identifier"),
            ("FINAL_ANSWER: 391", "protocol words"),
            (
                "It is 3.10686 miles.",
                "a number with more than two decimals",
            ),
            ("One. Two. Three.", "3 sentences"),
            ("", "nothing to say"),
        ] {
            assert!(
                problems(text).iter().any(|p| p == problem),
                "{text}: {:?}",
                problems(text)
            );
        }
        let long = "word ".repeat(60);
        assert_eq!(problems(&long), vec!["60 words".to_string()]);
    }
}

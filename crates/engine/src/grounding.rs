//! Grounded answers: a number in a final answer should come from the
//! conversation (the question, earlier turns) or from a tool's result, not
//! from the model's memory, which is where a small model's wrong sums,
//! times and day counts come from.
//!
//! [`Sources`] holds the numbers an answer may use; an engine that finds a
//! number in its answer that none of them gives sends the model back to
//! its tools once (the repair turn) and accepts the second answer, which
//! lets general knowledge through. A question of remembered fact that no
//! tool read and that asks nothing worked out ("How many continents are
//! there?") skips the repair turn: its answer's numbers stand
//! ([`super::Run::remembered`]). After a tool error an
//! ungrounded answer is not accepted: the user hears that the computation
//! failed instead of an invented number. [`Gate`] holds answer text back
//! sentence by sentence while it streams, so an ungrounded sentence is
//! never spoken before the engine has decided (a remembered fact's first
//! clause, which the engine does not send back, may go out sooner).

use super::parse::{number_words, numbers, WrittenNumber};
use super::react::{React, ReactConfig};
use super::sentences::{clause_end, sentence_end};
use super::speakable::echoes;
use super::{Engine, Finish, Halt, Run};
use loopd_brain::{Message, Role};

/// Most rounds of the ReAct loop that answers again when an engine's
/// answer was not grounded.
const RECHECK_ROUNDS: usize = 4;

/// What the user hears when a tool failed and the answer's numbers came
/// from nowhere.
const FAILED: &str = include_str!("prompts/grounding_failed.txt");

/// The answer that stands when the model, sent back once, answers again
/// with numbers no source gives: it as written (general knowledge) and
/// said now, or, when a tool had failed before (`tool_failed`), that it
/// could not be worked out.
pub fn accept(run: &mut Run, answer: String, tool_failed: bool) -> String {
    if tool_failed {
        let failed = FAILED.trim().to_string();
        run.say(&failed);
        return failed;
    }
    run.deliver(&answer);
    answer
}

/// An engine's final answer, grounded: said (if its call did not say it)
/// when its numbers come from the sources or there are no tools to check
/// them with; otherwise, or when the answer is a JSON value copied from a
/// tool instead of words, the ReAct loop answers the request again with
/// the tools, and its own repair turn lets general knowledge through.
pub async fn settle(
    run: &mut Run,
    conversation: &[Message],
    answer: String,
) -> Result<Finish, Halt> {
    if let Some(told) = run.misquoted_time(&answer) {
        run.say(&told);
        return Ok(Finish::answered(told));
    }
    let numbers = run.ungrounded(&answer);
    let data = is_data(&answer);
    let grounded = numbers.is_empty() || run.remembered(&answer, &numbers);
    if (grounded && !data) || run.tools().is_empty() {
        run.deliver(&answer);
        return Ok(Finish::answered(answer));
    }
    if data {
        run.format_error("an answer that is JSON, not words");
    } else {
        run.ungrounded_answer(&numbers);
    }
    let recheck = React::new(ReactConfig {
        max_iterations: RECHECK_ROUNDS,
        ..ReactConfig::default()
    })
    .map_err(|e| Halt::new(super::Termination::Error, e))?;
    recheck.run(run, conversation).await
}

/// Whether `answer` is a JSON object or array rather than words.
fn is_data(answer: &str) -> bool {
    let answer = answer.trim();
    (answer.starts_with('{') || answer.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(answer).is_ok()
}

/// Names of days and months: a date said in words needs a source too.
const DATE_NAMES: [&str; 19] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "may",
];

/// The made-up company of the ReAct prompt's example ("ACME shares
/// cost 12.50"): a small model sometimes answers with the example instead
/// of the question.
const EXAMPLE_NAME: &str = "acme";

/// Whether `text` names the prompt's example ([`EXAMPLE_NAME`]).
pub fn names_the_example(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|word| word.eq_ignore_ascii_case(EXAMPLE_NAME))
}

/// Numbers everyone knows, which need no source: small counts, powers of
/// ten, and the calendar's and the clock's own (days in a week, hours in a
/// day, …).
const KNOWN: [f64; 16] = [
    0.0, 1.0, 2.0, 3.0, 4.0, 7.0, 10.0, 12.0, 24.0, 30.0, 52.0, 60.0, 100.0, 365.0, 1000.0, 0.5,
];

/// The numbers, and the names of days and months, an answer may use.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    values: Vec<f64>,
    written: Vec<String>,
    names: Vec<&'static str>,
    /// The times of day the sources tell, in minutes after midnight (a time
    /// without a half of the day, `12:41`, as either).
    times: Vec<u32>,
    /// The numbers of the latest tool result, which an answer with numbers
    /// should use.
    latest: Vec<WrittenNumber>,
    /// The latest tool result's own sentence (its string `answer`).
    latest_said: Option<String>,
    /// The user's latest two turns, the newest first: the question, whose
    /// sentences an answer should not repeat, and the turns a change made
    /// in the model's words must have been asked for in.
    requests: Vec<String>,
}

impl Sources {
    /// The numbers of the conversation's user and assistant turns (the
    /// persona's system prompt is not a source).
    pub fn of_conversation(conversation: &[Message]) -> Sources {
        let mut sources = Sources::default();
        for message in conversation.iter().filter(|m| m.role != Role::System) {
            sources.add(&message.content);
        }
        let asked = conversation.iter().rev().filter(|m| m.role == Role::User);
        sources.requests = asked.take(2).map(|m| m.content.clone()).collect();
        sources
    }

    /// The user's latest two turns, the newest first.
    pub fn requests(&self) -> &[String] {
        &self.requests
    }

    /// Adds the numbers (in digits or words) and date names of `text`.
    pub fn add(&mut self, text: &str) {
        for number in numbers(text) {
            self.values.push(number.value.abs());
            self.write(said(WrittenNumber {
                value: number.value.abs(),
                ..number
            }));
            self.write_value(number.value.abs());
        }
        for value in number_words(text) {
            self.values.push(value);
            self.write_value(value);
        }
        let in_digits =
            |text: &str| loopd_tools::numbers::with_parts(&loopd_tools::numbers::in_digits(text));
        let priced = loopd_tools::numbers::prices_in_digits(text);
        let mut readings = vec![in_digits(text)];
        if priced != text {
            readings.push(in_digits(&priced));
        }
        for said_in_words in readings.into_iter().filter(|said| said != text) {
            for number in numbers(&said_in_words) {
                let value = number.value.abs();
                if !self.values.contains(&value) {
                    self.values.push(value);
                    self.write_value(value);
                }
            }
        }
        for name in date_names(text) {
            if !self.names.contains(&name) {
                self.names.push(name);
            }
        }
        for told in times_of_day(text) {
            let either_half = told.minutes % HALF_DAY;
            let readings = if told.half_said || told.minutes >= HALF_DAY || told.leading_zero {
                vec![told.minutes]
            } else {
                vec![either_half, either_half + HALF_DAY]
            };
            for minutes in readings {
                if !self.times.contains(&minutes) {
                    self.times.push(minutes);
                }
            }
        }
    }

    /// Whether no source gives any number (nothing to compute with).
    pub fn gives_no_numbers(&self) -> bool {
        self.values.is_empty()
    }

    /// Adds a tool's result: a source, and the result the answer should
    /// now give.
    pub fn add_result(&mut self, text: &str) {
        self.add(text);
        self.latest = numbers(text);
        self.latest_said = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|result| Some(result.get("answer")?.as_str()?.trim().to_string()))
            .filter(|said| !said.is_empty());
    }

    /// The latest tool result's own sentence, when what `answer` gets
    /// wrong is only the half of the day of a time the sources tell
    /// ("12:41 PM" for the clock's "12:41 at night"): the model misquoted
    /// the tool, whose words are said instead.
    pub fn misquoted_time(&self, answer: &str) -> Option<String> {
        let missing = self.ungrounded(answer);
        let times: Vec<String> = times_of_day(answer)
            .into_iter()
            .filter(|told| told.half_said && !self.times.contains(&told.minutes))
            .map(|told| told.written)
            .collect();
        let misquoted = !times.is_empty() && missing.iter().all(|m| times.contains(m));
        misquoted.then(|| self.latest_said.clone()).flatten()
    }

    /// The latest tool result's numbers (as written there, three at most)
    /// when `answer` has numbers, in digits or words, but none of them:
    /// the model computed something and then answered with other numbers
    /// of the question ("I have 20 dollars left" after `20 - 7.25` gave
    /// 12.75, "You gave her a fifty" after `50 - 23.65`).
    pub fn leaves_out_result(&self, answer: &str) -> Option<Vec<String>> {
        let written = numbers(&loopd_tools::numbers::in_digits(answer));
        if written.is_empty() || self.latest.is_empty() {
            return None;
        }
        let latest = Sources {
            values: self.latest.iter().map(|n| n.value.abs()).collect(),
            ..Sources::default()
        };
        if written.into_iter().any(|n| latest.gives(n)) {
            return None;
        }
        Some(self.latest_result())
    }

    /// The latest tool result's numbers as an answer would say them (at
    /// most three; none before a tool has given one).
    pub fn latest_result(&self) -> Vec<String> {
        let mut said_numbers: Vec<String> = Vec::new();
        for number in &self.latest {
            let form = said(*number);
            if !said_numbers.contains(&form) && said_numbers.len() < 3 {
                said_numbers.push(form);
            }
        }
        said_numbers
    }

    /// Whether a spoken sentence may go out now: its numbers grounded,
    /// using the latest result if it has numbers at all, and not the
    /// prompt's example.
    fn lets_out(&self, sentence: &str) -> bool {
        let copied = names_the_example(sentence)
            && !self.requests.iter().any(|asked| names_the_example(asked));
        !copied
            && self.ungrounded(sentence).is_empty()
            && self.leaves_out_result(sentence).is_none()
    }

    /// The numbers of `answer` no source gives, as written there (a number
    /// rounded from a source's, to the decimals it is written with, counts
    /// as given), then the names of days and months no source gives.
    pub fn ungrounded(&self, answer: &str) -> Vec<String> {
        let mut missing: Vec<String> = Vec::new();
        for number in numbers(answer) {
            if !self.gives(number) {
                let written = said(number);
                if !missing.contains(&written) {
                    missing.push(written);
                }
            }
        }
        for name in date_names(answer) {
            let written = capitalized(name);
            if !self.names.contains(&name) && !missing.contains(&written) {
                missing.push(written);
            }
        }
        if !self.times.is_empty() {
            for told in times_of_day(answer) {
                if told.half_said
                    && !self.times.contains(&told.minutes)
                    && !missing.contains(&told.written)
                {
                    missing.push(told.written);
                }
            }
        }
        missing
    }

    /// Every number a tool's input may hold, as it may be written: the
    /// sources' numbers as written and plainly (`4.50`, `4.5`), a whole
    /// number up to 100 also as a fraction of 100 (`15` as `0.15`), and,
    /// when the sources hold numbers at all, the numbers everyone knows. A
    /// question without numbers gives a calculator nothing to start from.
    pub fn allowed_numbers(&self) -> Vec<String> {
        let mut allowed = self.written.clone();
        if allowed.is_empty() {
            return allowed;
        }
        for known in KNOWN {
            let plain = known.to_string();
            if !allowed.contains(&plain) {
                allowed.push(plain);
            }
        }
        allowed
    }

    fn write_value(&mut self, value: f64) {
        self.write(value.to_string());
        if value.fract() == 0.0 && (1.0..=100.0).contains(&value) {
            self.write((value / 100.0).to_string());
        }
    }

    fn write(&mut self, form: String) {
        if !self.written.contains(&form) {
            self.written.push(form);
        }
    }

    /// The numbers of a tool call's arguments no source gives, numbers
    /// everyone knows aside: a computation must start from what the user
    /// said or a tool found, so a model cannot pass its own guess to a tool
    /// and get it back as a result.
    pub fn ungrounded_input(&self, arguments: &str) -> Vec<String> {
        self.unsourced(arguments, &KNOWN)
    }

    /// The numbers of the arguments of a call that would change something
    /// (a timer set or cancelled) no source gives, the numbers everyone
    /// knows included: what is set must be what was asked for, not a
    /// number the model took from a tool's description.
    pub fn ungrounded_change(&self, arguments: &str) -> Vec<String> {
        self.unsourced(arguments, &[])
    }

    fn unsourced(&self, arguments: &str, known: &[f64]) -> Vec<String> {
        let mut missing: Vec<String> = Vec::new();
        for number in numbers(arguments) {
            let known = known.contains(&number.value.abs());
            if !known && !self.gives(number) {
                let written = said(number);
                if !missing.contains(&written) {
                    missing.push(written);
                }
            }
        }
        missing
    }

    /// Whether a source gives `number`: the same, rounded to the decimals
    /// it is written with, or the same as a percentage (15 and 0.15; not
    /// 1680 said as 16.80).
    fn gives(&self, number: WrittenNumber) -> bool {
        let exponent = i32::try_from(number.decimals).unwrap_or(i32::MAX);
        let half_step = 0.5 * 10f64.powi(-exponent);
        let value = number.value.abs();
        let close = |a: f64, b: f64, step: f64| (a - b).abs() <= step + 1e-9 * b.max(1.0);
        self.values.iter().any(|&source| {
            close(value, source, half_step)
                || (number.decimals > 0
                    && value < 1.0
                    && close(value * 100.0, source, half_step * 100.0))
                || close(value, source * 100.0, half_step)
        })
    }
}

/// The names of days and months in `text`, as whole words in any case
/// (`May` only capitalized: "may" is a verb too).
fn date_names(text: &str) -> Vec<&'static str> {
    text.split(|c: char| !c.is_alphabetic())
        .filter_map(|word| {
            let lower = word.to_lowercase();
            let name = DATE_NAMES.iter().find(|name| **name == lower)?;
            (*name != "may" || word == "May").then_some(*name)
        })
        .collect()
}

/// Minutes in half a day.
const HALF_DAY: u32 = 12 * 60;

/// A time of day a text tells, with digits: `00:41`, `7:30`, `3 pm`,
/// `12:41 at night`.
struct TimeOfDay {
    /// Minutes after midnight, the hour taken as written when no half of
    /// the day was said.
    minutes: u32,
    /// Whether a half of the day was said (`pm`, `in the morning`).
    half_said: bool,
    /// Whether the hour was written with a leading zero (`00:41`,
    /// `02:15`): a 24-hour clock's.
    leading_zero: bool,
    /// The words that told it.
    written: String,
}

/// The times of day `text` tells with digits: an hour and minutes, or an
/// hour with its half of the day (a bare number is not a time).
fn times_of_day(text: &str) -> Vec<TimeOfDay> {
    use loopd_tools::clock_time::{ClockTime, Minutes};
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == ':' || c == '.'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut told = Vec::new();
    let mut at = 0;
    while at < words.len() {
        let read = words[at]
            .starts_with(|c: char| c.is_ascii_digit())
            .then(|| ClockTime::read(&words[at..]))
            .flatten()
            .filter(|t| t.half.is_some() || t.minutes == Some(Minutes::Joined));
        let Some((time, hours)) = read.and_then(|t| Some((t, t.hours()?))) else {
            at += 1;
            continue;
        };
        told.push(TimeOfDay {
            minutes: (hours * 60.0).round() as u32,
            half_said: time.half.is_some(),
            leading_zero: words[at].starts_with('0'),
            written: words[at..at + time.words].join(" "),
        });
        at += time.words.max(1);
    }
    told
}

fn capitalized(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn said(number: WrittenNumber) -> String {
    format!("{:.*}", number.decimals, number.value)
}

/// Holds streamed answer text back a sentence at a time and lets a sentence
/// out only when its numbers are grounded; after the first ungrounded
/// sentence it holds everything until the engine releases it or the call's
/// text is dropped. For a question of remembered fact, whose answer is not
/// sent back for its numbers ([`super::Run::remembered`]), a call's first
/// clause without numbers or dates ("The sky is blue" before "because")
/// goes out before its sentence ends, so a voice can start on it; the rest
/// of the sentence is checked as one.
#[derive(Debug, Default)]
pub struct Gate {
    pending: String,
    held: String,
    /// Holds every sentence until released: the answer may still be
    /// replaced ([`settle`]).
    hold_all: bool,
    /// Some of this call's text went out.
    let_out: bool,
    /// A first clause may go out before its sentence ends.
    first_clause: bool,
}

impl Gate {
    /// From now on lets a call's first clause out before its sentence ends
    /// (when it has no numbers or dates and is not the question said back).
    pub fn let_first_clause_out(&mut self) {
        self.first_clause = true;
    }

    /// From now on holds every sentence until [`Gate::release`].
    pub fn hold_all(&mut self) {
        self.hold_all = true;
    }

    /// Takes new answer text; returns what may be said now.
    pub fn push(&mut self, text: &str, sources: &Sources) -> String {
        self.pending.push_str(text);
        let mut ready = String::new();
        while self.held.is_empty() {
            let Some(end) = sentence_end(&self.pending) else {
                break;
            };
            let rest = self.pending.split_off(end);
            let sentence = std::mem::replace(&mut self.pending, rest);
            let question = sources.requests.first().map_or("", String::as_str);
            if echoes(&sentence, question) {
                self.pending = self.pending.trim_start().to_string();
                continue;
            }
            if sources.lets_out(&sentence) && !self.hold_all {
                ready.push_str(&sentence);
            } else {
                self.held = sentence;
            }
        }
        if !self.held.is_empty() {
            self.held.push_str(&std::mem::take(&mut self.pending));
        } else if ready.is_empty() && !self.let_out && !self.hold_all && self.first_clause {
            ready = self.first_clause(sources);
        }
        self.let_out |= !ready.is_empty();
        ready
    }

    /// The pending text's first clause, taken, when it can go out before
    /// its sentence ends: no numbers or dates, grounded, not the question.
    fn first_clause(&mut self, sources: &Sources) -> String {
        let Some(end) = clause_end(&self.pending) else {
            return String::new();
        };
        let clause = &self.pending[..end];
        let question = sources.requests.first().map_or("", String::as_str);
        let plain = numbers(clause).is_empty()
            && number_words(clause).is_empty()
            && date_names(clause).is_empty()
            && sources.lets_out(clause)
            && !echoes(clause, question);
        if !plain {
            return String::new();
        }
        let rest = self.pending.split_off(end);
        std::mem::replace(&mut self.pending, rest)
    }

    /// The end of a call's text: the last sentence, if grounded.
    pub fn finish(&mut self, sources: &Sources) -> String {
        let rest = std::mem::take(&mut self.pending);
        if self.hold_all || !self.held.is_empty() || !sources.lets_out(&rest) {
            self.held.push_str(&rest);
            return String::new();
        }
        rest
    }

    /// The text held back, handed over (to be said after all) and forgotten.
    pub fn release(&mut self) -> String {
        self.pending.clear();
        std::mem::take(&mut self.held)
    }

    /// Forgets what is held (a new call starts).
    pub fn clear(&mut self) {
        self.pending.clear();
        self.held.clear();
        self.let_out = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_value_is_data_not_an_answer() {
        assert!(is_data("{\"expression\": \"3 * 4.50\"}"));
        assert!(is_data(" [1, 2] "));
        assert!(!is_data("You pay 13.50."));
        assert!(!is_data("{not json"));
    }

    fn sources(texts: &[&str]) -> Sources {
        let mut sources = Sources::default();
        texts.iter().for_each(|t| sources.add(t));
        sources
    }

    #[test]
    fn an_ungrounded_number_is_named() {
        let question = sources(&["What is 17 times 23?"]);
        assert_eq!(question.ungrounded("17 times 23 is 411."), vec!["411"]);
        let with_tool = sources(&["What is 17 times 23?", "{\"result\": 391}"]);
        assert!(with_tool.ungrounded("17 times 23 is 391.").is_empty());
        let fares = sources(&["Fares are 120. How much from 14?", "{\"result\": 1680}"]);
        assert_eq!(fares.ungrounded("You collect $16.80."), vec!["16.80"]);
        let rate = sources(&["What is 15% of 80?"]);
        assert!(rate.ungrounded("15 percent is 0.15 of it.").is_empty());
    }

    #[test]
    fn the_prompts_example_is_not_let_out() {
        let mut asked = sources(&[
            "How many grams is a stick of butter?",
            "{\"result\": 113.4}",
        ]);
        asked.requests = vec!["And two sticks?".into()];
        assert!(!asked.lets_out("ACME share cost 113.4 grams."));
        assert!(asked.lets_out("A stick is 113.4 grams."));
        asked.requests = vec!["What do ACME shares cost?".into()];
        assert!(asked.lets_out("ACME share cost 113.4 grams."));
    }

    #[test]
    fn prices_read_out_are_sources() {
        let question = sources(&["i worked 8 hours at seventeen twenty an hour"]);
        assert!(question
            .ungrounded_input("{\"expression\": \"8 * 17.20\"}")
            .is_empty());
    }

    #[test]
    fn numbers_said_in_words_are_sources() {
        let question = sources(&["the oven at two hundred and thirty celsius"]);
        assert!(question
            .ungrounded_input("{\"expression\": \"230 * 2\"}")
            .is_empty());
        assert!(question.ungrounded("230 it is.").is_empty());
        let parts = sources(&["And two and a half sticks?"]);
        assert!(parts
            .ungrounded_input("{\"expression\": \"2.5 sticks\"}")
            .is_empty());
    }

    #[test]
    fn rounded_and_regrouped_numbers_are_grounded() {
        let tool = sources(&["{\"conversion\": \"5 km = 3.10686 mi\", \"result\": 3.10686}"]);
        assert!(tool.ungrounded("5 km is about 3.11 miles.").is_empty());
        assert!(tool.ungrounded("5 km is about 3.1 miles.").is_empty());
        assert!(tool.ungrounded("5 km is about 3 miles.").is_empty());
        assert_eq!(tool.ungrounded("5 km is 3.2 miles."), vec!["3.2"]);
        let big = sources(&["{\"result\": 2183082}"]);
        assert!(big.ungrounded("It is 2,183,082.").is_empty());
        let negative = sources(&["{\"result\": -33}"]);
        assert!(negative.ungrounded("It is minus 33.").is_empty());
    }

    #[test]
    fn times_and_dates_from_the_clock_are_grounded() {
        let clock = sources(&[
            "{\"spoken\": \"4:48 in the morning, Thursday 26 November 2026\", \"time\": \"04:48\"}",
        ]);
        assert!(clock
            .ungrounded("It is 4:48 in the morning on 26 November 2026.")
            .is_empty());
        assert_eq!(clock.ungrounded("It is 4:19 PM."), vec!["19", "4:19 pm"]);
    }

    #[test]
    fn days_and_months_need_a_source_too() {
        let clock = sources(&["{\"weekday\": \"Wednesday\", \"date\": \"2026-11-25\"}"]);
        assert!(clock.ungrounded("Today is Wednesday.").is_empty());
        assert_eq!(clock.ungrounded("Today is Monday."), vec!["Monday"]);
        assert_eq!(clock.ungrounded("It is November."), vec!["November"]);
        assert!(clock.ungrounded("You may ask again.").is_empty());
        let question = sources(&["How many days until March 1?"]);
        assert!(
            question
                .ungrounded("There are 96 days until March 1.")
                .len()
                == 1
        );
    }

    #[test]
    fn a_time_told_in_the_wrong_half_of_the_day_is_not_grounded() {
        let mut clock = sources(&["what does the clock say in tokyo right now"]);
        clock.add_result(
            "{\"answer\":\"It is 12:41 at night in Tokyo, Tuesday 8 December.\",\"time\":\"00:41\"}",
        );
        assert_eq!(
            clock.ungrounded("The time in Tokyo is 12:41 PM."),
            vec!["12:41 pm"]
        );
        assert!(clock.ungrounded("It is 12:41 AM in Tokyo.").is_empty());
        assert!(clock.ungrounded("It's 12:41 at night in Tokyo.").is_empty());
        assert!(clock.ungrounded("It is 12:41 in Tokyo.").is_empty());
        assert_eq!(
            clock
                .misquoted_time("The time in Tokyo is 12:41 PM.")
                .as_deref(),
            Some("It is 12:41 at night in Tokyo, Tuesday 8 December.")
        );
        assert_eq!(clock.misquoted_time("It is 12:41 AM in Tokyo."), None);
        assert_eq!(
            clock.misquoted_time("It is 3:41 PM in Tokyo."),
            None,
            "a number of its own"
        );

        let mut evening = sources(&["What time is it in Lagos?"]);
        evening.add_result("{\"answer\":\"It is 7:05 in the evening.\",\"time\":\"19:05\"}");
        assert!(evening.ungrounded("It is 7:05 pm in Lagos.").is_empty());
        assert_eq!(
            evening.ungrounded("It is 7:05 am in Lagos."),
            vec!["7:05 am"]
        );

        let no_times = sources(&["The shop opens at 3. What is 3 times 4?"]);
        assert!(no_times.ungrounded("It opens at 3 pm.").is_empty());
    }

    #[test]
    fn a_tool_input_must_come_from_the_question() {
        let question = sources(&["What is fifteen percent of 80?"]);
        assert!(question
            .ungrounded_input("{\"expression\": \"15% of 80\"}")
            .is_empty());
        assert!(question
            .ungrounded_input("{\"expression\": \"0.15 * 80\"}")
            .is_empty());
        assert_eq!(
            question.ungrounded_input("{\"expression\": \"12.50\"}"),
            vec!["12.50"]
        );
        assert!(question
            .ungrounded_input("{\"expression\": \"80 / 2 * 24\"}")
            .is_empty());
        let half = sources(&["What is three quarters of 200?"]);
        assert!(
            half.ungrounded_input("{\"expression\": \"0.75 * 200\"}")
                .len()
                == 1
        );
        assert!(half
            .ungrounded_input("{\"expression\": \"3 / 4 * 200\"}")
            .is_empty());
    }

    #[test]
    fn the_numbers_a_tool_input_may_hold() {
        let allowed = sources(&["A meal costs 4.50 and fifteen percent more"]).allowed_numbers();
        for form in ["4.50", "4.5", "15", "0.15", "0", "1", "100", "365", "0.5"] {
            assert!(allowed.contains(&form.to_string()), "{form}: {allowed:?}");
        }
        assert!(!allowed.contains(&"401".to_string()));
        assert!(sources(&["How many continents are there?"])
            .allowed_numbers()
            .is_empty());
    }

    #[test]
    fn an_answer_with_numbers_must_give_the_latest_result() {
        let mut sources = sources(&["I have 20 dollars and spend 7.25. How much is left?"]);
        sources.add_result("{\"result\":12.75}");
        assert_eq!(
            sources.leaves_out_result("I have 20 dollars left."),
            Some(vec!["12.75".to_string()])
        );
        assert_eq!(
            sources.leaves_out_result("You have 12.75 dollars left."),
            None
        );
        assert_eq!(sources.leaves_out_result("About 12.8 dollars."), None);
        assert_eq!(sources.leaves_out_result("Not much is left."), None);
        assert_eq!(Sources::default().leaves_out_result("It is 20."), None);
    }

    #[test]
    fn the_gate_holds_a_sentence_without_the_result_and_drops_an_echo() {
        let conversation = [Message::user(
            "I spend 7.25 of 20 dollars. How much is left?",
        )];
        let mut sources = Sources::of_conversation(&conversation);
        sources.add_result("{\"result\":12.75}");
        let mut gate = Gate::default();
        let said = gate.push("I spend 7.25 of 20 dollars. How much is left? ", &sources);
        assert_eq!(said, "");
        assert_eq!(gate.push("You have 20 dollars. ", &sources), "");
        assert_eq!(gate.finish(&sources), "");
        assert_eq!(gate.release(), "You have 20 dollars. ");
        gate.clear();
        assert_eq!(
            gate.push("12.75 dollars are left. ", &sources),
            "12.75 dollars are left."
        );
    }

    #[test]
    fn a_first_clause_without_numbers_goes_out_before_its_sentence_ends() {
        let sources = Sources::of_conversation(&[Message::user("Why is the sky blue?")]);
        let mut gate = Gate::default();
        assert_eq!(gate.push("The sky is blue because of", &sources), "");
        gate.clear();
        gate.let_first_clause_out();
        assert_eq!(gate.push("The sky is blue because", &sources), "");
        assert_eq!(gate.push(" of", &sources), "The sky is blue ");
        assert_eq!(gate.push(" scattering, which is", &sources), "");
        assert_eq!(
            gate.push(" why. Next", &sources),
            "because of scattering, which is why."
        );
        gate.clear();
        assert_eq!(gate.push("There are 7 continents, but", &sources), "");
        assert_eq!(gate.push(" some ", &sources), "", "a number: held");
        gate.clear();
        assert_eq!(gate.push("There are seven continents, but ", &sources), "");
        gate.clear();
        let asked = Sources::of_conversation(&[Message::user("Why is the sky so very blue?")]);
        let echo = "Why is the sky so very blue, you";
        assert_eq!(gate.push(echo, &asked), "", "the question said back");
    }

    #[test]
    fn knowledge_without_numbers_passes() {
        assert!(Sources::default()
            .ungrounded("The capital of France is Paris.")
            .is_empty());
        assert_eq!(
            Sources::default().ungrounded("There are 7 continents."),
            vec!["7"]
        );
    }

    #[test]
    fn the_conversation_is_a_source_but_the_system_prompt_is_not() {
        let conversation = [
            Message::system("Answer in 2 sentences."),
            Message::user("What's 9 times 8?"),
            Message::assistant("9 times 8 is 72."),
            Message::user("Now add 28 to that."),
        ];
        let sources = Sources::of_conversation(&conversation);
        assert!(sources.ungrounded("72 plus 28").is_empty());
        assert_eq!(
            sources.ungrounded("It is 100, in 2 words."),
            vec!["100", "2"]
        );
    }

    #[test]
    fn the_gate_lets_grounded_sentences_out_and_holds_the_rest() {
        let sources = sources(&["{\"result\": 391}"]);
        let mut gate = Gate::default();
        let mut said = String::new();
        for piece in ["It is ", "391. ", "That is ", "412 more", ". Bye."] {
            said.push_str(&gate.push(piece, &sources));
        }
        said.push_str(&gate.finish(&sources));
        assert_eq!(said, "It is 391.");
        assert_eq!(gate.release(), " That is 412 more. Bye.");
        assert_eq!(gate.release(), "");

        let mut gate = Gate::default();
        assert_eq!(gate.push("It is 391", &sources), "");
        assert_eq!(gate.finish(&sources), "It is 391");
        assert_eq!(gate.push("It is 4", &sources), "");
        assert_eq!(gate.finish(&sources), "");
        gate.clear();
        assert_eq!(gate.release(), "");
    }
}

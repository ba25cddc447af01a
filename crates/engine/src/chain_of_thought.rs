//! Chain-of-Thought (seed 000): one call, reasoning step by step, then
//! `FINAL ANSWER:`.
//!
//! The steps stream on the thought channel and the text after the marker on
//! the answer channel. A reply cut off by the token limit before the marker
//! is asked once more for just the answer; any other reply without the
//! marker is a format error, and the whole reply is then the answer. Tools
//! are not offered.

use super::parse::{self, FINAL_ANSWER};
use super::protocol;
use super::{with_system, CallOptions, Engine, EngineFuture, Finish, Halt, Route, Run};
use loopd_brain::{EndReason, Message};
use serde::{Deserialize, Serialize};

const SYSTEM: &str = include_str!("prompts/cot_system.txt");
const FINAL: &str = include_str!("prompts/cot_final.txt");
/// A worked problem shown as an earlier turn: the question, `---`, the reply.
const EXAMPLE: &str = include_str!("prompts/cot_example.txt");
/// The same, for a problem the user tells about themselves ("I earn …"):
/// its steps and answer speak to the user as "you".
const EXAMPLE_YOU: &str = include_str!("prompts/cot_example_you.txt");

/// Chain-of-Thought settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChainOfThoughtConfig {
    /// Added to the end of the system prompt (e.g. "Answer in one word.").
    pub extra_prompt: String,
}

/// The Chain-of-Thought engine.
#[derive(Debug, Clone)]
pub struct ChainOfThought {
    system: String,
}

impl ChainOfThought {
    /// A Chain-of-Thought engine.
    pub fn new(config: ChainOfThoughtConfig) -> Result<Self, String> {
        let extra = config.extra_prompt.trim();
        let system = if extra.is_empty() {
            SYSTEM.trim_end().to_string()
        } else {
            format!("{}\n{extra}", SYSTEM.trim_end())
        };
        Ok(ChainOfThought { system })
    }
}

impl Engine for ChainOfThought {
    fn id(&self) -> &'static str {
        "chain-of-thought"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.think(run, conversation))
    }
}

impl ChainOfThought {
    async fn think(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        run.turn()?;
        let messages = with_example(with_system(conversation, &self.system));
        let reply = run
            .generate(
                "chain-of-thought",
                messages.clone(),
                CallOptions {
                    grammar: Some(protocol::chain_of_thought::grammar_for_reply()),
                    ..CallOptions::default()
                },
                Route::AnswerAfter(FINAL_ANSWER),
            )
            .await?;
        let answer = match parse::after_marker(&reply.text, FINAL_ANSWER) {
            Some(answer) if !answer.is_empty() => answer,
            Some(_) => {
                run.format_error("FINAL ANSWER with nothing after it");
                speak_raw(run, &text_before_marker(&reply.text))
            }
            None if reply.end == EndReason::MaxTokens => {
                final_answer(run, messages, &reply.text).await?
            }
            None => {
                run.format_error("no FINAL ANSWER line");
                speak_raw(run, &reply.text)
            }
        };
        Ok(Finish::answered(answer))
    }
}

/// The conversation as chain-of-thought asks it, with no extra prompt:
/// the system prompt, then the worked example.
pub(super) fn messages(conversation: &[Message]) -> Vec<Message> {
    with_example(with_system(conversation, SYSTEM.trim_end()))
}

/// The conversation with the worked example as a first exchange after the
/// system prompt.
fn with_example(mut messages: Vec<Message>) -> Vec<Message> {
    let example = match about_the_user(super::question(&messages)) {
        true => EXAMPLE_YOU,
        false => EXAMPLE,
    };
    if let Some((question, reply)) = example.split_once("\n---\n") {
        messages.splice(
            1..1,
            [
                Message::user(question.trim()),
                Message::assistant(reply.trim()),
            ],
        );
    }
    messages
}

/// Whether `question` tells of the one asking: "I", "my", "me", "we",
/// "our", "us".
fn about_the_user(question: &str) -> bool {
    question.split(|c: char| !c.is_alphabetic()).any(|w| {
        matches!(
            w.to_lowercase().as_str(),
            "i" | "my" | "me" | "we" | "our" | "us"
        )
    })
}

/// After a reply the token limit cut off: the answer alone, on one line.
pub(super) async fn final_answer(
    run: &mut Run,
    mut messages: Vec<Message>,
    steps: &str,
) -> Result<String, Halt> {
    messages.push(Message::assistant(steps.trim_end()));
    messages.push(Message::user(FINAL.trim_end()));
    let call = CallOptions {
        prefix: "FINAL ANSWER:".into(),
        grammar: Some(protocol::react::answer_grammar()),
        ..CallOptions::default()
    };
    let reply = run
        .generate(
            "chain-of-thought-final",
            messages,
            call,
            Route::AnswerAfter(FINAL_ANSWER),
        )
        .await?;
    Ok(parse::after_marker(&reply.text, FINAL_ANSWER).unwrap_or_default())
}

/// The reply without its empty final-answer marker: the steps are all there is.
fn text_before_marker(text: &str) -> String {
    match parse::find_marker(text, FINAL_ANSWER) {
        Some((start, _)) => text[..start].to_string(),
        None => text.to_string(),
    }
}

/// Speaks text that went to the thought channel and returns it as the answer.
fn speak_raw(run: &mut Run, text: &str) -> String {
    let answer = text.trim().to_string();
    run.say(&answer);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_speaks_as_the_problem_does() {
        let example = |question: &str| {
            with_example(vec![Message::user(question)])[1]
                .content
                .clone()
        };
        assert!(
            example("I have 24 cookies and give away 9. How many are left?").starts_with("I bake")
        );
        assert!(
            example("A car travels 180 miles in 3 hours. What is its speed?")
                .starts_with("A baker")
        );
    }
}

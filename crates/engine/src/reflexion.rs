//! Reflexion (seed 000): ReAct episodes, each judged by an evaluator; a
//! failed episode leaves a verbal reflection for the next one.
//!
//! Each episode runs the ReAct engine on the same run, with the reflections
//! so far added to the system message. Its answer is not final until the
//! evaluator (a second call on the conversation plus the answer) says
//! SATISFACTORY, so the episode runs with speaking off and the accepted
//! answer is spoken once, at the end. An evaluator reply with no clear
//! verdict (neither word, or both) is a format error and counts as
//! accepted: it vetoes nothing, and a reflection written against no stated
//! problem would steer the next (costly) episode at random. UNSATISFACTORY
//! before the last episode asks the reflector for a short lesson. When every
//! episode fails, the last answer is returned as a best effort with
//! termination `max_turns`.
//!
//! A question that a tool reads as asked, or that no tool can help with,
//! is answered before any episode ([`super::react::answer_first`]).
//!
//! Turns: one per episode, plus the inner ReAct's own.

use super::parse;
use super::protocol;
use super::protocol::verdict::{verdict, Verdict};
use super::react::{answer_first, React, ReactConfig};
use super::{fill, with_system, CallOptions, Engine, EngineFuture, Finish, Halt, LoopEvent};
use super::{Route, Run, Termination};
use loopd_brain::Message;
use serde::{Deserialize, Serialize};

const LESSONS: &str = include_str!("prompts/reflexion_lessons.txt");
const EVALUATE: &str = include_str!("prompts/reflexion_evaluate.txt");
const REFLECT: &str = include_str!("prompts/reflexion_reflect.txt");
/// Most lines of a reflection (a short lesson).
const REFLECTION_LINES: usize = 4;

/// Reflexion settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReflexionConfig {
    /// Most episodes (inner ReAct runs), each followed by an evaluation.
    pub max_reflections: usize,
    /// Most Thought/Action rounds of each inner ReAct run.
    pub max_iterations: usize,
}

impl Default for ReflexionConfig {
    fn default() -> Self {
        ReflexionConfig {
            max_reflections: 3,
            max_iterations: 10,
        }
    }
}

/// The Reflexion engine.
#[derive(Debug, Clone)]
pub struct Reflexion {
    config: ReflexionConfig,
    react: React,
}

impl Reflexion {
    /// A Reflexion engine; both limits must be at least 1.
    pub fn new(config: ReflexionConfig) -> Result<Self, String> {
        if config.max_reflections == 0 {
            return Err("reflexion: max_reflections must be at least 1".into());
        }
        let react = React::new(ReactConfig {
            max_iterations: config.max_iterations,
            ..ReactConfig::default()
        })
        .map_err(|e| format!("reflexion: {e}"))?;
        Ok(Reflexion { config, react })
    }
}

impl Engine for Reflexion {
    fn id(&self) -> &'static str {
        "reflexion"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.reflexion(run, conversation))
    }
}

impl Reflexion {
    async fn reflexion(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        run.ground_in(conversation);
        if let Some(finish) = answer_first(run, conversation).await? {
            return Ok(finish);
        }
        let mut reflections: Vec<String> = Vec::new();
        let mut answer = String::new();

        for episode in 1..=self.config.max_reflections {
            run.turn()?;
            answer = self.attempt(run, conversation, &reflections).await?;
            let (verdict, feedback) = evaluate(run, conversation, &answer).await?;
            if verdict != Verdict::Unsatisfactory {
                run.say(&answer);
                return Ok(Finish::answered(answer));
            }
            if episode < self.config.max_reflections {
                let reflection = reflect(run, conversation, &answer, &feedback).await?;
                run.emit(LoopEvent::Reflection {
                    text: reflection.clone(),
                });
                reflections.push(reflection);
            }
        }

        run.say(&answer);
        Ok(Finish {
            answer,
            termination: Termination::MaxTurns,
        })
    }

    /// One episode: the inner ReAct with the lessons so far, not spoken.
    async fn attempt(
        &self,
        run: &mut Run,
        conversation: &[Message],
        reflections: &[String],
    ) -> Result<String, Halt> {
        let messages = if reflections.is_empty() {
            conversation.to_vec()
        } else {
            with_system(conversation, &lessons(reflections))
        };
        let was_speaking = run.set_speaking(false);
        let result = self.react.run(run, &messages).await;
        run.set_speaking(was_speaking);
        Ok(result?.answer.trim().to_string())
    }
}

fn lessons(reflections: &[String]) -> String {
    let list = reflections
        .iter()
        .map(|r| format!("- {r}"))
        .collect::<Vec<_>>()
        .join("\n");
    fill(LESSONS.trim_end(), &[("reflections", &list)])
}

/// The conversation with the answer given and one more request about it.
fn about_answer(conversation: &[Message], answer: &str, request: String) -> Vec<Message> {
    let mut messages = conversation.to_vec();
    messages.push(Message::assistant(answer));
    messages.push(Message::user(request));
    messages
}

/// Asks the evaluator; returns its verdict and its words as feedback.
async fn evaluate(
    run: &mut Run,
    conversation: &[Message],
    answer: &str,
) -> Result<(Verdict, String), Halt> {
    let messages = about_answer(conversation, answer, EVALUATE.trim_end().to_string());
    let reply = run
        .generate(
            "evaluator",
            messages,
            CallOptions {
                grammar: Some(protocol::verdict::grammar_for_verdict()),
                ..CallOptions::default()
            },
            Route::Thought,
        )
        .await?;
    let verdict = verdict(&reply.text);
    if verdict == Verdict::Unclear {
        run.format_error("the evaluator gave neither SATISFACTORY nor UNSATISFACTORY");
    }
    Ok((verdict, reply.text.trim().to_string()))
}

/// Asks the reflector for a short lesson from the failed answer; falls back
/// to the evaluator's feedback when the reflector writes nothing.
async fn reflect(
    run: &mut Run,
    conversation: &[Message],
    answer: &str,
    feedback: &str,
) -> Result<String, Halt> {
    let request = fill(REFLECT.trim_end(), &[("feedback", feedback)]);
    let messages = about_answer(conversation, answer, request);
    let reply = run
        .generate(
            "reflector",
            messages,
            CallOptions {
                grammar: Some(protocol::some_text(REFLECTION_LINES)),
                ..CallOptions::default()
            },
            Route::Thought,
        )
        .await?;
    let reflection = without_label(reply.text.trim());
    if reflection.is_empty() {
        run.format_error("the reflector wrote nothing");
        return Ok(feedback.to_string());
    }
    Ok(reflection.to_string())
}

fn without_label(text: &str) -> &str {
    match parse::find_marker(text, &["reflection:"]) {
        Some((0, end)) => text[end..].trim(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflection_label_is_dropped_only_at_the_start() {
        assert_eq!(without_label("Reflection: use the tool."), "use the tool.");
        assert_eq!(
            without_label("I must write a reflection: x"),
            "I must write a reflection: x"
        );
    }

    #[test]
    fn config_is_validated() {
        assert!(Reflexion::new(ReflexionConfig::default()).is_ok());
        let no_episodes = ReflexionConfig {
            max_reflections: 0,
            ..ReflexionConfig::default()
        };
        assert!(Reflexion::new(no_episodes).is_err());
        let no_iterations = ReflexionConfig {
            max_iterations: 0,
            ..ReflexionConfig::default()
        };
        assert!(Reflexion::new(no_iterations)
            .unwrap_err()
            .contains("max_iterations"));
    }
}

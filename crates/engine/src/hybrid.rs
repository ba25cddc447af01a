//! Hybrid Plan + ReAct steps (seed 003): a 3–7 step plan, a ReAct sub-loop
//! per step, and a checkpoint between steps.
//!
//! Planning, steps, the final synthesis and reading the question first are
//! Plan-and-Execute's. After a
//! step, a checkpoint call summarises the progress (a reflection event) and
//! decides: `CONTINUE`, `REPLAN` with a new numbered list of the remaining
//! steps, or `DONE` when enough is known to answer. A step that failed (its
//! sub-loop gave up, or its result is an error) asks for a new plan
//! straight away instead. At most `max_replans` new plans are taken and at
//! most `max_steps` steps run in all (default 7, the top of seed 003's 3–7
//! step range; Plan-and-Execute's 10 is per plan); after the last planned
//! step that worked there is nothing to decide, so the answer follows at
//! once. Planner, checkpoint and synthesizer calls are not turns; only the
//! steps' ReAct rounds are.

use super::parse;
use super::plan_execute::{
    adopt_plan, done_text, execute_step, make_plan, persona_with, step_loop, synthesize,
    StepOutcome,
};
use super::protocol;
use super::react::{answer_first, React};
use super::{fill, question, CallOptions, Engine, EngineFuture, Finish, Halt, LoopEvent};
use super::{Route, Run};
use loopd_brain::{Grammar, Message};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

const CHECKPOINT: &str = include_str!("prompts/hybrid_checkpoint.txt");
const REPLAN: &str = include_str!("prompts/hybrid_replan.txt");

/// Hybrid settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HybridConfig {
    /// Most steps executed in all, over the first plan and every new one.
    pub max_steps: usize,
    /// Most ReAct rounds per step.
    pub max_step_iterations: usize,
    /// Most new plans taken after the first.
    pub max_replans: usize,
}

impl Default for HybridConfig {
    fn default() -> Self {
        HybridConfig {
            max_steps: 7,
            max_step_iterations: 5,
            max_replans: 2,
        }
    }
}

/// The Hybrid engine.
#[derive(Debug, Clone)]
pub struct Hybrid {
    config: HybridConfig,
    step_loop: React,
}

impl Hybrid {
    /// A Hybrid engine; `max_steps` and `max_step_iterations` must be at
    /// least 1.
    pub fn new(config: HybridConfig) -> Result<Self, String> {
        if config.max_steps == 0 {
            return Err("hybrid: max_steps must be at least 1".into());
        }
        let step_loop = step_loop("hybrid", config.max_step_iterations)?;
        Ok(Hybrid { config, step_loop })
    }
}

impl Engine for Hybrid {
    fn id(&self) -> &'static str {
        "hybrid"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.hybrid(run, conversation))
    }
}

/// What to do after a step.
#[derive(Debug, Clone, PartialEq)]
enum Next {
    /// Go on with the plan.
    Continue,
    /// Replace the remaining steps with these.
    Replan(Vec<String>),
    /// Enough is known: answer now.
    Done,
}

impl Hybrid {
    async fn hybrid(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        run.ground_in(conversation);
        if let Some(finish) = answer_first(run, conversation).await? {
            return Ok(finish);
        }
        run.hold_answers();
        let plan = make_plan(run, conversation, self.config.max_steps).await?;
        let mut remaining = VecDeque::from(plan);
        let mut done: Vec<StepOutcome> = Vec::new();
        let mut replans = 0;

        while let Some(step) = remaining.pop_front() {
            let outcome = execute_step(run, &self.step_loop, conversation, &done, step).await?;
            let failed = outcome.failed();
            done.push(outcome);
            let steps_left = self.config.max_steps - done.len();
            let can_replan = replans < self.config.max_replans && steps_left > 0;
            if steps_left == 0 || (remaining.is_empty() && !(failed && can_replan)) {
                break;
            }
            let next = if failed && can_replan {
                replan(run, conversation, &done).await?
            } else {
                checkpoint(run, conversation, &done, &remaining).await?
            };
            match next {
                Next::Continue => {}
                Next::Done => break,
                Next::Replan(steps) if can_replan => {
                    replans += 1;
                    remaining = adopt_plan(run, steps, steps_left).into();
                }
                Next::Replan(_) => {}
            }
        }
        synthesize(run, conversation, &done).await
    }
}

/// Most steps a checkpoint's or a re-plan's new list may have (the top of
/// seed 003's 3–7).
const MAX_PLAN: usize = 7;

/// The checkpoint: a progress summary and the decision. No decision word is
/// a format error (the plan goes on), and so is `REPLAN` without a list.
async fn checkpoint(
    run: &mut Run,
    conversation: &[Message],
    done: &[StepOutcome],
    remaining: &VecDeque<String>,
) -> Result<Next, Halt> {
    let remaining = remaining
        .iter()
        .enumerate()
        .map(|(i, step)| format!("{}. {step}", i + 1))
        .collect::<Vec<_>>()
        .join("\n");
    let prompt = fill(
        CHECKPOINT,
        &[
            ("request", question(conversation)),
            ("done", &done_text(done)),
            ("remaining", &remaining),
        ],
    );
    let grammar = protocol::checkpoint::grammar_for_checkpoint(MAX_PLAN);
    let text = think(run, "checkpoint", conversation, prompt, grammar).await?;
    Ok(match decision(&text) {
        Some(Decision::Continue) => Next::Continue,
        Some(Decision::Done) => Next::Done,
        Some(Decision::Replan) => new_plan(run, &text),
        None => {
            run.format_error("checkpoint without CONTINUE, REPLAN or DONE");
            Next::Continue
        }
    })
}

/// After a failed step: a summary of what went wrong and a new list of the
/// remaining steps (no list is a format error; the plan goes on).
async fn replan(
    run: &mut Run,
    conversation: &[Message],
    done: &[StepOutcome],
) -> Result<Next, Halt> {
    let failed = done.last().map(|d| d.step.as_str()).unwrap_or_default();
    let prompt = fill(
        REPLAN,
        &[
            ("request", question(conversation)),
            ("done", &done_text(done)),
            ("step", failed),
        ],
    );
    let grammar = protocol::plan::grammar_for_summary_and_plan(1, MAX_PLAN);
    let text = think(run, "replan", conversation, prompt, grammar).await?;
    Ok(new_plan(run, &text))
}

/// One reasoning call of the checkpoint family; its summary becomes a
/// reflection event.
async fn think(
    run: &mut Run,
    purpose: &str,
    conversation: &[Message],
    prompt: String,
    grammar: Grammar,
) -> Result<String, Halt> {
    let reply = run
        .generate(
            purpose,
            persona_with(conversation, prompt),
            CallOptions {
                grammar: Some(grammar),
                ..CallOptions::default()
            },
            Route::Thought,
        )
        .await?;
    if let Some(text) = summary(&reply.text) {
        run.emit(LoopEvent::Reflection { text });
    }
    Ok(reply.text)
}

fn new_plan(run: &mut Run, text: &str) -> Next {
    let steps = parse::numbered_list(text);
    if steps.is_empty() {
        run.format_error("a new plan without a numbered list");
        return Next::Continue;
    }
    Next::Replan(steps)
}

/// A checkpoint's decision word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Continue,
    Replan,
    Done,
}

/// The decision of a checkpoint reply: the first decision word of its
/// `Decision:` line, or of the reply outside its summary when it has none.
fn decision(text: &str) -> Option<Decision> {
    let line = parse::field(text, "decision").unwrap_or_else(|| {
        text.lines()
            .filter(|line| parse::field(line, "summary").is_none())
            .collect::<Vec<_>>()
            .join("\n")
    });
    line.split(|c: char| !c.is_ascii_alphabetic())
        .find_map(|word| match word.to_ascii_uppercase().as_str() {
            "CONTINUE" => Some(Decision::Continue),
            "REPLAN" => Some(Decision::Replan),
            "DONE" => Some(Decision::Done),
            _ => None,
        })
}

/// The `Summary:` line of a checkpoint reply, or its first line that is not
/// a decision or a list item.
fn summary(text: &str) -> Option<String> {
    if let Some(summary) = parse::field(text, "summary").filter(|s| !s.is_empty()) {
        return Some(summary);
    }
    text.lines()
        .map(str::trim)
        .find(|line| {
            !line.is_empty()
                && parse::field(line, "decision").is_none()
                && parse::numbered_list(line).is_empty()
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decision_is_the_first_decision_word() {
        assert_eq!(
            decision("Summary: ok\nDecision: DONE"),
            Some(Decision::Done)
        );
        assert_eq!(
            decision("Summary: we are not done\nDecision: replan\n1. a"),
            Some(Decision::Replan)
        );
        assert_eq!(
            decision("**Decision:** Continue."),
            Some(Decision::Continue)
        );
        assert_eq!(decision("I think we are DONE."), Some(Decision::Done));
        assert_eq!(
            decision("Summary: step 1 is done.\nCONTINUE"),
            Some(Decision::Continue)
        );
        assert_eq!(
            decision("CONTINUE if the plan is fine, REPLAN if not"),
            Some(Decision::Continue)
        );
        assert_eq!(decision("Decision: abandoned"), None);
        assert_eq!(decision("nothing here"), None);
    }

    #[test]
    fn the_summary_is_its_line_or_the_first_plain_line() {
        assert_eq!(
            summary("Summary: two found.\nDecision: DONE").as_deref(),
            Some("two found.")
        );
        assert_eq!(
            summary("\n1. a\nWe know a.\nDecision: CONTINUE").as_deref(),
            Some("We know a.")
        );
        assert_eq!(summary("Decision: DONE\n- a"), None);
    }

    #[test]
    fn limits_are_validated() {
        let zero_steps = HybridConfig {
            max_steps: 0,
            ..HybridConfig::default()
        };
        assert!(Hybrid::new(zero_steps).is_err());
        let zero_iterations = HybridConfig {
            max_step_iterations: 0,
            ..HybridConfig::default()
        };
        assert!(Hybrid::new(zero_iterations).is_err());
        let no_replans = HybridConfig {
            max_replans: 0,
            ..HybridConfig::default()
        };
        assert!(Hybrid::new(no_replans).is_ok());
    }
}

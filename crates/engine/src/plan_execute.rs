//! Plan-and-Execute (seed 000): planner → mini-ReAct per step → synthesizer.
//!
//! Phase 1, a planner call turns the request and the tool list into a
//! numbered list of 3–7 sub-tasks (at most `max_steps` are kept; no list at
//! all is a format error and the whole request becomes the only step).
//! Phase 2, each step runs as a ReAct sub-loop of at most
//! `max_step_iterations` rounds on a prompt holding the request, the steps
//! done with their results, and the step to do; its text is not spoken. A
//! step that ends blocked or out of rounds still has a result and the plan
//! goes on. Phase 3, a synthesizer call turns the step results into the
//! answer, streamed live; an answer whose numbers no source gives is
//! answered again by ReAct ([`grounding::settle`]).
//!
//! A question that a tool reads as asked needs no plan, nor does one that
//! no tool can help with ([`super::react::answer_first`]).
//!
//! The planning, step and synthesis functions are shared with `hybrid`,
//! which adds checkpoints and replanning between the steps.

use super::grounding;
use super::parse;
use super::protocol;
use super::react::{answer_first, React, ReactConfig};
use super::{fill, question, tool_list, with_system, CallOptions, Engine, EngineFuture, Finish};
use super::{Halt, LoopEvent, Route, Run, Termination};
use loopd_brain::{Message, Role};
use serde::{Deserialize, Serialize};

const PLANNER: &str = include_str!("prompts/plan_planner.txt");
const STEP: &str = include_str!("prompts/plan_step.txt");
const SYNTHESIZER: &str = include_str!("prompts/plan_synthesizer.txt");
/// Most lines of the synthesized answer (it is spoken).
const SYNTHESIS_LINES: usize = 8;

/// Plan-and-Execute settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlanExecuteConfig {
    /// Most plan steps executed; later steps of a longer plan are dropped.
    pub max_steps: usize,
    /// Most ReAct rounds per step.
    pub max_step_iterations: usize,
}

impl Default for PlanExecuteConfig {
    fn default() -> Self {
        PlanExecuteConfig {
            max_steps: 10,
            max_step_iterations: 5,
        }
    }
}

/// The Plan-and-Execute engine.
#[derive(Debug, Clone)]
pub struct PlanExecute {
    config: PlanExecuteConfig,
    step_loop: React,
}

impl PlanExecute {
    /// A Plan-and-Execute engine; both limits must be at least 1.
    pub fn new(config: PlanExecuteConfig) -> Result<Self, String> {
        if config.max_steps == 0 {
            return Err("plan-execute: max_steps must be at least 1".into());
        }
        let step_loop = step_loop("plan-execute", config.max_step_iterations)?;
        Ok(PlanExecute { config, step_loop })
    }
}

impl Engine for PlanExecute {
    fn id(&self) -> &'static str {
        "plan-execute"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.plan_execute(run, conversation))
    }
}

impl PlanExecute {
    async fn plan_execute(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        run.ground_in(conversation);
        if let Some(finish) = answer_first(run, conversation).await? {
            return Ok(finish);
        }
        run.hold_answers();
        let steps = make_plan(run, conversation, self.config.max_steps).await?;
        let mut done = Vec::new();
        for step in steps {
            let outcome = execute_step(run, &self.step_loop, conversation, &done, step).await?;
            done.push(outcome);
        }
        synthesize(run, conversation, &done).await
    }
}

/// A plan step that ran, with what its ReAct sub-loop produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StepOutcome {
    /// The step, as planned.
    pub(crate) step: String,
    /// The sub-loop's answer.
    pub(crate) result: String,
    /// How the sub-loop ended (`Answered`, `MaxTurns`, `Blocked`).
    pub(crate) termination: Termination,
}

impl StepOutcome {
    /// Whether the step did not get done: its sub-loop gave up, or its
    /// result is an error.
    pub(crate) fn failed(&self) -> bool {
        self.termination != Termination::Answered
            || self
                .result
                .trim_start()
                .to_ascii_lowercase()
                .starts_with("error:")
    }
}

/// The ReAct sub-loop that runs each step; `max_step_iterations` must be at
/// least 1.
pub(crate) fn step_loop(engine: &str, max_step_iterations: usize) -> Result<React, String> {
    if max_step_iterations == 0 {
        return Err(format!("{engine}: max_step_iterations must be at least 1"));
    }
    React::new(ReactConfig {
        max_iterations: max_step_iterations,
        read_first: false,
        ..ReactConfig::default()
    })
}

/// Phase 1: asks the planner for the steps, keeps at most `max_steps` and
/// announces them. Without a list, the whole request is the one step.
pub(crate) async fn make_plan(
    run: &mut Run,
    conversation: &[Message],
    max_steps: usize,
) -> Result<Vec<String>, Halt> {
    let tools = match tool_list(run.tools()) {
        list if list.is_empty() => "(none)".to_string(),
        list => list,
    };
    let system = fill(PLANNER, &[("tools", &tools)]);
    let reply = run
        .generate(
            "planner",
            with_system(conversation, &system),
            CallOptions {
                grammar: Some(protocol::plan::grammar_for_plan(1, max_steps)),
                ..CallOptions::default()
            },
            Route::Thought,
        )
        .await?;
    let mut steps = parse::numbered_list(&reply.text);
    if steps.is_empty() {
        run.format_error("the plan is not a numbered list");
        steps.push(question(conversation).to_string());
    }
    Ok(adopt_plan(run, steps, max_steps))
}

/// Keeps the first `max_steps` of a (new) plan and announces it.
pub(crate) fn adopt_plan(run: &mut Run, mut steps: Vec<String>, max_steps: usize) -> Vec<String> {
    steps.truncate(max_steps);
    run.emit(LoopEvent::Plan {
        steps: steps.clone(),
    });
    steps
}

/// Phase 2, one step: runs the step's ReAct sub-loop, silent, on the
/// request, the steps done so far and this step.
pub(crate) async fn execute_step(
    run: &mut Run,
    step_loop: &React,
    conversation: &[Message],
    done: &[StepOutcome],
    step: String,
) -> Result<StepOutcome, Halt> {
    let index = done.len() + 1;
    run.emit(LoopEvent::StepStarted {
        index,
        description: step.clone(),
    });
    let prompt = fill(
        STEP,
        &[
            ("request", question(conversation)),
            ("done", &done_text(done)),
            ("step", &step),
        ],
    );
    let messages = persona_with(conversation, prompt);
    let speaking = run.set_speaking(false);
    let finish = step_loop.run(run, &messages).await;
    run.set_speaking(speaking);
    let finish = finish?;
    run.emit(LoopEvent::StepFinished {
        index,
        result: finish.answer.clone(),
    });
    Ok(StepOutcome {
        step,
        result: finish.answer,
        termination: finish.termination,
    })
}

/// Phase 3: the answer from the step results, streamed live. An empty reply
/// is a format error; the last step's result is the answer then.
pub(crate) async fn synthesize(
    run: &mut Run,
    conversation: &[Message],
    done: &[StepOutcome],
) -> Result<Finish, Halt> {
    let prompt = fill(SYNTHESIZER.trim_end(), &[("done", &done_text(done))]);
    let reply = run
        .generate(
            "synthesizer",
            with_system(conversation, &prompt),
            CallOptions {
                grammar: Some(protocol::some_text(SYNTHESIS_LINES)),
                ..CallOptions::default()
            },
            Route::Answer,
        )
        .await?;
    let answer = reply.text.trim().to_string();
    if !answer.is_empty() {
        return grounding::settle(run, conversation, answer).await;
    }
    run.format_error("the synthesizer wrote nothing");
    let answer = done.last().map(|d| d.result.clone()).unwrap_or_default();
    run.say(&answer);
    Ok(Finish::answered(answer))
}

/// The steps done, one line each (`step → result`), for the prompts.
pub(crate) fn done_text(done: &[StepOutcome]) -> String {
    if done.is_empty() {
        return "none yet".into();
    }
    done.iter()
        .map(|d| format!("{} → {}", one_line(&d.step), one_line(&d.result)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The conversation's persona (its system message, if any) and one user
/// message: what a planning sub-call sends instead of the whole history.
pub(crate) fn persona_with(conversation: &[Message], text: String) -> Vec<Message> {
    let mut messages: Vec<Message> = conversation
        .first()
        .filter(|m| m.role == Role::System)
        .cloned()
        .into_iter()
        .collect();
    messages.push(Message::user(text));
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(step: &str, result: &str, termination: Termination) -> StepOutcome {
        StepOutcome {
            step: step.into(),
            result: result.into(),
            termination,
        }
    }

    #[test]
    fn a_step_fails_when_its_loop_gave_up_or_its_result_is_an_error() {
        assert!(!outcome("a", "5", Termination::Answered).failed());
        assert!(outcome("a", "5", Termination::MaxTurns).failed());
        assert!(outcome("a", "5", Termination::Blocked).failed());
        assert!(outcome("a", " error: down", Termination::Answered).failed());
        assert!(!outcome("a", "no error: fine", Termination::Answered).failed());
    }

    #[test]
    fn done_steps_are_one_line_each() {
        assert_eq!(done_text(&[]), "none yet");
        let done = [
            outcome("Add 2\nand 3", "5", Termination::Answered),
            outcome("Look up x", "the  answer\nto x", Termination::MaxTurns),
        ];
        assert_eq!(
            done_text(&done),
            "Add 2 and 3 → 5\nLook up x → the answer to x"
        );
    }

    #[test]
    fn sub_calls_keep_only_the_persona() {
        let conversation = [
            Message::system("You are Ava."),
            Message::user("hi"),
            Message::assistant("hello"),
            Message::user("sum?"),
        ];
        let messages = persona_with(&conversation, "prompt".into());
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].content, "You are Ava.");
        assert_eq!(messages[1].role, Role::User);
        assert_eq!(messages[1].content, "prompt");
        let messages = persona_with(&conversation[1..], "prompt".into());
        assert_eq!(messages.len(), 1);
    }

    #[test]
    fn limits_are_validated() {
        let zero_steps = PlanExecuteConfig {
            max_steps: 0,
            ..PlanExecuteConfig::default()
        };
        assert!(PlanExecute::new(zero_steps).is_err());
        let zero_iterations = PlanExecuteConfig {
            max_step_iterations: 0,
            ..PlanExecuteConfig::default()
        };
        assert!(PlanExecute::new(zero_iterations)
            .unwrap_err()
            .contains("max_step_iterations"));
        assert!(PlanExecute::new(PlanExecuteConfig::default()).is_ok());
    }
}

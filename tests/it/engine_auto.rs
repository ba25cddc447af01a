//! `auto` end to end on scripted replies: it reports the engine it chose
//! and why, runs it with the settings that engine accepts, and the outcome
//! names the chosen engine.

use crate::common::engines::{drive, settings, test_tools};
use loopd::brain::{GenerateOptions, Message, ScriptedBrain};
use loopd::engine::{self, Budget, LoopEvent, LoopOutcome, LoopRequest};
use loopd::tools::Toolset;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

struct Asked {
    outcome: LoopOutcome,
    events: Vec<LoopEvent>,
    brain: Arc<ScriptedBrain>,
}

impl Asked {
    fn chosen(&self) -> Vec<(String, String)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                LoopEvent::EngineChosen { engine, reason } => {
                    Some((engine.clone(), reason.clone()))
                }
                _ => None,
            })
            .collect()
    }
}

/// Runs `auto` on one question.
fn ask(question: &str, pairs: &[(&str, Value)], tools: Toolset, replies: &[&str]) -> Asked {
    let engine = engine::build("auto", &settings(pairs)).expect("auto builds");
    let brain = Arc::new(ScriptedBrain::new(replies.iter().copied()));
    let (outcome, events) = drive(LoopRequest {
        engine,
        conversation: vec![Message::user(question)],
        brain: brain.clone(),
        tools: Arc::new(tools),
        budget: Budget::default(),
        options: GenerateOptions::default(),
        cancel: CancellationToken::new(),
        events: None,
        session: None,
        hold: None,
    });
    Asked {
        outcome,
        events,
        brain,
    }
}

fn tools() -> Toolset {
    test_tools(&CancellationToken::new())
}

#[test]
fn arithmetic_without_tools_runs_chain_of_thought_with_its_settings() {
    let r = ask(
        "What is 17 * 6 + 14?",
        &[
            ("extra_prompt", json!("Be brief.")),
            ("max_iterations", json!(3)),
        ],
        Toolset::empty(),
        &["Step 1: 102\nStep 2: 116\nFINAL ANSWER: 116"],
    );
    assert_eq!(r.outcome.engine, "chain-of-thought");
    assert_eq!(r.outcome.answer, "116");
    assert_eq!(r.outcome.termination.as_str(), "answered");
    assert_eq!(r.outcome.stats.llm_calls(), 1);
    assert_eq!(
        r.chosen(),
        vec![(
            "chain-of-thought".to_string(),
            "no tools, and the request looks like arithmetic or logic".to_string()
        )]
    );
    assert!(matches!(r.events[0], LoopEvent::EngineChosen { .. }));
    let system = &r.brain.requests()[0].messages[0].content;
    assert!(system.ends_with("Be brief."), "{system}");
}

#[test]
fn a_tool_task_runs_react() {
    let r = ask(
        "Add 2 and 3 for me.",
        &[("max_iterations", json!(2)), ("n_branches", json!(5))],
        tools(),
        &[
            "Thought: add.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}",
            "FINAL_ANSWER: 5",
        ],
    );
    assert_eq!(r.outcome.engine, "react");
    assert_eq!(r.outcome.answer, "5");
    assert_eq!(r.outcome.stats.llm_calls(), 2);
    assert_eq!(
        r.outcome.stats.tool_calls[0].arguments,
        json!({"a": 2, "b": 3})
    );
    assert_eq!(r.chosen().len(), 1);
    assert_eq!(r.chosen()[0].0, "react");
}

#[test]
fn small_talk_without_tools_is_a_plain_turn() {
    let r = ask("Tell me a joke.", &[], Toolset::empty(), &["Why not?"]);
    assert_eq!(r.outcome.engine, "none");
    assert_eq!(r.outcome.answer, "Why not?");
    assert_eq!(r.outcome.stats.llm_calls(), 1);
    assert_eq!(
        r.brain.requests()[0].messages,
        vec![Message::user("Tell me a joke.")]
    );
}

#[test]
fn a_setting_no_engine_accepts_is_rejected() {
    let err = engine::build("auto", &settings(&[("bogus", json!(1))]))
        .err()
        .expect("rejected");
    assert!(err.contains("bogus"), "{err}");
}

#[test]
fn a_bad_value_for_any_engine_is_rejected_when_auto_is_built() {
    let error = engine::build("auto", &settings(&[("max_iterations", json!(0))]))
        .err()
        .expect("max_iterations = 0 is refused");
    assert!(
        error.contains("react") && error.contains("max_iterations"),
        "{error}"
    );
}

//! The Chain-of-Thought engine on scripted replies: one call, the text after
//! FINAL ANSWER spoken, the raw reply when the marker is missing.

use crate::common;
use crate::common::engines::{run, run_with};
use loopd::brain::{Role, ScriptedBrain};
use loopd::engine::{Budget, LoopEvent};
use loopd::tools::Toolset;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[test]
fn final_answer_is_extracted_and_spoken() {
    let r = run(
        "chain-of-thought",
        &[],
        &["Step 1: 17 × 6 = 102\nStep 2: 102 + 14 = 116\nFINAL ANSWER: 116"],
    );
    assert_eq!(r.outcome.answer, "116");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.outcome.stats.turns, 1);
    assert_eq!(r.outcome.stats.format_errors, 0);
    assert_eq!(r.spoken(), "116");
    assert!(r.thoughts().contains("Step 2: 102 + 14 = 116"));
    assert!(r.tool_calls().is_empty());
    assert_eq!(r.outcome.stats.calls[0].purpose, "chain-of-thought");
    let request = &r.brain.requests()[0];
    assert_eq!(request.messages[0].role, Role::System);
    assert!(request.messages[0].content.contains("FINAL ANSWER:"));
    assert_eq!(
        request.messages[1].role,
        Role::User,
        "a worked example first"
    );
    assert_eq!(request.messages[2].role, Role::Assistant);
    assert!(request.messages[2].content.contains("FINAL ANSWER:"));
    assert_eq!(
        request.messages.last().unwrap().content,
        "What is the question?"
    );
    assert!(request.tools.is_empty(), "tools are ignored");
}

#[test]
fn other_spellings_of_the_marker() {
    let r = run(
        "chain-of-thought",
        &[],
        &["Step 1: think\nfinal_answer: Paris"],
    );
    assert_eq!(r.outcome.answer, "Paris");
    assert_eq!(r.spoken(), "Paris");
    let r = run("chain-of-thought", &[], &["Final Answer: 7 apples"]);
    assert_eq!(r.outcome.answer, "7 apples");
}

#[test]
fn no_marker_gives_the_raw_text_and_a_format_error() {
    let r = run("chain-of-thought", &[], &["It is probably 42."]);
    assert_eq!(r.outcome.answer, "It is probably 42.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "It is probably 42.");
    assert!(r
        .events
        .iter()
        .any(|e| matches!(e, LoopEvent::FormatError { .. })));
}

#[test]
fn an_empty_final_answer_falls_back_to_the_steps() {
    let r = run("chain-of-thought", &[], &["Step 1: it is 5\nFINAL ANSWER:"]);
    assert_eq!(r.outcome.answer, "Step 1: it is 5");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "Step 1: it is 5");
}

#[test]
fn extra_prompt_is_appended_to_the_system_prompt() {
    let r = run(
        "chain-of-thought",
        &[("extra_prompt", json!("Answer with a number only."))],
        &["FINAL ANSWER: 3"],
    );
    let system = &r.brain.requests()[0].messages[0].content;
    assert!(system.ends_with("\nAnswer with a number only."), "{system}");
    assert!(system.starts_with("Solve the problem step by step."));
}

#[test]
fn unknown_settings_are_rejected() {
    let err = loopd::engine::build(
        "chain-of-thought",
        &common::engines::settings(&[("max_iterations", json!(3))]),
    )
    .err()
    .expect("rejected");
    assert!(err.contains("chain-of-thought"), "{err}");
}

#[test]
fn works_without_tools_and_stops_on_cancel() {
    let cancel = CancellationToken::new();
    cancel.cancel();
    let r = run_with(
        "chain-of-thought",
        &[],
        Toolset::empty(),
        Budget::default(),
        cancel,
        ScriptedBrain::new(["FINAL ANSWER: 1"]),
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 0);
    let r = run_with(
        "chain-of-thought",
        &[],
        Toolset::empty(),
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new(["FINAL ANSWER: 1"]),
    );
    assert_eq!(r.outcome.answer, "1");
}

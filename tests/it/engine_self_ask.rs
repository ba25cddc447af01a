//! The Self-Ask engine on scripted replies: follow-ups looked up with the
//! first single-string tool, named tools, the decomposer without tools, the
//! final-answer request, cancellation.

use crate::common::engines::{run, run_with, settings, test_tools, FnTool};
use loopd::brain::{Role, ScriptedBrain};
use loopd::engine::{self, Budget};
use loopd::tools::Toolset;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[test]
fn a_direct_final_answer() {
    let r = run(
        "self-ask",
        &[],
        &["Are follow up questions needed here: No.\nSo the final answer is: Paris."],
    );
    assert_eq!(r.outcome.answer, "Paris.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.spoken(), "Paris.");
    assert!(r.thoughts().starts_with("Are follow up questions needed"));
    let request = &r.brain.requests()[0];
    assert_eq!(
        request.options.stop,
        vec!["Intermediate answer:".to_string()]
    );
    assert_eq!(request.messages[0].role, Role::System);
    assert!(request.messages[0]
        .content
        .contains("- lookup {\"query\": string}"));
}

#[test]
fn a_follow_up_goes_to_the_lookup_tool() {
    let r = run(
        "self-ask",
        &[],
        &[
            "Follow up: What is the capital of France?\nIntermediate answer: made up",
            "So the final answer is: Paris.",
        ],
    );
    assert_eq!(r.outcome.answer, "Paris.");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(
        r.tool_calls(),
        vec![(
            "lookup".to_string(),
            json!({"query": "What is the capital of France?"})
        )]
    );
    let second = &r.brain.requests()[1].messages;
    let n = second.len();
    assert_eq!(
        second[n - 1].content,
        "Intermediate answer: {\"result\":\"answer to What is the capital of France?\"}"
    );
    assert_eq!(second[n - 2].role, Role::Assistant);
    assert_eq!(
        second[n - 2].content,
        "Follow up: What is the capital of France?"
    );
    assert_eq!(r.spoken(), "Paris.");
}

#[test]
fn a_named_tool_with_json_or_plain_input() {
    let r = run(
        "self-ask",
        &[("ground", json!(false))],
        &[
            "Tool: add\nTool Input: {\"a\": 2, \"b\": 3}",
            "Tool: lookup\nTool Input: Eiffel Tower height",
            "So the final answer is: 5 and 330 m.",
        ],
    );
    assert_eq!(r.outcome.answer, "5 and 330 m.");
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(
        r.tool_calls(),
        vec![
            ("add".to_string(), json!({"a": 2, "b": 3})),
            (
                "lookup".to_string(),
                json!({"query": "Eiffel Tower height"})
            ),
        ]
    );
    assert_eq!(r.last_message(1), "Intermediate answer: {\"sum\":5.0}");
}

#[test]
fn an_unknown_tool_and_bad_input_are_error_answers() {
    let r = run(
        "self-ask",
        &[],
        &[
            "Tool: weather\nTool Input: Paris",
            "Tool: add\nTool Input: two and three",
            "So the final answer is: I cannot tell.",
        ],
    );
    assert_eq!(r.outcome.answer, "I cannot tell.");
    assert_eq!(r.tool_calls(), vec![("weather".to_string(), json!({}))]);
    assert!(r.outcome.stats.tool_calls[0].is_error);
    let first = r.last_message(1);
    assert!(
        first.starts_with("Intermediate answer: Error: unknown tool `weather`"),
        "{first}"
    );
    let second = r.last_message(2);
    assert!(
        second.starts_with("Intermediate answer: Error: this tool takes its arguments"),
        "{second}"
    );
    assert_eq!(r.outcome.stats.format_errors, 1);
}

#[test]
fn text_without_markers_is_the_answer_and_a_format_error() {
    let r = run("self-ask", &[], &["Paris is the capital of France."]);
    assert_eq!(r.outcome.answer, "Paris is the capital of France.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "Paris is the capital of France.");
}

#[test]
fn max_follow_ups_then_one_request_for_the_final_answer() {
    let r = run(
        "self-ask",
        &[("max_follow_ups", json!(2))],
        &[
            "Follow up: a?",
            "Follow up: b?",
            "So the final answer is: a and b.",
            "never used",
        ],
    );
    assert_eq!(r.outcome.answer, "a and b.");
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.purposes(), ["self-ask", "self-ask", "self-ask-final"]);
    assert_eq!(r.tool_calls().len(), 2);
    assert_eq!(r.outcome.stats.turns, 2);
    assert!(r.last_message(2).contains("no follow-ups left"));
    assert_eq!(r.spoken(), "a and b.");
}

#[test]
fn a_final_request_without_the_marker_is_spoken_as_is() {
    let r = run(
        "self-ask",
        &[("max_follow_ups", json!(1))],
        &["Follow up: a?", "It is a."],
    );
    assert_eq!(r.outcome.answer, "It is a.");
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "It is a.");
}

#[test]
fn without_a_lookup_tool_the_model_answers_the_follow_up_itself() {
    let mut tools = Toolset::empty();
    tools
        .add(FnTool::new(
            "add",
            "Adds two numbers.",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                   "required": ["a", "b"]}),
            |args| Ok(json!({"sum": args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap()})),
        ))
        .unwrap();
    let r = run_with(
        "self-ask",
        &[],
        tools,
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new([
            "Follow up: What is the capital of France?",
            "Intermediate answer: Paris.\nFollow up: more",
            "So the final answer is: Paris.",
        ]),
    );
    assert_eq!(r.outcome.answer, "Paris.");
    assert_eq!(r.purposes(), ["self-ask", "self-ask-own", "self-ask"]);
    assert!(r.tool_calls().is_empty());
    assert!(r.last_message(1).contains("No tool can look that up"));
    assert_eq!(r.last_message(2), "Intermediate answer: Paris.");
    assert_eq!(r.spoken(), "Paris.");
}

#[test]
fn without_tools_it_decomposes_in_one_reply() {
    let r = run_with(
        "self-ask",
        &[],
        Toolset::empty(),
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new([
            "Follow up: What is the capital of France?\nIntermediate answer: Paris.\n\
             Follow up: Which river flows through Paris?\nIntermediate answer: The Seine.\n\
             So the final answer is: The Seine.",
        ]),
    );
    assert_eq!(r.outcome.answer, "The Seine.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.spoken(), "The Seine.");
    let request = &r.brain.requests()[0];
    assert!(request.options.stop.is_empty());
    assert!(request.messages[0]
        .content
        .contains("answer each one yourself"));
}

#[test]
fn without_tools_an_unfinished_chain_gets_one_request_for_the_answer() {
    let r = run_with(
        "self-ask",
        &[],
        Toolset::empty(),
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new([
            "Follow up: What is the capital of France?\nIntermediate answer: Paris.",
            "So the final answer is: Paris.",
        ]),
    );
    assert_eq!(r.outcome.answer, "Paris.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.purposes(), ["self-ask", "self-ask-final"]);
    assert_eq!(r.spoken(), "Paris.");
}

#[test]
fn cancellation_mid_loop() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "self-ask",
        &[],
        test_tools(&cancel),
        Budget::default(),
        cancel.clone(),
        ScriptedBrain::new([
            "Tool: cancel\nTool Input: {}",
            "So the final answer is: never",
        ]),
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.tool_calls(), vec![("cancel".to_string(), json!({}))]);
    assert_eq!(r.brain.remaining(), 1);
    assert_eq!(r.spoken(), "");
}

#[test]
fn settings_are_checked() {
    assert!(engine::build("self-ask", &settings(&[("max_steps", json!(2))])).is_err());
    assert!(engine::build("self-ask", &settings(&[("max_follow_ups", json!(0))])).is_err());
    assert!(engine::build("self-ask", &settings(&[("max_follow_ups", json!(3))])).is_ok());
}

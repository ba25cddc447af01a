//! The CRITIC engine on scripted replies: draft, critique blocks verified
//! with tools, revisions, and the answer spoken exactly once.

use crate::common::engines::{run, run_with, settings, test_tools};
use loopd::brain::{Role, ScriptedBrain};
use loopd::engine::{self, Budget, LoopEvent};
use loopd::tools::Toolset;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[test]
fn without_tools_the_draft_is_the_answer_streamed_live() {
    let r = run_with(
        "critic",
        &[],
        Toolset::empty(),
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new(["The Eiffel Tower is in Paris.", "never used"]),
    );
    assert_eq!(r.outcome.answer, "The Eiffel Tower is in Paris.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.spoken(), "The Eiffel Tower is in Paris.");
    assert_eq!(r.thoughts(), "");
}

#[test]
fn verified_on_first_critique_accepts_the_draft() {
    let r = run(
        "critic",
        &[("ground", json!(false))],
        &["The sum is 5.", "VERIFIED: all correct."],
    );
    assert_eq!(r.outcome.answer, "The sum is 5.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.purposes(), ["draft", "critique"]);
    assert!(r.tool_calls().is_empty());
    assert_eq!(r.spoken(), "The sum is 5.");
    assert_eq!(r.outcome.stats.format_errors, 0);

    let requests = r.brain.requests();
    let draft = &requests[0].messages;
    assert_eq!(draft.len(), 2, "the system prompt and the question");
    assert_eq!(draft[0].role, Role::System);
    assert!(draft[0].content.contains("lookup {\"query\": string}"));
    let critique = &requests[1].messages;
    assert_eq!(
        critique[..2],
        draft[..],
        "the critique shares the draft's prefix"
    );
    let n = critique.len();
    assert_eq!(critique[n - 2].role, Role::Assistant);
    assert_eq!(critique[n - 2].content, "The sum is 5.");
    assert!(critique[n - 1].content.contains("VERIFIED"));
}

#[test]
fn one_round_of_claims_is_verified_and_revised() {
    let r = run(
        "critic",
        &[("ground", json!(false))],
        &[
            "Paris has 3 million people.",
            "CLAIM: Paris has 3 million people\nTOOL: lookup\nTOOL INPUT: population of Paris",
            "Paris has about 2.1 million people.",
            "VERIFIED",
        ],
    );
    assert_eq!(r.outcome.answer, "Paris has about 2.1 million people.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.purposes(), ["draft", "critique", "revise", "critique"]);
    assert_eq!(
        r.tool_calls(),
        vec![(
            "lookup".to_string(),
            json!({"query": "population of Paris"})
        )]
    );
    assert_eq!(r.spoken(), "Paris has about 2.1 million people.");

    let revise = r.last_message(2);
    assert!(
        revise.contains(
            "CLAIM: Paris has 3 million people\nTOOL: lookup\nRESULT: {\"result\":\"answer to population of Paris\"}"
        ),
        "{revise}"
    );
    let second_critique = &r.brain.requests()[3].messages;
    assert_eq!(
        second_critique[second_critique.len() - 2].content,
        "Paris has about 2.1 million people."
    );
    assert!(r.events.iter().any(|e| matches!(
        e,
        LoopEvent::Reflection { text } if text.starts_with("CLAIM: Paris")
    )));
}

#[test]
fn the_revision_of_the_last_round_streams_live() {
    let r = run(
        "critic",
        &[("max_critique_rounds", json!(1)), ("ground", json!(false))],
        &[
            "2 plus 3 is 6.",
            "CLAIM: 2 plus 3 is 6\nTOOL: add\nTOOL INPUT: {\"a\": 2, \"b\": 3}",
            "2 plus 3 is 5.",
            "never used",
        ],
    );
    assert_eq!(r.outcome.answer, "2 plus 3 is 5.");
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(r.brain.remaining(), 1);
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 2, "b": 3}))]
    );
    assert_eq!(r.spoken(), "2 plus 3 is 5.");
    assert!(!r.thoughts().contains("is 5"));
}

#[test]
fn a_critique_with_neither_blocks_nor_verified_keeps_the_draft() {
    let r = run("critic", &[], &["The sky is blue.", "I think it is fine."]);
    assert_eq!(r.outcome.answer, "The sky is blue.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "The sky is blue.");
}

#[test]
fn an_unknown_tool_is_an_error_result_and_still_revised() {
    let r = run(
        "critic",
        &[("max_critique_rounds", json!(1))],
        &[
            "It is sunny in Paris.",
            "CLAIM: sunny in Paris\nTOOL: weather\nTOOL INPUT: Paris",
            "I cannot check the weather in Paris.",
        ],
    );
    assert_eq!(r.outcome.answer, "I cannot check the weather in Paris.");
    assert_eq!(r.purposes(), ["draft", "critique", "revise"]);
    assert_eq!(r.tool_calls(), vec![("weather".to_string(), json!({}))]);
    assert!(r.outcome.stats.tool_calls[0].is_error);
    let revise = r.last_message(2);
    assert!(
        revise.contains("RESULT: Error: unknown tool `weather`"),
        "{revise}"
    );
    assert_eq!(r.spoken(), "I cannot check the weather in Paris.");
}

#[test]
fn bad_inputs_are_error_results_beside_good_ones() {
    let r = run(
        "critic",
        &[("max_critique_rounds", json!(1)), ("ground", json!(false))],
        &[
            "2 and 2 make 5, and Rome is in Spain.",
            "CLAIM: 2 and 2 make 5\nTOOL: add\nTOOL INPUT: 2 and 2\n\n\
             CLAIM: Rome is in Spain\nTOOL: lookup\n\n\
             CLAIM: 2 and 2 make 5\nTOOL: add\nTOOL INPUT: {\"a\": 2, \"b\": 2}",
            "2 and 2 make 4.",
        ],
    );
    assert_eq!(r.outcome.answer, "2 and 2 make 4.");
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 2, "b": 2}))]
    );
    assert_eq!(r.outcome.stats.format_errors, 2);
    let revise = r.last_message(2);
    assert!(revise.contains("RESULT: Error: this tool takes its arguments as one JSON object"));
    assert!(revise.contains("TOOL: lookup\nRESULT: Error: no input was given"));
    assert!(revise.contains("RESULT: {\"sum\":4.0}"));
}

#[test]
fn max_critique_rounds_bounds_the_loop() {
    let block = "CLAIM: x\nTOOL: lookup\nTOOL INPUT: x";
    let r = run(
        "critic",
        &[],
        &[
            "Draft.",
            block,
            "First revision.",
            block,
            "Second revision.",
            "never used",
        ],
    );
    assert_eq!(r.outcome.answer, "Second revision.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(
        r.purposes(),
        ["draft", "critique", "revise", "critique", "revise"]
    );
    assert_eq!(r.brain.remaining(), 1);
    assert_eq!(r.tool_calls().len(), 2);
    assert_eq!(r.outcome.stats.turns, 3);
    assert_eq!(r.spoken(), "Second revision.");
}

#[test]
fn an_empty_last_revision_keeps_the_previous_answer() {
    let r = run(
        "critic",
        &[("max_critique_rounds", json!(1))],
        &[
            "Draft answer.",
            "CLAIM: x\nTOOL: lookup\nTOOL INPUT: x",
            " ",
        ],
    );
    assert_eq!(r.outcome.answer, "Draft answer.");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "Draft answer.");
}

#[test]
fn cancellation_during_verification() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "critic",
        &[],
        test_tools(&cancel),
        Budget::default(),
        cancel.clone(),
        ScriptedBrain::new([
            "Draft.",
            "CLAIM: x\nTOOL: cancel\nTOOL INPUT: {}\n\nCLAIM: y\nTOOL: lookup\nTOOL INPUT: y",
            "never used",
        ]),
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.tool_calls().len(), 1);
    assert_eq!(r.spoken(), "");
}

#[test]
fn settings_are_checked() {
    assert!(engine::build("critic", &settings(&[("max_rounds", json!(2))])).is_err());
    assert!(engine::build("critic", &settings(&[("max_critique_rounds", json!(0))])).is_err());
    assert!(engine::build("critic", &settings(&[("max_critique_rounds", json!(3))])).is_ok());
}

#[test]
fn blocks_take_priority_over_a_stray_verified() {
    let r = run(
        "critic",
        &[("max_critique_rounds", json!(1))],
        &[
            "Draft.",
            "CLAIM: x\nTOOL: lookup\nTOOL INPUT: x\nOtherwise VERIFIED.",
            "Revised.",
        ],
    );
    assert_eq!(r.outcome.answer, "Revised.");
    assert_eq!(
        r.tool_calls(),
        vec![("lookup".to_string(), json!({"query": "x"}))]
    );
    assert_eq!(r.spoken(), "Revised.");
}

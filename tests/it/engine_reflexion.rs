//! The Reflexion engine on scripted replies: ReAct episodes, the evaluator's
//! verdict, reflections carried into the next episode, and only the
//! accepted answer spoken.

use crate::common::engines::{run, run_with, settings, test_tools, Scripted};
use loopd::brain::{Role, ScriptedBrain};
use loopd::engine::{self, Budget, LoopEvent};
use loopd::tools::Toolset;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn reflections(r: &Scripted) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::Reflection { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn accepted_first_time_takes_two_calls() {
    let r = run(
        "reflexion",
        &[],
        &[
            "Thought: easy.\nFINAL_ANSWER: Four.",
            "SATISFACTORY: two and two make four.",
        ],
    );
    assert_eq!(r.outcome.answer, "Four.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.purposes(), ["react", "evaluator"]);
    assert_eq!(r.spoken(), "Four.");
    assert!(r.thoughts().contains("FINAL_ANSWER:"));
    assert!(
        r.thoughts().contains("Four."),
        "the unaccepted answer is a thought"
    );
    assert!(r.thoughts().contains("SATISFACTORY: two"));
    assert!(reflections(&r).is_empty());
    assert_eq!(r.outcome.stats.format_errors, 0);

    let evaluation = &r.brain.requests()[1].messages;
    let n = evaluation.len();
    assert_eq!(evaluation[n - 2].role, Role::Assistant);
    assert_eq!(evaluation[n - 2].content, "Four.");
    assert!(evaluation[n - 1]
        .content
        .contains("SATISFACTORY or UNSATISFACTORY"));
    assert_eq!(evaluation[0].content, "What is the question?");
}

#[test]
fn a_failed_episode_leaves_a_reflection_for_the_next() {
    let r = run(
        "reflexion",
        &[],
        &[
            "FINAL_ANSWER: Five.",
            "UNSATISFACTORY: two and two is not five.",
            "Reflection: I guessed; next time I must use the add tool.",
            "FINAL_ANSWER: Four.",
            "SATISFACTORY",
        ],
    );
    assert_eq!(r.outcome.answer, "Four.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 5);
    assert_eq!(
        r.purposes(),
        ["react", "evaluator", "reflector", "react", "evaluator"]
    );
    assert_eq!(r.spoken(), "Four.");
    assert_eq!(
        reflections(&r),
        ["I guessed; next time I must use the add tool."]
    );

    let requests = r.brain.requests();
    let reflector = requests[2].messages.last().unwrap().content.clone();
    assert!(
        reflector.contains("UNSATISFACTORY: two and two is not five."),
        "{reflector}"
    );
    let first_system = &requests[0].messages[0];
    let second_system = &requests[3].messages[0];
    assert_eq!(second_system.role, Role::System);
    assert!(!first_system.content.contains("add tool"));
    assert!(second_system
        .content
        .contains("- I guessed; next time I must use the add tool."));
    assert!(second_system.content.contains("Action Input"));
}

#[test]
fn every_episode_failing_returns_the_last_answer_as_max_turns() {
    let r = run(
        "reflexion",
        &[],
        &[
            "FINAL_ANSWER: A",
            "UNSATISFACTORY: wrong",
            "first lesson",
            "FINAL_ANSWER: B",
            "UNSATISFACTORY: still wrong",
            "second lesson",
            "FINAL_ANSWER: C",
            "UNSATISFACTORY: wrong again",
            "never used",
        ],
    );
    assert_eq!(r.outcome.answer, "C");
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.llm_calls(), 8, "3 episodes, 3 evaluations, 2 reflections");
    assert_eq!(
        r.brain.remaining(),
        1,
        "no reflection after the last episode"
    );
    assert_eq!(r.spoken(), "C");
    assert_eq!(reflections(&r), ["first lesson", "second lesson"]);
    let third_system = &r.brain.requests()[6].messages[0].content;
    assert!(third_system.contains("- first lesson\n- second lesson"));
}

#[test]
fn max_reflections_bounds_the_episodes() {
    let r = run(
        "reflexion",
        &[("max_reflections", json!(1))],
        &["FINAL_ANSWER: A", "UNSATISFACTORY: wrong", "never used"],
    );
    assert_eq!(r.outcome.answer, "A");
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.llm_calls(), 2);
    assert!(reflections(&r).is_empty());
}

#[test]
fn an_unclear_verdict_is_a_format_error_and_accepts() {
    let r = run(
        "reflexion",
        &[],
        &["FINAL_ANSWER: Four.", "The answer looks fine to me."],
    );
    assert_eq!(r.outcome.answer, "Four.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "Four.");
}

#[test]
fn tool_use_inside_an_episode_is_not_spoken() {
    let r = run(
        "reflexion",
        &[],
        &[
            "Action: add\nAction Input: {\"a\": 2, \"b\": 2}",
            "FINAL_ANSWER: 4",
            "SATISFACTORY: it used the tool.",
        ],
    );
    assert_eq!(r.outcome.answer, "4");
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 2, "b": 2}))]
    );
    assert_eq!(r.spoken(), "4");
}

#[test]
fn a_plain_text_episode_answer_is_spoken_once_after_acceptance() {
    let text = "Paris is the capital.";
    let r = run("reflexion", &[], &[text, text, "SATISFACTORY"]);
    assert_eq!(r.outcome.answer, "Paris is the capital.");
    assert_eq!(r.spoken(), "Paris is the capital.");
    assert_eq!(
        r.outcome.stats.format_errors, 2,
        "ReAct's reminder, then its text answer"
    );
}

#[test]
fn max_iterations_reaches_the_inner_react() {
    let r = run(
        "reflexion",
        &[("max_iterations", json!(1))],
        &[
            "Action: lookup\nAction Input: {\"query\": \"a\"}",
            "FINAL_ANSWER: a guess",
            "SATISFACTORY",
        ],
    );
    assert_eq!(r.outcome.answer, "a guess");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.purposes(), ["react", "react-fallback", "evaluator"]);
    assert_eq!(r.spoken(), "a guess");
}

#[test]
fn without_tools_each_episode_is_a_plain_turn() {
    let r = run_with(
        "reflexion",
        &[],
        Toolset::empty(),
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new(["Hello there.", "SATISFACTORY"]),
    );
    assert_eq!(r.outcome.answer, "Hello there.");
    assert_eq!(r.spoken(), "Hello there.");
    assert!(r.thoughts().starts_with("Hello there."));
    assert_eq!(r.brain.requests()[0].messages.len(), 1);
}

#[test]
fn cancellation_inside_an_episode() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "reflexion",
        &[],
        test_tools(&cancel),
        Budget::default(),
        cancel.clone(),
        ScriptedBrain::new(["Action: cancel\nAction Input: {}", "FINAL_ANSWER: never"]),
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.brain.remaining(), 1);
    assert_eq!(r.spoken(), "");
}

#[test]
fn settings_are_checked() {
    assert!(engine::build("reflexion", &settings(&[("max_steps", json!(2))])).is_err());
    assert!(engine::build("reflexion", &settings(&[("max_reflections", json!(0))])).is_err());
    assert!(engine::build("reflexion", &settings(&[("max_iterations", json!(0))])).is_err());
    let built = engine::build(
        "reflexion",
        &settings(&[("max_reflections", json!(2)), ("max_iterations", json!(4))]),
    )
    .unwrap();
    assert_eq!(built.id(), "reflexion");
}

//! The Tree-of-Thoughts engine on scripted replies: an answer ends the
//! search at once, the beam keeps the best-scored branches, the best branch
//! is asked for the answer at max depth, unreadable scores count as 0, and
//! wrong arithmetic or a repeated step scores 0 without a grading call.

use crate::common;
use crate::common::engines::{run, run_with, test_tools};
use loopd::brain::ScriptedBrain;
use loopd::engine::{Budget, LoopEvent};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn small() -> Vec<(&'static str, Value)> {
    vec![
        ("n_branches", json!(2)),
        ("beam_width", json!(1)),
        ("max_depth", json!(2)),
    ]
}

fn scores(events: &[LoopEvent]) -> Vec<(String, f64)> {
    events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::Score { candidate, score } => Some((candidate.clone(), *score)),
            _ => None,
        })
        .collect()
}

/// The text of the last message of request `i`.
fn prompt(r: &common::engines::Scripted, i: usize) -> String {
    r.brain.requests()[i]
        .messages
        .last()
        .unwrap()
        .content
        .clone()
}

#[test]
fn an_answer_on_the_first_branch_ends_the_search() {
    let r = run(
        "tree-of-thoughts",
        &[],
        &["The sum is easy. ANSWER: 42", "unused"],
    );
    assert_eq!(r.outcome.answer, "42");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.outcome.stats.turns, 1);
    assert_eq!(r.spoken(), "42");
    assert!(r.thoughts().contains("The sum is easy."));
    assert_eq!(r.brain.remaining(), 1);
    assert_eq!(r.outcome.stats.calls[0].purpose, "thought");
    let first = prompt(&r, 0);
    assert!(first.contains("Problem: What is the question?"), "{first}");
    assert!(first.contains("(none yet)"), "{first}");
    assert!(r.brain.requests()[0].tools.is_empty());
}

#[test]
fn the_beam_keeps_the_best_branch_and_the_best_is_asked_for_the_answer() {
    let r = run(
        "tree-of-thoughts",
        &small(),
        &[
            "Try approach X.",
            "3",
            "Try approach Y.",
            "Score: 9",
            "Refine Y.",
            "7",
            "Switch to Z.",
            "2",
            "Thinking done. ANSWER: 42",
        ],
    );
    assert_eq!(r.outcome.answer, "42");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2 * 2 * 2 + 1);
    assert_eq!(r.outcome.stats.turns, 2);
    assert_eq!(r.spoken(), "42");
    assert_eq!(r.outcome.stats.format_errors, 0);
    assert_eq!(
        scores(&r.events),
        vec![
            ("Try approach X.".to_string(), 3.0),
            ("Try approach Y.".to_string(), 9.0),
            ("Refine Y.".to_string(), 7.0),
            ("Switch to Z.".to_string(), 2.0),
        ]
    );
    let purposes: Vec<_> = r
        .outcome
        .stats
        .calls
        .iter()
        .map(|c| c.purpose.as_str())
        .collect();
    assert_eq!(
        purposes,
        [
            "thought", "score", "thought", "score", "thought", "score", "thought", "score",
            "answer"
        ]
    );

    let requests = r.brain.requests();
    let sibling = prompt(&r, 2);
    assert!(sibling.contains("different next step"), "{sibling}");
    assert_eq!(requests[0].options.temperature, 0.0);
    assert!(requests[2].options.temperature > 0.0);
    assert!(prompt(&r, 3).contains("Grade the step you just wrote"));
    let message = |i: usize, j: usize| requests[i].messages[j].content.as_str();
    assert_eq!(message(1, 2), "Try approach X.", "a grade follows its step");
    assert_eq!(
        message(2, 2),
        "Try approach X.",
        "a sibling sees the steps before it"
    );
    assert_eq!(message(3, 4), "Try approach Y.");
    for (earlier, later) in [(0, 1), (0, 2), (2, 3)] {
        let (a, b) = (&requests[earlier].messages, &requests[later].messages);
        assert!(
            b.len() > a.len() && b[..a.len()] == a[..],
            "call {later} extends call {earlier}, so its prefix is cached"
        );
    }
    assert!(
        prompt(&r, 0).ends_with("Steps so far:\n(none yet)\nWrite the next step."),
        "the problem and the steps come first"
    );

    let deeper = prompt(&r, 4);
    assert!(deeper.contains("1. Try approach Y."), "{deeper}");
    assert!(!deeper.contains("approach X"), "{deeper}");
    let final_prompt = prompt(&r, 8);
    assert!(
        final_prompt.contains("1. Try approach Y.\n2. Refine Y."),
        "{final_prompt}"
    );
    assert!(!final_prompt.contains("Switch to Z"), "{final_prompt}");
}

#[test]
fn ties_keep_their_order_and_every_kept_branch_is_explored() {
    let r = run(
        "tree-of-thoughts",
        &[
            ("n_branches", json!(3)),
            ("beam_width", json!(2)),
            ("max_depth", json!(2)),
        ],
        &[
            "Idea A.",
            "5",
            "Idea B.",
            "8",
            "Idea C.",
            "5", // depth 1
            "B one.",
            "1",
            "B two.",
            "1",
            "B three.",
            "1", // depth 2, branch B
            "ANSWER: from A",
        ],
    );
    assert_eq!(r.outcome.answer, "from A");
    assert_eq!(r.llm_calls(), 13);
    let b = prompt(&r, 6);
    assert!(b.contains("1. Idea B.") && !b.contains("Idea A"), "{b}");
    let a = prompt(&r, 12);
    assert!(a.contains("1. Idea A.") && !a.contains("Idea C"), "{a}");
    assert!(
        a.ends_with("Steps so far:\n1. Idea A.\nWrite the next step."),
        "{a}"
    );
}

#[test]
fn max_depth_without_an_answer_marker_gives_the_raw_text() {
    let r = run(
        "tree-of-thoughts",
        &[
            ("n_branches", json!(1)),
            ("beam_width", json!(1)),
            ("max_depth", json!(1)),
        ],
        &["Step.", "6", "It is 42."],
    );
    assert_eq!(r.outcome.answer, "It is 42.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "It is 42.");
}

#[test]
fn an_unreadable_score_is_a_format_error_and_scores_zero() {
    let r = run(
        "tree-of-thoughts",
        &[
            ("n_branches", json!(2)),
            ("beam_width", json!(1)),
            ("max_depth", json!(1)),
        ],
        &["Branch A.", "very good", "Branch B.", "1", "ANSWER: b"],
    );
    assert_eq!(r.outcome.answer, "b");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(
        scores(&r.events),
        vec![
            ("Branch A.".to_string(), 0.0),
            ("Branch B.".to_string(), 1.0)
        ]
    );
    let final_prompt = prompt(&r, 4);
    assert!(final_prompt.contains("1. Branch B."), "{final_prompt}");
    assert!(!final_prompt.contains("Branch A"), "{final_prompt}");
}

#[test]
fn scores_are_clamped_to_0_10() {
    let r = run(
        "tree-of-thoughts",
        &[
            ("n_branches", json!(2)),
            ("beam_width", json!(1)),
            ("max_depth", json!(1)),
        ],
        &["Big.", "12", "Small.", "-3", "ANSWER: ok"],
    );
    assert_eq!(
        scores(&r.events),
        vec![("Big.".to_string(), 10.0), ("Small.".to_string(), 0.0)]
    );
}

#[test]
fn the_turn_budget_stops_the_search() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "tree-of-thoughts",
        &small(),
        test_tools(&cancel),
        Budget {
            max_turns: Some(1),
            ..Budget::default()
        },
        cancel,
        ScriptedBrain::new(["A.", "1", "B.", "2", "unused"]),
    );
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.llm_calls(), 4);
    assert_eq!(r.outcome.answer, "");
}

#[test]
fn settings_must_be_at_least_one() {
    for key in ["n_branches", "beam_width", "max_depth"] {
        let err = loopd::engine::build(
            "tree-of-thoughts",
            &common::engines::settings(&[(key, json!(0))]),
        )
        .err()
        .expect("rejected");
        assert!(err.contains(key), "{err}");
    }
}

#[test]
fn wrong_arithmetic_scores_zero_ungraded_and_a_wrong_answer_does_not_end_the_search() {
    let r = run(
        "tree-of-thoughts",
        &small(),
        &[
            "ANSWER: (1 + 1) * 4 * 6 = 24",
            "(1 + 1) * (4 + 8) = 24",
            "6",
            "ANSWER: (1 + 1) * (4 + 8)",
        ],
    );
    assert_eq!(r.outcome.answer, "(1 + 1) * (4 + 8)");
    assert_eq!(r.spoken(), "(1 + 1) * (4 + 8)");
    assert!(!r.spoken().contains("* 4 * 6"), "{}", r.spoken());
    assert_eq!(r.llm_calls(), 4);
    let graded = scores(&r.events);
    assert_eq!(graded[0], ("ANSWER: (1 + 1) * 4 * 6 = 24".into(), 0.0));
    assert_eq!(graded[1].1, 6.0);
    let told = prompt(&r, 1);
    assert!(
        told.starts_with("Your arithmetic is wrong: (1 + 1) * 4 * 6 is 48, not 24. "),
        "{told}"
    );
}

#[test]
fn a_repeated_step_scores_zero_ungraded_and_the_next_sibling_is_told() {
    let mut settings = small();
    settings[0].1 = json!(3);
    let r = run(
        "tree-of-thoughts",
        &settings,
        &["Add them.", "5", "Add them.", "Multiply.", "4", "ANSWER: 7"],
    );
    assert_eq!(r.outcome.answer, "7");
    assert_eq!(r.llm_calls(), 6);
    let graded = scores(&r.events);
    assert_eq!(graded[1], ("Add them.".into(), 0.0));
    let told = prompt(&r, 3);
    assert!(
        told.starts_with("That step repeats an earlier one. "),
        "{told}"
    );
}

//! Limits hold for every engine alike: a spent token budget, a passed
//! deadline, and cancellation before or in the middle of a loop all end the
//! run with the right termination, an empty answer and no further LLM call.

use crate::common::engines::{run_with, test_tools};
use loopd::brain::ScriptedBrain;
use loopd::engine::{Budget, LoopEvent, ENGINES};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A first reply that makes each engine go on to another LLM call.
fn first_reply(engine: &str) -> &'static str {
    match engine {
        "react" | "reflexion" | "auto" => "Action: lookup\nAction Input: {\"query\": \"x\"}",
        "plan-execute" | "hybrid" => "1. Look it up\n2. Answer",
        "self-ask" => "Follow up: what is x?",
        "critic" => "A draft answer.",
        "tree-of-thoughts" => "First I would look at the parts.",
        "native-tools" => {
            "<tool_call>{\"name\": \"lookup\", \"arguments\": {\"query\": \"x\"}}</tool_call>"
        }
        _ => "Just an answer.",
    }
}

/// A reply that calls the `cancel` tool, for engines that call tools.
fn cancelling_replies(engine: &str) -> Option<Vec<&'static str>> {
    let react = "Action: cancel\nAction Input: {}";
    Some(match engine {
        "react" | "reflexion" => vec![react],
        "plan-execute" | "hybrid" => vec!["1. Stop\n2. Never", react],
        "self-ask" => vec!["Tool: cancel\nTool Input: {}"],
        "critic" => vec!["A draft.", "CLAIM: x\nTOOL: cancel\nTOOL INPUT: {}"],
        "native-tools" => vec!["<tool_call>{\"name\": \"cancel\", \"arguments\": {}}</tool_call>"],
        _ => return None,
    })
}

const SPARE: &str = "FINAL_ANSWER: never used";

fn scripted(first: &[&str]) -> ScriptedBrain {
    ScriptedBrain::new(first.iter().copied().chain([SPARE; 8]))
}

fn ends_with_final(events: &[LoopEvent], termination: &str) -> bool {
    matches!(events.last(), Some(LoopEvent::Final { termination: t, answer }) if t == termination && answer.is_empty())
}

#[test]
fn a_spent_token_budget_stops_every_multi_call_engine_after_one_call() {
    for engine in ENGINES
        .iter()
        .filter(|e| !["none", "chain-of-thought"].contains(e))
    {
        let cancel = CancellationToken::new();
        let r = run_with(
            engine,
            &[],
            test_tools(&cancel),
            Budget {
                max_total_tokens: Some(1),
                ..Budget::default()
            },
            cancel,
            scripted(&[first_reply(engine)]),
        );
        assert_eq!(
            r.termination(),
            "budget_exhausted",
            "{engine}: {:?}",
            r.outcome
        );
        assert_eq!(r.llm_calls(), 1, "{engine}");
        assert_eq!(r.outcome.answer, "", "{engine}");
        assert!(ends_with_final(&r.events, "budget_exhausted"), "{engine}");
    }
}

#[test]
fn a_passed_deadline_stops_every_engine_before_its_first_call() {
    for engine in ENGINES {
        let cancel = CancellationToken::new();
        let r = run_with(
            engine,
            &[],
            test_tools(&cancel),
            Budget {
                deadline: Some(Instant::now() - Duration::from_millis(1)),
                ..Budget::default()
            },
            cancel,
            scripted(&[first_reply(engine)]),
        );
        assert_eq!(
            r.termination(),
            "budget_exhausted",
            "{engine}: {:?}",
            r.outcome
        );
        assert_eq!(r.llm_calls(), 0, "{engine}");
    }
}

#[test]
fn cancellation_before_the_start_makes_no_call() {
    for engine in ENGINES {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let r = run_with(
            engine,
            &[],
            test_tools(&cancel),
            Budget::default(),
            cancel,
            scripted(&[first_reply(engine)]),
        );
        assert_eq!(r.termination(), "cancelled", "{engine}: {:?}", r.outcome);
        assert_eq!(r.llm_calls(), 0, "{engine}");
        assert!(ends_with_final(&r.events, "cancelled"), "{engine}");
    }
}

#[test]
fn cancellation_in_the_middle_of_a_loop_stops_at_once() {
    let mut tested = 0;
    for engine in ENGINES {
        let Some(replies) = cancelling_replies(engine) else {
            continue;
        };
        let cancel = CancellationToken::new();
        let r = run_with(
            engine,
            &[],
            test_tools(&cancel),
            Budget::default(),
            cancel.clone(),
            scripted(&replies),
        );
        assert_eq!(r.termination(), "cancelled", "{engine}: {:?}", r.outcome);
        assert_eq!(r.llm_calls(), replies.len(), "{engine}");
        assert_eq!(r.tool_calls().len(), 1, "{engine}");
        assert_eq!(r.spoken(), "", "{engine}");
        tested += 1;
    }
    assert_eq!(tested, 7);
}

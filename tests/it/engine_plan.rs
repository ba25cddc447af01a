//! The plan-execute and hybrid engines on scripted replies: plans, steps as
//! silent ReAct sub-loops, synthesis, checkpoints, replanning, and limits.

use crate::common;
use crate::common::engines::{run, with_budget, Scripted};
use loopd::engine::{Budget, LoopEvent};
use serde_json::json;

/// The plan, step and reflection events, in order.
fn plan_events(r: &Scripted) -> Vec<LoopEvent> {
    r.events
        .iter()
        .filter(|e| {
            matches!(
                e,
                LoopEvent::Plan { .. }
                    | LoopEvent::StepStarted { .. }
                    | LoopEvent::StepFinished { .. }
                    | LoopEvent::Reflection { .. }
            )
        })
        .cloned()
        .collect()
}

fn plan(steps: &[&str]) -> LoopEvent {
    LoopEvent::Plan {
        steps: steps.iter().map(|s| s.to_string()).collect(),
    }
}

fn started(index: usize, description: &str) -> LoopEvent {
    LoopEvent::StepStarted {
        index,
        description: description.into(),
    }
}

fn finished(index: usize, result: &str) -> LoopEvent {
    LoopEvent::StepFinished {
        index,
        result: result.into(),
    }
}

fn reflection(text: &str) -> LoopEvent {
    LoopEvent::Reflection { text: text.into() }
}

fn steps_started(r: &Scripted) -> usize {
    r.events
        .iter()
        .filter(|e| matches!(e, LoopEvent::StepStarted { .. }))
        .count()
}

const TWO_STEP_RUN: &[&str] = &[
    "Plan:\n1. Add 2 and 3\n2. Look up the capital",
    "Thought: add.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}",
    "Thought: done.\nFINAL_ANSWER: The sum is 5.",
    "Action: lookup\nAction Input: {\"query\": \"capital\"}",
    "FINAL_ANSWER: answer to capital",
    "The sum is 5, and the capital is known.",
];

#[test]
fn plan_execute_runs_each_step_then_synthesizes() {
    let r = run("plan-execute", &[], TWO_STEP_RUN);
    assert_eq!(r.outcome.answer, "The sum is 5, and the capital is known.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(
        r.tool_calls(),
        vec![
            ("add".to_string(), json!({"a": 2, "b": 3})),
            ("lookup".to_string(), json!({"query": "capital"})),
        ]
    );
    assert_eq!(r.llm_calls(), 6, "1 planner + 2 per step + 1 synthesizer");
    assert_eq!(
        r.purposes(),
        ["planner", "react", "react", "react", "react", "synthesizer"]
    );
    assert_eq!(r.outcome.stats.turns, 4, "the steps' ReAct rounds");
    assert_eq!(r.outcome.stats.format_errors, 0);
    assert_eq!(
        plan_events(&r),
        vec![
            plan(&["Add 2 and 3", "Look up the capital"]),
            started(1, "Add 2 and 3"),
            finished(1, "The sum is 5."),
            started(2, "Look up the capital"),
            finished(2, "answer to capital"),
        ]
    );
    assert_eq!(r.spoken(), "The sum is 5, and the capital is known.");
    assert!(r.thoughts().contains("Thought: add."));
    assert!(
        r.thoughts().contains("The sum is 5."),
        "steps are not spoken"
    );
    assert!(r.thoughts().contains("1. Add 2 and 3"), "nor is the plan");
}

#[test]
fn plan_execute_prompts_carry_the_request_tools_and_results() {
    let r = run("plan-execute", &[], TWO_STEP_RUN);
    let requests = r.brain.requests();
    let planner = &requests[0];
    assert!(planner.messages[0]
        .content
        .contains("add {\"a\": number, \"b\": number}"));
    assert_eq!(r.last_message(0), "What is the question?");

    let first_step = r.last_message(1);
    assert!(first_step.contains("The user asked: What is the question?"));
    assert!(first_step.contains("none yet"), "{first_step}");
    assert!(first_step.contains("Now do only this step: Add 2 and 3"));
    assert!(requests[1].messages[0].content.contains("Action Input"));

    let second_step = r.last_message(3);
    assert!(
        second_step.contains("Add 2 and 3 → The sum is 5."),
        "{second_step}"
    );
    assert!(second_step.contains("Now do only this step: Look up the capital"));
    assert_eq!(
        r.last_message(4),
        "Observation: {\"result\":\"answer to capital\"}"
    );

    let synthesizer = &requests[5].messages;
    let found = &synthesizer[0].content;
    assert!(found.contains("Add 2 and 3 → The sum is 5."), "{found}");
    assert!(found.contains("Look up the capital → answer to capital"));
    assert!(!found.contains("Action:"), "no ReAct prompt: {found}");
    assert_eq!(synthesizer.last().unwrap().content, "What is the question?");
}

#[test]
fn plan_execute_drops_steps_beyond_max_steps() {
    let r = run(
        "plan-execute",
        &[("max_steps", json!(2))],
        &[
            "1. one\n2. two\n3. three\n4. four",
            "FINAL_ANSWER: first",
            "FINAL_ANSWER: second",
            "first and second",
            "FINAL_ANSWER: never",
        ],
    );
    assert_eq!(r.outcome.answer, "first and second");
    assert_eq!(r.llm_calls(), 4);
    assert_eq!(steps_started(&r), 2);
    assert_eq!(plan_events(&r)[0], plan(&["one", "two"]));
    assert_eq!(r.brain.remaining(), 1);
}

#[test]
fn plan_execute_unparseable_plan_is_one_step() {
    let r = run(
        "plan-execute",
        &[("ground", json!(false))],
        &["I will just answer it.", "FINAL_ANSWER: 42", "It is 42."],
    );
    assert_eq!(r.outcome.answer, "It is 42.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(
        plan_events(&r),
        vec![
            plan(&["What is the question?"]),
            started(1, "What is the question?"),
            finished(1, "42"),
        ]
    );
}

#[test]
fn plan_execute_goes_on_after_a_step_out_of_rounds() {
    let r = run(
        "plan-execute",
        &[("max_step_iterations", json!(1))],
        &[
            "1. find a\n2. find b",
            "Action: lookup\nAction Input: {\"query\": \"a\"}",
            "FINAL_ANSWER: partly a",
            "FINAL_ANSWER: b",
            "a and b",
        ],
    );
    assert_eq!(r.outcome.answer, "a and b");
    assert_eq!(r.termination(), "answered");
    assert_eq!(
        r.purposes(),
        ["planner", "react", "react-fallback", "react", "synthesizer"]
    );
    assert_eq!(plan_events(&r)[2], finished(1, "partly a"));
    assert!(r.last_message(3).contains("find a → partly a"));
}

#[test]
fn plan_execute_synthesizer_says_nothing_then_the_last_result_is_spoken() {
    let r = run(
        "plan-execute",
        &[("ground", json!(false))],
        &["1. compute", "FINAL_ANSWER: 7", ""],
    );
    assert_eq!(r.outcome.answer, "7");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "7");
}

#[test]
fn plan_execute_stops_when_the_turn_budget_runs_out_mid_plan() {
    let budget = Budget {
        max_turns: Some(2),
        ..Budget::default()
    };
    let r = with_budget("plan-execute", budget, TWO_STEP_RUN);
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.outcome.answer, "");
    assert!(r.outcome.error.is_some());
    assert_eq!(r.llm_calls(), 3, "planner and the first step");
    assert_eq!(r.tool_calls().len(), 1);
    assert_eq!(r.spoken(), "");
}

#[test]
fn plan_execute_stops_when_the_token_budget_runs_out() {
    let unlimited = run("plan-execute", &[], TWO_STEP_RUN);
    let first = &unlimited.outcome.stats.calls[0];
    let budget = Budget {
        max_total_tokens: Some(first.prompt_tokens + first.completion_tokens),
        ..Budget::default()
    };
    let r = with_budget("plan-execute", budget, TWO_STEP_RUN);
    assert_eq!(r.termination(), "budget_exhausted");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.outcome.answer, "");
}

#[test]
fn plan_execute_cancelled_mid_step() {
    let r = with_budget(
        "plan-execute",
        Budget::default(),
        &[
            "1. stop\n2. never",
            "Action: cancel\nAction Input: {}",
            "FINAL_ANSWER: never",
        ],
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.brain.remaining(), 1);
    assert_eq!(steps_started(&r), 1);
    assert!(
        matches!(r.events.last(), Some(LoopEvent::Final { termination, .. }) if termination == "cancelled")
    );
}

#[test]
fn hybrid_continue_path() {
    let r = run(
        "hybrid",
        &[],
        &[
            "1. Add 1 and 2\n2. Say it",
            "Action: add\nAction Input: {\"a\": 1, \"b\": 2}",
            "FINAL_ANSWER: 3",
            "Summary: The sum is 3.\nDecision: CONTINUE",
            "FINAL_ANSWER: said",
            "It is 3.",
        ],
    );
    assert_eq!(r.outcome.answer, "It is 3.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(
        r.purposes(),
        [
            "planner",
            "react",
            "react",
            "checkpoint",
            "react",
            "synthesizer"
        ]
    );
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 1, "b": 2}))]
    );
    assert_eq!(
        plan_events(&r),
        vec![
            plan(&["Add 1 and 2", "Say it"]),
            started(1, "Add 1 and 2"),
            finished(1, "3"),
            reflection("The sum is 3."),
            started(2, "Say it"),
            finished(2, "said"),
        ]
    );
    let checkpoint = r.last_message(3);
    assert!(checkpoint.contains("Add 1 and 2 → 3"), "{checkpoint}");
    assert!(checkpoint.contains("Steps still planned:\n1. Say it"));
    assert_eq!(r.spoken(), "It is 3.");
    assert_eq!(r.outcome.stats.format_errors, 0);
}

#[test]
fn hybrid_checkpoint_replans() {
    let r = run(
        "hybrid",
        &[],
        &[
            "1. A\n2. B\n3. C",
            "FINAL_ANSWER: a",
            "Summary: B is not needed.\nDecision: REPLAN\n1. D\n2. E",
            "FINAL_ANSWER: d",
            "Summary: D worked.\nDecision: CONTINUE",
            "FINAL_ANSWER: e",
            "a, d and e",
        ],
    );
    assert_eq!(r.outcome.answer, "a, d and e");
    assert_eq!(
        r.purposes(),
        [
            "planner",
            "react",
            "checkpoint",
            "react",
            "checkpoint",
            "react",
            "synthesizer"
        ]
    );
    assert_eq!(
        plan_events(&r),
        vec![
            plan(&["A", "B", "C"]),
            started(1, "A"),
            finished(1, "a"),
            reflection("B is not needed."),
            plan(&["D", "E"]),
            started(2, "D"),
            finished(2, "d"),
            reflection("D worked."),
            started(3, "E"),
            finished(3, "e"),
        ]
    );
    let synthesizer = &r.brain.requests()[6].messages[0].content;
    assert!(synthesizer.contains("A → a\nD → d\nE → e"), "{synthesizer}");
}

#[test]
fn hybrid_failed_step_replans_at_once() {
    let r = run(
        "hybrid",
        &[],
        &[
            "1. Ask the service\n2. Report",
            "Action: broken\nAction Input: {}",
            "FINAL_ANSWER: Error: the service is down",
            "Summary: The service is down.\n1. Look it up instead",
            "Action: lookup\nAction Input: {\"query\": \"it\"}",
            "FINAL_ANSWER: found it",
            "Found it.",
        ],
    );
    assert_eq!(r.outcome.answer, "Found it.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(
        r.purposes(),
        [
            "planner",
            "react",
            "react",
            "replan",
            "react",
            "react",
            "synthesizer"
        ]
    );
    assert_eq!(
        r.tool_calls(),
        vec![
            ("broken".to_string(), json!({})),
            ("lookup".to_string(), json!({"query": "it"})),
        ]
    );
    assert_eq!(
        plan_events(&r),
        vec![
            plan(&["Ask the service", "Report"]),
            started(1, "Ask the service"),
            finished(1, "Error: the service is down"),
            reflection("The service is down."),
            plan(&["Look it up instead"]),
            started(2, "Look it up instead"),
            finished(2, "found it"),
        ]
    );
    assert!(r
        .last_message(3)
        .contains("This step failed: Ask the service"));
}

#[test]
fn hybrid_done_ends_early() {
    let r = run(
        "hybrid",
        &[],
        &[
            "1. A\n2. B\n3. C",
            "FINAL_ANSWER: a",
            "Summary: a is enough.\nDecision: DONE",
            "Just a.",
            "FINAL_ANSWER: never",
        ],
    );
    assert_eq!(r.outcome.answer, "Just a.");
    assert_eq!(
        r.purposes(),
        ["planner", "react", "checkpoint", "synthesizer"]
    );
    assert_eq!(steps_started(&r), 1);
    assert_eq!(r.brain.remaining(), 1);
}

#[test]
fn hybrid_replans_at_most_max_replans_times() {
    let r = run(
        "hybrid",
        &[("max_replans", json!(1)), ("max_step_iterations", json!(1))],
        &[
            "1. A\n2. B",
            "Action: lookup\nAction Input: {\"query\": \"a\"}",
            "FINAL_ANSWER: partly a",
            "Summary: A ran out of rounds.\n1. C\n2. D",
            "Action: lookup\nAction Input: {\"query\": \"c\"}",
            "FINAL_ANSWER: partly c",
            "Summary: C failed too.\nDecision: REPLAN\n1. X",
            "FINAL_ANSWER: d",
            "d at last",
        ],
    );
    assert_eq!(r.outcome.answer, "d at last");
    assert_eq!(
        r.purposes(),
        [
            "planner",
            "react",
            "react-fallback",
            "replan",
            "react",
            "react-fallback",
            "checkpoint",
            "react",
            "synthesizer"
        ]
    );
    let plans: Vec<LoopEvent> = plan_events(&r)
        .into_iter()
        .filter(|e| matches!(e, LoopEvent::Plan { .. }))
        .collect();
    assert_eq!(plans, vec![plan(&["A", "B"]), plan(&["C", "D"])]);
    let descriptions: Vec<String> = r
        .events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::StepStarted { description, .. } => Some(description.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(descriptions, ["A", "C", "D"]);
}

#[test]
fn hybrid_runs_at_most_max_steps_in_all() {
    let r = run(
        "hybrid",
        &[("max_steps", json!(2))],
        &[
            "1. A\n2. B",
            "FINAL_ANSWER: a",
            "Summary: more is needed.\nDecision: REPLAN\n1. X\n2. Y\n3. Z",
            "FINAL_ANSWER: x",
            "a and x",
        ],
    );
    assert_eq!(r.outcome.answer, "a and x");
    assert_eq!(
        r.purposes(),
        ["planner", "react", "checkpoint", "react", "synthesizer"]
    );
    assert_eq!(plan_events(&r)[4], plan(&["X"]));
    assert_eq!(steps_started(&r), 2);
}

#[test]
fn hybrid_checkpoint_without_a_decision_goes_on() {
    let r = run(
        "hybrid",
        &[],
        &[
            "1. A\n2. B",
            "FINAL_ANSWER: a",
            "Looks fine to me.",
            "FINAL_ANSWER: b",
            "a and b",
        ],
    );
    assert_eq!(r.outcome.answer, "a and b");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(steps_started(&r), 2);
    assert_eq!(plan_events(&r)[3], reflection("Looks fine to me."));
}

#[test]
fn hybrid_cancelled_mid_step() {
    let r = with_budget(
        "hybrid",
        Budget::default(),
        &["1. stop", "Action: cancel\nAction Input: {}", "never"],
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.outcome.answer, "");
}

#[test]
fn unknown_settings_are_rejected() {
    let settings = common::engines::settings(&[("max_iterations", json!(3))]);
    assert!(loopd::engine::build("plan-execute", &settings).is_err());
    let settings = common::engines::settings(&[("max_replans", json!(1))]);
    assert!(loopd::engine::build("plan-execute", &settings).is_err());
    assert!(loopd::engine::build("hybrid", &settings).is_ok());
}

//! The ReAct engine on scripted replies: answers, tool calls, errors fed
//! back as observations, loop detection, the fallback, budgets, cancellation.

use crate::common;
use crate::common::engines::{run, run_with, test_tools, with_budget};
use loopd::brain::{Role, ScriptedBrain};
use loopd::engine::{Budget, LoopEvent};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[test]
fn final_answer_first_try() {
    let r = run("react", &[], &["Thought: easy.\nFINAL_ANSWER: Four."]);
    assert_eq!(r.outcome.answer, "Four.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.outcome.stats.turns, 1);
    assert!(r.tool_calls().is_empty());
    assert_eq!(r.spoken(), "Four.");
    assert!(r.thoughts().contains("Thought: easy."));
    assert!(!r.thoughts().contains("Four"));
    let request = &r.brain.requests()[0];
    assert_eq!(request.messages[0].role, Role::System);
    assert!(request.messages[0]
        .content
        .contains("- add {\"a\": number, \"b\": number}: Adds two numbers."));
    assert_eq!(request.options.stop, vec!["Observation:".to_string()]);
    assert_eq!(request.assistant_prefix, "Thought:");
}

#[test]
fn one_tool_call_then_answer() {
    let r = run(
        "react",
        &[],
        &[
            "Thought: add.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}\nObservation: made up",
            "Thought: got it.\nFINAL_ANSWER: 5",
        ],
    );
    assert_eq!(r.outcome.answer, "5");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 2, "b": 3}))]
    );
    let second = &r.brain.requests()[1];
    let n = second.messages.len();
    assert_eq!(second.messages[n - 1].content, "Observation: {\"sum\":5.0}");
    assert!(!second.messages[n - 2].content.contains("made up"));
    assert!(r
        .events
        .iter()
        .any(|e| matches!(e, LoopEvent::ToolCall { name, .. } if name == "add")));
    assert!(r.events.iter().any(|e| matches!(
        e,
        LoopEvent::Observation {
            is_error: false,
            ..
        }
    )));
}

#[test]
fn unknown_tool_goes_back_as_an_observation() {
    let r = run(
        "react",
        &[],
        &[
            "Action: weather\nAction Input: {\"city\": \"Paris\"}",
            "FINAL_ANSWER: I cannot check the weather.",
        ],
    );
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    let observation = r.brain.requests()[1]
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert!(
        observation.starts_with("Observation: Error: unknown tool `weather`"),
        "{observation}"
    );
    assert!(observation.contains("add"));
    assert!(r.outcome.stats.tool_calls[0].is_error);
}

#[test]
fn a_failing_tool_and_invalid_arguments_are_observations() {
    let r = run(
        "react",
        &[],
        &[
            "Action: broken\nAction Input: {}",
            "Action: add\nAction Input: {\"a\": \"two\", \"b\": 3}",
            "FINAL_ANSWER: sorry",
        ],
    );
    assert_eq!(r.outcome.answer, "sorry");
    assert_eq!(r.llm_calls(), 3);
    let requests = r.brain.requests();
    let first = &requests[1].messages.last().unwrap().content;
    assert_eq!(first, "Observation: Error: the service is down");
    let second = &requests[2].messages.last().unwrap().content;
    assert!(second.contains("invalid arguments for `add`"), "{second}");
    assert_eq!(r.outcome.stats.tool_calls.len(), 2);
    assert_eq!(r.outcome.stats.format_errors, 0);
}

#[test]
fn invalid_action_input_json_is_a_format_error_and_retried() {
    let r = run(
        "react",
        &[],
        &[
            "Action: add\nAction Input: {a: 1, b: 2}",
            "FINAL_ANSWER: three",
        ],
    );
    assert_eq!(r.outcome.answer, "three");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert!(r.tool_calls().is_empty());
    let observation = r.brain.requests()[1]
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert!(
        observation.contains("must be one JSON object"),
        "{observation}"
    );
}

#[test]
fn text_without_protocol_gets_one_reminder_then_is_the_answer() {
    let text = "Thought: Paris is the capital of France.";
    let r = run("react", &[], &[text, text]);
    assert_eq!(r.outcome.answer, "Paris is the capital of France.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.outcome.stats.format_errors, 2);
    assert_eq!(r.spoken(), "Paris is the capital of France.");
    let reminder = r.brain.requests()[1]
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert!(
        reminder.contains("no Action and no FINAL_ANSWER"),
        "{reminder}"
    );
}

#[test]
fn after_the_reminder_a_final_answer_is_taken() {
    let r = run(
        "react",
        &[],
        &["Thought: hmm.", "Thought: right.\nFINAL_ANSWER: Paris."],
    );
    assert_eq!(r.outcome.answer, "Paris.");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "Paris.");
}

#[test]
fn repeated_identical_call_is_nudged_then_blocked() {
    let call = "Action: lookup\nAction Input: {\"query\": \"x\"}";
    let r = run(
        "react",
        &[],
        &[call, call, call, "FINAL_ANSWER: best guess"],
    );
    assert_eq!(r.termination(), "blocked");
    assert_eq!(r.outcome.answer, "best guess");
    assert_eq!(r.tool_calls().len(), 1, "the repeat is not run again");
    assert_eq!(r.llm_calls(), 4, "three steps and the fallback");
    let nudge = r.brain.requests()[2]
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert!(nudge.contains("already called lookup"), "{nudge}");
}

#[test]
fn max_iterations_then_fallback() {
    let r = run(
        "react",
        &[("max_iterations", json!(2))],
        &[
            "Action: lookup\nAction Input: {\"query\": \"a\"}",
            "Action: lookup\nAction Input: {\"query\": \"b\"}",
            "FINAL_ANSWER: a and b\nThought: more",
        ],
    );
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.outcome.answer, "a and b");
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(r.outcome.stats.turns, 2);
    let last = r.brain.requests()[2]
        .messages
        .last()
        .unwrap()
        .content
        .clone();
    assert!(last.contains("FINAL_ANSWER"), "{last}");
}

#[test]
fn no_tools_means_a_plain_turn() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "react",
        &[],
        loopd::tools::Toolset::empty(),
        Budget::default(),
        cancel,
        ScriptedBrain::new(["Hello there."]),
    );
    assert_eq!(r.outcome.answer, "Hello there.");
    assert_eq!(r.spoken(), "Hello there.");
    assert_eq!(r.brain.requests()[0].messages.len(), 1);
}

#[test]
fn budget_of_turns_and_tokens() {
    let replies = [
        "Action: lookup\nAction Input: {\"query\": \"a\"}",
        "FINAL_ANSWER: no",
    ];
    let turns = Budget {
        max_turns: Some(1),
        ..Budget::default()
    };
    let r = with_budget("react", turns, &replies);
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.llm_calls(), 1);
    assert!(r.outcome.error.is_some());

    let tokens = Budget {
        max_total_tokens: Some(10),
        ..Budget::default()
    };
    let r = with_budget("react", tokens, &replies);
    assert_eq!(r.termination(), "budget_exhausted");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.outcome.answer, "");
}

#[test]
fn cancellation_mid_loop() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "react",
        &[],
        test_tools(&cancel),
        Budget::default(),
        cancel.clone(),
        ScriptedBrain::new(["Action: cancel\nAction Input: {}", "FINAL_ANSWER: never"]),
    );
    assert_eq!(r.termination(), "cancelled");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.brain.remaining(), 1);
    assert!(
        matches!(r.events.last(), Some(LoopEvent::Final { termination, .. }) if termination == "cancelled")
    );
}

#[test]
fn stats_add_up() {
    let r = run(
        "react",
        &[],
        &[
            "Action: add\nAction Input: {\"a\": 1, \"b\": 1}",
            "FINAL_ANSWER: 2",
        ],
    );
    let s = &r.outcome.stats;
    assert_eq!(s.calls.len(), 2);
    assert_eq!(
        s.prompt_tokens(),
        s.calls[0].prompt_tokens + s.calls[1].prompt_tokens
    );
    assert!(s.calls[1].prompt_tokens > s.calls[0].prompt_tokens);
    assert_eq!(s.completion_tokens(), 8 + 2);
    assert!(s.first_answer_token_ms.is_some());
    assert!(s.wall_ms >= s.first_answer_token_ms.unwrap());
    let json = s.to_json();
    for key in [
        "turns",
        "llm_calls",
        "tool_calls",
        "prompt_tokens",
        "prefill_tokens",
        "completion_tokens",
        "format_errors",
        "ttft_ms",
        "wall_ms",
    ] {
        assert!(!json[key].is_null(), "{key} is filled");
    }
}

#[test]
fn the_deadline_interrupts_a_slow_tool() {
    let cancel = CancellationToken::new();
    let mut tools = test_tools(&cancel);
    tools
        .add(common::engines::FnTool::new(
            "slow",
            "Takes its time.",
            json!({"type": "object"}),
            |_| {
                std::thread::sleep(std::time::Duration::from_millis(1500));
                Ok(json!({}))
            },
        ))
        .unwrap();
    let r = run_with(
        "react",
        &[],
        tools,
        Budget {
            deadline: Some(std::time::Instant::now() + std::time::Duration::from_millis(300)),
            ..Budget::default()
        },
        cancel,
        ScriptedBrain::new(["Action: slow\nAction Input: {}", "FINAL_ANSWER: late"]),
    );
    assert_eq!(r.termination(), "budget_exhausted");
    assert_eq!(r.llm_calls(), 1);
    let call = &r.outcome.stats.tool_calls[0];
    assert!(
        call.is_error && call.result.contains("deadline"),
        "{call:?}"
    );
}

#[test]
fn periodic_validation_can_change_the_approach() {
    let r = run(
        "react",
        &[("validate_every", json!(1))],
        &[
            "Action: broken\nAction Input: {}",
            "REPLAN: look it up instead",
            "Action: lookup\nAction Input: {\"query\": \"x\"}",
            "ON_TRACK",
            "FINAL_ANSWER: answer to x",
        ],
    );
    assert_eq!(r.outcome.answer, "answer to x");
    assert_eq!(
        r.purposes(),
        vec!["react", "validate", "react", "validate", "react"]
    );
    let after_replan = r.last_message(2);
    assert!(
        after_replan.ends_with("New approach: look it up instead"),
        "{after_replan}"
    );
    assert!(r
        .events
        .iter()
        .any(|e| matches!(e, LoopEvent::Reflection { text } if text == "look it up instead")));
    assert_eq!(r.outcome.stats.format_errors, 0);
    assert!(!r.spoken().contains("ON_TRACK"));
}

#[test]
fn a_timer_is_set_only_with_numbers_the_user_said() {
    let (timers, config) = timers_of("me");
    let (outcome, _) = common::engines::ask_with(
        "react",
        "Remind me about the 2 eggs on the stove.",
        &[
            "Thought: I need the timer.\nAction: timer\nAction Input: \
             {\"request\": \"set a timer for 7 minutes for the eggs\"}",
            "Thought: I know.\nFINAL_ANSWER: How many minutes should the eggs boil?",
        ],
        &["math", "clock", "timers"],
        &config,
    );
    let call = &outcome.stats.tool_calls[0];
    assert_eq!(call.name, "timer", "{outcome:#?}");
    assert!(call.is_error, "{call:#?}");
    assert!(call.result.contains('7'), "{call:#?}");
    assert!(timers.of("me").is_empty(), "{:?}", timers.of("me"));
    assert_eq!(outcome.answer, "How many minutes should the eggs boil?");
}

#[test]
fn a_timer_is_set_only_when_the_user_asked_for_one() {
    let (timers, config) = timers_of("me");
    let (outcome, _) = common::engines::ask_with(
        "react",
        "How many players are on the field for 1 soccer team?",
        &[
            "Thought: I need the players.\nAction: timer\nAction Input: \
             {\"request\": \"set a timer for 1 minute\"}",
            "Thought: I know.\nFINAL_ANSWER: A soccer team has eleven players on the field.",
        ],
        &["math", "clock", "timers"],
        &config,
    );
    let call = &outcome.stats.tool_calls[0];
    assert_eq!(call.name, "timer", "{outcome:#?}");
    assert!(call.is_error, "{call:#?}");
    assert!(call.result.contains("did not ask"), "{call:#?}");
    assert!(timers.of("me").is_empty(), "{:?}", timers.of("me"));
    assert_eq!(
        outcome.answer,
        "A soccer team has eleven players on the field."
    );
}

/// A timer store and a tool configuration that reaches it as `caller`.
fn timers_of(
    caller: &str,
) -> (
    std::sync::Arc<loopd::tools::timers::Timers>,
    loopd::tools::ToolConfig,
) {
    use loopd::tools::{timers::Timers, ToolConfig};
    let timers = Timers::open(None, Some("UTC".into()));
    timers.rings_for(caller);
    let config = ToolConfig {
        timers: Some(timers.clone()),
        caller: Some(caller.into()),
        ..ToolConfig::default()
    };
    (timers, config)
}

#[test]
fn a_made_up_number_sends_the_model_back_to_its_tools() {
    let (outcome, brain) = common::engines::ask_everyday(
        "react",
        "How many wheels do 3 tricycles have?",
        &[
            "Thought: I know.\nFINAL_ANSWER: 3 tricycles have 10 wheels.",
            "Action: calculate\nAction Input: {\"expression\": \"3 * 3\"}",
            "Thought: I know the answer now.\nFINAL_ANSWER: 3 tricycles have 9 wheels.",
        ],
    );
    assert_eq!(outcome.stats.ungrounded_answers, 1, "{outcome:#?}");
    assert_eq!(outcome.answer, "3 tricycles have 9 wheels.");
    assert!(brain.requests()[1]
        .messages
        .last()
        .unwrap()
        .content
        .contains("10"));
}

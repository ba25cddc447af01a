//! The native tool-calling engine on scripted replies: tools in the
//! request, `<tool_call>` blocks and bare JSON calls, results as tool
//! messages, malformed calls retried, the ReAct fallback for templates
//! without tool support, and the plain turn without tools.

use crate::common;
use crate::common::engines::{run, run_with, test_tools, Scripted};
use loopd::brain::{Message, Role, ScriptedBrain};
use loopd::engine::{Budget, LoopEvent};
use loopd::tools::Toolset;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ADD_2_3: &str = r#"<tool_call>{"name":"add","arguments":{"a":2,"b":3}}</tool_call>"#;

fn messages(r: &Scripted, request: usize) -> Vec<Message> {
    r.brain.requests()[request].messages.clone()
}

#[test]
fn one_tool_call_then_an_answer() {
    let r = run("native-tools", &[], &[ADD_2_3, "The sum is 5."]);
    assert_eq!(r.outcome.answer, "The sum is 5.");
    assert_eq!(r.outcome.engine, "native-tools");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(r.outcome.stats.turns, 2);
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 2, "b": 3}))]
    );
    assert_eq!(r.spoken(), "The sum is 5.");
    assert!(r.thoughts().contains("<tool_call>"));

    let first = &r.brain.requests()[0];
    let names: Vec<_> = first
        .tools
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "lookup", "broken", "cancel"]);
    assert_eq!(first.tools[0]["type"], "function");
    assert_eq!(
        first.tools[0]["function"]["parameters"]["required"],
        json!(["a", "b"])
    );
    assert_eq!(first.messages, vec![Message::user("What is the question?")]);
    assert!(first.options.stop.contains(&"<tool_response>".to_string()));

    let second = messages(&r, 1);
    assert_eq!(second.len(), 3);
    let call = &second[1];
    assert_eq!(call.role, Role::Assistant);
    assert_eq!(call.content, "");
    assert_eq!(call.tool_calls.len(), 1);
    assert_eq!(call.tool_calls[0].kind, "function");
    assert_eq!(call.tool_calls[0].function.name, "add");
    assert_eq!(
        call.tool_calls[0].function.arguments,
        json!({"a": 2, "b": 3})
    );
    let result = &second[2];
    assert_eq!(result.role, Role::Tool);
    assert_eq!(result.name.as_deref(), Some("add"));
    assert_eq!(result.content, "{\"sum\":5.0}");
    assert_eq!(r.brain.requests()[1].tools.len(), 4);
}

#[test]
fn two_calls_in_one_reply() {
    let reply = "Let me check.\n<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1, \"b\": 1}}\n</tool_call>\n<tool_call>\n{\"name\": \"lookup\", \"arguments\": {\"query\": \"moon\"}}\n</tool_call>";
    let r = run("native-tools", &[], &[reply, "Two, and the moon."]);
    assert_eq!(r.outcome.answer, "Two, and the moon.");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(
        r.tool_calls(),
        vec![
            ("add".to_string(), json!({"a": 1, "b": 1})),
            ("lookup".to_string(), json!({"query": "moon"})),
        ]
    );
    let second = messages(&r, 1);
    assert_eq!(second.len(), 4);
    assert_eq!(second[1].content, "Let me check.");
    assert_eq!(second[1].tool_calls.len(), 2);
    assert_eq!(second[2].name.as_deref(), Some("add"));
    assert_eq!(second[2].content, "{\"sum\":2.0}");
    assert_eq!(second[3].name.as_deref(), Some("lookup"));
    assert_eq!(second[3].content, "{\"result\":\"answer to moon\"}");
}

#[test]
fn words_before_a_call_are_spoken_but_not_the_call() {
    let reply = "Let me check.\n<tool_call>{\"name\": \"lookup\", \"arguments\": {\"query\": \"moon\"}}</tool_call>";
    let r = run("native-tools", &[], &[reply, "It is full."]);
    assert_eq!(r.spoken(), "Let me check.\nIt is full.");
    assert!(r.thoughts().contains("<tool_call>"));
}

#[test]
fn at_most_five_calls_are_taken_from_one_reply() {
    let one = "<tool_call>{\"name\": \"lookup\", \"arguments\": {\"query\": \"q\"}}</tool_call>";
    let reply = (0..7)
        .map(|i| one.replace("\"q\"", &format!("\"q{i}\"")))
        .collect::<Vec<_>>()
        .join("\n");
    let r = run("native-tools", &[], &[&reply, "Done."]);
    assert_eq!(r.tool_calls().len(), 5);
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.outcome.answer, "Done.");
}

#[test]
fn a_bare_json_reply_is_a_call() {
    let r = run(
        "native-tools",
        &[],
        &[
            r#"{"name": "lookup", "parameters": {"query": "Paris"}}"#,
            "Paris is in France.",
        ],
    );
    assert_eq!(r.outcome.answer, "Paris is in France.");
    assert_eq!(
        r.tool_calls(),
        vec![("lookup".to_string(), json!({"query": "Paris"}))]
    );
    assert_eq!(r.spoken(), "Paris is in France.");
    assert_eq!(r.outcome.stats.format_errors, 0);
}

#[test]
fn a_plain_answer_is_streamed_live() {
    let r = run("native-tools", &[], &["Hello, how can I help?"]);
    assert_eq!(r.outcome.answer, "Hello, how can I help?");
    assert_eq!(r.spoken(), "Hello, how can I help?");
    assert_eq!(r.thoughts(), "");
    assert_eq!(r.llm_calls(), 1);
}

#[test]
fn a_malformed_call_is_a_format_error_and_retried() {
    let bad = r#"<tool_call>{"name": "add", "arguments": {"a": 1,}}</tool_call>"#;
    let good = r#"<tool_call>{"name":"add","arguments":{"a":1,"b":2}}</tool_call>"#;
    let r = run("native-tools", &[], &[bad, good, "Three."]);
    assert_eq!(r.outcome.answer, "Three.");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 1, "b": 2}))]
    );
    assert!(r.events.iter().any(
        |e| matches!(e, LoopEvent::FormatError { detail } if detail.contains("invalid JSON"))
    ));
    let second = messages(&r, 1);
    assert_eq!(second[1].role, Role::Assistant);
    assert_eq!(second[1].content, bad);
    assert!(second[1].tool_calls.is_empty());
    let error = &second[2];
    assert_eq!(error.role, Role::Tool);
    assert_eq!(error.name, None);
    assert!(
        error.content.starts_with("Error: invalid JSON"),
        "{}",
        error.content
    );
    assert!(error.content.contains("<tool_call>"), "{}", error.content);
}

#[test]
fn unknown_tools_and_failures_go_back_as_tool_messages() {
    let r = run(
        "native-tools",
        &[],
        &[
            r#"<tool_call>{"name":"weather","arguments":{}}</tool_call><tool_call>{"name":"broken","arguments":{}}</tool_call>"#,
            "Sorry.",
        ],
    );
    assert_eq!(r.outcome.answer, "Sorry.");
    assert_eq!(r.outcome.stats.format_errors, 0);
    let second = messages(&r, 1);
    assert_eq!(second[2].name.as_deref(), Some("weather"));
    assert!(second[2]
        .content
        .starts_with("Error: unknown tool `weather`"));
    assert_eq!(second[3].content, "Error: the service is down");
}

#[test]
fn an_empty_reply_is_a_format_error_and_the_answer_is_asked_for_without_tools() {
    let r = run("native-tools", &[], &[ADD_2_3, "  \n", "It is 5."]);
    assert_eq!(r.outcome.answer, "It is 5.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.llm_calls(), 3);
    let last = &r.brain.requests()[2];
    assert!(last.tools.is_empty());
    assert!(last.messages[0]
        .content
        .contains("add {\"a\":2,\"b\":3} → {\"sum\":5.0}"));
}

#[test]
fn out_of_iterations_the_model_answers_from_the_results_without_tools() {
    let r = run(
        "native-tools",
        &[("max_iterations", json!(2))],
        &[
            r#"<tool_call>{"name":"lookup","arguments":{"query":"x"}}</tool_call>"#,
            r#"<tool_call>{"name":"add","arguments":{"a":1,"b":2}}</tool_call>"#,
            "Best guess: x.",
        ],
    );
    assert_eq!(r.outcome.answer, "Best guess: x.");
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.llm_calls(), 3);
    assert_eq!(r.tool_calls().len(), 2);
    assert_eq!(r.spoken(), "Best guess: x.");
    let last = &r.brain.requests()[2];
    assert!(last.tools.is_empty());
    assert_eq!(last.messages.len(), 1);
    assert_eq!(last.messages[0].role, Role::User);
    let prompt = &last.messages[0].content;
    assert!(
        prompt.starts_with(
            "What is the question?\n\nResults of the tools you called:\n\
             lookup {\"query\":\"x\"} → {\"result\":\"answer to x\"}\n\
             add {\"a\":1,\"b\":2} → {\"sum\":3.0}\n\n"
        ),
        "{prompt}"
    );
}

#[test]
fn a_repeated_call_is_not_run_again_and_a_reply_of_repeats_asks_for_the_answer() {
    let call = r#"<tool_call>{"name":"lookup","arguments":{"query":"x"}}</tool_call>"#;
    let other = r#"<tool_call>{"name":"add","arguments":{"a":1,"b":2}}</tool_call>"#;
    let r = run(
        "native-tools",
        &[],
        &[call, &format!("{call}\n{other}"), call, "It is x."],
    );
    assert_eq!(r.outcome.answer, "It is x.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 4);
    assert_eq!(r.tool_calls().len(), 2, "the repeat is not run again");
    let nudge = &r.brain.requests()[2].messages;
    let nudge = &nudge[nudge.len() - 2];
    assert_eq!(nudge.role, Role::Tool);
    assert_eq!(nudge.name.as_deref(), Some("lookup"));
    assert!(
        nudge.content.contains("already called lookup"),
        "{}",
        nudge.content
    );
    assert!(
        r.brain.requests()[3].tools.is_empty(),
        "the answer is asked without tools"
    );
}

#[test]
fn a_third_reply_in_a_row_calling_the_same_tool_asks_for_the_answer() {
    let call = |value: u32| {
        format!(r#"<tool_call>{{"name":"add","arguments":{{"a":{value},"b":1}}}}</tool_call>"#)
    };
    let r = run(
        "native-tools",
        &[],
        &[&call(1), &call(2), &call(3), "It is 2."],
    );
    assert_eq!(r.outcome.answer, "It is 2.");
    assert_eq!(r.termination(), "answered");
    assert_eq!(r.llm_calls(), 4);
    assert_eq!(r.tool_calls().len(), 2, "the third is not run");
    assert!(r.brain.requests()[3].tools.is_empty());

    let other = r#"<tool_call>{"name":"lookup","arguments":{"query":"x"}}</tool_call>"#;
    let r = run(
        "native-tools",
        &[("max_iterations", json!(4))],
        &[&call(1), &call(2), other, &call(3), "It is 3."],
    );
    assert_eq!(
        r.tool_calls().len(),
        4,
        "another tool in between resets the count"
    );
}

#[test]
fn a_final_reply_that_is_still_a_tool_call_speaks_nothing() {
    let call = r#"<tool_call>{"name":"lookup","arguments":{"query":"x"}}</tool_call>"#;
    let r = run(
        "native-tools",
        &[("max_iterations", json!(1))],
        &[call, call],
    );
    assert_eq!(r.outcome.answer, "");
    assert_eq!(r.termination(), "max_turns");
    assert_eq!(r.outcome.stats.format_errors, 1);
    assert_eq!(r.spoken(), "");
}

#[test]
fn without_tool_support_in_the_template_react_runs() {
    let cancel = CancellationToken::new();
    let r = run_with(
        "native-tools",
        &[("max_iterations", json!(1))],
        test_tools(&cancel),
        Budget::default(),
        cancel,
        ScriptedBrain::new([
            "Thought: add.\nAction: add\nAction Input: {\"a\": 1, \"b\": 2}",
            "FINAL_ANSWER: 3",
        ])
        .with_tool_template(false),
    );
    assert_eq!(r.outcome.engine, "react");
    assert_eq!(r.outcome.answer, "3");
    assert_eq!(r.termination(), "max_turns", "max_iterations reaches ReAct");
    assert_eq!(r.llm_calls(), 2);
    assert_eq!(
        r.tool_calls(),
        vec![("add".to_string(), json!({"a": 1, "b": 2}))]
    );
    assert!(r.events.iter().any(|e| matches!(
        e,
        LoopEvent::EngineChosen { engine, reason }
            if engine == "react" && reason.contains("no tool support")
    )));
    let first = &r.brain.requests()[0];
    assert!(first.tools.is_empty());
    assert!(first.messages[0].content.contains("Action Input:"));
}

#[test]
fn without_tools_it_is_a_plain_turn() {
    let r = run_with(
        "native-tools",
        &[],
        Toolset::empty(),
        Budget::default(),
        CancellationToken::new(),
        ScriptedBrain::new(["Hi there."]),
    );
    assert_eq!(r.outcome.answer, "Hi there.");
    assert_eq!(r.outcome.engine, "native-tools");
    assert_eq!(r.llm_calls(), 1);
    assert_eq!(r.spoken(), "Hi there.");
    let first = &r.brain.requests()[0];
    assert!(first.tools.is_empty());
    assert_eq!(first.messages, vec![Message::user("What is the question?")]);
}

#[test]
fn max_iterations_must_be_at_least_one() {
    let err = loopd::engine::build(
        "native-tools",
        &common::engines::settings(&[("max_iterations", json!(0))]),
    )
    .err()
    .expect("rejected");
    assert!(err.contains("max_iterations"), "{err}");
}

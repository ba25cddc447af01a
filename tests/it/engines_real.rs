//! Every engine on the real fast test model with the clock and math tools:
//! it finishes within its bounds, with an answer and stats that add up.

use crate::common::engines::drive;
use crate::common::{model_path, QWEN, SMOLLM};
use loopd::brain::device::DeviceChoice;
use loopd::brain::{Brain, GenerateOptions, LocalBrain, LocalBrainConfig, Message};
use loopd::engine::{self, Budget, LoopEvent, LoopOutcome, LoopRequest, Settings, ENGINES};
use loopd::tools::{ToolConfig, Toolset};
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

/// Most tokens per call (`loopd bench`'s default): room for a step whose
/// thought and tool argument reach their bounds (200 and 100 characters).
const MAX_TOKENS: usize = 256;

fn load(name: &str) -> Arc<dyn Brain> {
    let brain = LocalBrain::load(LocalBrainConfig {
        model: model_path(name),
        device: DeviceChoice::Cpu,
        max_context: 4096,
        ..LocalBrainConfig::new(model_path(name))
    })
    .unwrap_or_else(|e| panic!("{name} loads: {e}"));
    Arc::new(brain)
}

fn brain() -> Arc<dyn Brain> {
    static BRAIN: OnceLock<Arc<dyn Brain>> = OnceLock::new();
    BRAIN.get_or_init(|| load(SMOLLM)).clone()
}

/// Small settings per engine so the whole set runs in minutes on 2 cores.
fn small_settings(engine: &str) -> Settings {
    let pairs: Vec<(&str, Value)> = match engine {
        "react" | "native-tools" => vec![("max_iterations", json!(3))],
        "plan-execute" => vec![("max_steps", json!(2)), ("max_step_iterations", json!(2))],
        "hybrid" => vec![
            ("max_steps", json!(2)),
            ("max_step_iterations", json!(2)),
            ("max_replans", json!(1)),
        ],
        "reflexion" => vec![("max_reflections", json!(2)), ("max_iterations", json!(2))],
        "self-ask" => vec![("max_follow_ups", json!(2))],
        "critic" => vec![("max_critique_rounds", json!(1))],
        "tree-of-thoughts" => vec![
            ("n_branches", json!(2)),
            ("beam_width", json!(1)),
            ("max_depth", json!(1)),
        ],
        _ => vec![],
    };
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn ask(engine_id: &str, question: &str) -> (LoopOutcome, Vec<LoopEvent>) {
    ask_with(brain(), engine_id, &["clock", "math"], question)
}

fn ask_with(
    brain: Arc<dyn Brain>,
    engine_id: &str,
    toolboxes: &[&str],
    question: &str,
) -> (LoopOutcome, Vec<LoopEvent>) {
    let engine = engine::build(engine_id, &small_settings(engine_id)).expect("engine builds");
    let tools = Toolset::named(toolboxes, &ToolConfig::default()).unwrap();
    drive(LoopRequest {
        engine,
        conversation: vec![
            Message::system("You are a helpful voice assistant. Answer briefly."),
            Message::user(question),
        ],
        brain,
        tools: Arc::new(tools),
        budget: Budget {
            max_turns: Some(12),
            ..Budget::default()
        },
        options: GenerateOptions {
            max_tokens: MAX_TOKENS,
            ..GenerateOptions::default()
        },
        cancel: CancellationToken::new(),
        events: None,
        session: None,
        hold: None,
    })
}

fn check(engine_id: &str, question: &str) {
    let (outcome, events) = ask(engine_id, question);
    let s = &outcome.stats;
    let context = format!("{engine_id}: {outcome:#?}");
    assert!(
        ["answered", "max_turns", "blocked"].contains(&outcome.termination.as_str()),
        "{context}"
    );
    assert!(!outcome.answer.trim().is_empty(), "empty answer: {context}");
    assert!(outcome.error.is_none(), "{context}");
    if engine_id == "auto" {
        assert_ne!(outcome.engine, "auto", "auto reports what it chose");
    }
    assert!(s.llm_calls() >= 1 && s.llm_calls() <= 30, "{context}");
    assert!(s.turns <= 12, "{context}");
    for call in &s.calls {
        assert_eq!(
            call.prefill_tokens + call.cached_tokens,
            call.prompt_tokens,
            "{context}"
        );
        assert!(call.prompt_tokens > 0, "{context}");
        let bound = if call.purpose == "critique" {
            loopd::engine::protocol::critic::MAX_CRITIQUE_TOKENS
        } else {
            MAX_TOKENS
        };
        assert!(call.completion_tokens <= bound, "{context}");
    }
    assert!(s.completion_tokens() > 0, "{context}");
    assert_eq!(
        s.format_errors, 0,
        "constrained replies always parse: {context}"
    );
    assert_eq!(
        s.invalid_tool_calls(),
        0,
        "constrained tool calls fit their schema: {context}"
    );
    let ttft = s.ttft_ms.expect("a token was generated");
    assert!(ttft > 0.0 && ttft <= s.wall_ms, "{context}");
    let tool_events = events
        .iter()
        .filter(|e| matches!(e, LoopEvent::ToolCall { .. }))
        .count();
    assert_eq!(tool_events, s.tool_calls.len(), "{context}");
    let spoken: String = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::AnswerToken { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        spoken.trim(),
        outcome.answer,
        "the spoken text is the answer: {context}"
    );
    assert!(matches!(events.last(), Some(LoopEvent::Final { .. })));
}

const QUESTION: &str = "What is 17*6?";

#[test]
fn every_engine_is_covered() {
    let tested = [
        "react",
        "plan-execute",
        "reflexion",
        "self-ask",
        "chain-of-thought",
        "critic",
        "tree-of-thoughts",
        "hybrid",
        "auto",
        "native-tools",
        "none",
    ];
    assert_eq!(ENGINES, tested);
}

#[test]
fn react() {
    check("react", QUESTION);
}

#[test]
fn plan_execute() {
    check("plan-execute", QUESTION);
}

#[test]
fn reflexion() {
    check("reflexion", QUESTION);
}

#[test]
fn self_ask() {
    check("self-ask", QUESTION);
}

#[test]
fn chain_of_thought() {
    check("chain-of-thought", QUESTION);
}

#[test]
fn critic() {
    check("critic", QUESTION);
}

#[test]
fn tree_of_thoughts() {
    check("tree-of-thoughts", QUESTION);
}

#[test]
fn hybrid() {
    check("hybrid", QUESTION);
}

#[test]
fn auto() {
    check("auto", QUESTION);
}

#[test]
fn native_tools() {
    check("native-tools", QUESTION);
}

#[test]
fn none() {
    check("none", QUESTION);
}

/// On the 0.5B model, react computes a product it cannot know by heart with
/// the calculator, and says the right number.
#[test]
fn react_on_qwen_answers_a_product_with_the_calculator() {
    let (outcome, _) = ask_with(
        load(QWEN),
        "react",
        &["math"],
        "What is 3201 multiplied by 682?",
    );
    let s = &outcome.stats;
    assert_eq!(s.format_errors, 0, "{outcome:#?}");
    assert!(
        s.tool_calls
            .iter()
            .any(|c| c.name == "calculate" && !c.is_error),
        "{outcome:#?}"
    );
    let digits: String = outcome
        .answer
        .chars()
        .filter(|c| c.is_ascii_digit())
        .collect();
    assert!(digits.contains("2183082"), "{outcome:#?}");
}

/// Qwen's chat template renders tools and parses as `<tool_call>`: the
/// native path runs the calculator and the result reaches the answer.
#[test]
fn native_tools_on_qwen_calls_the_calculator_through_its_template() {
    let qwen = load(QWEN);
    assert!(qwen.info().template_supports_tools);
    let (outcome, _) = ask_with(
        qwen,
        "native-tools",
        &["math"],
        "What is 1234.5 plus 4321.25?",
    );
    assert_eq!(outcome.engine, "native-tools", "{outcome:#?}");
    let calls = &outcome.stats.tool_calls;
    assert!(
        calls.iter().any(|c| c.name == "calculate" && !c.is_error),
        "{outcome:#?}"
    );
    assert!(outcome.answer.contains("5555.75"), "{outcome:#?}");
}

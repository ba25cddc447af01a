//! Prefix reuse on the real default model: loops, warmed prompts and
//! follow-up turns give the same greedy output with reuse as without it,
//! while computing far fewer prompt tokens.

use crate::common::engines::drive;
use crate::common::{model_path, SMOLLM};
use loopd::brain::{Brain, GenerateOptions, LocalBrain, LocalBrainConfig, Message};
use loopd::engine::{self, Budget, LoopEvent, LoopOutcome, LoopRequest, Settings};
use loopd::tools::{ToolConfig, Toolset};
use serde_json::json;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

const SYSTEM: &str = "You are a helpful voice assistant. Answer briefly.";

fn load(prefix_cache: bool, cache_budget: Option<usize>) -> Arc<LocalBrain> {
    let brain = LocalBrain::load(LocalBrainConfig {
        prefix_cache,
        cache_budget,
        ..LocalBrainConfig::new(model_path(SMOLLM))
    })
    .unwrap_or_else(|e| panic!("{SMOLLM} loads: {e}"));
    Arc::new(brain)
}

/// The math tools only: a clock's answers change between two runs, and
/// the runs are compared token for token.
fn tools() -> Arc<Toolset> {
    Arc::new(Toolset::named(&["math"], &ToolConfig::default()).unwrap())
}

fn options() -> GenerateOptions {
    GenerateOptions {
        max_tokens: 64,
        ..GenerateOptions::default()
    }
}

fn settings(engine_id: &str) -> Settings {
    match engine_id {
        "react" => Settings::from_iter([("max_iterations".to_string(), json!(3))]),
        "plan-execute" => Settings::from_iter([
            ("max_steps".to_string(), json!(2)),
            ("max_step_iterations".to_string(), json!(2)),
        ]),
        _ => Settings::new(),
    }
}

fn run(
    brain: &Arc<LocalBrain>,
    engine_id: &str,
    conversation: Vec<Message>,
    session: &str,
) -> (LoopOutcome, String) {
    let (outcome, events) = drive(LoopRequest {
        engine: engine::build(engine_id, &settings(engine_id)).unwrap(),
        conversation,
        brain: brain.clone(),
        tools: tools(),
        budget: Budget {
            max_turns: Some(8),
            ..Budget::default()
        },
        options: options(),
        cancel: CancellationToken::new(),
        events: None,
        session: Some(session.to_string()),
        hold: None,
    });
    let text = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::AnswerToken { text } | LoopEvent::ThoughtToken { text } => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect();
    assert!(outcome.error.is_none(), "{engine_id}: {outcome:#?}");
    (outcome, text)
}

fn warm(brain: &Arc<LocalBrain>, engine_id: &str) {
    let brain: Arc<dyn Brain> = brain.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let usage = runtime
        .block_on(engine::warm(
            &brain,
            engine::build(engine_id, &settings(engine_id)).unwrap(),
            Some(SYSTEM),
            tools(),
            &options(),
            &format!("warm:{engine_id}"),
            CancellationToken::new(),
        ))
        .unwrap()
        .expect("the engine makes an LLM call");
    assert!(usage.prefill_tokens > 0 && usage.prefill_tokens <= usage.prompt_tokens);
}

fn question(text: &str) -> Vec<Message> {
    vec![Message::system(SYSTEM), Message::user(text)]
}

#[test]
fn loops_give_the_same_greedy_output_with_and_without_reuse() {
    let cached = load(true, None);
    let uncached = load(false, None);
    for (engine_id, q) in [
        ("react", "What is 17*23?"),
        ("plan-execute", "What is 12 plus 30, then doubled?"),
    ] {
        warm(&cached, engine_id);
        let (with, with_text) = run(&cached, engine_id, question(q), "s1");
        let (without, without_text) = run(&uncached, engine_id, question(q), "s1");
        assert_eq!(
            with_text, without_text,
            "{engine_id}: the streamed text differs"
        );
        assert_eq!(with.answer, without.answer, "{engine_id}");
        assert_eq!(
            with.stats.llm_calls(),
            without.stats.llm_calls(),
            "{engine_id}"
        );
        assert_eq!(with.stats.prompt_tokens(), without.stats.prompt_tokens());
        for call in &without.stats.calls {
            assert_eq!(call.cached_tokens, 0, "{engine_id} without reuse: {call:?}");
        }
        let first = &with.stats.calls[0];
        assert!(
            first.prefill_tokens * 5 < first.prompt_tokens,
            "{engine_id}: the warmed prompt was not reused: {first:?}"
        );
        for call in &with.stats.calls {
            assert_eq!(call.prefill_tokens + call.cached_tokens, call.prompt_tokens);
        }
        assert!(
            with.stats.prefill_tokens() * 2 < without.stats.prefill_tokens(),
            "{engine_id}: {} computed with reuse, {} without",
            with.stats.prefill_tokens(),
            without.stats.prefill_tokens()
        );
    }
}

#[test]
fn a_follow_up_turn_computes_only_its_new_tokens() {
    let cached = load(true, None);
    let uncached = load(false, None);
    let first = "What is 6*7?";
    let (turn, _) = run(&cached, "react", question(first), "talk");
    let mut conversation = question(first);
    conversation.push(Message::assistant(turn.answer.clone()));
    conversation.push(Message::user("And 6 times 8?"));
    let (with, with_text) = run(&cached, "react", conversation.clone(), "talk");
    let (without, without_text) = run(&uncached, "react", conversation, "talk");
    assert_eq!(with_text, without_text);
    let call = &with.stats.calls[0];
    assert!(
        call.prefill_tokens * 4 < call.prompt_tokens,
        "the session's cache was not reused: {call:?}"
    );
    assert_eq!(without.stats.calls[0].prefill_tokens, call.prompt_tokens);
}

#[test]
fn caches_past_the_budget_are_dropped_least_recently_used_first() {
    let brain = load(true, Some(1));
    run(&brain, "none", question("Name a colour."), "a");
    run(&brain, "none", question("Name a fruit."), "b");
    let usage = brain.cache_usage();
    assert_eq!(usage.caches, 1, "{usage:?}");
    assert_eq!(usage.budget, 1);
    // Session a's cache is gone, and session b's is not a's to reuse,
    // though both begin with the same chat-template head.
    let (again, _) = run(&brain, "none", question("Name a colour."), "a");
    let call = &again.stats.calls[0];
    assert_eq!(call.cached_tokens, 0, "{call:?}");
    assert_eq!(call.prefill_tokens, call.prompt_tokens, "{call:?}");

    let roomy = load(true, None);
    run(&roomy, "none", question("Name a colour."), "a");
    run(&roomy, "none", question("Name a fruit."), "b");
    let (again, _) = run(&roomy, "none", question("Name a colour."), "a");
    assert_eq!(again.stats.calls[0].prefill_tokens, 1);
    assert_eq!(roomy.cache_usage().caches, 2);
}

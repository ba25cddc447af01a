//! What the engine machinery costs per loop iteration, with no model time:
//! the scripted brain replays ReAct replies that call the math `calculate`
//! tool N times and then answer, so everything measured is loopd's own work
//! (prompts, parsing, routing, tool validation and calls, events, stats)
//! plus the scripted brain's word-by-word streaming. `none` gives the fixed
//! cost of one plain request.
//!
//! `cargo bench -p loopd-benches --bench engine_overhead`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use loopd::brain::{GenerateOptions, Message, ScriptedBrain};
use loopd::engine::{self, Budget, LoopOutcome, LoopRequest, Settings, Termination};
use loopd::tools::{ToolConfig, Toolset};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

const QUESTION: &str = "What is 12 times 7, plus the square root of 144?";

/// N tool-calling replies, each with a different expression (a repeated call
/// would be caught as a loop), then the final answer.
fn react_script(tool_calls: usize) -> Vec<String> {
    let mut replies: Vec<String> = (0..tool_calls)
        .map(|i| {
            format!(
                "Thought: I need to compute step {i} of the question with the calculator.\n\
                 Action: calculate\n\
                 Action Input: {{\"expression\": \"12 * 7 + sqrt(144) + {i}\"}}"
            )
        })
        .collect();
    replies.push("Thought: I have every number I need now.\nFINAL_ANSWER: 12 times 7 is 84, and adding the square root of 144 gives 96.".into());
    replies
}

/// Runs one request to its end on `runtime`, draining its events as a front
/// end would.
fn run_once(
    runtime: &Runtime,
    engine: &Arc<dyn engine::Engine>,
    tools: &Arc<Toolset>,
    replies: Vec<String>,
) -> LoopOutcome {
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let request = LoopRequest {
        engine: engine.clone(),
        conversation: vec![
            Message::system("You are a helpful voice assistant. Answer briefly."),
            Message::user(QUESTION),
        ],
        brain: Arc::new(ScriptedBrain::new(replies)),
        tools: tools.clone(),
        budget: Budget::default(),
        options: GenerateOptions::default(),
        cancel: CancellationToken::new(),
        events: Some(events),
        session: None,
        hold: None,
    };
    let outcome = runtime.block_on(engine::run_loop(request));
    while received.try_recv().is_ok() {}
    outcome
}

fn overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let tools = Arc::new(Toolset::named(&["math"], &ToolConfig::default()).expect("math tools"));
    let settings: Settings = [("max_iterations".to_string(), json!(32))]
        .into_iter()
        .collect();
    let react = engine::build("react", &settings).expect("react");
    let plain = engine::build("none", &Settings::new()).expect("none");

    let mut group = c.benchmark_group("react");
    for tool_calls in [0, 1, 4, 16] {
        let iterations = tool_calls + 1;
        let check = run_once(&runtime, &react, &tools, react_script(tool_calls));
        assert_eq!(check.termination, Termination::Answered, "{check:?}");
        assert_eq!(check.stats.llm_calls(), iterations);
        assert_eq!(check.stats.tool_calls.len(), tool_calls);
        assert!(check.stats.tool_calls.iter().all(|t| !t.is_error));

        group.throughput(Throughput::Elements(iterations as u64));
        group.bench_function(format!("{tool_calls}_tool_calls"), |b| {
            b.iter_batched(
                || react_script(tool_calls),
                |replies| run_once(&runtime, &react, &tools, replies),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();

    let answer = "Paris is the capital of France, on the Seine.".to_string();
    c.bench_function("none/plain_request", |b| {
        b.iter_batched(
            || vec![answer.clone()],
            |replies| run_once(&runtime, &plain, &tools, replies),
            BatchSize::SmallInput,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = overhead
}
criterion_main!(benches);

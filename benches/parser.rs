//! Throughput of the shared parsers (crates/engine/src/parse.rs) on model outputs
//! shaped like what the reference models write: ReAct action blocks, final
//! answers, JSON arguments wrapped in prose or fences, and the streaming
//! router fed a few characters at a time as tokens arrive.
//!
//! `cargo bench -p loopd-benches --bench parser`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use loopd::engine::parse::{self, FINAL_ANSWER};
use loopd::engine::protocol::react::react_step;
use loopd::engine::{Route, Router};
use serde_json::json;
use std::hint::black_box;
use std::time::Duration;

const ACTION: &str = "Thought: The user wants the total price including tax, so I should \
multiply the net price by 1.2 and then add the delivery fee.\n\
Action: calculate\n\
Action Input: {\"expression\": \"249.99 * 1.2 + 4.95\"}\n";

const FINAL: &str = "Thought: The calculator said 304.938, which rounds to 304.94.\n\
Final Answer: With tax and delivery the order comes to 304.94 euros. If you pick \
it up in the shop instead, you save the 4.95 euro delivery fee and pay 299.99.";

const FENCED_JSON: &str = "Sure! Here is the call you asked for:\n```json\n{\"name\": \
\"convert_units\", \"arguments\": {\"value\": 72.5, \"from\": \"fahrenheit\", \"to\": \
\"celsius\", \"note\": \"braces } inside { strings\"}}\n```\nLet me know if you need more.";

const PROSE: &str = "The capital of Australia is Canberra, not Sydney as many people \
think. Canberra was chosen as a compromise between Sydney and Melbourne, the two \
largest cities, and it has been the seat of government since 1927.";

/// Splits text into pieces of 1 to 7 bytes on character boundaries, like a
/// tokenizer's output.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut size = 1;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
        size = size % 7 + 1;
    }
    out
}

fn parsers(c: &mut Criterion) {
    let mut group = c.benchmark_group("react_step");
    for (name, text) in [
        ("action", ACTION),
        ("final_answer", FINAL),
        ("prose", PROSE),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| react_step(black_box(text))));
    }
    group.finish();

    let mut group = c.benchmark_group("json");
    group.throughput(Throughput::Bytes(FENCED_JSON.len() as u64));
    group.bench_function("json_object_in_prose", |b| {
        b.iter(|| parse::json_object(black_box(FENCED_JSON)))
    });
    let schema = json!({"type": "object", "properties": {"expression": {"type": "string"}},
                        "required": ["expression"]});
    let input = " {\"expression\": \"249.99 * 1.2 + 4.95\"}";
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.bench_function("tool_arguments", |b| {
        b.iter(|| parse::tool_arguments(black_box(input), &schema))
    });
    group.finish();

    let mut group = c.benchmark_group("router");
    let routes = [
        (
            "answer_after_final",
            FINAL,
            Route::AnswerAfter(FINAL_ANSWER),
        ),
        (
            "answer_unless_action",
            PROSE,
            Route::AnswerUnlessStarts(&["action:", "thought:"]),
        ),
        ("thought", ACTION, Route::Thought),
    ];
    for (name, text, route) in routes {
        let split = pieces(text);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut router = Router::new(route);
                let mut spoken = 0;
                for piece in &split {
                    spoken += router.push(black_box(piece)).1.len();
                }
                spoken + router.finish().1.len()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = parsers
}
criterion_main!(benches);

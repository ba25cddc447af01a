//! Turning a conversation into prompt tokens with the reference models' own
//! chat templates (read from their GGUF files): rendering a 2-message and a
//! 12-message conversation, with and without tool definitions, then
//! tokenizing the rendered prompt. SmolLM2's template ignores tools; the
//! case is kept so both models are measured on the same inputs.
//!
//! `cargo bench -p loopd-benches --bench template` (the models must be fetched: `models/fetch`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use loopd::brain::gguf::GgufFile;
use loopd::brain::template::ChatTemplate;
use loopd::brain::tokenizer::Tokenizer;
use loopd::brain::Message;
use loopd::tools::{ToolConfig, Toolset};
use std::time::Duration;

const MODELS: [&str; 2] = ["smollm2-135m", "qwen2.5-coder-0.5b"];

/// The model's chat template (with its BOS and EOS texts, as the local brain
/// builds it) and tokenizer; panics when the model is not fetched.
fn load(name: &str) -> (ChatTemplate, Tokenizer) {
    let path = loopd::models::resolve(Some(name))
        .unwrap_or_else(|e| panic!("the template bench needs the real model {name}: {e}"));
    let gguf = GgufFile::open(&path).expect("a readable GGUF file");
    let tokenizer = Tokenizer::from_gguf(&gguf).expect("the model's tokenizer");
    let special = |key: &str| {
        gguf.opt_usize_in(key, 0..=tokenizer.vocab_size() - 1)
            .ok()
            .flatten()
            .map(|id| tokenizer.token_text(id as u32))
            .unwrap_or_default()
    };
    let source = gguf
        .opt_string("tokenizer.chat_template")
        .unwrap_or_else(|| panic!("{name} carries no tokenizer.chat_template"));
    let template = ChatTemplate::new(
        Some(&source),
        &special("tokenizer.ggml.bos_token_id"),
        &special("tokenizer.ggml.eos_token_id"),
    )
    .expect("the chat template compiles");
    (template, tokenizer)
}

/// A system message and `turns` user/assistant exchanges, then a question.
fn conversation(turns: usize) -> Vec<Message> {
    let mut messages = vec![Message::system(
        "You are a helpful voice assistant running on a small device. Answer in one or two short sentences.",
    )];
    for i in 0..turns {
        messages.push(Message::user(format!(
            "How long does it take to boil an egg number {i}, more or less?"
        )));
        messages.push(Message::assistant(format!(
            "About {} minutes for a soft egg and ten for a hard one.",
            6 + i % 3
        )));
    }
    messages.push(Message::user(
        "And how many minutes is that for six eggs at once?",
    ));
    messages
}

fn templates(c: &mut Criterion) {
    let tools: Vec<serde_json::Value> = Toolset::named(&["math", "clock"], &ToolConfig::default())
        .expect("built-in tools")
        .specs()
        .iter()
        .map(|spec| spec.as_function())
        .collect();
    let conversations = [
        ("2_messages", conversation(0)),
        ("12_messages", conversation(5)),
    ];
    assert_eq!(conversations[1].1.len(), 12);

    for model in MODELS {
        let (template, tokenizer) = load(model);
        let mut group = c.benchmark_group(format!("render/{model}"));
        for (name, messages) in &conversations {
            for (tools_name, tools) in [("no_tools", &[][..]), ("tools", &tools[..])] {
                let prompt = template.render(messages, tools, true).expect("renders");
                group.throughput(Throughput::Bytes(prompt.len() as u64));
                group.bench_function(format!("{name}/{tools_name}"), |b| {
                    b.iter(|| template.render(messages, tools, true).unwrap())
                });
            }
        }
        group.finish();

        let mut group = c.benchmark_group(format!("tokenize/{model}"));
        for (name, messages) in &conversations {
            let prompt = template.render(messages, &tools, true).expect("renders");
            group.throughput(Throughput::Bytes(prompt.len() as u64));
            group.bench_function(format!("{name}/tools"), |b| {
                b.iter(|| tokenizer.encode_prompt(&prompt).unwrap())
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = templates
}
criterion_main!(benches);

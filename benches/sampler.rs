//! Cost per token of choosing the next token from a vocabulary-sized logits
//! vector: greedy, and temperature with top-k and top-p, each with and
//! without a repetition penalty over the last 64 tokens. Vocabulary sizes
//! are SmolLM2's (49152) and Qwen2.5's (151936).
//!
//! `cargo bench -p loopd-benches --bench sampler`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use loopd::brain::sampler::Sampler;
use loopd::brain::GenerateOptions;
use std::time::Duration;

const VOCABULARIES: [(&str, usize); 2] = [("smollm2_49152", 49_152), ("qwen2.5_151936", 151_936)];

/// Logits shaped like a language model's: most tokens far below a handful
/// of likely ones (deterministic, so runs compare).
fn logits(vocab: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    (0..vocab)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = (state >> 40) as f32 / (1u64 << 24) as f32;
            let peak = if i % 997 == 0 { 12.0 } else { 0.0 };
            noise * 8.0 - 6.0 + peak
        })
        .collect()
}

fn options(name: &str) -> GenerateOptions {
    let base = GenerateOptions::default();
    let sampled = GenerateOptions {
        temperature: 0.7,
        top_k: 40,
        top_p: 0.9,
        ..base.clone()
    };
    let penalised = |o: GenerateOptions| GenerateOptions {
        repetition_penalty: 1.1,
        repeat_last_n: 64,
        ..o
    };
    match name {
        "greedy" => base,
        "greedy_penalty" => penalised(base),
        "top_k_top_p" => sampled,
        "top_k_top_p_penalty" => penalised(sampled),
        _ => unreachable!(),
    }
}

fn sampler(c: &mut Criterion) {
    for (vocab_name, vocab) in VOCABULARIES {
        let fresh = logits(vocab);
        let recent: Vec<u32> = (0..200).map(|i| (i * 7919 % vocab) as u32).collect();
        let mut group = c.benchmark_group(format!("sample/{vocab_name}"));
        group.throughput(Throughput::Elements(1));
        for name in [
            "greedy",
            "greedy_penalty",
            "top_k_top_p",
            "top_k_top_p_penalty",
        ] {
            let mut sampler = Sampler::new(&options(name));
            group.bench_function(name, |b| {
                b.iter_batched_ref(
                    || fresh.clone(),
                    |logits| sampler.sample(logits, &recent),
                    BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    targets = sampler
}
criterion_main!(benches);

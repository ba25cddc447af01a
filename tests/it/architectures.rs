//! Every supported architecture loads and generates, proven on tiny
//! random-weight GGUF files; the forward pass gives the same logits however
//! the sequence is split across calls, which checks the KV cache, the rotary
//! positions and the attention masks (including Gemma 3's sliding window).

use crate::common::tiny::Tiny;
use crate::common::TempDir;
use candle_core::{DType, Device};
use loopd::brain::gguf::GgufFile;
use loopd::brain::kv_cache::KvCache;
use loopd::brain::model::Model;
use loopd::brain::{Brain, ChatRequest, GenerateOptions, LocalBrain, LocalBrainConfig, Message};
use tokio_util::sync::CancellationToken;

const ARCHS: &[&str] = &["llama", "qwen2", "qwen3", "gemma3", "phi3"];

fn tiny_file(dir: &TempDir, arch: &str) -> std::path::PathBuf {
    let path = dir.join(&format!("tiny-{arch}.gguf"));
    Tiny::new(arch).write(&path);
    path
}

fn logits(model: &Model, chunks: &[&[u32]]) -> Vec<f32> {
    logits_in(model, chunks, model.new_cache())
}

fn logits_in(model: &Model, chunks: &[&[u32]], mut cache: KvCache) -> Vec<f32> {
    let mut last = None;
    for chunk in chunks {
        last = Some(model.forward(chunk, &mut cache).unwrap());
    }
    last.unwrap().to_vec1::<f32>().unwrap()
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn every_architecture_generates() {
    let dir = TempDir::new("arch");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for arch in ARCHS {
        let brain = LocalBrain::load(LocalBrainConfig::new(tiny_file(&dir, arch)))
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(brain.info().arch, *arch);
        let request = ChatRequest {
            messages: vec![Message::user("is the tea hot")],
            tools: Vec::new(),
            options: GenerateOptions {
                max_tokens: 12,
                ..Default::default()
            },
            assistant_prefix: String::new(),
            session: None,
            grammar: None,
            from_knowledge: false,
        };
        let done = runtime
            .block_on(brain.generate(request, CancellationToken::new()).finish())
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert!(done.usage.prompt_tokens > 5, "{arch}: {:?}", done.usage);
        assert!(done.usage.completion_tokens >= 1, "{arch}: {:?}", done);
        assert!(done.usage.completion_tokens <= 12, "{arch}: {:?}", done);
    }
}

#[test]
fn split_forward_passes_agree_with_one_pass() {
    let dir = TempDir::new("split");
    let tokens: Vec<u32> = vec![3, 70, 71, 72, 200, 5, 9, 33, 34, 101, 102, 7];
    for arch in ARCHS {
        let mut gguf = GgufFile::open(&tiny_file(&dir, arch)).unwrap();
        let model = Model::load(&mut gguf, &Device::Cpu, 256).unwrap();
        let whole = logits(&model, &[&tokens]);
        let halves = logits(&model, &[&tokens[..5], &tokens[5..]]);
        let singles: Vec<&[u32]> = tokens.chunks(1).collect();
        let one_by_one = logits(&model, &singles);
        // The CPU computes every token's row in a fixed order, so the split
        // does not change a single bit.
        assert_eq!(whole, halves, "{arch}: prefill split differs");
        assert_eq!(whole, one_by_one, "{arch}: token-by-token differs");
        assert!(
            whole.iter().all(|x| x.is_finite()),
            "{arch}: non-finite logits"
        );
    }
}

#[test]
fn gpu_attention_formulation_agrees_with_the_cpu_kernel() {
    let dir = TempDir::new("gpuform");
    let tokens: Vec<u32> = vec![3, 70, 71, 72, 200, 5, 9, 33, 34, 101, 102, 7];
    for arch in ARCHS {
        let path = tiny_file(&dir, arch);
        let cpu = Model::load(&mut GgufFile::open(&path).unwrap(), &Device::Cpu, 256).unwrap();
        let mut tensor =
            Model::load(&mut GgufFile::open(&path).unwrap(), &Device::Cpu, 256).unwrap();
        tensor.use_tensor_attention();
        for chunks in [
            vec![&tokens[..]],
            vec![&tokens[..7], &tokens[7..8], &tokens[8..]],
        ] {
            // Both with f32 keys and values, as GPUs keep them. (Rounded to
            // f16, the last-bit differences of the two summation orders
            // can flip an 8-bit activation quant downstream: 0.014 on
            // gemma3's tiny logits. The f16 reads are checked in
            // `attention.rs`.)
            let f32_cache = |m: &Model| m.new_cache_of(DType::F32);
            let a = logits_in(&cpu, &chunks, f32_cache(&cpu));
            let b = logits_in(&tensor, &chunks, f32_cache(&tensor));
            assert!(
                max_difference(&a, &b) < 1e-4,
                "{arch}: the formulations differ by {}",
                max_difference(&a, &b)
            );
        }
    }
}

#[test]
fn truncated_cache_equals_fresh_computation() {
    let dir = TempDir::new("trunc");
    for arch in ARCHS {
        let mut gguf = GgufFile::open(&tiny_file(&dir, arch)).unwrap();
        let model = Model::load(&mut gguf, &Device::Cpu, 256).unwrap();
        let mut cache = model.new_cache();
        model
            .forward(&[1, 2, 3, 4, 5, 6, 7, 8], &mut cache)
            .unwrap();
        let snapshot = cache.try_clone().unwrap();
        cache.truncate(3);
        let reused = model
            .forward(&[40, 41], &mut cache)
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let fresh = logits(&model, &[&[1, 2, 3, 40, 41]]);
        assert!(
            max_difference(&reused, &fresh) < 1e-4,
            "{arch}: truncate then extend differs"
        );
        assert_eq!(snapshot.tokens(), &[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut snapshot = snapshot;
        let continued = model
            .forward(&[9], &mut snapshot)
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let fresh = logits(&model, &[&[1, 2, 3, 4, 5, 6, 7, 8, 9]]);
        assert!(
            max_difference(&continued, &fresh) < 1e-4,
            "{arch}: the clone was disturbed"
        );
    }
}

#[test]
fn out_of_range_token_is_an_error() {
    let dir = TempDir::new("oor");
    let mut gguf = GgufFile::open(&tiny_file(&dir, "llama")).unwrap();
    let model = Model::load(&mut gguf, &Device::Cpu, 256).unwrap();
    let mut cache = model.new_cache();
    let err = model.forward(&[1, 1_000_000], &mut cache).unwrap_err();
    assert!(err.to_string().contains("outside the vocabulary"), "{err}");
    assert!(cache.is_empty());
}

/// Stacking weight matrices (how a GPU model runs q/k/v and gate/up as one
/// product) gives exactly the rows of the separate matrices, in order.
#[test]
fn stacked_weights_are_the_separate_rows_in_order() {
    let dir = TempDir::new("arch-stack");
    for arch in ["llama", "qwen2", "qwen3", "gemma3"] {
        let mut gguf = GgufFile::open(&tiny_file(&dir, arch)).unwrap();
        let parts: Vec<(String, usize)> = ["attn_q", "attn_k", "attn_v", "ffn_gate", "ffn_up"]
            .iter()
            .map(|part| {
                let name = format!("blk.0.{part}.weight");
                let rows = gguf.tensor_shape(&name).unwrap()[0];
                (name, rows)
            })
            .collect();
        let cols = gguf.tensor_shape(&parts[0].0).unwrap()[1];
        let named: Vec<(&str, usize)> = parts.iter().map(|(n, r)| (n.as_str(), *r)).collect();
        let stacked = gguf
            .stacked_tensor(&named, cols, &Device::Cpu)
            .unwrap()
            .dequantize(&Device::Cpu)
            .unwrap();
        let separate: Vec<_> = named
            .iter()
            .map(|(name, rows)| {
                gguf.tensor(name, &[*rows, cols], &Device::Cpu)
                    .unwrap()
                    .dequantize(&Device::Cpu)
                    .unwrap()
            })
            .collect();
        let expected = candle_core::Tensor::cat(&separate, 0).unwrap();
        assert_eq!(stacked.dims(), expected.dims(), "{arch}");
        assert_eq!(
            stacked.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            expected.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            "{arch}"
        );
    }
}

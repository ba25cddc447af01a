//! loopd's transformer against candle-transformers' bundled models on the
//! same GGUF files, in f32.
//!
//! Both sides run with the weights dequantized to f32
//! (`CANDLE_DEQUANTIZE_ALL`), so the comparison checks the architecture —
//! norms, rotary embeddings, grouped-query attention, biases, tied output —
//! in plain f32 arithmetic. The two differ only in summation order (loopd's
//! row-wise attention kernel against candle's gemm), which costs a few ulps
//! per reduction: observed ≤ 4e-5 on logits of magnitude ~20 after 24-30
//! layers. 1e-3 leaves room for other CPUs' kernels and is still 100× below
//! the smallest gap that would change a greedy choice in practice.
//!
//! With quantized weights, candle's kernels quantize activations to 8 bits
//! per block, which turns such ulp-level differences into logit differences
//! of ~0.1; `generation.rs` checks that regime against llama.cpp's tokens.

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use loopd::brain::gguf::GgufFile;
use loopd::brain::model::Model;
use loopd_reference::{model_path, QWEN, SMOLLM};

const TOLERANCE: f32 = 1e-3;

/// Whether this process dequantizes the weights; if not, runs the test
/// `name` again in a child process of this test binary that does, and
/// checks that it passed.
///
/// candle reads `CANDLE_DEQUANTIZE_ALL` once per thread, on the thread's
/// first weight matrix: setting it in this process would race with the
/// other test's reads of the environment, so the variable is only ever set
/// for the child, from its start.
fn dequantized(name: &str) -> bool {
    if std::env::var_os("CANDLE_DEQUANTIZE_ALL").is_some_and(|v| v == "1") {
        return true;
    }
    let test = name.to_string();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([&test, "--exact", "--test-threads=1", "--nocapture"])
        .env("CANDLE_DEQUANTIZE_ALL", "1")
        .output()
        .expect("cannot run the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test} with CANDLE_DEQUANTIZE_ALL=1 ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    false
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Runs a prompt, then two decode steps, through both models and compares
/// the logits after each.
fn compare<F>(model: &str, mut reference: F)
where
    F: FnMut(&Tensor, usize) -> Tensor,
{
    let mut gguf = GgufFile::open(&model_path(model)).unwrap();
    let ours = Model::load(&mut gguf, &Device::Cpu, 4096).unwrap();
    let prompt: Vec<u32> = vec![
        1, 9690, 198, 2683, 359, 253, 5356, 11173, 30, 2, 198, 1, 4093, 198, 1780, 314,
    ];
    let steps: [&[u32]; 3] = [&prompt, &[216], &[34]];
    // f32 keys and values, as the reference keeps them (loopd's default on
    // the CPU is f16, which `generation.rs` checks against llama.cpp's).
    let mut cache = ours.new_cache_of(candle_core::DType::F32);
    let mut position = 0;
    for step in steps {
        let mine = ours
            .forward(step, &mut cache)
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let input = Tensor::new(step, &Device::Cpu)
            .unwrap()
            .unsqueeze(0)
            .unwrap();
        let theirs = reference(&input, position)
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        position += step.len();
        assert_eq!(mine.len(), theirs.len());
        let diff = max_difference(&mine, &theirs);
        assert!(
            diff < TOLERANCE,
            "{model} at position {position}: max |Δlogit| = {diff}"
        );
    }
}

fn content(model: &str) -> (gguf_file::Content, std::fs::File) {
    let mut file = std::fs::File::open(model_path(model)).unwrap();
    let content = gguf_file::Content::read(&mut file).unwrap();
    (content, file)
}

#[test]
fn llama_forward_matches_candle_transformers() {
    use candle_transformers::models::quantized_llama::ModelWeights;
    if !dequantized("llama_forward_matches_candle_transformers") {
        return;
    }
    let (ct, mut file) = content(SMOLLM);
    let mut reference = ModelWeights::from_gguf(ct, &mut file, &Device::Cpu).unwrap();
    compare(SMOLLM, |x, pos| reference.forward(x, pos).unwrap());
}

#[test]
fn qwen2_forward_matches_candle_transformers() {
    use candle_transformers::models::quantized_qwen2::ModelWeights;
    if !dequantized("qwen2_forward_matches_candle_transformers") {
        return;
    }
    let (ct, mut file) = content(QWEN);
    let mut reference = ModelWeights::from_gguf(ct, &mut file, &Device::Cpu).unwrap();
    compare(QWEN, |x, pos| reference.forward(x, pos).unwrap());
}

//! loopd's transformer against an independent implementation:
//! candle-transformers' bundled quantized Llama and Qwen2 models, on the
//! same GGUF files.
//!
//! - `tests/logits.rs`: the logits of both, with the weights dequantized to
//!   f32, agree within 1e-3 (the architecture, not the kernels);
//! - `benches/forward.rs`: prefill and decode speed side by side.
//!
//! This crate is not among the workspace's default members, so the README's
//! `cargo test` does not build candle-transformers (about 80 s of CI's two
//! cores). `tests/reference/check.sh` runs it, and CI runs that script when
//! the model code or candle changed since it last passed.

use std::path::PathBuf;

/// The fast test model (135M, Llama).
pub const SMOLLM: &str = "smollm2-135m";
/// loopd's default model (0.5B, Qwen2).
pub const QWEN: &str = "qwen2.5-coder-0.5b";

/// Path of a fetched model; panics with the command that fetches it when
/// it is missing (never skips).
pub fn model_path(name: &str) -> PathBuf {
    loopd::models::resolve(Some(name))
        .unwrap_or_else(|e| panic!("the real model {name} is required: {e}"))
}

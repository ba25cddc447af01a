//! Damaged and hostile model files: each gives one clear error line and a
//! non-zero exit code, never a panic.

use crate::common::tiny::Tiny;
use crate::common::{model_path, TempDir, SMOLLM};
use candle_core::quantized::gguf_file::Value;
use loopd::brain::{LocalBrain, LocalBrainConfig};
use std::path::Path;
use std::process::Command;

/// Loads through the library and through the CLI; both must fail with a
/// message containing `expected`.
fn rejects(path: &Path, expected: &str) {
    let err = match LocalBrain::load(LocalBrainConfig::new(path)) {
        Ok(_) => panic!("{} loaded but should not have", path.display()),
        Err(e) => e.to_string(),
    };
    assert!(
        err.contains(expected),
        "library error {err:?} lacks {expected:?}"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["ask", "--model"])
        .arg(path)
        .arg("hello")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit code 0 for {}", path.display());
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "expected one error line, got: {stderr}");
    assert!(
        lines[0].starts_with("loopd: ") && lines[0].contains(expected),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

fn tiny_with(dir: &TempDir, name: &str, change: impl FnOnce(&mut Tiny)) -> std::path::PathBuf {
    let mut tiny = Tiny::new("llama");
    change(&mut tiny);
    let path = dir.join(name);
    tiny.write(&path);
    path
}

#[test]
fn missing_empty_and_foreign_files() {
    let dir = TempDir::new("bad-files");
    rejects(&dir.join("nope.gguf"), "cannot open");
    std::fs::write(dir.join("empty.gguf"), b"").unwrap();
    rejects(&dir.join("empty.gguf"), "not a GGUF file");
    std::fs::write(dir.join("text.gguf"), b"# not a model\nhello\n").unwrap();
    rejects(&dir.join("text.gguf"), "not a GGUF file");
}

#[test]
fn truncated_real_model() {
    let dir = TempDir::new("truncated");
    let real = std::fs::read(model_path(SMOLLM)).unwrap();
    std::fs::write(dir.join("header.gguf"), &real[..4096]).unwrap();
    rejects(&dir.join("header.gguf"), "damaged GGUF header");
    std::fs::write(dir.join("half.gguf"), &real[..real.len() / 2]).unwrap();
    rejects(&dir.join("half.gguf"), "truncated");
}

#[test]
fn unsupported_architecture() {
    let dir = TempDir::new("arch");
    let path = tiny_with(&dir, "mamba.gguf", |t| {
        t.set("general.architecture", Value::String("mamba".into()));
    });
    rejects(&path, "architecture `mamba` is not supported");
}

#[test]
fn absurd_metadata() {
    let dir = TempDir::new("absurd");
    type Change = Box<dyn FnOnce(&mut Tiny)>;
    let cases: Vec<(&str, Change, &str)> = vec![
        (
            "vocab0.gguf",
            Box::new(|t| {
                t.set("tokenizer.ggml.tokens", Value::Array(vec![]));
            }),
            "vocabulary is empty",
        ),
        (
            "kvheads.gguf",
            Box::new(|t| {
                t.set("llama.attention.head_count_kv", Value::U32(3));
            }),
            "do not divide",
        ),
        (
            "heads.gguf",
            Box::new(|t| {
                t.set("llama.attention.head_count", Value::U32(5));
                t.set("llama.attention.head_count_kv", Value::U32(5));
            }),
            "do not divide the embedding width",
        ),
        (
            "layers.gguf",
            Box::new(|t| {
                t.set("llama.block_count", Value::U64(1 << 40));
            }),
            "outside the sane range",
        ),
        (
            "zeroheads.gguf",
            Box::new(|t| {
                t.set("llama.attention.head_count", Value::U32(0));
            }),
            "outside the sane range",
        ),
        (
            "negative.gguf",
            Box::new(|t| {
                t.set("llama.embedding_length", Value::I32(-64));
            }),
            "not a non-negative integer",
        ),
        (
            "wrongtype.gguf",
            Box::new(|t| {
                t.set("llama.context_length", Value::String("lots".into()));
            }),
            "not a non-negative integer",
        ),
        (
            "bos.gguf",
            Box::new(|t| {
                t.set("tokenizer.ggml.bos_token_id", Value::U32(4_000_000));
            }),
            "tokenizer.ggml.bos_token_id",
        ),
        (
            "eps.gguf",
            Box::new(|t| {
                t.set(
                    "llama.attention.layer_norm_rms_epsilon",
                    Value::F32(f32::NAN),
                );
            }),
            "must be a positive number",
        ),
        (
            "types.gguf",
            Box::new(|t| {
                t.set(
                    "tokenizer.ggml.token_type",
                    Value::Array(vec![Value::I32(1)]),
                );
            }),
            "entries for",
        ),
        (
            "merges.gguf",
            Box::new(|t| {
                t.set(
                    "tokenizer.ggml.merges",
                    Value::Array(vec![Value::String("nospace".into())]),
                );
            }),
            "is not `a b`",
        ),
        (
            "tokenizer.gguf",
            Box::new(|t| {
                t.set("tokenizer.ggml.model", Value::String("bert".into()));
            }),
            "tokenizer kind `bert`",
        ),
        (
            "template.gguf",
            Box::new(|t| {
                t.set("tokenizer.chat_template", Value::String("{% for %}".into()));
            }),
            "chat template",
        ),
        (
            "shape.gguf",
            Box::new(|t| {
                t.set("llama.feed_forward_length", Value::U32(96));
            }),
            "has shape",
        ),
        (
            "tensor.gguf",
            Box::new(|t| {
                t.drop_tensor("blk.1.ffn_down.weight");
            }),
            "`blk.1.ffn_down.weight` is missing",
        ),
    ];
    for (name, change, expected) in cases {
        let path = tiny_with(&dir, name, change);
        rejects(&path, expected);
    }
}

#[test]
fn token_ids_beyond_the_embedding_table() {
    let dir = TempDir::new("ids");
    let path = tiny_with(&dir, "ids.gguf", |t| {
        let Some((_, Value::Array(tokens))) = t
            .metadata
            .iter()
            .find(|(k, _)| k == "tokenizer.ggml.tokens")
            .cloned()
        else {
            panic!("tiny model has tokens");
        };
        let mut tokens = tokens;
        let mut types: Vec<Value> = vec![Value::I32(1); tokens.len()];
        for i in 0..50 {
            tokens.push(Value::String(format!("extra{i}")));
            types.push(Value::I32(1));
        }
        t.set("tokenizer.ggml.tokens", Value::Array(tokens));
        t.set("tokenizer.ggml.token_type", Value::Array(types));
    });
    rejects(&path, "out of range");
}

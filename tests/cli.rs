//! `loopd ask` and `loopd models` as a user runs them, on the real default model.

mod common;

use common::{model_path, TempDir, SMOLLM};
use std::process::{Command, Output};

fn loopd(args: &[&str]) -> Output {
    model_path(SMOLLM);
    Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn ask_streams_the_answer() {
    let out = loopd(&["ask", "Name the capital city of France."]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Paris"), "{}", text(&out.stdout));
}

#[test]
fn ask_json_is_one_object_with_the_contract_fields() {
    let out = loopd(&[
        "ask",
        "--json",
        "--loop",
        "none",
        "Name the capital city of France.",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["loop"], "none");
    assert_eq!(v["termination"], "answered");
    assert!(v["answer"].as_str().unwrap().contains("Paris"));
    assert!(v["trace"].is_array());
    let stats = &v["stats"];
    for field in [
        "turns",
        "llm_calls",
        "tool_calls",
        "prompt_tokens",
        "prefill_tokens",
        "completion_tokens",
        "format_errors",
        "ttft_ms",
        "wall_ms",
    ] {
        assert!(stats[field].is_number(), "stats.{field} missing in {stats}");
    }
    assert_eq!(stats["llm_calls"], 1);
    assert!(stats["prompt_tokens"].as_u64().unwrap() > 10);
    assert!(stats["completion_tokens"].as_u64().unwrap() >= 3);
    assert!(stats["ttft_ms"].as_f64().unwrap() <= stats["wall_ms"].as_f64().unwrap());
}

#[test]
fn max_tokens_and_temperature_are_honoured() {
    let out = loopd(&[
        "ask",
        "--json",
        "--max-tokens",
        "3",
        "--temperature",
        "0.7",
        "--seed",
        "5",
        "Tell me a story.",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stats"]["completion_tokens"], 3);
    assert_eq!(v["termination"], "budget_exhausted");
}

#[test]
fn bad_arguments_are_one_clear_line() {
    for (args, expected) in [
        (
            vec!["ask", "--loop", "nonsense", "hi"],
            "unknown loop `nonsense`",
        ),
        (vec!["ask", "--temperature", "-1", "hi"], "--temperature"),
        (vec!["ask", "--device", "cuda", "hi"], "CUDA"),
        (
            vec!["ask", "--model", "no-such-model", "hi"],
            "neither a file nor a known model",
        ),
    ] {
        let out = loopd(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn missing_default_model_says_how_to_fetch_it() {
    let empty = TempDir::new("models");
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env("LOOPD_MODELS_DIR", &empty.0)
        .args(["ask", "hi"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("models/fetch smollm2-135m"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn models_list_and_info() {
    let out = loopd(&["models", "list"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("smollm2-135m") && stdout.contains("qwen2.5-coder-0.5b"),
        "{stdout}"
    );
    let out = loopd(&["models", "info"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("architecture:  llama"), "{stdout}");
    assert!(
        stdout.contains("tokenizer.ggml.pre = \"smollm\""),
        "{stdout}"
    );
    assert!(stdout.contains("<|im_end|>"), "{stdout}");
}

#[test]
fn models_pull_without_network_is_a_clear_error() {
    let cache = TempDir::new("hub");
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env("LOOPD_MODELS_DIR", &cache.0)
        .env("HF_ENDPOINT", "http://127.0.0.1:9")
        .args([
            "models",
            "pull",
            "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
            "qwen2.5-0.5b-instruct-q4_k_m.gguf",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("cannot download") && stderr.contains("Hugging Face hub"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

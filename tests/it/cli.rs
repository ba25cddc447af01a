//! `loopd ask` and `loopd models` as a user runs them, on the real models:
//! the README's example on the default model, the rest on the fast one.

use crate::common::{loopd, model_path, text, TempDir, SMOLLM};
use loopd::models::{Manifest, MODEL_ENV};
use std::process::Command;

#[test]
fn the_readme_example_answers_on_the_default_model() {
    model_path(&Manifest::builtin().default_model().name);
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env_remove(MODEL_ENV)
        .args(["ask", "What is the capital of Australia?"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Canberra"),
        "{}",
        text(&out.stdout)
    );
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
        "--loop",
        "none",
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
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn bad_arguments_are_one_clear_line() {
    for (args, expected) in [
        (
            vec!["ask", "--loop", "nonsense", "hi"],
            "unknown loop `nonsense`",
        ),
        (
            vec!["ask", "--temperature", "-1", "hi"],
            "temperature must be between 0 and",
        ),
        (vec!["ask", "--timeout", "0", "hi"], "--timeout must be"),
        (vec!["ask", "  "], "the prompt is empty"),
        (
            vec!["ask", "--tools", "clock,web", "hi"],
            "unknown toolbox `web`",
        ),
        (
            vec!["ask", "--set", "max_iterations=many", "hi"],
            "invalid setting for loop `react`: max_iterations = \"many\"",
        ),
        (
            vec!["ask", "--set", "max_iterations", "hi"],
            "is not key=value",
        ),
        (
            vec!["ask", "--loop", "critic", "--set", "beam_width=2", "hi"],
            "unknown field `beam_width`",
        ),
        (
            vec!["ask", "--persona", "nobody", "hi"],
            "no persona named `nobody`",
        ),
    ] {
        let out = loopd(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"));
    }
    for (args, expected) in [
        (vec!["ask", "--device", "cuda", "hi"], "CUDA"),
        (
            vec!["ask", "--model", "no-such-model", "hi"],
            "neither a file nor a known model",
        ),
    ] {
        let out = loopd(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn ctrl_c_cancels_the_answer_and_exits_130() {
    use std::io::Read;
    model_path(SMOLLM);
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env(MODEL_ENV, SMOLLM)
        .args([
            "ask",
            "--loop",
            "none",
            "--max-tokens",
            "400",
            "Write a long story about a dragon who learns to sing.",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).expect("no answer streamed");
    let interrupted = std::time::Instant::now();
    // SAFETY: sending a signal to our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let took = interrupted.elapsed();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("cancelled"), "{stderr}");
    let words = String::from_utf8_lossy(&rest).split_whitespace().count();
    assert!(words < 100, "{words} more words after Ctrl-C");
    eprintln!(
        "Ctrl-C: {words} more words, exit after {} ms",
        took.as_millis()
    );
}

#[test]
fn missing_default_model_says_how_to_fetch_it() {
    let empty = TempDir::new("models");
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env("LOOPD_MODELS_DIR", &empty.0)
        .env_remove(MODEL_ENV)
        .args(["ask", "hi"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let default = Manifest::builtin().default_model().name.clone();
    assert!(
        text(&out.stderr).contains(&format!("models/fetch {default}")),
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

#[test]
fn a_persona_file_that_does_not_parse_is_one_clear_error() {
    let dir = TempDir::new("persona");
    let path = dir.join("broken.toml");
    std::fs::write(&path, "name = \"broken\"\nengine = [\n").unwrap();
    let out = loopd(&["ask", "--persona", path.to_str().unwrap(), "hi"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("broken.toml"), "{stderr}");
}

#[test]
fn react_with_tools_reports_the_loop_in_json_and_shows_it_with_verbose() {
    let out = loopd(&[
        "ask",
        "--loop",
        "react",
        "--tools",
        "clock,math",
        "--json",
        "--verbose",
        "--max-tokens",
        "96",
        "What is 17*6?",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["loop"], "react");
    assert!(!v["answer"].as_str().unwrap().trim().is_empty(), "{v}");
    let stats = &v["stats"];
    assert!(stats["llm_calls"].as_u64().unwrap() >= 1, "{v}");
    assert_eq!(
        stats["tool_calls"].as_u64().unwrap() as usize,
        stats["tools"].as_array().unwrap().len()
    );
    let trace = v["trace"].as_array().unwrap();
    assert_eq!(trace.last().unwrap()["type"], "final", "{v}");
    assert!(trace.iter().any(|e| e["type"] == "thought"), "{v}");
    assert!(
        !text(&out.stderr).trim().is_empty(),
        "--verbose shows the thoughts"
    );
}

#[test]
fn auto_names_the_engine_it_chose() {
    let out = loopd(&[
        "ask",
        "--loop",
        "auto",
        "--json",
        "--max-tokens",
        "64",
        "What is 2 plus 2?",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let chosen = v["loop"].as_str().unwrap();
    assert_ne!(chosen, "auto");
    assert!(loopd::engine::ENGINES.contains(&chosen), "{chosen}");
    let trace = v["trace"].as_array().unwrap();
    assert!(
        trace
            .iter()
            .any(|e| e["type"] == "engine_chosen" && e["engine"] == chosen),
        "{v}"
    );
}

#[test]
fn personas_import_converts_an_ovos_persona() {
    let dir = TempDir::new("ovos");
    let json = dir.join("careful.json");
    std::fs::write(
        &json,
        r#"{"name": "Careful", "solvers": ["ovos-plan-execute-loop"],
            "ovos-plan-execute-loop": {"max_steps": 3, "toolboxes": ["ovos-calculator-tools"]}}"#,
    )
    .unwrap();
    let toml_path = dir.join("careful.toml");
    let out = loopd(&[
        "personas",
        "import",
        json.to_str().unwrap(),
        "-o",
        toml_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let persona = loopd::persona::Persona::load(&toml_path).unwrap();
    assert_eq!(persona.engine, "plan-execute");
    assert_eq!(persona.toolboxes, vec!["math"]);
    assert_eq!(persona.config["max_steps"], 3);
}

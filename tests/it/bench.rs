//! `loopd bench` as a user runs it, on the real fast test model.

use crate::common::{loopd, text, TempDir};
use serde_json::Value;

const TASKS: &str = r#"{"id": "mul", "question": "What is 47*23?", "answer": 1081, "tools": ["math"], "follow_up": "And what is that divided by 47?"}
{"id": "div", "question": "What is 240/8?", "answer": 30, "tolerance": 0, "tools": ["math"]}
"#;

fn number(v: &Value, field: &str) -> u64 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} is not a count in {v}"))
}

/// Each call computes or reuses every prompt token, and the run's totals
/// are the sums over its calls.
fn check_consistent(run: &Value) {
    let stats = &run["stats"];
    let calls = stats["calls"].as_array().expect("calls");
    assert_eq!(calls.len() as u64, number(stats, "llm_calls"), "{run}");
    for call in calls {
        assert_eq!(
            number(call, "prefill_tokens") + number(call, "cached_tokens"),
            number(call, "prompt_tokens"),
            "{call}"
        );
    }
    for field in [
        "prompt_tokens",
        "prefill_tokens",
        "cached_tokens",
        "completion_tokens",
    ] {
        let sum: u64 = calls.iter().map(|c| number(c, field)).sum();
        assert_eq!(sum, number(stats, field), "{field} in {run}");
    }
    for field in ["wall_ms", "prefill_ms", "decode_ms", "tool_ms"] {
        assert!(stats[field].as_f64().is_some(), "{field} in {run}");
    }
}

#[test]
fn compare_cache_reports_runs_summaries_a_table_and_a_plot() {
    let dir = TempDir::new("bench");
    let tasks = dir.join("tasks.jsonl");
    std::fs::write(&tasks, TASKS).unwrap();
    let json = dir.join("bench.json");
    let plot = dir.join("bench.svg");
    let out = loopd(&[
        "bench",
        "--tasks",
        tasks.to_str().unwrap(),
        "--loops",
        "none,react",
        "--compare-cache",
        "--max-tokens",
        "48",
        "--json",
        json.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("[1/12] none mul"), "{stderr}");

    let table = text(&out.stdout);
    for needle in [
        "none  on",
        "none  off",
        "react on",
        "react off",
        "pf/pt",
        "TTFAT",
    ] {
        assert!(table.contains(needle), "{needle} missing from\n{table}");
    }
    for line in table.lines().take_while(|l| !l.starts_with("ok:")) {
        assert!(line.chars().count() <= 100, "too wide: {line}");
    }

    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["prefix_cache"], "compare");
    assert!(report["model"].is_string() && report["device"].is_string());
    assert!(report["threads"].as_u64().unwrap() >= 1);
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(
        runs.len(),
        12,
        "2 loops × 2 modes × (2 questions + 1 follow-up)"
    );
    for run in runs {
        check_consistent(run);
        assert!(run["termination"].is_string() && run["answer"].is_string());
        let cached = run["prefix_cache"].as_bool().unwrap();
        let reused = number(&run["stats"], "cached_tokens");
        if !cached {
            assert_eq!(reused, 0, "an uncached run reused tokens: {run}");
        } else if run["loop"] == "react" {
            assert!(reused > 0, "a cached react run reused nothing: {run}");
        }
        match (
            run["task"].as_str().unwrap(),
            run["follow_up"].as_bool().unwrap(),
        ) {
            ("mul", false) | ("div", false) => assert!(run["correct"].is_boolean()),
            ("mul", true) => assert!(run["correct"].is_null()),
            other => panic!("unexpected run {other:?}"),
        }
    }
    for (lp, cached) in [
        ("none", true),
        ("none", false),
        ("react", true),
        ("react", false),
    ] {
        assert!(
            runs.iter().any(|r| r["loop"] == lp
                && r["prefix_cache"] == cached
                && r["task"] == "mul"
                && r["follow_up"] == true),
            "no follow-up run for {lp} cached={cached}"
        );
    }

    for lp in ["none", "react"] {
        let summary = &report["summary"][lp];
        for mode in ["cached", "uncached"] {
            let s = &summary[mode];
            assert_eq!(number(s, "runs"), 3, "{s}");
            assert_eq!(number(s, "graded"), 2, "{s}");
            assert_eq!(number(s, "follow_up_runs"), 1, "{s}");
            assert_eq!(
                number(s, "prefill_tokens") + number(s, "cached_tokens"),
                number(s, "prompt_tokens")
            );
            assert!(s["accuracy"].is_number() && s["follow_up_prefill_ratio"].is_number());
        }
        assert_eq!(summary["uncached"]["prefill_ratio"], 1.0);
        assert!(summary["prefill_saved"].is_number());
        assert!(report["warm"][lp]["warms"].as_u64().unwrap() >= 1);
    }
    let react = &report["summary"]["react"]["cached"];
    assert!(react["prefill_ratio"].as_f64().unwrap() < 0.5, "{react}");
    let memory = &report["memory"];
    assert!(memory["model_file_bytes"].as_u64().unwrap() > 1_000_000);
    assert!(memory["kv_budget_bytes"].as_u64().unwrap() > 0);
    if cfg!(target_os = "linux") {
        assert!(memory["peak_rss_bytes"].as_u64().unwrap() > 0);
    }

    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for needle in [
        "none (cached)",
        "none (uncached)",
        "react (cached)",
        "react (uncached)",
        "prefill",
        "decode",
        "mean seconds per run",
    ] {
        assert!(svg.contains(needle), "{needle} missing from the plot");
    }
}

#[test]
fn bad_arguments_are_one_clear_error_before_the_model_loads() {
    let dir = TempDir::new("bench-bad");
    let tasks = dir.join("tasks.jsonl");
    std::fs::write(
        &tasks,
        "{\"id\": \"a\", \"question\": \"What is 2+2?\"}\n{\"id\": \"b\", \"question\": 3}\n",
    )
    .unwrap();
    let missing = dir.join("missing.jsonl");
    for (args, expected, code) in [
        (
            vec!["bench", "--tasks", tasks.to_str().unwrap()],
            "tasks.jsonl, line 2: not a task",
            1,
        ),
        (
            vec!["bench", "--tasks", missing.to_str().unwrap()],
            "cannot read task file",
            1,
        ),
        (
            vec!["bench", "--loops", "react,nonsense"],
            "unknown loop `nonsense`",
            1,
        ),
        (vec!["bench", "--limit", "0"], "--limit", 2),
        (
            vec!["bench", "--no-prefix-cache", "--compare-cache"],
            "cannot be used with",
            2,
        ),
        (vec!["bench", "--timeout", "-1"], "--timeout", 1),
    ] {
        let out = loopd(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked") && !stderr.contains("loopd bench:"));
    }
}

#[test]
fn raw_measures_the_bare_model_in_one_json_line() {
    let out = loopd(&[
        "bench",
        "--raw",
        "--prompt-tokens",
        "16",
        "--gen-tokens",
        "4",
        "--repeat",
        "1",
        "--json",
        "-",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert!(v["prefill_tok_s"].as_f64().unwrap() > 0.0);
    assert!(v["decode_tok_s"].as_f64().unwrap() > 0.0);
    let read = v["read_gb_s"].as_f64().unwrap();
    assert!(read > 0.1 && read < 10_000.0, "read bandwidth {read} GB/s");
    let share = v["decode_of_bandwidth"].as_f64().unwrap();
    assert!(share > 0.0, "decode share of bandwidth {share}");
    let (kib, mib) = (
        v["peak_rss_kib"].as_u64().unwrap(),
        v["peak_rss_mib"].as_u64().unwrap(),
    );
    assert!(kib >> 10 == mib && mib > 0, "peak RSS {kib} KiB, {mib} MiB");
}

//! Everyday questions through the default persona on the default model, as
//! `loopd bench` grades them: a few of every category of the everyday dev
//! set, each answer checked for its value (computed today where it depends
//! on today) and for being speakable.

use crate::common::{loopd, model_path, text, TempDir, QWEN};
use serde_json::Value;
use std::path::PathBuf;

/// Two questions (one with a follow-up) of every category.
const ASKED: [&str; 24] = [
    "arithmetic-1",
    "arithmetic-2",
    "percent-1",
    "percent-2",
    "units-1",
    "units-4",
    "statistics-1",
    "statistics-2",
    "time-1",
    "time-3",
    "today-1",
    "today-3",
    "dates-1",
    "dates-4",
    "calendar-1",
    "calendar-3",
    "knowledge-3",
    "knowledge-6",
    "cannot-1",
    "cannot-3",
    "everyday-1",
    "everyday-8",
    "follow-up-1",
    "follow-up-2",
];

fn dev_set() -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/eval/everyday-dev.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .map(|line| serde_json::from_str(line).expect("a task is JSON"))
        .collect()
}

#[test]
fn the_dev_set_is_broad() {
    let tasks = dev_set();
    assert!(tasks.len() >= 150, "{} tasks", tasks.len());
    let mut categories: Vec<&str> = tasks
        .iter()
        .map(|t| t["category"].as_str().unwrap())
        .collect();
    categories.sort();
    categories.dedup();
    assert!(categories.len() >= 10, "{categories:?}");
    for id in ASKED {
        assert!(
            tasks.iter().any(|t| t["id"] == id),
            "{id} is not in the dev set"
        );
    }
}

#[test]
fn react_answers_everyday_questions_right_and_speakably() {
    let dir = TempDir::new("everyday");
    let tasks: String = dev_set()
        .into_iter()
        .filter(|t| ASKED.contains(&t["id"].as_str().unwrap()))
        .map(|t| format!("{t}\n"))
        .collect();
    let file = dir.join("everyday.jsonl");
    std::fs::write(&file, tasks).unwrap();
    let report = dir.join("report.json");
    let model = model_path(QWEN);
    let out = loopd(&[
        "bench",
        "--tasks",
        file.to_str().unwrap(),
        "--loops",
        "react",
        "--model",
        model.to_str().unwrap(),
        "--json",
        report.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), ASKED.len() + 2, "{stderr}");
    let wrong: Vec<String> = runs
        .iter()
        .filter(|run| {
            run["correct"] != true || run["unspeakable"].as_array().is_some_and(|p| !p.is_empty())
        })
        .map(|run| {
            format!(
                "{}{}: {:?} {}",
                run["task"],
                if run["follow_up"] == true {
                    " (follow-up)"
                } else {
                    ""
                },
                run["answer"].as_str().unwrap_or(""),
                run["unspeakable"]
            )
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "wrong or unspeakable:\n{}\n{stderr}",
        wrong.join("\n")
    );
    for run in runs {
        assert_eq!(run["stats"]["format_errors"], 0, "{run}");
    }
}

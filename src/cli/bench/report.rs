//! The report: a table for the terminal and the JSON document.

use super::runner::{LoopResult, Plan, Results};
use super::summary::{round3, Summary};
use crate::engine::round1;
use serde_json::{json, Map, Value};

const MIB: f64 = 1024.0 * 1024.0;

/// Memory loopd may use beyond the model file and the KV budget.
const HEADROOM_BYTES: u64 = 100 * 1024 * 1024;

/// How a cache mode is named in the JSON and the table.
pub fn mode_name(cached: bool) -> &'static str {
    if cached {
        "cached"
    } else {
        "uncached"
    }
}

/// `on`, `off` or `compare`.
fn prefix_cache(plan: &Plan) -> &'static str {
    match plan.modes.as_slice() {
        [true] => "on",
        [false] => "off",
        _ => "compare",
    }
}

/// One engine's runs with one cache mode.
pub fn summary(result: &LoopResult, cached: bool) -> Summary {
    Summary::of(result.runs.iter().filter(|r| r.prefix_cache == cached))
}

/// The JSON document.
pub fn json(results: &Results, plan: &Plan) -> Value {
    let mut runs = Vec::new();
    let mut summaries = Map::new();
    let mut warm = Map::new();
    for result in &results.loops {
        for run in &result.runs {
            let outcome = &run.outcome;
            let mut entry = json!({
                "loop": result.id,
                "engine": outcome.engine,
                "task": run.task,
                "follow_up": run.follow_up,
                "prefix_cache": run.prefix_cache,
                "termination": outcome.termination.as_str(),
                "answer": outcome.answer,
                "correct": run.correct,
                "category": run.category,
                "unspeakable": run.unspeakable,
                "stats": outcome.stats.to_json(),
            });
            if let Some(error) = &outcome.error {
                entry["error"] = json!(error);
            }
            runs.push(entry);
        }
        let mut per_loop = Map::new();
        per_loop.insert("peak_rss_bytes".into(), json!(result.peak_rss_bytes));
        for &cached in &plan.modes {
            per_loop.insert(mode_name(cached).into(), summary(result, cached).to_json());
        }
        if let Some((saved, speedup)) = saving(result, plan) {
            per_loop.insert("prefill_saved".into(), json!(saved.map(round3)));
            per_loop.insert("wall_speedup".into(), json!(speedup.map(round3)));
        }
        summaries.insert(result.id.clone(), Value::Object(per_loop));
        warm.insert(
            result.id.clone(),
            json!({
                "warms": result.warm.warms,
                "prompt_tokens": result.warm.prompt_tokens,
                "prefill_tokens": result.warm.prefill_tokens,
                "ms": round1(result.warm.ms),
            }),
        );
    }
    let (peak, limit) = memory(results);
    json!({
        "model": results.info.model,
        "model_file": results.model_file,
        "device": results.info.device,
        "threads": results.info.threads,
        "prefix_cache": prefix_cache(plan),
        "max_tokens": plan.options.max_tokens,
        "tasks": plan.tasks.len(),
        "load_ms": results.load_ms,
        "interrupted": results.interrupted,
        "runs": runs,
        "summary": summaries,
        "warm": warm,
        "memory": {
            "model_file_bytes": results.model_bytes,
            "kv_budget_bytes": results.cache.budget,
            "caches_held_max": {
                "caches": results.cache.caches,
                "tokens": results.cache.tokens,
                "bytes": results.cache.bytes,
            },
            "peak_rss_bytes": peak,
            "limit_bytes": limit,
            "within_limit": peak.map(|p| p <= limit),
        },
    })
}

/// In compare mode: the share of prefill tokens reuse saved, and how many
/// times faster the cached runs were.
fn saving(result: &LoopResult, plan: &Plan) -> Option<(Option<f64>, Option<f64>)> {
    if plan.modes.len() < 2 {
        return None;
    }
    let (on, off) = (summary(result, true), summary(result, false));
    let saved = (off.prefill_tokens > 0)
        .then(|| 1.0 - on.prefill_tokens as f64 / off.prefill_tokens as f64);
    let speedup = (on.wall_ms > 0.0).then(|| off.wall_ms / on.wall_ms);
    Some((saved, speedup))
}

/// The highest peak RSS over the engines, and what it should stay under:
/// the model file, the KV budget and 100 MiB.
fn memory(results: &Results) -> (Option<u64>, u64) {
    let peak = results.loops.iter().filter_map(|l| l.peak_rss_bytes).max();
    let limit = results.model_bytes + results.cache.budget as u64 + HEADROOM_BYTES;
    (peak, limit)
}

/// The table for the terminal (under 100 columns).
pub fn table(results: &Results, plan: &Plan) -> String {
    let mut tokens = vec![row(&[
        "loop", "cache", "runs", "ok", "acc", "calls", "prompt", "prefill", "cached", "compl",
        "pf/pt", "≥3c", "f-up",
    ])];
    let mut times = vec![row(&[
        "loop", "cache", "TTFAT", "pf t/s", "dec t/s", "s/run", "wall s", "prefill", "decode",
        "tool", "other", "RSS MiB",
    ])];
    let mut quality = vec![row(&[
        "loop",
        "cache",
        "runs",
        "acc",
        "acc+say",
        "fmt err",
        "ungr",
        "tools",
        "invalid",
        "tool rate",
        "med s",
    ])];
    let ratio = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.2}"));
    let percent = |r: Option<f64>| r.map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
    let secs = |ms: f64| format!("{:.1}", ms / 1000.0);
    for result in &results.loops {
        for &cached in &plan.modes {
            let s = summary(result, cached);
            let mode = if cached { "on" } else { "off" };
            quality.push(vec![
                result.id.clone(),
                mode.into(),
                s.runs.to_string(),
                percent(s.accuracy()),
                percent(s.spoken_accuracy()),
                s.format_errors.to_string(),
                s.ungrounded_answers.to_string(),
                s.tool_calls.to_string(),
                s.invalid_tool_calls.to_string(),
                percent(s.tool_call_rate()),
                s.median_wall_ms().map_or("-".into(), secs),
            ]);
            tokens.push(vec![
                result.id.clone(),
                mode.into(),
                s.runs.to_string(),
                s.answered.to_string(),
                percent(s.accuracy()),
                s.llm_calls.to_string(),
                s.prompt_tokens.to_string(),
                s.prefill_tokens.to_string(),
                s.cached_tokens.to_string(),
                s.completion_tokens.to_string(),
                ratio(s.all.ratio()),
                ratio(s.multi_call.ratio()),
                ratio(s.follow_up.ratio()),
            ]);
            times.push(vec![
                result.id.clone(),
                mode.into(),
                s.median_first_answer_ms()
                    .map_or("-".into(), |ms| format!("{:.2}", ms / 1000.0)),
                format!("{:.0}", s.prefill_tok_s()),
                format!("{:.1}", s.decode_tok_s()),
                secs(s.mean(s.wall_ms)),
                secs(s.wall_ms),
                secs(s.prefill_ms),
                secs(s.decode_ms),
                secs(s.tool_ms),
                secs(s.other_ms()),
                result
                    .peak_rss_bytes
                    .map_or("-".into(), |b| format!("{:.0}", b as f64 / MIB)),
            ]);
        }
    }
    let mut out = String::new();
    out.push_str(&columns(&tokens));
    out.push('\n');
    out.push_str(&columns(&times));
    out.push('\n');
    out.push_str(&columns(&quality));
    if let Some(categories) = categories(results, plan) {
        out.push('\n');
        out.push_str(&columns(&categories));
    }
    out.push_str(
        "\nok: answered; acc: right over graded; acc+say: right and speakable (no ISO stamps, markup,\n\
         protocol words or long decimals; at most two sentences); ungr: answers sent back for\n\
         numbers from no source; med s: median wall seconds; fmt err: replies that fit no protocol; invalid:\n\
         tool calls refused (unknown tool, arguments against the schema); tool rate: runs with a\n\
         tool call; LOOP/free: constrain=false; pf/pt: prefill over prompt tokens, over all runs,\n\
         runs with ≥ 3 LLM calls (≥3c) and follow-ups (f-up); TTFAT: median seconds to the first\n\
         answer token; s/run: mean wall seconds; prefill … other: seconds in total.\n",
    );
    out.push_str(&footer(results, plan));
    out
}

/// Right and speakable answers per task category (rows) and loop
/// (columns), when the tasks have categories.
fn categories(results: &Results, plan: &Plan) -> Option<Vec<Vec<String>>> {
    let mut names: Vec<String> = Vec::new();
    for task in &plan.tasks {
        if let Some(category) = &task.category {
            if !names.contains(category) {
                names.push(category.clone());
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let mut header = vec!["category".to_string(), String::new()];
    header.extend(results.loops.iter().map(|l| l.id.clone()));
    let mut rows = vec![header];
    for name in &names {
        let mut row = vec![name.clone(), String::new()];
        for result in &results.loops {
            let runs = result
                .runs
                .iter()
                .filter(|r| r.category.as_ref() == Some(name) && r.prefix_cache == plan.modes[0]);
            let s = Summary::of(runs);
            row.push(format!("{}/{}", s.correct_speakable, s.graded));
        }
        rows.push(row);
    }
    Some(rows)
}

fn footer(results: &Results, plan: &Plan) -> String {
    let cache = &results.cache;
    let (peak, limit) = memory(results);
    let mut out = format!(
        "\n{} ({:.1} MiB) on {}, {} threads; KV budget {:.0} MiB; the caches held at most \
         {} sessions, {} tokens, {:.1} MiB\n",
        results.model_file,
        results.model_bytes as f64 / MIB,
        results.info.device,
        results.info.threads,
        cache.budget as f64 / MIB,
        cache.caches,
        cache.tokens,
        cache.bytes as f64 / MIB
    );
    if let Some(peak) = peak {
        out.push_str(&format!(
            "peak RSS {:.0} MiB {} model + KV budget + 100 MiB = {:.0} MiB\n",
            peak as f64 / MIB,
            if peak <= limit { "≤" } else { ">" },
            limit as f64 / MIB
        ));
    }
    let warms: Vec<String> = results
        .loops
        .iter()
        .filter(|l| l.warm.warms > 0)
        .map(|l| {
            format!(
                "{} {}×{} tokens {:.1} s",
                l.id,
                l.warm.warms,
                l.warm.prompt_tokens / l.warm.warms,
                l.warm.ms / 1000.0
            )
        })
        .collect();
    if !warms.is_empty() {
        out.push_str(&format!(
            "warm-up (not in the runs): {}\n",
            warms.join(", ")
        ));
    }
    for result in &results.loops {
        if let Some((saved, speedup)) = saving(result, plan) {
            out.push_str(&format!(
                "{}: reuse saved {} of the prefill tokens; wall time uncached / cached = {}\n",
                result.id,
                saved.map_or("-".into(), |s| format!("{:.0}%", s * 100.0)),
                speedup.map_or("-".into(), |s| format!("{s:.2}"))
            ));
        }
    }
    if results.interrupted {
        out.push_str("interrupted: the results are partial\n");
    }
    out
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// Aligned columns: the first two to the left, numbers to the right.
fn columns(rows: &[Vec<String>]) -> String {
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, &width))| {
                let pad = " ".repeat(width - cell.chars().count());
                if i < 2 {
                    format!("{cell}{pad}")
                } else {
                    format!("{pad}{cell}")
                }
            })
            .collect();
        out.push_str(cells.join(" ").trim_end());
        out.push('\n');
    }
    out
}

//! `loopd bench`: what each agent loop costs and achieves on a task set
//! (a table, `--json`, `--plot`), or with `--raw` the bare model's prefill
//! and decode speed.

pub mod golden;
mod grade;
mod plot;
mod raw;
mod report;
mod runner;
mod summary;
mod tasks;

use crate::brain::device::DeviceChoice;
use crate::brain::GenerateOptions;
use crate::engine::{self, Settings};
use clap::Args;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `loopd bench`.
#[derive(Debug, Args)]
#[command(
    allow_negative_numbers = true,
    after_help = "\
Without --raw, runs a task set (the built-in ten clock and math questions, or \
--tasks FILE) through each loop on one loaded model, greedy, each task in its own \
session after warming the loop's first prompt, and prints a table per loop: LLM \
calls, prompt / prefill / cached / completion tokens, time to first answer token, \
prefill and decode speed, wall time, peak RSS and, when tasks carry answers, accuracy.

Task files are JSON lines: {\"id\",\"question\",\"tools\"} with optional \"answer\", \
\"tolerance\" and \"follow_up\" (asked next in the same session), or Game of 24 \
{\"id\",\"puzzle\"}."
)]
pub struct BenchArgs {
    /// Measure the bare model (prefill and decode speed), no engines.
    #[arg(long, conflicts_with_all = ["loops", "tasks", "limit", "plot", "no_prefix_cache", "compare_cache", "compare_constrain", "settings", "max_tokens", "timeout"])]
    pub raw: bool,

    /// Loops to run, comma-separated, or `all` (default: react, the default
    /// persona's loop).
    #[arg(
        long,
        value_name = "A,B|all",
        value_delimiter = ',',
        default_value = "react"
    )]
    pub loops: Vec<String>,

    /// A JSON-lines task file (default: the built-in task set).
    #[arg(long, value_name = "FILE")]
    pub tasks: Option<PathBuf>,

    /// Run only the first N tasks.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,

    /// Draw the time per loop, split into prefill, decode, tool and other
    /// time, to this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Compute every call's whole prompt, reusing nothing.
    #[arg(long, conflicts_with = "compare_cache")]
    pub no_prefix_cache: bool,

    /// Run every task twice, with prefix reuse and without, back to back.
    #[arg(long)]
    pub compare_cache: bool,

    /// Run every loop twice: constrained to its protocol's grammar (the
    /// default) and free (`constrain=false`, shown as `LOOP/free`).
    #[arg(long)]
    pub compare_constrain: bool,

    /// Decode without drafting tokens by prompt lookup (speculative decoding
    /// is on by default, on every device).
    #[arg(long, conflicts_with = "compare_speculate")]
    pub no_speculate: bool,

    /// Run every loop twice: with speculative decoding and without (shown
    /// as `LOOP/plain`), on any device, to compare speed and answers.
    #[arg(long)]
    pub compare_speculate: bool,

    /// An engine setting for every loop, e.g. `--set constrain=false`
    /// (repeatable; a loop that does not take the key is an error).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub settings: Vec<String>,

    /// Most tokens to generate per LLM call.
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: u64,

    /// Give up on one question after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// GGUF file or known model name (default: the manifest's default
    /// model); with --brain, the server's model.
    #[arg(long, value_name = "PATH|NAME")]
    pub model: Option<String>,

    /// The larger model that answers questions no tool can (a GGUF file, a
    /// known name, or `none`); default: the manifest's, when it is fetched
    /// and --model is not given.
    #[arg(long, value_name = "PATH|NAME|none", conflicts_with_all = ["brain", "raw"])]
    pub knowledge_model: Option<String>,

    /// Run the loops on a remote OpenAI-compatible server (`http://HOST:PORT`)
    /// instead of the local model; its key, if any, from $LOOPD_BRAIN_API_KEY.
    #[arg(long, value_name = "URL", conflicts_with_all = ["raw", "compare_cache", "no_prefix_cache"])]
    pub brain: Option<String>,

    /// Where to run the model: auto, cpu, cuda or metal.
    #[arg(long, default_value = "auto", value_name = "D")]
    pub device: DeviceChoice,

    /// Largest context window to use, in tokens.
    #[arg(long, default_value_t = 8192, value_name = "N")]
    pub max_context: usize,

    /// With --raw: prompt length for the prefill measurement.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub prompt_tokens: usize,

    /// With --raw: tokens to generate for the decode measurement.
    #[arg(long, default_value_t = 64, value_name = "M")]
    pub gen_tokens: usize,

    /// With --raw: also check the model, on this device, against llama.cpp's
    /// greedy continuations in this golden file (tests/golden/llamacpp.jsonl);
    /// fails when a step disagrees beyond a near-tie.
    #[arg(long, value_name = "FILE", requires = "raw")]
    pub golden: Option<PathBuf>,

    /// With --raw: repetitions; the best one is reported.
    #[arg(long, default_value_t = 3, value_name = "R")]
    pub repeat: usize,

    /// Write the report as JSON to this file (`-` for stdout; the table then
    /// goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
}

/// Runs `loopd bench`.
pub fn run(args: BenchArgs) -> Result<(), String> {
    if args.raw {
        return raw::run(&args);
    }
    let plan = plan(&args)?;
    let results = runner::run(&plan)?;
    let table = report::table(&results, &plan);
    if args.json.as_deref() == Some("-") {
        eprint!("\n{table}");
    } else {
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, "\n{table}");
        let _ = stdout.flush();
    }
    if let Some(path) = &args.plot {
        plot::write(path, &results, &plan)?;
    }
    let document = report::json(&results, &plan);
    match args.json.as_deref() {
        Some("-") => println!("{document}"),
        Some(file) => std::fs::write(file, format!("{document:#}\n"))
            .map_err(|e| format!("cannot write {file}: {e}"))?,
        None => {}
    }
    Ok(())
}

/// Checks the arguments and reads the tasks, before the model is loaded.
fn plan(args: &BenchArgs) -> Result<runner::Plan, String> {
    let mut settings = Settings::new();
    for text in &args.settings {
        let (key, value) = engine::parse_setting(text).map_err(|e| format!("--set {e}"))?;
        settings.insert(key, value);
    }
    let loops = variants(&loops(&args.loops)?, &settings, args);
    let mut tasks = match &args.tasks {
        Some(path) => tasks::read(path)?,
        None => tasks::default_tasks(),
    };
    if let Some(limit) = args.limit {
        tasks.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    for variant in &loops {
        for task in &tasks {
            runner::prepare(variant, task)?;
        }
    }
    let timeout = match args.timeout {
        None => None,
        Some(s) if s > 0.0 && s.is_finite() => Some(
            Duration::try_from_secs_f64(s).map_err(|_| format!("--timeout {s} is too large"))?,
        ),
        Some(s) => {
            return Err(format!(
                "--timeout must be a positive number of seconds, not {s}"
            ))
        }
    };
    if args.max_context < 16 {
        return Err(format!(
            "--max-context must be at least 16, not {}",
            args.max_context
        ));
    }
    if let Some(file) = args.json.as_deref().filter(|f| *f != "-") {
        writable(Path::new(file), "--json")?;
    }
    if let Some(path) = &args.plot {
        writable(path, "--plot")?;
    }
    let modes = match (args.no_prefix_cache, args.compare_cache) {
        (true, _) => vec![false],
        (false, true) => vec![true, false],
        (false, false) => vec![true],
    };
    Ok(runner::Plan {
        loops,
        tasks,
        modes,
        options: GenerateOptions {
            max_tokens: usize::try_from(args.max_tokens).unwrap_or(usize::MAX),
            ..GenerateOptions::default()
        },
        timeout,
        model: match &args.brain {
            Some(url) => runner::BenchModel::Remote {
                url: url.clone(),
                model: args.model.clone(),
            },
            None => runner::BenchModel::Local(
                crate::models::resolve(args.model.as_deref()).map_err(|e| e.to_string())?,
                crate::models::resolve_knowledge(
                    args.model.as_deref(),
                    args.knowledge_model.as_deref(),
                )
                .map_err(|e| e.to_string())?,
            ),
        },
        device: args.device,
        max_context: args.max_context,
    })
}

/// Each loop with the settings it runs with; comparing constraints adds a
/// free (`constrain=false`) run of each loop after its constrained one, and
/// comparing speculation a `plain` one.
fn variants(ids: &[String], settings: &Settings, args: &BenchArgs) -> Vec<runner::LoopVariant> {
    let speculate = match (args.no_speculate, args.compare_speculate) {
        (true, _) => Some(false),
        (false, true) => Some(true),
        (false, false) => None,
    };
    let mut variants = Vec::new();
    for id in ids {
        variants.push(runner::LoopVariant {
            id: id.clone(),
            label: id.clone(),
            settings: settings.clone(),
            speculate,
        });
        if args.compare_constrain {
            let mut free = settings.clone();
            free.insert(engine::CONSTRAIN.into(), Value::Bool(false));
            variants.push(runner::LoopVariant {
                id: id.clone(),
                label: format!("{id}/free"),
                settings: free,
                speculate,
            });
        }
        if args.compare_speculate {
            variants.push(runner::LoopVariant {
                id: id.clone(),
                label: format!("{id}/plain"),
                settings: settings.clone(),
                speculate: Some(false),
            });
        }
    }
    variants
}

/// The engine ids asked for: `all` is every engine; an unknown id is an error.
fn loops(asked: &[String]) -> Result<Vec<String>, String> {
    let mut loops: Vec<String> = Vec::new();
    for id in asked.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let ids: Vec<&str> = if id == "all" {
            crate::engine::ENGINES.to_vec()
        } else if crate::engine::ENGINES.contains(&id) {
            vec![id]
        } else {
            return Err(format!(
                "unknown loop `{id}` (available: {}, or all)",
                crate::engine::ENGINES.join(", ")
            ));
        };
        for id in ids {
            if !loops.iter().any(|l| l == id) {
                loops.push(id.to_string());
            }
        }
    }
    if loops.is_empty() {
        return Err("--loops names no loop".into());
    }
    Ok(loops)
}

/// Fails early when `path`'s folder does not exist.
fn writable(path: &Path, flag: &str) -> Result<(), String> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    match parent {
        Some(dir) if !dir.is_dir() => Err(format!(
            "{flag} {}: the folder {} does not exist",
            path.display(),
            dir.display()
        )),
        _ => Ok(()),
    }
}

//! `loopd ask`: one question, the answer streamed to stdout.

use crate::brain::device::DeviceChoice;
use crate::brain::{Brain, GenerateOptions, LocalBrain, LocalBrainConfig, Message};
use crate::engine::{self, Budget, LoopEvent, LoopOutcome, LoopRequest, Settings, Trace};
use crate::persona::{self, Overrides, Persona};
use crate::tools::{ToolConfig, Toolset};
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

/// Arguments of `loopd ask`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct AskArgs {
    /// The question.
    pub question: String,

    /// Agent loop to run (default: the persona's; `none`: a plain chat turn).
    #[arg(long = "loop", value_name = "ID")]
    pub loop_id: Option<String>,

    /// Persona: a name (`default`, or a file in the personas directory) or a TOML file.
    #[arg(long, value_name = "NAME|FILE")]
    pub persona: Option<String>,

    /// Toolboxes to use, comma-separated (default: the persona's; `none` for none).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub tools: Option<Vec<String>>,

    /// An engine setting, `key=value` (repeatable), e.g. `--set max_iterations=4`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub settings: Vec<String>,

    /// Show thoughts, tool calls and observations on stderr as they happen.
    #[arg(short, long)]
    pub verbose: bool,

    /// A directory the `files` toolbox may read (repeatable).
    #[arg(long = "files-root", value_name = "DIR")]
    pub files_roots: Vec<PathBuf>,

    /// Time zone for the `clock` toolbox (IANA name, default: the system's).
    #[arg(long, value_name = "TZ")]
    pub timezone: Option<String>,

    /// Most loop turns.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<usize>,

    /// Most tokens, prompt plus completion, over all LLM calls.
    #[arg(long, value_name = "N")]
    pub max_total_tokens: Option<usize>,

    /// Give up after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// GGUF file or known model name (default: the manifest's default model).
    #[arg(long, value_name = "PATH")]
    pub model: Option<String>,

    /// Where to run the model: auto, cpu, cuda or metal.
    #[arg(long, default_value = "auto", value_name = "D")]
    pub device: DeviceChoice,

    /// Print one JSON object at the end (answer, termination, stats, trace)
    /// instead of streaming text.
    #[arg(long)]
    pub json: bool,

    /// Sampling temperature (0 = greedy).
    #[arg(long, default_value_t = 0.0, value_name = "T")]
    pub temperature: f32,

    /// Most tokens to generate per LLM call.
    #[arg(long, default_value_t = 512, value_name = "N")]
    pub max_tokens: usize,

    /// Top-k sampling (0 = off).
    #[arg(long, default_value_t = 40, value_name = "K")]
    pub top_k: usize,

    /// Top-p (nucleus) sampling (1 = off).
    #[arg(long, default_value_t = 0.95, value_name = "P")]
    pub top_p: f32,

    /// Repetition penalty (1 = off).
    #[arg(long, default_value_t = 1.0, value_name = "R")]
    pub repetition_penalty: f32,

    /// Seed for sampling.
    #[arg(long, default_value_t = 299_792_458)]
    pub seed: u64,

    /// A system prompt (default: the persona's).
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,

    /// Largest context window to use, in tokens.
    #[arg(long, default_value_t = 8192, value_name = "N")]
    pub max_context: usize,

    /// Compute every call's whole prompt, reusing nothing from earlier calls.
    #[arg(long)]
    pub no_prefix_cache: bool,
}

/// What `ask` runs: the persona with the command line's overrides applied.
struct Plan {
    persona: Persona,
    engine: Arc<dyn engine::Engine>,
    tools: Toolset,
    conversation: Vec<Message>,
}

fn plan(args: &AskArgs) -> Result<Plan, String> {
    let persona = persona::find(args.persona.as_deref())?;
    let mut settings = Settings::new();
    for text in &args.settings {
        let (key, value) = engine::parse_setting(text).map_err(|e| format!("--set {e}"))?;
        settings.insert(key, value);
    }
    let overrides = Overrides {
        engine: args.loop_id.clone(),
        settings,
        toolboxes: args.tools.clone(),
        system_prompt: args.system.clone(),
    };
    let tool_config = ToolConfig {
        file_roots: args.files_roots.clone(),
        timezone: args.timezone.clone(),
    };
    let setup = persona
        .setup(overrides, &tool_config)
        .map_err(|e| e.to_string())?;
    let mut conversation = Vec::new();
    if let Some(system) = setup.system_prompt {
        conversation.push(Message::system(system));
    }
    conversation.push(Message::user(args.question.clone()));
    Ok(Plan {
        persona,
        engine: setup.engine,
        tools: setup.tools,
        conversation,
    })
}

/// Runs `loopd ask`.
pub fn run(args: AskArgs) -> Result<(), String> {
    validate(&args)?;
    let plan = plan(&args)?;
    let started = Instant::now();
    let path = crate::models::resolve(args.model.as_deref())?;
    let brain = LocalBrain::load(LocalBrainConfig {
        model: path,
        device: args.device,
        max_context: args.max_context,
        prefix_cache: !args.no_prefix_cache,
        cache_budget: None,
    })
    .map_err(|e| e.to_string())?;
    let model = brain.info().model.clone();
    let loaded = started.elapsed();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    let (events, received) = tokio::sync::mpsc::unbounded_channel();
    let request = LoopRequest {
        engine: plan.engine,
        conversation: plan.conversation,
        brain: Arc::new(brain),
        tools: Arc::new(plan.tools),
        budget: Budget {
            max_turns: args.max_turns,
            max_total_tokens: args.max_total_tokens,
            deadline: deadline(args.timeout)?,
        },
        options: generate_options(&args),
        cancel,
        events: Some(events),
        session: None,
    };
    let (outcome, trace) = runtime.block_on(async {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        tokio::join!(
            engine::run_loop(request),
            show(received, !args.json, args.verbose)
        )
    });

    let mut stdout = std::io::stdout().lock();
    if args.json {
        let mut stats = outcome.stats.to_json();
        stats["load_ms"] = json!(engine::round1(loaded.as_secs_f64() * 1000.0));
        let mut report = json!({
            "loop": outcome.engine,
            "persona": plan.persona.name,
            "model": model,
            "answer": outcome.answer,
            "termination": outcome.termination.as_str(),
            "stats": stats,
            "trace": trace,
        });
        if let Some(error) = &outcome.error {
            report["error"] = json!(error);
        }
        let _ = writeln!(stdout, "{report}");
    } else {
        let _ = writeln!(stdout);
    }
    finish(&outcome)
}

/// When `--timeout` seconds from now is (an error when it is out of range).
fn deadline(timeout: Option<f64>) -> Result<Option<Instant>, String> {
    let Some(seconds) = timeout else {
        return Ok(None);
    };
    Duration::try_from_secs_f64(seconds)
        .ok()
        .and_then(|d| Instant::now().checked_add(d))
        .map(Some)
        .ok_or_else(|| format!("--timeout {seconds} is too large"))
}

/// Streams the answer to stdout and, with `verbose`, everything else to
/// stderr, while keeping the trace.
async fn show(mut events: UnboundedReceiver<LoopEvent>, stream: bool, verbose: bool) -> Trace {
    let mut trace = Trace::new();
    while let Some(event) = events.recv().await {
        trace.push(&event);
        if let (LoopEvent::AnswerToken { text }, true) = (&event, stream) {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
        } else if verbose {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(describe(&event).as_bytes());
            let _ = stderr.flush();
        }
    }
    trace
}

/// How `--verbose` shows an event.
fn describe(event: &LoopEvent) -> String {
    match event {
        LoopEvent::AnswerToken { .. } | LoopEvent::Final { .. } => String::new(),
        LoopEvent::ThoughtToken { text } => text.clone(),
        LoopEvent::EngineChosen { engine, reason } => format!("[loop: {engine} — {reason}]\n"),
        LoopEvent::Plan { steps } => {
            let list: Vec<String> = steps
                .iter()
                .enumerate()
                .map(|(i, s)| format!("  {}. {s}", i + 1))
                .collect();
            format!("\n[plan]\n{}\n", list.join("\n"))
        }
        LoopEvent::StepStarted { index, description } => {
            format!("\n[step {index}: {description}]\n")
        }
        LoopEvent::StepFinished { index, result } => {
            format!("\n[step {index} done: {}]\n", clip(result, 300))
        }
        LoopEvent::ToolCall { name, arguments } => format!("\n[→ {name} {arguments}]\n"),
        LoopEvent::Observation { result, .. } => format!("[← {}]\n", clip(result, 300)),
        LoopEvent::Reflection { text } => format!("\n[reflection: {}]\n", clip(text, 300)),
        LoopEvent::Score { candidate, score } => {
            format!("\n[score {score}: {}]\n", clip(candidate, 80))
        }
        LoopEvent::FormatError { detail } => format!("\n[format error: {detail}]\n"),
    }
}

fn clip(text: &str, max_chars: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The exit status: an error when the loop failed; a note on stderr when it
/// stopped without a full answer.
fn finish(outcome: &LoopOutcome) -> Result<(), String> {
    match (&outcome.error, outcome.termination) {
        (Some(error), engine::Termination::Error) => Err(error.clone()),
        (Some(error), termination) => {
            eprintln!("loopd: stopped ({}): {error}", termination.as_str());
            Ok(())
        }
        (None, _) => Ok(()),
    }
}

/// The sampling options the flags ask for.
fn generate_options(args: &AskArgs) -> GenerateOptions {
    GenerateOptions {
        max_tokens: args.max_tokens,
        temperature: args.temperature,
        top_k: args.top_k,
        top_p: args.top_p,
        repetition_penalty: args.repetition_penalty,
        seed: args.seed,
        ..GenerateOptions::default()
    }
}

fn validate(args: &AskArgs) -> Result<(), String> {
    generate_options(args).check().map_err(|e| {
        format!(
            "--{} must be {}, not {}",
            e.option.replace('_', "-"),
            e.range,
            e.value
        )
    })?;
    if args.max_context < 16 {
        return Err(format!(
            "--max-context must be at least 16, not {}",
            args.max_context
        ));
    }
    if let Some(timeout) = args.timeout {
        if !(timeout > 0.0 && timeout.is_finite()) {
            return Err(format!(
                "--timeout must be a positive number of seconds, not {timeout}"
            ));
        }
    }
    Ok(())
}

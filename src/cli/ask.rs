//! `loopd ask`: one question, the answer streamed to stdout.

use crate::brain::device::DeviceChoice;
use crate::brain::{
    Brain, ChatRequest, EndReason, GenerateOptions, GenerationEvent, LocalBrain, LocalBrainConfig,
    Message, Usage,
};
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Arguments of `loopd ask`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct AskArgs {
    /// The question.
    pub question: String,

    /// Agent loop to run (`none`: a plain chat turn).
    #[arg(long = "loop", default_value = "none", value_name = "ID")]
    pub loop_id: String,

    /// GGUF file or known model name (default: the manifest's default model).
    #[arg(long, value_name = "PATH")]
    pub model: Option<String>,

    /// Where to run the model: auto, cpu, cuda or metal.
    #[arg(long, default_value = "auto", value_name = "D")]
    pub device: DeviceChoice,

    /// Print one JSON object at the end instead of streaming text.
    #[arg(long)]
    pub json: bool,

    /// Sampling temperature (0 = greedy).
    #[arg(long, default_value_t = 0.0, value_name = "T")]
    pub temperature: f32,

    /// Most tokens to generate.
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

    /// A system prompt.
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,

    /// Largest context window to use, in tokens.
    #[arg(long, default_value_t = 8192, value_name = "N")]
    pub max_context: usize,
}

const LOOPS: &[&str] = &["none"];

/// What `loopd ask` reports for how a run ended.
fn termination(end: &EndReason) -> &'static str {
    match end {
        EndReason::EndOfTurn | EndReason::Stop(_) => "answered",
        EndReason::MaxTokens | EndReason::ContextFull => "budget_exhausted",
        EndReason::Cancelled => "cancelled",
    }
}

/// Runs `loopd ask`.
pub fn run(args: AskArgs) -> Result<(), String> {
    if !LOOPS.contains(&args.loop_id.as_str()) {
        return Err(format!(
            "unknown loop `{}` (available: {})",
            args.loop_id,
            LOOPS.join(", ")
        ));
    }
    validate(&args)?;
    let started = Instant::now();
    let path = crate::models::resolve(args.model.as_deref())?;
    let brain = LocalBrain::load(LocalBrainConfig {
        model: path,
        device: args.device,
        max_context: args.max_context,
    })
    .map_err(|e| e.to_string())?;

    let mut messages = Vec::new();
    if let Some(system) = &args.system {
        messages.push(Message::system(system.clone()));
    }
    messages.push(Message::user(args.question.clone()));
    let request = ChatRequest {
        messages,
        tools: Vec::new(),
        options: GenerateOptions {
            max_tokens: args.max_tokens,
            temperature: args.temperature,
            top_k: args.top_k,
            top_p: args.top_p,
            repetition_penalty: args.repetition_penalty,
            seed: args.seed,
            ..GenerateOptions::default()
        },
    };

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    runtime.block_on(async move {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        let mut generation = brain.generate(request, cancel);
        let asked = Instant::now();
        let mut stdout = std::io::stdout().lock();
        while let Some(event) = generation.next().await {
            match event {
                GenerationEvent::Piece(piece) => {
                    if !args.json {
                        let _ = stdout.write_all(piece.text.as_bytes());
                        let _ = stdout.flush();
                    }
                }
                GenerationEvent::Finished(done) => {
                    if args.json {
                        let report = json!({
                            "loop": args.loop_id,
                            "answer": done.text.trim(),
                            "termination": termination(&done.end),
                            "stats": stats(&done.usage, started, asked),
                            "trace": [],
                        });
                        let _ = writeln!(stdout, "{report}");
                    } else {
                        let _ = writeln!(stdout);
                    }
                    return Ok(());
                }
                GenerationEvent::Failed(e) => return Err(e.to_string()),
            }
        }
        Err("the model stopped without an answer".to_string())
    })
}

fn validate(args: &AskArgs) -> Result<(), String> {
    if !(args.temperature >= 0.0 && args.temperature.is_finite()) {
        return Err(format!(
            "--temperature must be a number ≥ 0, not {}",
            args.temperature
        ));
    }
    if !(args.top_p > 0.0 && args.top_p <= 1.0) {
        return Err(format!("--top-p must be in (0, 1], not {}", args.top_p));
    }
    if !(args.repetition_penalty > 0.0 && args.repetition_penalty.is_finite()) {
        return Err(format!(
            "--repetition-penalty must be > 0, not {}",
            args.repetition_penalty
        ));
    }
    if args.max_context < 16 {
        return Err(format!(
            "--max-context must be at least 16, not {}",
            args.max_context
        ));
    }
    Ok(())
}

fn stats(usage: &Usage, started: Instant, asked: Instant) -> serde_json::Value {
    json!({
        "turns": 1,
        "llm_calls": 1,
        "tool_calls": 0,
        "prompt_tokens": usage.prompt_tokens,
        "prefill_tokens": usage.prefill_tokens,
        "cached_tokens": usage.cached_tokens(),
        "completion_tokens": usage.completion_tokens,
        "format_errors": 0,
        "ttft_ms": millis(usage.time_to_first_token),
        "prefill_tok_s": round1(usage.prefill_tok_s()),
        "decode_tok_s": round1(usage.decode_tok_s()),
        "load_ms": millis(asked.duration_since(started)),
        "wall_ms": millis(asked.elapsed()),
    })
}

fn millis(d: std::time::Duration) -> f64 {
    round1(d.as_secs_f64() * 1000.0)
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

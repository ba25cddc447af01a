//! `loopd ask`: one question, the answer streamed to stdout.

use super::Failure;
use crate::brain::device::DeviceChoice;
use crate::brain::{Brain, Fallback, GenerateOptions, LocalBrainConfig, RemoteBrainSettings};
use crate::daemon::{Answer, Ask, AskError, Daemon, DaemonSettings, Limits, Ticket};
use crate::engine::{self, LoopEvent, Settings, Trace};
use crate::persona;
use crate::tools::mcp::{self, McpServer};
use crate::tools::{ExternalToolboxes, ToolConfig, TOOLBOXES};
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `loopd ask`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct AskArgs {
    /// The question.
    pub question: String,

    /// How to answer it.
    #[command(flatten)]
    pub options: AskOptions,
}

/// How a question is answered: the persona, loop, tools, limits, model and
/// sampling (shared by `loopd ask` and `loopd listen`).
#[derive(Debug, Args)]
pub struct AskOptions {
    /// Agent loop to run (default: the persona's; `none`: a plain chat turn).
    #[arg(long = "loop", value_name = "ID")]
    pub loop_id: Option<String>,

    /// Persona: a name (`default`, or a file in the personas directory) or a TOML file.
    #[arg(long, value_name = "NAME|FILE")]
    pub persona: Option<String>,

    /// Toolboxes to use, comma-separated (default: the persona's; `none` for none).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub tools: Option<Vec<String>>,

    /// An MCP server to start for this run, `NAME=COMMAND` (repeatable; the
    /// command split as a shell would). Its tools are the toolbox NAME,
    /// added to the persona's unless --tools names the toolboxes.
    #[arg(long = "mcp", value_name = "NAME=COMMAND")]
    pub mcp: Vec<String>,

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

    /// GGUF file or known model name (default: the manifest's default
    /// model); with --brain, the server's model.
    #[arg(long, value_name = "PATH|NAME")]
    pub model: Option<String>,

    /// The larger model that answers questions no tool can (a GGUF file, a
    /// known name, or `none`); default: the manifest's, when it is fetched
    /// and --model is not given.
    #[arg(long, value_name = "PATH|NAME|none")]
    pub knowledge_model: Option<String>,

    /// Think on a remote OpenAI-compatible server (`http://HOST:PORT`,
    /// e.g. llama.cpp's llama-server, vLLM, Ollama) instead of the local
    /// model; the API key, if any, comes from $LOOPD_BRAIN_API_KEY.
    #[arg(long, value_name = "URL")]
    pub brain: Option<String>,

    /// With --brain: the default local model answers when the server
    /// cannot (down, refusing, too slow).
    #[arg(long, requires = "brain")]
    pub brain_fallback: bool,

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

/// Runs `loopd ask`: the question goes through the same daemon core as
/// every front end's, in this process, with the persona and flags as its
/// settings.
pub fn run(args: AskArgs) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let external = ExternalToolboxes::default();
    let _servers = runtime.block_on(start_mcp(&args.options, &external))?;
    let (settings, ask) = prepare(&args.options, &args.question, &external)?;
    let args = args.options;
    let persona = settings.personas[0].name.clone();
    let started = Instant::now();
    let brain = runtime.block_on(open_brain(&args))?;
    let model = brain.info().model.clone();
    let loaded = started.elapsed();

    let (reply, ran, trace) = runtime.block_on(async {
        let daemon = Daemon::start(brain, settings);
        let mut ticket = daemon.submit(ask)?;
        let on_interrupt = ticket.canceller();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        let trace = show(&mut ticket, !args.json, args.verbose).await;
        let reply = ticket.finish().await;
        Ok::<_, AskError>((reply, ticket.ran().cloned(), trace))
    })?;

    let mut stdout = std::io::stdout().lock();
    match (&ran, args.json) {
        (Some(ran), true) => {
            let mut stats = ran.stats.clone();
            stats["load_ms"] = json!(engine::round1(loaded.as_secs_f64() * 1000.0));
            let answer = reply.as_ref().map(|a| a.answer.as_str()).unwrap_or("");
            let mut report = json!({
                "loop": ran.loop_id,
                "persona": persona,
                "model": model,
                "answer": answer,
                "termination": ran.termination.as_str(),
                "stats": stats,
                "trace": trace,
            });
            match &reply {
                Ok(Answer {
                    note: Some(note), ..
                }) => report["error"] = json!(note),
                Err(error) => report["error"] = json!(error.to_string()),
                Ok(_) => {}
            }
            let _ = writeln!(stdout, "{report}");
        }
        (Some(_), false) => {
            let _ = writeln!(stdout);
        }
        (None, _) => {}
    }
    let answer = reply?;
    if let Some(note) = &answer.note {
        eprintln!("loopd: stopped ({}): {note}", answer.termination.as_str());
    }
    Ok(())
}

/// The MCP servers of `--mcp` and of the persona, running until the
/// returned guard drops.
pub(super) async fn start_mcp(
    args: &AskOptions,
    external: &ExternalToolboxes,
) -> Result<tokio_util::sync::DropGuard, Failure> {
    let stop = tokio_util::sync::CancellationToken::new();
    let flags = args
        .mcp
        .iter()
        .map(|flag| McpServer::from_flag(flag))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::usage)?;
    let persona =
        persona::find(args.persona.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    let servers = mcp::merged([&flags[..], &persona.mcp[..]]).map_err(Failure::usage)?;
    for server in servers {
        let name = server.name.clone();
        mcp::start(server, external.clone(), stop.clone())
            .await
            .map_err(|e| format!("MCP server `{name}`: {e}"))?;
    }
    Ok(stop.drop_guard())
}

/// The daemon core's settings and the request for one `question`, checked;
/// `external` holds the toolboxes of `--mcp`.
pub(super) fn prepare(
    args: &AskOptions,
    question: &str,
    external: &ExternalToolboxes,
) -> Result<(DaemonSettings, Ask), Failure> {
    let mut settings = daemon_settings(args)?;
    settings.tool_config.external = external.clone();
    let mut ask = ask(args, question)?;
    if ask.tools.is_none() && !args.mcp.is_empty() {
        let mut toolboxes = settings.personas[0].toolboxes.clone();
        toolboxes.extend(external.names());
        ask.tools = Some(toolboxes);
    }
    settings.check(&ask)?;
    if args.max_context < 16 {
        return Err(Failure::usage(format!(
            "--max-context must be at least 16, not {}",
            args.max_context
        )));
    }
    Ok((settings, ask))
}

/// The brain the options name: the local model, or the --brain server
/// (with the default local model behind it for --brain-fallback), or else
/// the persona's own remote brain unless --model names a local one.
pub(super) async fn open_brain(args: &AskOptions) -> Result<Arc<dyn Brain>, Failure> {
    let persona =
        persona::find(args.persona.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    let remote = match &args.brain {
        Some(url) => Some(RemoteBrainSettings {
            url: url.clone(),
            model: args.model.clone(),
            fallback: args.brain_fallback.then_some(Fallback::Local),
            ..RemoteBrainSettings::default()
        }),
        None if args.model.is_none() => persona.brain,
        None => None,
    };
    let local_model = match remote {
        Some(_) => None,
        None => args.model.as_deref(),
    };
    let config = |model| LocalBrainConfig {
        model,
        device: args.device,
        max_context: args.max_context,
        prefix_cache: !args.no_prefix_cache,
        cache_budget: None,
        speculate: None,
        prompt_store: crate::brain::prompt_store::PromptStore::default_dir(),
    };
    let local = crate::models::resolve(local_model)
        .map(config)
        .map_err(|e| e.to_string());
    let knowledge = match remote {
        Some(_) => None,
        None => crate::models::resolve_knowledge(local_model, args.knowledge_model.as_deref())
            .map_err(|e| Failure::usage(e.to_string()))?
            .map(config),
    };
    Ok(super::brain::open(remote.as_ref(), local, knowledge).await?)
}

/// The daemon core's settings for one question: the persona alone, the
/// flags' sampling options and tools, no memory, no queue.
fn daemon_settings(args: &AskOptions) -> Result<DaemonSettings, Failure> {
    let persona =
        persona::find(args.persona.as_deref()).map_err(|e| Failure::usage(e.to_string()))?;
    Ok(DaemonSettings {
        personas: vec![persona],
        toolboxes: TOOLBOXES.iter().map(|s| s.to_string()).collect(),
        tool_config: ToolConfig {
            file_roots: args.files_roots.clone(),
            timezone: args.timezone.clone(),
            ..ToolConfig::default()
        },
        queue_limit: 1,
        memory_turns: 0,
        memory_sessions: 1,
        request_timeout: None,
        generate: GenerateOptions {
            top_k: args.top_k,
            top_p: args.top_p,
            repetition_penalty: args.repetition_penalty,
            seed: args.seed,
            ..GenerateOptions::default()
        },
    })
}

/// The request the flags make.
fn ask(args: &AskOptions, question: &str) -> Result<Ask, Failure> {
    let mut settings = Settings::new();
    for text in &args.settings {
        let (key, value) =
            engine::parse_setting(text).map_err(|e| Failure::usage(format!("--set {e}")))?;
        settings.insert(key, value);
    }
    let timeout = match args.timeout {
        None => None,
        Some(seconds) => Some(Limits::timeout_secs(seconds).ok_or_else(|| {
            Failure::usage(format!(
                "--timeout must be a positive number of seconds (at most a year), not {seconds}"
            ))
        })?),
    };
    Ok(Ask {
        prompt: question.to_string(),
        loop_id: args.loop_id.clone(),
        max_tokens: Some(args.max_tokens),
        temperature: Some(f64::from(args.temperature)),
        tools: args.tools.clone(),
        settings,
        system_prompt: args.system.clone(),
        limits: Limits {
            max_turns: args.max_turns,
            max_total_tokens: args.max_total_tokens,
            timeout,
        },
        ..Ask::default()
    })
}

/// Streams the answer to stdout and, with `verbose`, everything else to
/// stderr, while keeping the trace.
async fn show(ticket: &mut Ticket, stream: bool, verbose: bool) -> Trace {
    let mut trace = Trace::new();
    while let Some(event) = ticket.next_event().await {
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
        LoopEvent::Ungrounded { numbers } => {
            format!("\n[ungrounded: {} from no source]\n", numbers.join(", "))
        }
    }
}

fn clip(text: &str, max_chars: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

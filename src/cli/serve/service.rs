//! `loopd serve` from start to stop: load the model, warm it, start the
//! front ends, tell systemd it is ready, and on SIGTERM or SIGINT stop
//! taking requests, answer the ones in flight, and exit.

use crate::brain::device::DeviceChoice;
use crate::brain::LocalBrainConfig;
use crate::daemon::{notify, Daemon, DaemonSettings};
use crate::daemon::{Ask, Caller};
use crate::frontends::{bus, dbus, listen, wyoming};
use crate::voice::speech::{Espeak, Voice};
use crate::voice::stream::{self, Sink, Source};
use crate::voice::vad::{Endpointing, Judging};
use crate::voice::whisper::Whisper;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How long in-flight requests get to deliver their last reply on
/// shutdown: with the front ends' own stops, SIGTERM ends the process
/// within 5 s.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Everything `loopd serve` needs, with the config file and flags applied.
#[derive(Debug, Clone)]
pub struct ServiceOptions {
    /// The OpenAI-compatible HTTP front end.
    pub http: Option<crate::frontends::http::HttpOptions>,
    /// The GGUF file, or why there is none (an error only when the local
    /// model is needed).
    pub model: Result<PathBuf, String>,
    /// The larger model beside it for questions no tool can answer.
    pub knowledge_model: Option<PathBuf>,
    /// A remote server to think on instead (the GGUF as its fallback when
    /// it says so).
    pub brain: Option<crate::brain::RemoteBrainSettings>,
    /// Where to run it.
    pub device: DeviceChoice,
    /// Largest context window.
    pub max_context: usize,
    /// Reuse computed prompt prefixes.
    pub prefix_cache: bool,
    /// Most memory the KV caches may hold, in bytes (`None`: sized to the device).
    pub cache_budget: Option<usize>,
    /// The daemon core's settings.
    pub daemon: DaemonSettings,
    /// The D-Bus front end, unless turned off.
    pub dbus: Option<dbus::DbusOptions>,
    /// The message-bus front end, unless turned off.
    pub bus: Option<bus::BusOptions>,
    /// The Wyoming front end, when asked for.
    pub wyoming: Option<WyomingSettings>,
    /// The voice front end, when asked for.
    pub listen: Option<ListenOptions>,
    /// The voice both speak with.
    pub voice: String,
    /// MCP servers to start; their toolboxes go in the daemon's tool config.
    pub mcp: Vec<crate::tools::mcp::McpServer>,
}

/// Where the voice front end hears and speaks, and how.
#[derive(Debug, Clone)]
pub struct ListenOptions {
    /// The microphone or a WAV file.
    pub source: Source,
    /// The loudspeaker or a WAV file.
    pub sink: Sink,
    /// Answer only what begins with this phrase.
    pub wake: Option<String>,
    /// How long after an answer a follow-up needs no wake phrase.
    pub follow_up: Duration,
    /// Talking over an answer stops it.
    pub barge_in: bool,
    /// The speech model's directory.
    pub speech_dir: PathBuf,
    /// How the end of a question is found (`silence`, `smart-turn`).
    pub turn: String,
    /// What hears speech (`earshot`, `silero-vad`).
    pub vad: String,
    /// Transcribe and answer in the pause before the turn ends.
    pub early: bool,
}

/// Where the Wyoming service listens and the speech model it loads.
#[derive(Debug, Clone)]
pub struct WyomingSettings {
    /// The TCP address.
    pub listen: std::net::SocketAddr,
    /// The speech model's directory.
    pub speech_dir: PathBuf,
    /// Its name, as `info` reports it.
    pub speech_model: String,
    /// Peers beyond loopback it answers.
    pub allow: Vec<std::net::IpAddr>,
}

/// Runs the service until SIGTERM or SIGINT.
pub async fn run(options: ServiceOptions) -> Result<(), String> {
    let started = Instant::now();
    let servers = tokio_util::sync::CancellationToken::new();
    let _servers = servers.clone().drop_guard();
    for server in &options.mcp {
        let external = options.daemon.tool_config.external.clone();
        if let Err(e) = crate::tools::mcp::start(server.clone(), external, servers.clone()).await {
            tracing::warn!(
                "MCP server `{}`: {e}; its toolbox appears once it starts",
                server.name
            );
        }
    }
    let loading = match &options.brain {
        Some(remote) => remote.url.clone(),
        None => match &options.model {
            Ok(path) => path.display().to_string(),
            Err(e) => return Err(e.clone()),
        },
    };
    notify::status(&format!("loading {loading}"));
    let config = |model| LocalBrainConfig {
        model,
        device: options.device,
        max_context: options.max_context,
        prefix_cache: options.prefix_cache,
        cache_budget: options.cache_budget,
        speculate: None,
        prompt_store: crate::brain::prompt_store::PromptStore::default_dir(),
    };
    let knowledge = options.knowledge_model.clone().map(config);
    let brain = crate::cli::brain::open(
        options.brain.as_ref(),
        options.model.clone().map(config),
        knowledge,
    )
    .await?;
    let info = brain.info().clone();
    notify::status(&format!("warming {} on {}", info.model, info.device));
    let persona_brains = crate::cli::brain::for_personas(&options.daemon.personas, &brain).await?;
    let daemon = Daemon::start_with(brain, persona_brains, options.daemon);
    for warmed in daemon.warm().await? {
        tracing::info!(
            "persona `{}` warmed: {} prompt tokens ({} computed) in {:.1} s",
            warmed.persona,
            warmed.prompt_tokens,
            warmed.prefill_tokens,
            warmed.elapsed.as_secs_f64()
        );
    }

    let speech = match &options.wyoming {
        None => None,
        Some(w) => {
            let (dir, device) = (w.speech_dir.clone(), options.device);
            let whisper = tokio::task::spawn_blocking(move || {
                let device = crate::brain::device::open(device).map_err(|e| e.to_string())?;
                Whisper::load(&dir, &device).map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| format!("the speech model loader stopped: {e}"))??;
            Some(whisper)
        }
    };

    let voice = match options.wyoming.is_some() || options.listen.is_some() {
        false => None,
        true => {
            let name = options.voice.clone();
            Some(
                tokio::task::spawn_blocking(move || crate::models::open_voice(&name))
                    .await
                    .map_err(|e| format!("the voice loader stopped: {e}"))?
                    .map_err(|e| e.to_string())?,
            )
        }
    };

    let listen = match options.listen {
        None => None,
        Some(o) => Some(start_listening(daemon.clone(), o, options.device, voice.clone()).await?),
    };

    let stop = stop_signal()?;
    let bus = match options.bus {
        Some(o) => Some(bus::start(daemon.clone(), o).await?),
        None => None,
    };
    let dbus = match options.dbus {
        Some(o) => match dbus::start(daemon.clone(), o).await {
            Ok(d) => Some(d),
            Err(e) if bus.is_some() => {
                tracing::warn!("{e}; serving without D-Bus (--no-dbus silences this)");
                None
            }
            Err(e) => return Err(e),
        },
        None => None,
    };
    let wyoming = match (options.wyoming, speech) {
        (Some(w), Some(whisper)) => Some(
            wyoming::start(
                daemon.clone(),
                wyoming::WyomingOptions {
                    listen: w.listen,
                    allow: w.allow,
                    whisper,
                    speech_model: w.speech_model,
                    voice: voice
                        .clone()
                        .unwrap_or_else(|| Voice::Espeak(Espeak::default())),
                },
            )
            .await?,
        ),
        _ => None,
    };
    let http = match options.http {
        Some(o) => {
            let listen = o.listen;
            let task = crate::frontends::http::serve(daemon.clone(), o, servers.clone()).await?;
            Some((listen, task))
        }
        None => None,
    };
    let mut fronts = Vec::new();
    if let Some((listen, _)) = &http {
        fronts.push(format!("OpenAI API on http://{listen}/v1"));
    }
    if let Some(d) = &dbus {
        fronts.push(d.describe());
    }
    if let Some(b) = &bus {
        fronts.push(b.describe());
    }
    if let Some(w) = &wyoming {
        fronts.push(w.describe());
    }
    if let Some(l) = &listen {
        fronts.push(l.describe());
    }
    notify::ready(&format!(
        "ready in {:.1} s: {} on {} ({} threads); {}",
        started.elapsed().as_secs_f64(),
        info.model,
        info.device,
        info.threads,
        if fronts.is_empty() {
            "no front ends".to_string()
        } else {
            fronts.join("; ")
        }
    ));
    let watchdog = notify::start_watchdog();
    if let Some(timers) = daemon.tool_config().timers.clone() {
        let stop = servers.clone();
        tokio::spawn(async move { timers.keep(stop).await });
    }

    stop.await;
    notify::stopping();
    tracing::info!(
        "stopping: {} request(s) in flight get their last reply",
        daemon.open_requests()
    );
    daemon.shutdown(SHUTDOWN_GRACE).await;
    if let Some(w) = watchdog {
        w.abort();
    }
    if let Some(bus) = bus {
        bus.stop().await;
    }
    if let Some(wyoming) = wyoming {
        wyoming.stop().await;
    }
    if let Some(listen) = listen {
        listen.stop().await;
    }
    if let Some(dbus) = dbus {
        dbus.stop().await;
    }
    if let Some((_, task)) = http {
        servers.cancel();
        let _ = task.await;
    }
    notify::flush(Duration::from_secs(1)).await;
    tracing::info!("stopped");
    Ok(())
}

/// Loads Whisper, opens the microphone and loudspeaker (or files) and
/// starts the voice front end.
async fn start_listening(
    daemon: Daemon,
    options: ListenOptions,
    device: DeviceChoice,
    voice: Option<Voice>,
) -> Result<listen::Listening, String> {
    let dir = options.speech_dir.clone();
    let whisper = tokio::task::spawn_blocking(move || {
        let device = crate::brain::device::open(device).map_err(|e| e.to_string())?;
        Whisper::load(&dir, &device).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| format!("the speech model loader stopped: {e}"))??;
    let start = Instant::now();
    let input = stream::hear(&options.source, start).map_err(|e| e.to_string())?;
    let output =
        stream::play(&options.sink, stream::ANSWER_RATE, start).map_err(|e| e.to_string())?;
    let description = format!(
        "listening on {} and speaking on {}{}",
        match &options.source {
            Source::Wav(p) => p.display().to_string(),
            Source::Microphone(name) => name
                .clone()
                .unwrap_or_else(|| "the default microphone".into()),
        },
        match &options.sink {
            Sink::Wav(p) => p.display().to_string(),
            Sink::Loudspeaker(name) => name
                .clone()
                .unwrap_or_else(|| "the default loudspeaker".into()),
        },
        options
            .wake
            .as_ref()
            .map(|w| format!(" (wake phrase \"{w}\")"))
            .unwrap_or_default()
    );
    let rings = daemon.tool_config().timers.as_ref().map(|timers| {
        timers.rings_for(listen::RINGS_FOR);
        timers.subscribe()
    });
    let parts = listen::Answering {
        rings,
        daemon,
        runtime: tokio::runtime::Handle::current(),
        ask: Box::new(|question| {
            Ok(Ask {
                caller: Caller::local(),
                prompt: question.to_string(),
                session: Some(LISTEN_SESSION.into()),
                barge_in: true,
                ..Ask::default()
            })
        }),
        transcriber: listen::early::Transcriber::new(whisper),
        voice: voice.unwrap_or_else(|| Voice::Espeak(Espeak::default())),
        output,
    };
    let settings = listen::ListenSettings {
        rules: Endpointing::default(),
        detector: crate::models::open_vad(&options.vad).map_err(|e| e.to_string())?,
        judge: crate::models::open_turn(&options.turn)
            .map_err(|e| e.to_string())?
            .map(|judge| (judge, Judging::default())),
        barge_in: options.barge_in,
        wake: options.wake,
        follow_up: options.follow_up,
        push_to_talk: None,
        once: false,
        early: options.early,
    };
    listen::start(parts, input, settings, description)
}

/// The conversation memory key of what the voice front end hears.
const LISTEN_SESSION: &str = "listen";

/// Listens for SIGTERM and SIGINT from now on (installed before `READY=1`,
/// so a stop that follows at once is not the default "die" of a signal);
/// the future ends at the first.
fn stop_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())
            .map_err(|e| format!("cannot listen for SIGTERM: {e}"))?;
        let mut int = signal(SignalKind::interrupt())
            .map_err(|e| format!("cannot listen for SIGINT: {e}"))?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

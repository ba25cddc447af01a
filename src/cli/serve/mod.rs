//! `loopd serve`: the daemon, on D-Bus and the message bus. This is the
//! composition root: it builds the daemon and hands it to the front ends,
//! which the daemon itself knows nothing of.

mod service;

use crate::brain::device::{self, DeviceChoice};
use crate::brain::GenerateOptions;
use crate::daemon::config::{self, Config};
use crate::daemon::DaemonSettings;
use crate::frontends::bus::{BusMode, BusOptions, Secret};
use crate::frontends::dbus::DbusOptions;
use crate::frontends::http::HttpOptions;
use crate::persona::{self, Persona};
use crate::tools::timers::Timers;
use crate::tools::{ToolConfig, Toolset};
use crate::voice::stream::{Sink, Source};
use clap::Args;
use service::ServiceOptions;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `loopd serve`; each overrides the config file.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// GGUF file or known model name (default: the config's, else the manifest's default).
    #[arg(long, value_name = "PATH")]
    pub model: Option<String>,

    /// The larger model that answers questions no tool can (a GGUF file, a
    /// known name, or `none`); default: the config's, else the manifest's
    /// when it is fetched and no model is named.
    #[arg(long, value_name = "PATH|NAME|none")]
    pub knowledge_model: Option<String>,

    /// Config file (default: $XDG_CONFIG_HOME/loopd/config.toml, or
    /// /etc/loopd/config.toml with --system).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Run as the system service: the system D-Bus, /etc/loopd, /run/loopd.
    #[arg(long)]
    pub system: bool,

    /// Do not serve on D-Bus.
    #[arg(long)]
    pub no_dbus: bool,

    /// Join the OVOS message bus at this URL (ws://HOST:PORT/ROUTE).
    #[arg(long, value_name = "URL", conflicts_with_all = ["bus_listen", "no_bus"])]
    pub bus: Option<String>,

    /// Host a message bus at this address (default 127.0.0.1:8181).
    #[arg(long, value_name = "ADDR", conflicts_with = "no_bus")]
    pub bus_listen: Option<String>,

    /// A file holding the secret clients of the hosted bus must present
    /// (required to listen on an address that is not loopback).
    #[arg(long, value_name = "PATH")]
    pub bus_secret_file: Option<PathBuf>,

    /// Serve the OpenAI-compatible API (`/v1/models`, `/v1/chat/completions`)
    /// at this address, e.g. 127.0.0.1:8080.
    #[arg(long, value_name = "HOST:PORT")]
    pub http: Option<String>,

    /// A file holding the bearer key HTTP clients must send (required for
    /// an address beyond loopback).
    #[arg(long, value_name = "PATH")]
    pub http_key_file: Option<PathBuf>,

    /// Neither join nor host a WebSocket message bus.
    #[arg(long)]
    pub no_bus: bool,

    /// Answer utterances on the bus (`recognizer_loop:utterance`,
    /// `ovos.utterance.handle`) with `speak` messages.
    #[arg(long)]
    pub handle_utterances: bool,

    /// The JSON-lines socket (default: $XDG_RUNTIME_DIR/loopd/bus.sock).
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// Where to run the model: auto, cpu, cuda or metal.
    #[arg(long, value_name = "D")]
    pub device: Option<DeviceChoice>,

    /// Serve Wyoming (speech to text, text to speech, answers) for Home
    /// Assistant at this address, e.g. tcp://127.0.0.1:10700.
    #[arg(long, value_name = "tcp://HOST:PORT")]
    pub wyoming: Option<String>,

    /// Speech-to-text model for Wyoming and --listen (default: the
    /// manifest's default).
    #[arg(long, value_name = "NAME")]
    pub speech_model: Option<String>,

    /// Hear the microphone and answer aloud on the loudspeaker, sharing the
    /// model with the other front ends.
    #[arg(long)]
    pub listen: bool,

    /// The microphone for --listen (`loopd audio devices` lists them).
    #[arg(long, value_name = "NAME")]
    pub mic: Option<String>,

    /// The loudspeaker for --listen.
    #[arg(long, value_name = "NAME")]
    pub speaker: Option<String>,

    /// For --listen: hear this WAV file at its recorded pace instead of the
    /// microphone (recordings, tests).
    #[arg(
        long,
        value_name = "IN.wav",
        requires = "listen",
        conflicts_with = "mic"
    )]
    pub listen_input: Option<PathBuf>,

    /// For --listen: write what the loudspeaker would play into this WAV
    /// file instead.
    #[arg(
        long,
        value_name = "OUT.wav",
        requires = "listen",
        conflicts_with = "speaker"
    )]
    pub listen_output: Option<PathBuf>,

    /// For --listen: answer only what begins with this phrase.
    #[arg(long, value_name = "PHRASE")]
    pub wake: Option<String>,

    /// The voice for --listen and Wyoming: an espeak-ng voice (`en-us`) or
    /// `piper-joe`.
    #[arg(long, value_name = "VOICE")]
    pub voice: Option<String>,

    /// For --listen: ignore speech during an answer instead of stopping it.
    #[arg(long)]
    pub no_barge_in: bool,
}

/// A `tcp://HOST:PORT` address; a bare `HOST:PORT` is taken as TCP.
fn tcp_address(url: &str) -> Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let bad = || format!("--wyoming {url}: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:10700");
    let rest = url.strip_prefix("tcp://").unwrap_or(url);
    if rest.contains("://") {
        return Err(bad());
    }
    rest.to_socket_addrs()
        .map_err(|_| bad())?
        .next()
        .ok_or_else(bad)
}

/// Runs `loopd serve`; `threads` is the global `--threads` flag.
pub fn run(args: ServeArgs, threads: Option<usize>) -> Result<(), String> {
    let (config, path) =
        Config::load(args.config.as_deref(), args.system).map_err(|e| e.to_string())?;
    device::set_threads(threads.or(config.threads));
    let options = options(&args, &config)?;
    match &path {
        Some(p) => tracing::info!("config {}", p.display()),
        None => tracing::info!("no config file; defaults"),
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("loopd-io")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let served = runtime.block_on(service::run(options));
    // Speech work on blocking threads (a transcription, a synthesis) has
    // no way to be cancelled; it is not waited for.
    runtime.shutdown_timeout(SPEECH_GRACE);
    served
}

/// How long a stopping service waits for speech work still running on
/// blocking threads.
const SPEECH_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The service's options: the config file with the flags applied.
fn options(args: &ServeArgs, config: &Config) -> Result<ServiceOptions, String> {
    let named = args.model.as_deref().or(config.model.as_deref());
    let model = crate::models::resolve(named).map_err(|e| e.to_string());
    let knowledge_model = match &config.brain {
        Some(_) => None,
        None => crate::models::resolve_knowledge(
            named,
            args.knowledge_model
                .as_deref()
                .or(config.knowledge_model.as_deref()),
        )
        .map_err(|e| e.to_string())?,
    };
    let local_needed = config
        .brain
        .as_ref()
        .is_none_or(|b| b.fallback == Some(crate::brain::Fallback::Local));
    if local_needed {
        model.clone()?;
    }
    let device = match (args.device, &config.device) {
        (Some(d), _) => d,
        (None, Some(name)) => name.parse().map_err(|e| format!("config device: {e}"))?,
        (None, None) => DeviceChoice::Auto,
    };
    let system = args.system || config.dbus.system;
    let tool_config = ToolConfig {
        file_roots: config.tools.files_roots.clone(),
        timezone: config.tools.timezone.clone(),
        call_timeout: config
            .tools
            .call_timeout_s
            .map(|s| {
                Duration::try_from_secs_f64(s)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        format!(
                            "config tools.call_timeout_s must be a positive number of seconds, not {s}"
                        )
                    })
            })
            .transpose()?,
        timers: Some(Timers::open(
            config
                .tools
                .timers_file
                .clone()
                .or_else(crate::daemon::config::timers_file),
            config.tools.timezone.clone(),
        )),
        ..ToolConfig::default()
    };
    let mut toolboxes = match &config.toolboxes {
        Some(names) => names.clone(),
        None => vec!["clock".into(), "math".into(), "timers".into()],
    };
    if config.toolboxes.is_none() && !tool_config.file_roots.is_empty() {
        toolboxes.push("files".into());
    }
    Toolset::named(&toolboxes, &tool_config).map_err(|e| format!("config toolboxes: {e}"))?;
    for server in &config.mcp {
        server.check().map_err(|e| format!("config [[mcp]]: {e}"))?;
    }
    let requests = &config.requests;
    let timeout = Duration::try_from_secs_f64(requests.timeout_s)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            format!(
                "config requests.timeout_s must be a positive number of seconds, not {}",
                requests.timeout_s
            )
        })?;
    let sampling = GenerateOptions {
        max_tokens: requests.max_tokens,
        temperature: requests.temperature,
        ..GenerateOptions::default()
    };
    sampling
        .check()
        .map_err(|e| format!("config [requests] {e}"))?;
    let personas = personas(config)?;
    let mcp = crate::tools::mcp::merged(
        std::iter::once(&config.mcp[..]).chain(personas.iter().map(|p| &p.mcp[..])),
    )
    .map_err(|e| format!("config and personas: {e}"))?;
    let daemon = DaemonSettings {
        personas,
        toolboxes,
        tool_config,
        queue_limit: requests.queue.max(1),
        memory_turns: config.memory.turns,
        memory_sessions: config.memory.sessions.max(1),
        request_timeout: Some(timeout),
        generate: sampling,
    };
    let dbus = (!args.no_dbus && config.dbus.enabled).then(|| DbusOptions {
        system,
        toolbox_group: config.dbus.toolbox_group.clone(),
    });
    let secret = args
        .bus_secret_file
        .as_ref()
        .or(config.bus.secret_file.as_ref())
        .map(|path| read_secret(path))
        .transpose()?;
    let bus = config.bus.enabled.then(|| {
        let websocket = if args.no_bus {
            None
        } else if let Some(url) = &args.bus {
            Some(BusMode::Join(url.clone()))
        } else if let Some(addr) = &args.bus_listen {
            Some(BusMode::Host(addr.clone()))
        } else if let Some(url) = &config.bus.url {
            Some(BusMode::Join(url.clone()))
        } else if let Some(addr) = &config.bus.listen {
            Some(BusMode::Host(addr.clone()))
        } else if args.system {
            // Every local user could reach a bus the system service hosts.
            None
        } else {
            Some(BusMode::Host(config::DEFAULT_BUS_LISTEN.into()))
        };
        BusOptions {
            websocket,
            socket: Some(
                args.socket
                    .clone()
                    .or_else(|| config.bus.socket.clone())
                    .unwrap_or_else(|| config::default_socket(args.system)),
            ),
            handle_utterances: args.handle_utterances || config.bus.handle_utterances,
            max_frame_bytes: config.bus.max_frame_bytes.max(1024),
            secret,
        }
    });
    let voice = &config.voice;
    let speaking = args
        .voice
        .clone()
        .or_else(|| voice.voice.clone())
        .unwrap_or_else(|| "en-us".into());
    let speech_model = args
        .speech_model
        .clone()
        .or_else(|| voice.speech_model.clone())
        .unwrap_or_else(|| crate::models::Manifest::builtin().default_speech);
    let speech_dir =
        || crate::models::resolve_speech(Some(&speech_model)).map_err(|e| e.to_string());
    let wyoming = match args.wyoming.as_ref().or(voice.wyoming.as_ref()) {
        None => None,
        Some(url) => Some(service::WyomingSettings {
            listen: {
                let listen = tcp_address(url)?;
                crate::frontends::wyoming::check_exposure(listen, &voice.wyoming_allow)?;
                listen
            },
            speech_dir: speech_dir()?,
            speech_model: speech_model.clone(),
            allow: voice.wyoming_allow.clone(),
        }),
    };
    let listen = match args.listen || voice.listen {
        false => None,
        true => Some(service::ListenOptions {
            source: match &args.listen_input {
                Some(path) => Source::Wav(path.clone()),
                None => Source::Microphone(args.mic.clone().or_else(|| voice.mic.clone())),
            },
            sink: match &args.listen_output {
                Some(path) => Sink::Wav(path.clone()),
                None => Sink::Loudspeaker(args.speaker.clone().or_else(|| voice.speaker.clone())),
            },
            wake: args.wake.clone().or_else(|| voice.wake.clone()),
            follow_up: std::time::Duration::try_from_secs_f64(voice.follow_up).map_err(|_| {
                format!(
                    "[voice] follow_up must be 0 or more seconds, not {}",
                    voice.follow_up
                )
            })?,
            barge_in: !args.no_barge_in && voice.barge_in,
            speech_dir: speech_dir()?,
            turn: voice.turn.clone().unwrap_or_else(|| "silence".into()),
            vad: voice.vad.clone().unwrap_or_else(|| "earshot".into()),
            early: voice.early,
        }),
    };
    let http = match args.http.as_ref().or(config.http.listen.as_ref()) {
        None => None,
        Some(address) => {
            let listen = address.parse().map_err(|_| {
                format!("--http {address}: expected HOST:PORT, e.g. 127.0.0.1:8080")
            })?;
            let key_file = args
                .http_key_file
                .as_ref()
                .or(config.http.key_file.as_ref());
            let api_key = match key_file {
                None => None,
                Some(path) => {
                    let text = std::fs::read_to_string(path)
                        .map_err(|e| format!("http key file {}: {e}", path.display()))?;
                    let key = text.trim().to_string();
                    if key.is_empty() {
                        return Err(format!("http key file {} is empty", path.display()));
                    }
                    Some(key)
                }
            };
            let options = HttpOptions { listen, api_key };
            options.check()?;
            Some(options)
        }
    };
    Ok(ServiceOptions {
        http,
        wyoming,
        listen,
        voice: speaking,
        mcp,
        model,
        knowledge_model,
        brain: config.brain.clone(),
        device,
        max_context: config.max_context.unwrap_or(8192).max(16),
        prefix_cache: config.cache.prefix,
        cache_budget: config.cache.budget_mb.map(|mb| mb << 20),
        daemon,
        dbus,
        bus,
    })
}

/// The personas served: everything discovered plus the config's, with the
/// configured default first.
fn personas(config: &Config) -> Result<Vec<Persona>, String> {
    let (found, errors) = persona::discover();
    for e in errors {
        tracing::warn!("{e}");
    }
    let mut personas: Vec<Persona> = found.into_iter().map(|f| f.persona).collect();
    for name in &config.personas {
        let p = persona::find(Some(name)).map_err(|e| e.to_string())?;
        personas.retain(|q| q.name != p.name);
        personas.push(p);
    }
    if let Some(default) = &config.default_persona {
        let at = personas
            .iter()
            .position(|p| &p.name == default)
            .ok_or_else(|| format!("config default_persona: no persona named `{default}`"))?;
        let p = personas.remove(at);
        personas.insert(0, p);
    } else if let Some(at) = personas.iter().position(|p| p.name == "default") {
        let p = personas.remove(at);
        personas.insert(0, p);
    }
    Ok(personas)
}

/// Reads the hosted bus's shared secret from `path`.
fn read_secret(path: &Path) -> Result<Secret, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("bus secret file {}: {e}", path.display()))?;
    Secret::new(&text).map_err(|e| format!("bus secret file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn wyoming_addresses_are_tcp() {
        assert_eq!(
            super::tcp_address("tcp://127.0.0.1:10700").unwrap(),
            "127.0.0.1:10700".parse().unwrap()
        );
        assert!(super::tcp_address("127.0.0.1:0").is_ok());
        for bad in ["udp://1.2.3.4:5", "tcp://nowhere", "tcp://1.2.3.4:99999"] {
            assert!(super::tcp_address(bad)
                .unwrap_err()
                .contains("tcp://HOST:PORT"));
        }
    }
}

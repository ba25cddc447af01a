//! `config.toml`: what `loopd serve` loads and how it serves.
//!
//! Read from `--config FILE`, else `/etc/loopd/config.toml` for the system
//! service (`--system`), else `$XDG_CONFIG_HOME/loopd/config.toml`. Every key
//! is optional; command-line flags override the file.
//!
//! ```toml
//! model = "qwen2.5-coder-0.5b"  # a known model name or a GGUF path
//! device = "auto"               # auto, cpu, cuda, metal
//! threads = 2                   # CPU threads (default: physical cores)
//! default_persona = "default"
//! personas = ["/etc/loopd/personas/kitchen.toml"]
//! toolboxes = ["clock", "math"] # toolboxes requests may ask for
//!
//! [tools]
//! files_roots = ["/srv/notes"]
//! timezone = "Europe/Lisbon"
//!
//! [requests]
//! queue = 8                     # requests that may wait behind the running one
//! timeout_s = 120
//! max_tokens = 512
//! temperature = 0.0
//!
//! [memory]
//! turns = 4                     # exchanges remembered per session
//! sessions = 64
//!
//! [cache]
//! prefix = true                 # reuse computed prompt prefixes (off: recompute every call)
//! budget_mb = 512               # KV caches kept (default: a quarter of free memory, 128-1024)
//!
//! [dbus]
//! enabled = true
//! system = false                # the system bus instead of the session bus
//! toolbox_group = "loopd-tools"  # who besides root and loopd's user may register toolboxes
//!
//! [bus]
//! enabled = true
//! url = "ws://127.0.0.1:8181/core"  # join this bus; without it, host one at `listen`
//! listen = "127.0.0.1:8181"
//! handle_utterances = false
//! socket = "/run/user/1000/loopd/bus.sock"
//! max_frame_bytes = 1048576
//! secret_file = "/etc/loopd/bus-secret"  # required to listen beyond loopback
//!
//! [voice]
//! listen = false                # hear the microphone and answer aloud
//! mic = "alsa:default"          # default: the system's default input
//! speaker = "alsa:default"      # default: the system's default output
//! wake = "hey loop"             # answer only what begins with this
//! follow_up = 5                 # seconds after an answer a follow-up needs no wake phrase (0: off)
//! barge_in = true               # talking over an answer stops it
//! wyoming = "tcp://127.0.0.1:10700"  # serve Home Assistant's Wyoming protocol
//! wyoming_allow = ["192.168.1.20"]   # peers beyond loopback it answers (required beyond it)
//! speech_model = "whisper-tiny.en"
//! voice = "piper-joe"           # or an espeak-ng voice (default "en-us")
//! turn = "smart-turn"           # hear when a question is finished (default "silence")
//! early = true                  # transcribe and answer in the pause before the turn ends
//! ```

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The whole file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// A known model name or a GGUF path.
    pub model: Option<String>,
    /// The larger model that answers questions no tool can: a known name,
    /// a GGUF path, or `none` (default: the manifest's, when it is fetched
    /// and `model` is not set).
    pub knowledge_model: Option<String>,
    /// A remote OpenAI-compatible server to think on instead (`brain =
    /// { url, model, api_key_file, fallback = "local" }`).
    pub brain: Option<crate::brain::RemoteBrainSettings>,
    /// `auto`, `cpu`, `cuda` or `metal`.
    pub device: Option<String>,
    /// CPU threads for the model.
    pub threads: Option<usize>,
    /// Largest context window, in tokens.
    pub max_context: Option<usize>,
    /// The persona used when a request names none.
    pub default_persona: Option<String>,
    /// Persona files (or names in the personas directories) to serve, besides
    /// the built-in one and those found in the personas directories.
    pub personas: Vec<String>,
    /// Toolboxes requests may ask for (default: `clock`, `math`, and `files`
    /// when `tools.files_roots` is set).
    pub toolboxes: Option<Vec<String>>,
    /// How the toolboxes are set up.
    pub tools: ToolsSection,
    /// Queue and per-request limits.
    pub requests: RequestsSection,
    /// Per-session memory.
    pub memory: MemorySection,
    /// The model's KV prefix caches.
    pub cache: CacheSection,
    /// The D-Bus front end.
    pub dbus: DbusSection,
    /// The OpenAI-compatible HTTP front end.
    pub http: HttpSection,
    /// The message-bus front end.
    pub bus: BusSection,
    /// The voice front ends: the microphone and loudspeaker, and Wyoming.
    pub voice: VoiceSection,
    /// MCP servers to start (`[[mcp]]`: `name`, `command`, `args`, `env`,
    /// `timeout`); each is a toolbox named `name`.
    pub mcp: Vec<crate::tools::mcp::McpServer>,
}

/// `[voice]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VoiceSection {
    /// Hear the microphone and answer aloud.
    pub listen: bool,
    /// The microphone's name (default: the system's default input).
    pub mic: Option<String>,
    /// The loudspeaker's name (default: the system's default output).
    pub speaker: Option<String>,
    /// Answer only utterances that begin with this phrase.
    pub wake: Option<String>,
    /// Seconds after an answer in which the next utterance needs no wake
    /// phrase (0 turns follow-ups off).
    pub follow_up: f64,
    /// Talking over an answer stops it; off, speech during an answer is
    /// ignored (open speakers without echo cancellation).
    pub barge_in: bool,
    /// Serve Wyoming at this address (`tcp://HOST:PORT`).
    pub wyoming: Option<String>,
    /// The addresses beyond loopback that Wyoming answers (Home
    /// Assistant's, a satellite's); required to listen beyond loopback.
    pub wyoming_allow: Vec<std::net::IpAddr>,
    /// The speech-to-text model (default: the manifest's default).
    pub speech_model: Option<String>,
    /// The voice: an espeak-ng voice or a Piper voice (`piper-joe`).
    pub voice: Option<String>,
    /// How the end of a question is found: `silence`, or a turn model
    /// (`smart-turn`).
    pub turn: Option<String>,
    /// What hears speech: `earshot` (built in), or Silero VAD
    /// (`silero-vad`).
    pub vad: Option<String>,
    /// Transcribe, and answer held, in the pause before the turn ends; off,
    /// only once it has ended (a core is not spent on speech the user may
    /// go on with).
    pub early: bool,
}

impl Default for VoiceSection {
    fn default() -> Self {
        VoiceSection {
            listen: false,
            mic: None,
            speaker: None,
            wake: None,
            follow_up: 5.0,
            barge_in: true,
            wyoming: None,
            wyoming_allow: Vec::new(),
            speech_model: None,
            voice: None,
            turn: None,
            vad: None,
            early: true,
        }
    }
}

/// `[tools]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsSection {
    /// Directories the `files` toolbox may read.
    pub files_roots: Vec<PathBuf>,
    /// IANA time zone for the `clock` toolbox.
    pub timezone: Option<String>,
    /// Seconds a toolbox on the message bus or D-Bus may take to answer a
    /// call (default 20; MCP servers have their own `timeout`).
    pub call_timeout_s: Option<f64>,
    /// Where timers and alarms are kept across restarts (default:
    /// [`timers_file`]).
    pub timers_file: Option<PathBuf>,
}

/// Where timers are kept when the config names no file:
/// `$STATE_DIRECTORY/timers.json` under systemd, else
/// `$XDG_STATE_HOME/loopd/timers.json`, else
/// `~/.local/state/loopd/timers.json`; `None` when there is no home.
pub fn timers_file() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dirs) = var("STATE_DIRECTORY") {
        let first = std::env::split_paths(&dirs).next()?;
        return Some(first.join("timers.json"));
    }
    let state = var("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".local/state")))?;
    Some(state.join("loopd").join("timers.json"))
}

/// `[requests]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RequestsSection {
    /// Requests that may wait behind the running one; more are refused as `Busy`.
    pub queue: usize,
    /// Seconds one request may run.
    pub timeout_s: f64,
    /// Most tokens per LLM call, unless a request asks for fewer or more.
    pub max_tokens: usize,
    /// Sampling temperature (0 = greedy).
    pub temperature: f32,
}

impl Default for RequestsSection {
    fn default() -> Self {
        RequestsSection {
            queue: 8,
            timeout_s: 120.0,
            max_tokens: 512,
            temperature: 0.0,
        }
    }
}

/// `[memory]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MemorySection {
    /// Exchanges remembered per session.
    pub turns: usize,
    /// Sessions remembered at once.
    pub sessions: usize,
}

impl Default for MemorySection {
    fn default() -> Self {
        MemorySection {
            turns: 4,
            sessions: 64,
        }
    }
}

/// `[cache]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheSection {
    /// Reuse computed prompt prefixes across calls, sessions and personas.
    pub prefix: bool,
    /// Most memory the kept KV caches may hold, in MiB (default: sized to the device).
    pub budget_mb: Option<usize>,
}

impl Default for CacheSection {
    fn default() -> Self {
        CacheSection {
            prefix: true,
            budget_mb: None,
        }
    }
}

/// `[dbus]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DbusSection {
    /// Serve `io.loopd.Loopd1`.
    pub enabled: bool,
    /// On the system bus instead of the session bus.
    pub system: bool,
    /// A group whose members may register toolboxes, besides root and
    /// loopd's own user.
    pub toolbox_group: Option<String>,
}

impl Default for DbusSection {
    fn default() -> Self {
        DbusSection {
            enabled: true,
            system: false,
            toolbox_group: None,
        }
    }
}

/// `[http]`: off unless `listen` is set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpSection {
    /// Serve the OpenAI-compatible API at this address (`127.0.0.1:8080`).
    pub listen: Option<String>,
    /// A file holding the bearer key clients must send (required to listen
    /// beyond loopback).
    pub key_file: Option<PathBuf>,
}

/// Where a hosted bus listens when `[bus] listen` is not set.
pub const DEFAULT_BUS_LISTEN: &str = "127.0.0.1:8181";

/// `[bus]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BusSection {
    /// Serve on a message bus at all.
    pub enabled: bool,
    /// Join the bus at this URL instead of hosting one.
    pub url: Option<String>,
    /// Where a hosted bus listens (default [`DEFAULT_BUS_LISTEN`], except
    /// for the system service, which hosts no bus unless this is set).
    pub listen: Option<String>,
    /// Answer `recognizer_loop:utterance` and `ovos.utterance.handle` with `speak`.
    pub handle_utterances: bool,
    /// The JSON-lines socket (default: `$XDG_RUNTIME_DIR/loopd/bus.sock`, or
    /// `/run/loopd/bus.sock` for the system service).
    pub socket: Option<PathBuf>,
    /// Largest frame accepted, in bytes.
    pub max_frame_bytes: usize,
    /// A file holding the secret clients of a hosted bus must present
    /// (`?secret=` in the URL, or `Authorization: Bearer`). Required to
    /// listen on an address that is not loopback.
    pub secret_file: Option<PathBuf>,
}

impl Default for BusSection {
    fn default() -> Self {
        BusSection {
            enabled: true,
            url: None,
            listen: None,
            handle_utterances: false,
            socket: None,
            max_frame_bytes: 1 << 20,
            secret_file: None,
        }
    }
}

/// Why the config file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {}: {source}", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
    /// The text is not TOML, or has a key or value the config does not take.
    #[error("config {origin}: {}", .source.message().trim())]
    Parse {
        /// The file, or what else the text came from.
        origin: String,
        /// What the TOML parser found wrong.
        #[source]
        source: toml::de::Error,
    },
}

impl Config {
    /// Parses config text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|source| ConfigError::Parse {
            origin: origin.to_string(),
            source,
        })
    }

    /// Reads the config: `explicit` must exist; the default file may be missing.
    pub fn load(
        explicit: Option<&Path>,
        system: bool,
    ) -> Result<(Config, Option<PathBuf>), ConfigError> {
        let path = match explicit {
            Some(path) => path.to_path_buf(),
            None => default_path(system),
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok((
                Config::parse(&text, &path.display().to_string())?,
                Some(path),
            )),
            Err(e) if explicit.is_none() && e.kind() == std::io::ErrorKind::NotFound => {
                Ok((Config::default(), None))
            }
            Err(source) => Err(ConfigError::Unreadable { path, source }),
        }
    }
}

/// `/etc/loopd/config.toml` for the system service, else
/// `$XDG_CONFIG_HOME/loopd/config.toml` (or `~/.config/loopd/config.toml`).
pub fn default_path(system: bool) -> PathBuf {
    if system {
        return PathBuf::from("/etc/loopd/config.toml");
    }
    dirs::config_dir()
        .unwrap_or_else(|| PathBuf::from("/etc"))
        .join("loopd/config.toml")
}

/// Where the JSON-lines socket goes when the config names none.
pub fn default_socket(system: bool) -> PathBuf {
    match dirs::runtime_dir() {
        Some(dir) if !system => dir.join("loopd/bus.sock"),
        _ => PathBuf::from("/run/loopd/bus.sock"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The commented config the package installs as /etc/loopd/config.toml
    /// parses, as shipped and with every setting uncommented.
    #[test]
    fn the_shipped_example_config_parses_uncommented() {
        let example = include_str!("../../systemd/config.toml");
        assert!(Config::parse(example, "systemd/config.toml").is_ok());
        let uncommented: String = example
            .lines()
            .filter(|line| !line.starts_with("##"))
            .map(|line| line.strip_prefix("# ").unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n");
        let config = Config::parse(&uncommented, "systemd/config.toml").unwrap();
        assert_eq!(config.requests.queue, 8);
        assert_eq!(config.mcp.len(), 1);
        assert!(config.dbus.system);
        assert_eq!(config.bus.listen.as_deref(), Some("127.0.0.1:8181"));
        assert!(config.voice.early);
    }

    #[test]
    fn an_empty_file_is_the_defaults() {
        let c = Config::parse("", "t").unwrap();
        assert_eq!(c.requests.queue, 8);
        assert_eq!(c.memory.turns, 4);
        assert!(c.dbus.enabled && !c.dbus.system);
        assert_eq!(c.bus.listen, None);
        assert!(c.voice.early, "answering in the pause is on by default");
    }

    #[test]
    fn reads_every_section() {
        let text = r#"
            model = "qwen"
            threads = 3
            personas = ["a.toml"]
            toolboxes = ["math"]
            [tools]
            timezone = "Asia/Tokyo"
            [requests]
            queue = 2
            timeout_s = 5.5
            [memory]
            turns = 1
            [cache]
            prefix = false
            budget_mb = 64
            [dbus]
            system = true
            [bus]
            url = "ws://10.0.0.2:8181/core"
            handle_utterances = true
            [voice]
            early = false
        "#;
        let c = Config::parse(text, "t").unwrap();
        assert_eq!(c.model.as_deref(), Some("qwen"));
        assert_eq!(c.threads, Some(3));
        assert_eq!(c.requests.queue, 2);
        assert_eq!(c.requests.timeout_s, 5.5);
        assert!(!c.cache.prefix);
        assert_eq!(c.cache.budget_mb, Some(64));
        assert_eq!(c.memory.turns, 1);
        assert!(c.dbus.system);
        assert!(c.bus.handle_utterances);
        assert_eq!(c.tools.timezone.as_deref(), Some("Asia/Tokyo"));
        assert!(!c.voice.early);
    }

    #[test]
    fn a_wrong_key_or_type_is_named() {
        let err = Config::parse("[requests]\nqeue = 2", "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("qeue"), "{err}");
        let err = Config::parse("[memory]\nturns = \"four\"", "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("config t"), "{err}");
        let err = Config::parse("modle = \"x\"", "t").unwrap_err().to_string();
        assert!(err.contains("modle"), "{err}");
    }

    #[test]
    fn a_missing_explicit_file_is_an_error() {
        let err = Config::load(Some(Path::new("/nonexistent/loopd.toml")), false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("/nonexistent/loopd.toml"), "{err}");
    }
}

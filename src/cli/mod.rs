//! The `loopd` command line: one module per subcommand.

mod ask;
pub mod bench;
pub(crate) mod brain;
mod listen;
mod models;
mod personas;
mod serve;
mod tools;
mod voice;

use clap::{Parser, Subcommand};

/// loopd — an on-device voice-assistant brain.
#[derive(Debug, Parser)]
#[command(name = "loopd", version = version_line(), about, long_about = None)]
pub struct Cli {
    /// CPU threads for the model (default: the number of physical cores).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Whether this runs the daemon (which logs at `info`, to journald under
    /// systemd, and must survive a client closing its socket).
    pub fn is_daemon(&self) -> bool {
        matches!(self.command, Command::Serve(_))
    }
}

/// `loopd --version`: the version and what this binary was built with (the
/// devices it can run the model on, and its optional parts).
pub fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| {
        let simd = if cfg!(target_feature = "avx512vnni") {
            "avx512-vnni"
        } else if cfg!(target_feature = "avx512f") {
            "avx512"
        } else if cfg!(target_feature = "avx2") {
            "avx2"
        } else if cfg!(target_feature = "neon") {
            "neon"
        } else {
            "no simd"
        };
        let built: Vec<&str> = [
            ("cuda", cfg!(feature = "cuda")),
            ("metal", cfg!(feature = "metal")),
            ("audio", cfg!(feature = "audio")),
            ("piper", cfg!(feature = "piper")),
        ]
        .into_iter()
        .filter_map(|(name, on)| on.then_some(name))
        .collect();
        format!(
            "{} ({} {}; features: cpu{}{})",
            env!("CARGO_PKG_VERSION"),
            std::env::consts::ARCH,
            simd,
            if built.is_empty() { "" } else { ", " },
            built.join(", ")
        )
    })
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Ask a question and stream the answer.
    Ask(Box<ask::AskArgs>),
    /// Measure speed (`--raw`: the bare model's prefill and decode).
    Bench(bench::BenchArgs),
    /// List, inspect and download models.
    Models(models::ModelsArgs),
    /// List and show personas; import OVOS persona files.
    Personas(personas::PersonasArgs),
    /// Run the daemon: serve on D-Bus and the OVOS message bus.
    Serve(Box<serve::ServeArgs>),
    /// List the built-in tools.
    Tools(tools::ToolsArgs),
    /// Talk to it: hear questions and answer aloud (microphone or WAV).
    Listen(Box<listen::ListenArgs>),
    /// Transcribe a WAV file with Whisper.
    Transcribe(voice::TranscribeArgs),
    /// Speak text aloud or into a WAV file.
    Say(voice::SayArgs),
    /// The sound devices.
    Audio(voice::AudioArgs),
}

/// Runs a parsed command line; the error is one line for the user.
pub fn run(cli: Cli) -> Result<(), Failure> {
    if !cli.is_daemon() {
        quiet_on_closed_pipe();
    }
    crate::brain::device::set_threads(cli.threads);
    match cli.command {
        Command::Ask(args) => ask::run(*args),
        Command::Bench(args) => Ok(bench::run(args)?),
        Command::Models(args) => Ok(models::run(args)?),
        Command::Personas(args) => Ok(personas::run(args)?),
        Command::Serve(args) => Ok(serve::run(*args, cli.threads)?),
        Command::Tools(args) => Ok(tools::run(args)?),
        Command::Listen(args) => listen::run(*args),
        Command::Transcribe(args) => Ok(voice::transcribe(args)?),
        Command::Say(args) => Ok(voice::say(args)?),
        Command::Audio(args) => Ok(voice::audio(args)?),
    }
}

/// Why a command failed: the line for stderr and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What went wrong, one line.
    pub message: String,
    /// The exit status: 1 in general, 2 for a bad request; a request the
    /// daemon core refused or could not finish uses
    /// [`AskError::exit_code`](crate::daemon::AskError::exit_code).
    pub code: u8,
}

impl Failure {
    /// A bad flag or request (exit status 2, as for clap's own errors).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure { message, code: 1 }
    }
}

impl From<crate::models::ModelError> for Failure {
    fn from(error: crate::models::ModelError) -> Failure {
        Failure {
            message: error.to_string(),
            code: 1,
        }
    }
}

impl From<crate::daemon::AskError> for Failure {
    fn from(error: crate::daemon::AskError) -> Failure {
        Failure {
            message: error.to_string(),
            code: error.exit_code(),
        }
    }
}

/// Output piped into a program that exits early (`loopd tools list | head`)
/// ends the command quietly, as for other command-line tools, instead of a
/// "broken pipe" panic in `println!`.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE, before any other
    // thread exists, has no memory-safety requirements.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

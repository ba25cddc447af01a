//! The `loopd` command line: one module per subcommand.

mod ask;
mod bench;
mod models;
mod personas;
mod serve;
mod tools;

use clap::{Parser, Subcommand};

/// loopd — an on-device voice-assistant brain.
#[derive(Debug, Parser)]
#[command(name = "loopd", version, about, long_about = None)]
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
}

/// Runs a parsed command line; the error is one line for the user.
pub fn run(cli: Cli) -> Result<(), String> {
    if !cli.is_daemon() {
        quiet_on_closed_pipe();
    }
    crate::brain::device::set_threads(cli.threads);
    match cli.command {
        Command::Ask(args) => ask::run(*args),
        Command::Bench(args) => bench::run(args),
        Command::Models(args) => models::run(args),
        Command::Personas(args) => personas::run(args),
        Command::Serve(args) => serve::run(*args, cli.threads),
        Command::Tools(args) => tools::run(args),
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

use clap::Parser;
use std::process::ExitCode;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let cli = loopd::cli::Cli::parse();
    let daemon = cli.is_daemon();
    init_logging(daemon);
    match loopd::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) if daemon => {
            tracing::error!("{}", failure.message);
            ExitCode::from(failure.code)
        }
        Err(failure) => {
            eprintln!("loopd: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// `LOOPD_LOG` filters (default: `warn`, `info` for the daemon). The daemon
/// logs to journald when systemd connected its stderr to the journal.
fn init_logging(daemon: bool) {
    let filter = EnvFilter::try_from_env("LOOPD_LOG")
        .unwrap_or_else(|_| EnvFilter::new(if daemon { "info" } else { "warn" }));
    let registry = tracing_subscriber::registry().with(filter);
    if daemon && std::env::var_os("JOURNAL_STREAM").is_some() {
        if let Ok(journald) = tracing_journald::layer() {
            registry.with(journald).init();
            return;
        }
    }
    registry
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .init();
}

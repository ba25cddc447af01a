//! The OVOS message bus: loopd joins an existing bus ([`client`]) or hosts
//! one ([`hub`]), and serves the same `{"type","data","context"}` envelope
//! as JSON lines on a Unix socket ([`socket`]).
//!
//! Served messages, each read once into a [`command::Command`] and answered
//! with the types in [`reply`]: `ovos.persona.list`, `ovos.persona.query`,
//! `loopd.ask` / `loopd.cancel` (streamed as `loopd.token` … `loopd.answer`
//! or `loopd.error`), and with `handle_utterances` also
//! `recognizer_loop:utterance` and `ovos.utterance.handle`, answered with
//! one `speak` per sentence as the answer streams ([`crate::voice::sentences`]). Replies keep
//! the request's context with `source` and `destination` swapped. Skills'
//! toolboxes on the bus become tools the loops can call ([`toolboxes`]).
//! Timers set on the bus ring on it, to every connection ([`timers`]).

mod ask;
mod client;
pub mod command;
mod handler;
mod hub;
pub use hub::Secret;
pub mod message;
pub mod reply;
mod request;
mod socket;
mod timers;
mod toolboxes;
mod utterance;

use crate::daemon::Daemon;
use handler::Handler;
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Which WebSocket bus to serve on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BusMode {
    /// Join the bus at this URL (`ws://127.0.0.1:8181/core`), reconnecting when it restarts.
    Join(String),
    /// Host a bus at this address (`127.0.0.1:8181`) and serve on it.
    Host(String),
}

/// How the bus front end is set up.
#[derive(Debug, Clone)]
pub struct BusOptions {
    /// The WebSocket bus, if any.
    pub websocket: Option<BusMode>,
    /// The JSON-lines Unix socket, if any.
    pub socket: Option<PathBuf>,
    /// Answer utterances with `speak` messages.
    pub handle_utterances: bool,
    /// Largest frame accepted, in bytes.
    pub max_frame_bytes: usize,
    /// The secret clients of a hosted bus must present; without one the
    /// bus may only listen on a loopback address.
    pub secret: Option<Secret>,
}

/// The running bus front end; [`BusFrontEnd::stop`] (or dropping it)
/// stops it.
pub struct BusFrontEnd {
    summary: String,
    stop: CancellationToken,
    tasks: TaskTracker,
    socket: Option<PathBuf>,
}

/// How long stopping waits for connections to close and last replies to go out.
const FLUSH: Duration = Duration::from_secs(2);

impl BusFrontEnd {
    /// One line for the status: where it serves.
    pub fn describe(&self) -> String {
        self.summary.clone()
    }

    /// Closes every connection (requests still open are cancelled) and
    /// waits, up to [`FLUSH`], for its tasks to end.
    pub async fn stop(self) {
        self.stop.cancel();
        self.tasks.close();
        if tokio::time::timeout(FLUSH, self.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                "bus: {} task(s) still running after {FLUSH:?}",
                self.tasks.len()
            );
        }
    }
}

impl Drop for BusFrontEnd {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(path) = &self.socket {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Starts serving on the bus and the socket. A bus to join that is not up
/// yet is not an error (loopd keeps trying); a bad URL, an address it
/// cannot listen on, or a socket path in use is.
pub async fn start(daemon: Daemon, options: BusOptions) -> Result<BusFrontEnd, String> {
    let tasks = TaskTracker::new();
    let kept = daemon.tool_config().timers.clone();
    let handler = Handler::new(daemon, options.handle_utterances, tasks.clone());
    let stop = CancellationToken::new();
    let max_frame = options.max_frame_bytes.max(1);
    let mut parts = Vec::new();
    let mut front = BusFrontEnd {
        summary: String::new(),
        stop: stop.clone(),
        tasks,
        socket: None,
    };
    match &options.websocket {
        Some(BusMode::Join(url)) => {
            client::join(url, handler.clone(), max_frame, stop.clone())?;
            parts.push(format!("bus {} (joined)", client::shown(url)));
        }
        Some(BusMode::Host(addr)) => {
            let secret = options.secret.clone();
            let local = hub::host(addr, handler.clone(), max_frame, secret, stop.clone()).await?;
            parts.push(format!("bus ws://{local}/core (hosted)"));
        }
        None => {}
    }
    if let Some(path) = &options.socket {
        socket::serve(path, handler.clone(), max_frame, stop.clone())?;
        front.socket = Some(path.clone());
        parts.push(format!("socket {}", path.display()));
    }
    if let Some(kept) = kept {
        kept.rings_for(timers::CALLER);
        handler.spawn(timers::ring(
            handler.clone(),
            kept.subscribe(),
            stop.clone(),
        ));
    }
    front.summary = if parts.is_empty() {
        "message bus: off".into()
    } else {
        parts.join("; ")
    };
    for part in &parts {
        tracing::info!("serving {part}");
    }
    Ok(front)
}

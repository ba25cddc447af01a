//! The OVOS message bus (being written).

use crate::daemon::Daemon;
use std::path::PathBuf;

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
}

/// The running bus front end; dropping it stops it.
pub struct BusFrontEnd {
    summary: String,
}

impl BusFrontEnd {
    /// One line for the status: where it serves.
    pub fn describe(&self) -> String {
        self.summary.clone()
    }
}

/// Starts serving on the bus and the socket.
pub async fn start(daemon: Daemon, options: BusOptions) -> Result<BusFrontEnd, String> {
    let _ = (daemon, options);
    Ok(BusFrontEnd {
        summary: "message-bus: not served yet".into(),
    })
}

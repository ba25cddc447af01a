//! `io.loopd.Loopd1` on D-Bus (being written).

use crate::daemon::Daemon;

/// How the D-Bus front end is set up.
#[derive(Debug, Clone, Default)]
pub struct DbusOptions {
    /// The system bus instead of the session bus.
    pub system: bool,
}

/// The running D-Bus front end; dropping it leaves the bus.
pub struct DbusFrontEnd {
    summary: String,
}

impl DbusFrontEnd {
    /// One line for the status: where it serves.
    pub fn describe(&self) -> String {
        self.summary.clone()
    }
}

/// Takes the name `io.loopd.Loopd1` and serves it.
pub async fn start(daemon: Daemon, options: DbusOptions) -> Result<DbusFrontEnd, String> {
    let _ = (daemon, options);
    Ok(DbusFrontEnd {
        summary: "D-Bus: not served yet".into(),
    })
}

//! `io.loopd.Loopd1` on D-Bus, for voice skills and desktop apps.
//!
//! The daemon owns the well-known name [`NAME`] and serves the interface
//! of the same name at [`OBJECT_PATH`]:
//!
//! - `AskSync(s prompt, a{sv} options) -> (s answer, a{sv} stats)`;
//! - `Ask(s prompt, a{sv} options) -> (o request)`: the answer streams as
//!   signals of the request object (interface `io.loopd.Loopd1.Request`):
//!   `Token(s channel, s text)`, `Event(s kind, s json)`, then one of
//!   `Finished(s answer, a{sv} stats)` or `Failed(s error, s message)`;
//!   its `Cancel()` stops it. The path is
//!   `/io/loopd/Loopd1/request/<sender>/<handle_token>` so a caller can
//!   subscribe before it asks; signals go to the caller only;
//! - `ListTools() -> (s tools_json)` (each tool with its `toolbox` and
//!   `source`);
//! - `RegisterToolbox(s name, s tools_json, o toolbox)` and
//!   `UnregisterToolbox(s name)`: a program offers its own tools, called
//!   back on its object (see [`toolboxes`]);
//! - properties `Loops`, `Model`, `Device`, `State` (changes are
//!   signalled), `Version`;
//! - signal `TimerRang(s spoken, s timer)`: a timer a user set over D-Bus
//!   went off, sent to that user's connections only ([`timers`]).
//!
//! Options are `loop` (s), `persona` (s), `session` (s), `handle_token`
//! (s), `max_tokens` (u, any integer type), `temperature` (d) and `tools`
//! (as); stats follow the rule in [`stats`]. Errors are
//! `io.loopd.Loopd1.Error.<Name>` (see [`Error`]). A caller that leaves the
//! bus has its requests cancelled.

mod error;
mod options;
mod registry;
mod request;
mod service;
mod stats;
mod timers;
pub mod toolboxes;

pub use error::Error;

use crate::daemon::Daemon;
use futures_util::StreamExt;
use registry::Registry;
use service::Service;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use toolboxes::{DbusToolboxes, Registrars};
use zbus::fdo::{DBusProxy, NameOwnerChangedStream, RequestNameFlags, RequestNameReply};
use zbus::Connection;

/// The well-known name and the interface.
pub const NAME: &str = "io.loopd.Loopd1";
/// The daemon's object.
pub const OBJECT_PATH: &str = "/io/loopd/Loopd1";
/// The interface of request objects.
pub const REQUEST_INTERFACE: &str = request::INTERFACE;

/// How the D-Bus front end is set up.
#[derive(Debug, Clone, Default)]
pub struct DbusOptions {
    /// The system bus instead of the session bus.
    pub system: bool,
    /// A group whose members may register toolboxes, besides root and
    /// loopd's own user.
    pub toolbox_group: Option<String>,
}

/// The running D-Bus front end; [`DbusFrontEnd::stop`] (or dropping it)
/// leaves the bus.
pub struct DbusFrontEnd {
    summary: String,
    _conn: Connection,
    registry: Arc<Registry>,
    tasks: Vec<JoinHandle<()>>,
}

impl DbusFrontEnd {
    /// One line for the status: where it serves.
    pub fn describe(&self) -> String {
        self.summary.clone()
    }

    /// Stops the watchers and gives requests that were answered (after
    /// [`Daemon::shutdown`]) up to [`FLUSH`] to send their last reply,
    /// then leaves the bus.
    pub async fn stop(self) {
        for task in &self.tasks {
            task.abort();
        }
        if tokio::time::timeout(FLUSH, self.registry.idle())
            .await
            .is_err()
        {
            tracing::warn!("D-Bus: some last replies were not sent within {FLUSH:?}");
        }
    }
}

/// How long stopping the front end waits for the last replies to go out.
const FLUSH: Duration = Duration::from_secs(1);

impl Drop for DbusFrontEnd {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// How long connecting to the bus may take: a bus whose policy rejects
/// the replies to this connection never answers.
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Connects to the session bus (the system bus with `options.system`),
/// serves [`OBJECT_PATH`] and takes the name [`NAME`]; fails if another
/// process owns it.
pub async fn start(daemon: Daemon, options: DbusOptions) -> Result<DbusFrontEnd, String> {
    let which = if options.system { "system" } else { "session" };
    let fail = |what: &str, e: zbus::Error| format!("D-Bus ({which} bus): {what}: {e}");
    let builder = if options.system {
        zbus::connection::Builder::system()
    } else {
        zbus::connection::Builder::session()
    }
    .map_err(|e| fail("no bus address", e))?;
    let conn = tokio::time::timeout(CONNECT_TIMEOUT, builder.build())
        .await
        .map_err(|_| {
            format!(
                "D-Bus ({which} bus): no answer from the bus within {} s (does its policy let this user connect?)",
                CONNECT_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| fail("cannot connect", e))?;
    let bus = DBusProxy::new(&conn)
        .await
        .map_err(|e| fail("cannot talk to the bus", e))?;
    let leaving = bus
        .receive_name_owner_changed_with_args(&[(2, "")])
        .await
        .map_err(|e| fail("cannot watch callers", e))?;

    let registry = Arc::new(Registry::default());
    let config = daemon.tool_config();
    let registrars = Registrars::new(options.toolbox_group.as_deref())
        .map_err(|e| format!("D-Bus: [dbus] toolbox_group: {e}"))?;
    let toolboxes = Arc::new(DbusToolboxes::new(
        config.external.clone(),
        config.call_timeout(),
        registrars,
    ));
    let service = Service::new(
        daemon.clone(),
        registry.clone(),
        toolboxes.clone(),
        bus.clone(),
    );
    conn.object_server()
        .at(OBJECT_PATH, service)
        .await
        .map_err(|e| fail("cannot serve the object", e))?;
    let mut tasks = vec![
        tokio::spawn(watch_callers(leaving, registry.clone(), toolboxes)),
        tokio::spawn(watch_state(conn.clone(), daemon.clone())),
    ];
    if let Some(kept) = &config.timers {
        kept.rings_for(timers::CALLERS);
        tasks.push(tokio::spawn(timers::ring(
            conn.clone(),
            bus.clone(),
            kept.subscribe(),
        )));
    }
    let front = DbusFrontEnd {
        summary: format!("D-Bus {NAME} on the {which} bus"),
        _conn: conn.clone(),
        registry,
        tasks,
    };
    let taken = || {
        format!("D-Bus ({which} bus): the name {NAME} is already owned (is another loopd running?)")
    };
    match conn
        .request_name_with_flags(NAME, RequestNameFlags::DoNotQueue.into())
        .await
    {
        Ok(RequestNameReply::PrimaryOwner | RequestNameReply::AlreadyOwner) => Ok(front),
        Ok(RequestNameReply::Exists | RequestNameReply::InQueue) | Err(zbus::Error::NameTaken) => {
            Err(taken())
        }
        Err(e) => Err(fail(&format!("cannot take the name {NAME}"), e)),
    }
}

/// Cancels the requests, and removes the toolboxes, of every caller that
/// leaves the bus.
async fn watch_callers(
    mut leaving: NameOwnerChangedStream,
    registry: Arc<Registry>,
    toolboxes: Arc<DbusToolboxes>,
) {
    while let Some(signal) = leaving.next().await {
        let Ok(args) = signal.args() else { continue };
        let name = args.name().as_str();
        if name.starts_with(':') && args.new_owner().is_none() {
            let n = registry.cancel_sender(name);
            if n > 0 {
                tracing::info!("D-Bus caller {name} left; cancelled its {n} request(s)");
            }
            for toolbox in toolboxes.owner_left(name) {
                tracing::info!("D-Bus caller {name} left; its toolbox `{toolbox}` is gone");
            }
        }
    }
}

/// Signals `PropertiesChanged` for `State` whenever the daemon's state changes.
async fn watch_state(conn: Connection, daemon: Daemon) {
    let mut state = daemon.state();
    let iface = match conn
        .object_server()
        .interface::<_, Service>(OBJECT_PATH)
        .await
    {
        Ok(iface) => iface,
        Err(e) => {
            tracing::warn!("D-Bus: cannot signal State changes: {e}");
            return;
        }
    };
    while state.changed().await.is_ok() {
        let emitter = iface.signal_emitter();
        if let Err(e) = iface.get().await.state_changed(emitter).await {
            tracing::warn!("D-Bus: cannot signal a State change: {e}");
        }
    }
}

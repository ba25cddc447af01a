//! The `io.loopd.Loopd1` interface at `/io/loopd/Loopd1`.

use super::error::Error;
use super::options::{self, Parsed};
use super::registry::{Claim, Registry};
use super::toolboxes::{DbusToolboxes, Registrant};
use super::{request, stats, OBJECT_PATH};
use crate::daemon::{Caller, Daemon, Ticket};
use std::collections::HashMap;
use std::sync::Arc;
use zbus::fdo::DBusProxy;
use zbus::message::Header;
use zbus::names::BusName;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};
use zbus::{interface, Connection};

/// The daemon as a D-Bus object.
pub struct Service {
    daemon: Daemon,
    registry: Arc<Registry>,
    toolboxes: Arc<DbusToolboxes>,
    bus: DBusProxy<'static>,
}

impl Service {
    /// The interface over `daemon`; `bus` checks that callers are still
    /// there; programs' toolboxes are kept in `toolboxes`.
    pub fn new(
        daemon: Daemon,
        registry: Arc<Registry>,
        toolboxes: Arc<DbusToolboxes>,
        bus: DBusProxy<'static>,
    ) -> Self {
        Service {
            daemon,
            registry,
            toolboxes,
            bus,
        }
    }

    /// Submits a parsed request for `sender` (its sessions are those of
    /// the Unix user that owns its connection) under `claim`, and cancels
    /// it at once if the sender has already left the bus.
    async fn submit(
        &self,
        mut parsed: Parsed,
        sender: &str,
        claim: &Claim,
    ) -> Result<Ticket, Error> {
        parsed.ask.caller = Caller::dbus_user(self.uid_of(sender).await?);
        let ticket = self.daemon.submit(parsed.ask)?;
        claim.attach(ticket.canceller());
        let bus = self.bus.clone();
        let cancel = ticket.canceller();
        let sender = sender.to_string();
        tokio::spawn(async move {
            let Ok(name) = BusName::try_from(sender) else {
                return;
            };
            if let Ok(false) = bus.name_has_owner(name).await {
                cancel.cancel();
            }
        });
        Ok(ticket)
    }

    /// The Unix user that owns the connection `sender`.
    async fn uid_of(&self, sender: &str) -> Result<u32, Error> {
        let name = BusName::try_from(sender.to_string())
            .map_err(|e| Error::InvalidArgs(format!("bad sender name: {e}")))?;
        self.bus
            .get_connection_unix_user(name)
            .await
            .map_err(|e| Error::InvalidArgs(format!("cannot tell who is calling: {e}")))
    }

    fn claim_path(&self, sender: &str, token: Option<String>) -> Result<(String, Claim), Error> {
        let base = format!("{OBJECT_PATH}/request");
        if let Some(token) = token {
            let path = request::path_for(&base, sender, &token);
            return match self.registry.claim(sender, Some(path.clone())) {
                Some(claim) => Ok((path, claim)),
                None => Err(Error::InvalidArgs(format!(
                    "the request path {path} is in use; choose another handle_token"
                ))),
            };
        }
        for _ in 0..64 {
            let token = format!("t{}", self.registry.next_token());
            let path = request::path_for(&base, sender, &token);
            if let Some(claim) = self.registry.claim(sender, Some(path.clone())) {
                return Ok((path, claim));
            }
        }
        Err(Error::InvalidArgs(
            "no free request path; pass a handle_token".into(),
        ))
    }
}

fn sender_of(header: &Header<'_>) -> Result<String, Error> {
    header
        .sender()
        .map(|s| s.to_string())
        .ok_or_else(|| Error::InvalidArgs("the call has no sender".into()))
}

#[interface(name = "io.loopd.Loopd1")]
impl Service {
    /// Asks and waits for the answer and its stats.
    #[zbus(out_args("answer", "stats"))]
    async fn ask_sync(
        &self,
        prompt: String,
        options: HashMap<String, OwnedValue>,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<(String, HashMap<String, OwnedValue>), Error> {
        let sender = sender_of(&header)?;
        let parsed = options::parse(prompt, &options)?;
        let claim = self
            .registry
            .claim(&sender, None)
            .ok_or_else(|| Error::InvalidArgs("cannot record the request".into()))?;
        let mut ticket = self.submit(parsed, &sender, &claim).await?;
        let answer = ticket.finish().await?;
        drop(claim);
        let stats = stats::to_dbus(&answer);
        Ok((answer.answer, stats))
    }

    /// Asks and streams the answer as signals of the returned request object
    /// (`<object>/request/<sender>/<handle_token>`), exported before this
    /// returns.
    #[zbus(out_args("request"))]
    async fn ask(
        &self,
        prompt: String,
        options: HashMap<String, OwnedValue>,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] conn: &Connection,
    ) -> Result<OwnedObjectPath, Error> {
        let sender = sender_of(&header)?;
        let mut parsed = options::parse(prompt, &options)?;
        let (path, claim) = self.claim_path(&sender, parsed.handle_token.take())?;
        let path = OwnedObjectPath::try_from(path)
            .map_err(|e| Error::InvalidArgs(format!("bad request path: {e}")))?;
        let ticket = self.submit(parsed, &sender, &claim).await?;
        if let Err(e) = request::export(conn, &path, &sender, &ticket).await {
            ticket.canceller().cancel();
            return Err(e);
        }
        tokio::spawn(request::deliver(
            conn.clone(),
            path.clone(),
            sender,
            ticket,
            claim,
        ));
        Ok(path)
    }

    /// Every tool a request may use, as a JSON array (OVOS `tool_json_list`).
    #[zbus(out_args("tools_json"))]
    async fn list_tools(&self) -> String {
        self.daemon.tools_json().to_string()
    }

    /// Offers the tools of the caller's object at `toolbox` (which serves
    /// `io.loopd.Toolbox1`) as toolbox `name`, until the caller unregisters
    /// it or leaves the bus. `tools_json` is a JSON array of tools (`name`,
    /// `description`, `argument_schema`, `output_schema`).
    async fn register_toolbox(
        &self,
        name: String,
        tools_json: String,
        toolbox: OwnedObjectPath,
        #[zbus(header)] header: Header<'_>,
        #[zbus(connection)] conn: &Connection,
    ) -> Result<(), Error> {
        let sender = sender_of(&header)?;
        let name_of_sender = BusName::try_from(sender.clone())
            .map_err(|e| Error::InvalidArgs(format!("bad sender name: {e}")))?;
        let credentials = self
            .bus
            .get_connection_credentials(name_of_sender)
            .await
            .map_err(|e| Error::InvalidArgs(format!("cannot tell who is calling: {e}")))?;
        let registrant = Registrant {
            uid: credentials
                .unix_user_id()
                .ok_or_else(|| Error::NotAllowed("the bus does not say who is calling".into()))?,
            groups: credentials.unix_group_ids().cloned().unwrap_or_default(),
            sender,
        };
        self.toolboxes
            .register(conn, &registrant, &name, &tools_json, toolbox)?;
        Ok(())
    }

    /// Withdraws a toolbox the caller registered.
    async fn unregister_toolbox(
        &self,
        name: String,
        #[zbus(header)] header: Header<'_>,
    ) -> Result<(), Error> {
        let sender = sender_of(&header)?;
        self.toolboxes.unregister(&sender, &name)
    }

    /// Engine ids a request may name in `loop`.
    #[zbus(property(emits_changed_signal = "const"))]
    async fn loops(&self) -> Vec<String> {
        crate::engine::ENGINES
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// The model's name.
    #[zbus(property(emits_changed_signal = "const"))]
    async fn model(&self) -> String {
        self.daemon.brain_info().model.clone()
    }

    /// The device the model runs on.
    #[zbus(property(emits_changed_signal = "const"))]
    async fn device(&self) -> String {
        self.daemon.brain_info().device.clone()
    }

    /// `loading`, `warming`, `ready`, `busy` or `stopping`.
    #[zbus(property)]
    async fn state(&self) -> String {
        self.daemon.state().borrow().as_str().to_string()
    }

    /// loopd's version.
    #[zbus(property(emits_changed_signal = "const"))]
    async fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }

    /// A timer or alarm the caller's user set went off: what to say, and
    /// the timer as JSON (`id`, `kind`, `label`, `due`, `late`, `spoken`). Sent only
    /// to that user's connections.
    #[zbus(signal)]
    pub async fn timer_rang(
        emitter: &zbus::object_server::SignalEmitter<'_>,
        spoken: &str,
        timer: &str,
    ) -> zbus::Result<()>;
}

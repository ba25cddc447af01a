//! The request object of a streaming `Ask` (interface
//! `io.loopd.Loopd1.Request`): its signals carry the answer as it is made,
//! and it leaves the bus after its terminal signal.

use super::error::Error;
use super::registry::Claim;
use super::stats;
use crate::daemon::Ticket;
use crate::frontends::outgoing::Outgoing;
use std::collections::HashMap;
use zbus::message::Header;
use zbus::names::BusName;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};
use zbus::{interface, Connection};

/// Interface name of request objects.
pub const INTERFACE: &str = "io.loopd.Loopd1.Request";

/// One streaming request on the bus.
pub struct RequestObject {
    asker: String,
    cancel: tokio_util::sync::CancellationToken,
}

#[interface(name = "io.loopd.Loopd1.Request")]
impl RequestObject {
    /// Cancels the request; only its caller may.
    async fn cancel(&self, #[zbus(header)] header: Header<'_>) -> Result<(), Error> {
        match header.sender() {
            Some(sender) if sender.as_str() == self.asker => {
                self.cancel.cancel();
                Ok(())
            }
            _ => Err(Error::NotAllowed(
                "only the caller that asked may cancel this request".into(),
            )),
        }
    }

    /// Text of the answer (`answer`) or of the reasoning (`thought`).
    #[zbus(signal)]
    async fn token(emitter: &SignalEmitter<'_>, channel: &str, text: &str) -> zbus::Result<()>;

    /// Any other loop event: its `type` and its JSON.
    #[zbus(signal)]
    async fn event(emitter: &SignalEmitter<'_>, kind: &str, json: &str) -> zbus::Result<()>;

    /// The answer and its stats; the last signal of a request that succeeded.
    #[zbus(signal)]
    async fn finished(
        emitter: &SignalEmitter<'_>,
        answer: &str,
        stats: HashMap<String, OwnedValue>,
    ) -> zbus::Result<()>;

    /// The error name and message; the last signal of a request that failed.
    #[zbus(signal)]
    async fn failed(emitter: &SignalEmitter<'_>, error: &str, message: &str) -> zbus::Result<()>;
}

/// The object path of a request: `<base>/<sender>/<token>`, the sender's
/// unique name without `:` and with every other character outside
/// `[A-Za-z0-9_]` as `_`.
pub fn path_for(base: &str, sender: &str, token: &str) -> String {
    let sender: String = sender
        .trim_start_matches(':')
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{base}/{sender}/{token}")
}

/// Exports the request object at `path`, so that its signals can be sent.
pub async fn export(
    conn: &Connection,
    path: &OwnedObjectPath,
    asker: &str,
    ticket: &Ticket,
) -> Result<(), Error> {
    let object = RequestObject {
        asker: asker.to_string(),
        cancel: ticket.canceller(),
    };
    if conn.object_server().at(path, object).await? {
        Ok(())
    } else {
        Err(Error::InvalidArgs(format!(
            "the request path {path} is in use"
        )))
    }
}

/// Sends the ticket's events as signals to the caller; once it is answered,
/// removes the object, frees its path and sends the terminal signal (so a
/// caller that sees `Finished` or `Failed` may reuse its handle token).
pub async fn deliver(
    conn: Connection,
    path: OwnedObjectPath,
    asker: String,
    mut ticket: Ticket,
    claim: Claim,
) {
    let mut emitter = SignalEmitter::from_parts(conn.clone(), path.clone().into_inner());
    if let Ok(dest) = BusName::try_from(asker) {
        emitter = emitter.set_destination(dest);
    }
    let mut lost = false;
    while let Some(event) = ticket.next_event().await {
        let sent = match Outgoing::from(event) {
            Outgoing::Token { channel, text } => {
                RequestObject::token(&emitter, channel.as_str(), &text).await
            }
            Outgoing::Event { kind, json } => {
                RequestObject::event(&emitter, &kind, &json.to_string()).await
            }
        };
        if let Err(e) = sent {
            if !lost {
                tracing::warn!("D-Bus request {path}: cannot send a signal: {e}");
                lost = true;
            }
        }
    }
    let reply = ticket.finish().await;
    if let Err(e) = conn.object_server().remove::<RequestObject, _>(&path).await {
        tracing::warn!("D-Bus request {path}: cannot remove it: {e}");
    }
    claim.free_path();
    let sent = match reply {
        Ok(answer) => {
            RequestObject::finished(&emitter, &answer.answer, stats::to_dbus(&answer)).await
        }
        Err(e) => RequestObject::failed(&emitter, e.name(), &e.to_string()).await,
    };
    if let Err(e) = sent {
        tracing::warn!("D-Bus request {path}: cannot send its last signal: {e}");
    }
    drop(claim);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_from_unique_name_and_token() {
        assert_eq!(
            path_for("/io/loopd/Loopd1/request", ":1.42", "t7"),
            "/io/loopd/Loopd1/request/1_42/t7"
        );
    }
}

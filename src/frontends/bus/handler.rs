//! Turns bus messages into daemon requests, and their outcome into replies.

use super::command::{Command, PersonaQuery, Refused};
use super::message::BusMessage;
use super::reply::{PersonaAnswer, PersonaEntry, PersonaList};
use super::toolboxes::BusToolboxes;
use super::{ask, utterance};
use crate::daemon::{AskError, Daemon, Reply, Ticket};
use crate::engine::LoopEvent;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// One connection that sends loopd requests (a socket client, a client of
/// the hosted bus, or the link to a joined bus): where its replies go, the
/// `loopd.ask` requests open on its bus, and whether it has left.
#[derive(Clone)]
pub struct Peer {
    id: u64,
    out: mpsc::Sender<BusMessage>,
    open: Arc<Mutex<HashMap<String, CancellationToken>>>,
    left: CancellationToken,
}

impl Peer {
    /// A peer whose replies go into `out`.
    pub fn new(out: mpsc::Sender<BusMessage>) -> Peer {
        Peer {
            id: next_peer_id(),
            out,
            open: Arc::default(),
            left: CancellationToken::new(),
        }
    }

    /// Whether `other` is this same connection.
    pub fn is(&self, other: &Peer) -> bool {
        self.id == other.id
    }

    /// Whether the connection has gone away.
    pub fn has_left(&self) -> bool {
        self.left.is_cancelled()
    }

    /// Another connection to the same bus: its replies go to the same
    /// place and a `loopd.cancel` from any connection reaches any request,
    /// but when it [leaves](Peer::leave) only its own requests stop.
    pub fn connection(&self) -> Peer {
        Peer {
            id: next_peer_id(),
            out: self.out.clone(),
            open: self.open.clone(),
            left: CancellationToken::new(),
        }
    }

    /// Where messages to this connection go, without keeping it open.
    pub fn outlet(&self) -> mpsc::WeakSender<BusMessage> {
        self.out.downgrade()
    }

    /// Sends a reply, waiting while the peer is behind; `false` once it is gone.
    pub async fn send(&self, message: BusMessage) -> bool {
        self.out.send(message).await.is_ok()
    }

    /// The connection went away: every request it made is cancelled, the
    /// ones still waiting in the queue and the one running.
    pub fn leave(&self) {
        self.left.cancel();
    }

    /// Waits until the connection has gone away.
    pub async fn gone(&self) {
        self.left.cancelled().await;
    }

    /// The next event of a request this peer made, or `None` once its loop
    /// has ended; once the peer has left, the request is cancelled first.
    pub async fn next_event(&self, ticket: &mut Ticket) -> Option<LoopEvent> {
        tokio::select! {
            event = ticket.next_event() => event,
            _ = self.left.cancelled() => {
                ticket.canceller().cancel();
                ticket.next_event().await
            }
        }
    }

    /// The reply of a request this peer made; cancelled if the peer leaves.
    pub async fn finish(&self, ticket: &mut Ticket) -> Reply {
        while self.next_event(ticket).await.is_some() {}
        ticket.finish().await
    }

    /// Registers an open request; `false` when the id is already in use.
    pub(super) fn open(&self, id: &str, cancel: CancellationToken) -> bool {
        let mut open = self.open_requests();
        if open.contains_key(id) {
            return false;
        }
        open.insert(id.to_string(), cancel);
        true
    }

    /// Forgets a finished request.
    pub(super) fn close(&self, id: &str) {
        self.open_requests().remove(id);
    }

    fn cancel(&self, id: &str) -> bool {
        match self.open_requests().get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    fn open_requests(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Answers the message types loopd serves; everything else is ignored,
/// since a bus carries everyone's traffic.
#[derive(Clone)]
pub struct Handler {
    daemon: Daemon,
    handle_utterances: bool,
    tasks: TaskTracker,
    toolboxes: BusToolboxes,
    outlets: Arc<Mutex<Vec<mpsc::WeakSender<BusMessage>>>>,
}

impl Handler {
    /// A handler for `daemon`; `handle_utterances` turns on `speak` replies.
    /// Its work, and the front end's connections, run as `tasks`.
    pub fn new(daemon: Daemon, handle_utterances: bool, tasks: TaskTracker) -> Handler {
        let config = daemon.tool_config();
        let toolboxes = BusToolboxes::new(config.external.clone(), config.call_timeout());
        Handler {
            daemon,
            handle_utterances,
            tasks,
            toolboxes,
            outlets: Arc::default(),
        }
    }

    /// `peer` hears what loopd says unasked (a timer that rings) while it
    /// is connected.
    pub fn reach(&self, peer: &Peer) {
        let mut outlets = lock(&self.outlets);
        outlets.retain(|out| out.strong_count() > 0);
        outlets.push(peer.outlet());
    }

    /// Sends `message` to every connection still there.
    pub async fn announce(&self, message: BusMessage) -> usize {
        let live: Vec<mpsc::Sender<BusMessage>> = lock(&self.outlets)
            .iter()
            .filter_map(mpsc::WeakSender::upgrade)
            .collect();
        let mut heard = 0;
        for out in live {
            if out.send(message.clone()).await.is_ok() {
                heard += 1;
            }
        }
        heard
    }

    /// The toolboxes skills offer on the bus.
    pub fn toolboxes(&self) -> &BusToolboxes {
        &self.toolboxes
    }

    /// Runs `task` as one of the front end's tasks, which stopping awaits.
    pub fn spawn<F>(&self, task: F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        self.tasks.spawn(task);
    }

    /// Handles one message from `peer`, read into its [`Command`]. Asks
    /// are queued here, in the order they arrived; the rest of the work
    /// runs in its own task.
    pub fn handle(&self, peer: &Peer, message: BusMessage) {
        if self.toolboxes.received(peer, &message) {
            return;
        }
        let default_persona = &self.daemon.personas()[0].name;
        let command = match Command::read(&message, self.handle_utterances, default_persona) {
            Ok(Some(command)) => command,
            Ok(None) => return tracing::trace!("bus: ignoring `{}`", message.kind),
            Err(Refused::Log(why)) => return tracing::warn!("bus: {why}"),
            Err(Refused::Reply(reply)) => {
                let peer = peer.clone();
                return self.spawn(async move {
                    peer.send(*reply).await;
                });
            }
        };
        let daemon = self.daemon.clone();
        let peer = peer.clone();
        match command {
            Command::ListPersonas => {
                self.spawn(async move { list_personas(&daemon, &peer, &message).await });
            }
            Command::QueryPersona(query) => {
                let PersonaQuery {
                    persona_id,
                    utterance,
                    ask,
                } = query;
                let submitted = daemon.submit(ask);
                self.spawn(async move {
                    query_persona(&peer, &message, &persona_id, &utterance, submitted).await
                });
            }
            Command::Ask { request_id, ask } => {
                let submitted = daemon.submit(ask);
                self.spawn(async move { ask::run(&peer, &message, request_id, submitted).await });
            }
            Command::Cancel { request_id } => {
                if !peer.cancel(&request_id) {
                    tracing::debug!("bus: loopd.cancel for `{request_id}`, which is not open here");
                }
            }
            Command::Utterance { ask, lang } => {
                let submitted = daemon.submit(ask);
                self.spawn(async move { utterance::run(&peer, &message, submitted, lang).await });
            }
        }
    }
}

async fn list_personas(daemon: &Daemon, peer: &Peer, message: &BusMessage) {
    let personas = daemon
        .personas()
        .iter()
        .map(|p| PersonaEntry {
            persona_id: &p.name,
            name: &p.name,
            description: &p.description,
        })
        .collect();
    peer.send(PersonaList { personas }.reply(message)).await;
}

/// `ovos.persona.query` → `ovos.persona.answer` with `response` or `error`.
async fn query_persona(
    peer: &Peer,
    message: &BusMessage,
    persona_id: &str,
    utterance: &str,
    submitted: Result<Ticket, AskError>,
) {
    let failed = |name: &str, error: String| {
        PersonaAnswer::failed(message, persona_id.into(), utterance.into(), name, &error)
    };
    let mut ticket = match submitted {
        Ok(ticket) => ticket,
        Err(e) => {
            peer.send(failed(e.name(), e.to_string())).await;
            return;
        }
    };
    let reply = match peer.finish(&mut ticket).await {
        _ if peer.left.is_cancelled() => return,
        Ok(answer) => PersonaAnswer::answered(message, persona_id, utterance, &answer.answer),
        Err(e) => failed(e.name(), e.to_string()),
    };
    peer.send(reply).await;
    drop(ticket);
}

/// A number no other peer of this process has.
fn next_peer_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

//! What front ends hand the daemon and what they get back: an [`Ask`], a
//! [`Ticket`] that streams the loop's events, and one [`Reply`].
//!
//! Every front end (the CLI, D-Bus, the bus, the socket) translates its
//! wire format into an [`Ask`] and an [`AskError`] back into its own error
//! form: a D-Bus error name, a bus `error` field, an exit status.

use crate::brain::Message;
use crate::engine::{LoopEvent, Settings, Termination};
use serde_json::Value;
use std::fmt;
use std::net::IpAddr;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;

/// Who asks, as the front end knows them. Sessions (conversation memory,
/// barge-in, KV caches) are kept per caller: a session name only means
/// something within its caller's own sessions, so no caller can read or
/// interrupt another's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller(String);

impl Caller {
    /// The user at this machine's terminal or microphone (`loopd ask`,
    /// `loopd listen`).
    pub fn local() -> Caller {
        Caller("local".into())
    }

    /// A D-Bus caller, by the Unix user that owns its connection.
    pub fn dbus_user(uid: u32) -> Caller {
        Caller(format!("dbus-uid:{uid}"))
    }

    /// A client of the message bus. The bus broadcasts every message to
    /// every client, so its clients (who all passed its secret, when it
    /// has one) are one party.
    pub fn bus() -> Caller {
        Caller("bus".into())
    }

    /// An HTTP client: whoever holds the API key (or, with no key, reaches
    /// the loopback address).
    pub fn http() -> Caller {
        Caller("http".into())
    }

    /// A Wyoming peer, by its address.
    pub fn wyoming(peer: IpAddr) -> Caller {
        Caller(format!("wyoming:{peer}"))
    }
}

/// The local user, for requests made in-process.
impl Default for Caller {
    fn default() -> Self {
        Caller::local()
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One question, as a front end received it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ask {
    /// Who asks; the session is looked up among theirs.
    pub caller: Caller,
    /// What the user said.
    pub prompt: String,
    /// Engine id instead of the persona's.
    pub loop_id: Option<String>,
    /// Persona name (default: the configured default persona).
    pub persona: Option<String>,
    /// Conversation memory key among the caller's sessions (default:
    /// [`DEFAULT_SESSION`](super::DEFAULT_SESSION)).
    pub session: Option<String>,
    /// Most tokens per LLM call.
    pub max_tokens: Option<usize>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling: only the likeliest tokens that make up this share.
    pub top_p: Option<f32>,
    /// The sampler's seed: the same seed and request give the same text.
    pub seed: Option<u64>,
    /// Each model call of the run ends before any of these strings.
    pub stop: Vec<String>,
    /// Toolboxes instead of the persona's.
    pub tools: Option<Vec<String>>,
    /// Engine settings on top of the persona's (`max_iterations`, …).
    pub settings: Settings,
    /// A system prompt instead of the persona's.
    pub system_prompt: Option<String>,
    /// The earlier turns, when the caller keeps the conversation itself;
    /// they replace what the session remembers.
    pub history: Option<Vec<Message>>,
    /// How far the loop may go.
    pub limits: Limits,
    /// A spoken turn: it cancels the session's earlier spoken turn that is
    /// still waiting or running (the user talked over the answer).
    pub barge_in: bool,
    /// Tools the client runs itself: one model turn with them instead of
    /// the persona's loop; `history` then holds the whole conversation.
    pub client_tools: Option<ClientTools>,
    /// Asked before it is certain (a transcript made in a pause): the loop
    /// starts, but no tool runs and the answer neither counts nor is
    /// remembered until released; unreleased, it is cancelled.
    pub held: Option<crate::engine::hold::Hold>,
}

/// Tools a client defines and runs itself, and how the turn may use them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientTools {
    /// The tools, as the model is shown them.
    pub tools: Vec<crate::tools::ToolSpec>,
    /// Which may or must be called, several at once or not, and the shape
    /// of an answer.
    pub turn: crate::engine::client_turn::ClientTurn,
}

/// How far one request's loop may go; the daemon's own request timeout
/// still applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Most loop turns.
    pub max_turns: Option<usize>,
    /// Most tokens, prompt plus completion, over all LLM calls.
    pub max_total_tokens: Option<usize>,
    /// Longest run, counted from when the loop starts.
    pub timeout: Option<Duration>,
}

impl Limits {
    /// A timeout of `seconds`, when that is a positive number of seconds
    /// (at most a year); front ends name the field when it is not.
    pub fn timeout_secs(seconds: f64) -> Option<Duration> {
        const YEAR: f64 = 365.0 * 24.0 * 3600.0;
        (seconds > 0.0 && seconds <= YEAR).then(|| Duration::from_secs_f64(seconds))
    }
}

/// Why a request did not get an answer. [`AskError::name`] is the error
/// name front ends use (`io.loopd.Loopd1.Error.<name>` on D-Bus).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    /// No engine has this id.
    #[error("{0}")]
    UnknownLoop(String),
    /// No persona has this name.
    #[error("no persona named `{0}`")]
    UnknownPersona(String),
    /// An option is missing, of the wrong type or out of range.
    #[error("{0}")]
    InvalidArgs(String),
    /// The queue is full; try again later.
    #[error("{0} requests are already waiting; try again later")]
    Busy(usize),
    /// The request was cancelled (by its caller, or because the daemon stops).
    #[error("{0}")]
    Cancelled(String),
    /// The loop stopped without an answer (token budget or deadline).
    #[error("{0}")]
    BudgetExhausted(String),
    /// The model or the loop failed.
    #[error("{0}")]
    ModelError(String),
    /// The daemon is shutting down.
    #[error("loopd is shutting down")]
    ShuttingDown,
}

impl AskError {
    /// The error's name, e.g. `UnknownLoop`.
    pub fn name(&self) -> &'static str {
        match self {
            AskError::UnknownLoop(_) => "UnknownLoop",
            AskError::UnknownPersona(_) => "UnknownPersona",
            AskError::InvalidArgs(_) => "InvalidArgs",
            AskError::Busy(_) => "Busy",
            AskError::Cancelled(_) => "Cancelled",
            AskError::BudgetExhausted(_) => "BudgetExhausted",
            AskError::ModelError(_) => "ModelError",
            AskError::ShuttingDown => "ShuttingDown",
        }
    }

    /// The exit status `loopd ask` ends with: 2 for a bad request (as for
    /// a bad flag), 3 when the budget ran out, 75 (`EX_TEMPFAIL`) when the
    /// daemon cannot take it now, 130 when cancelled (as after Ctrl-C),
    /// 1 when the model failed.
    pub fn exit_code(&self) -> u8 {
        match self {
            AskError::UnknownLoop(_) | AskError::UnknownPersona(_) | AskError::InvalidArgs(_) => 2,
            AskError::BudgetExhausted(_) => 3,
            AskError::Busy(_) | AskError::ShuttingDown => 75,
            AskError::Cancelled(_) => 130,
            AskError::ModelError(_) => 1,
        }
    }
}

/// A finished request.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The engine that ran.
    pub loop_id: String,
    /// The persona that answered.
    pub persona: String,
    /// What to say.
    pub answer: String,
    /// How the loop ended (`answered`, `max_turns` or `blocked`).
    pub termination: Termination,
    /// The loop's stats, as `loopd ask --json` prints them.
    pub stats: Value,
    /// Why the answer may be incomplete (the loop ran out of turns or was
    /// blocked).
    pub note: Option<String>,
    /// Calls of the client's own tools for it to run (then `answer` is
    /// empty).
    pub tool_calls: Vec<crate::engine::parse::ToolCall>,
}

/// What a request's loop did, whether or not it answered: kept by the
/// [`Ticket`] for front ends that report the cost of a failed run too.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// The engine that ran.
    pub loop_id: String,
    /// How the loop ended.
    pub termination: Termination,
    /// The loop's stats.
    pub stats: Value,
}

/// What the daemon sends a ticket when its request ends: the reply, and
/// what ran (nothing when it never started).
pub(super) type Ended = (Reply, Option<Ran>);

/// The one terminal reply of a request.
pub type Reply = Result<Answer, AskError>;

/// A submitted request: its events as they happen, then its one reply.
pub struct Ticket {
    pub(super) events: mpsc::UnboundedReceiver<LoopEvent>,
    pub(super) reply: oneshot::Receiver<Ended>,
    pub(super) ran: Option<Ran>,
    pub(super) cancel: CancellationToken,
    /// Counts the request as open (shutdown waits for it) until dropped.
    pub(super) _open: TaskTrackerToken,
}

/// A ticket dropped before its reply (the caller left: a failed write, a
/// front end's task ending early) cancels its request, which would
/// otherwise run on for no one and hold up the queue. After the reply it
/// cancels nothing.
impl Drop for Ticket {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl Ticket {
    /// Cancels the request (waiting or running); its reply becomes
    /// [`AskError::Cancelled`] unless it already finished.
    pub fn canceller(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// The next event, or `None` once the loop has ended.
    pub async fn next_event(&mut self) -> Option<LoopEvent> {
        self.events.recv().await
    }

    /// The reply, after the remaining events are dropped. The request
    /// counts as open (shutdown waits for it) until the ticket is dropped,
    /// so a front end drops it after delivering the reply.
    pub async fn finish(&mut self) -> Reply {
        while self.events.recv().await.is_some() {}
        match (&mut self.reply).await {
            Ok((reply, ran)) => {
                self.ran = ran;
                reply
            }
            Err(_) => Err(AskError::ModelError("the request was lost".into())),
        }
    }

    /// What ran, once [`finish`](Self::finish) returned; `None` when the
    /// request never started.
    pub fn ran(&self) -> Option<&Ran> {
        self.ran.as_ref()
    }
}

//! What front ends hand the daemon and what they get back: an [`Ask`], a
//! [`Ticket`] that streams the loop's events, and one [`Reply`].

use crate::engine::{LoopEvent, Termination};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;

/// One question, as a front end received it.
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// What the user said.
    pub prompt: String,
    /// Engine id instead of the persona's.
    pub loop_id: Option<String>,
    /// Persona name (default: the configured default persona).
    pub persona: Option<String>,
    /// Conversation memory key (default: [`DEFAULT_SESSION`](super::DEFAULT_SESSION)).
    pub session: Option<String>,
    /// Most tokens per LLM call.
    pub max_tokens: Option<usize>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Toolboxes instead of the persona's.
    pub tools: Option<Vec<String>>,
    /// A spoken turn: it cancels the session's earlier spoken turn that is
    /// still waiting or running (the user talked over the answer).
    pub barge_in: bool,
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
}

/// The one terminal reply of a request.
pub type Reply = Result<Answer, AskError>;

/// A submitted request: its events as they happen, then its one reply.
pub struct Ticket {
    pub(super) events: mpsc::UnboundedReceiver<LoopEvent>,
    pub(super) reply: oneshot::Receiver<Reply>,
    pub(super) cancel: CancellationToken,
    /// Counts the request as open (shutdown waits for it) until dropped.
    pub(super) _open: TaskTrackerToken,
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
        (&mut self.reply)
            .await
            .unwrap_or_else(|_| Err(AskError::ModelError("the request was lost".into())))
    }
}

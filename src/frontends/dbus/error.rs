//! D-Bus errors `io.loopd.Loopd1.Error.<Name>`, one per [`AskError`] name
//! plus `NotAllowed`.

use crate::daemon::AskError;

/// An error reply of `io.loopd.Loopd1`.
#[derive(Debug, zbus::DBusError)]
#[zbus(prefix = "io.loopd.Loopd1.Error")]
pub enum Error {
    /// A failure of D-Bus itself.
    #[zbus(error)]
    ZBus(zbus::Error),
    /// No engine has this id.
    UnknownLoop(String),
    /// No persona has this name.
    UnknownPersona(String),
    /// An option is unknown, of the wrong type or out of range.
    InvalidArgs(String),
    /// The queue is full.
    Busy(String),
    /// The request was cancelled.
    Cancelled(String),
    /// The loop ran out of budget.
    BudgetExhausted(String),
    /// The model or the loop failed.
    ModelError(String),
    /// The daemon is shutting down.
    ShuttingDown(String),
    /// The caller may not do this (e.g. cancel someone else's request).
    NotAllowed(String),
}

impl From<AskError> for Error {
    fn from(e: AskError) -> Self {
        let message = e.to_string();
        match e {
            AskError::UnknownLoop(_) => Error::UnknownLoop(message),
            AskError::UnknownPersona(_) => Error::UnknownPersona(message),
            AskError::InvalidArgs(_) => Error::InvalidArgs(message),
            AskError::Busy(_) => Error::Busy(message),
            AskError::Cancelled(_) => Error::Cancelled(message),
            AskError::BudgetExhausted(_) => Error::BudgetExhausted(message),
            AskError::ModelError(_) => Error::ModelError(message),
            AskError::ShuttingDown => Error::ShuttingDown(message),
        }
    }
}

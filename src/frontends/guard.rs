//! What every network listener keeps to, so that no client can hold it
//! for long or crowd others out: a cap on connections at once, deadlines
//! for sending a request, and secrets compared in constant time.

use std::fmt::Display;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most connections one listener serves at once; a client beyond them is
/// closed at once.
pub const MAX_CONNECTIONS: usize = 64;

/// Longest a client may take to send a request's head once it began (HTTP
/// headers, a WebSocket handshake, a whole Wyoming event).
pub const HEADER_READ: Duration = Duration::from_secs(10);

/// Longest a connection may sit without a request before it is closed
/// (HTTP keep-alive, a Wyoming client between events).
pub const IDLE: Duration = Duration::from_secs(300);

/// The free connection slots of one listener.
#[derive(Clone)]
pub struct Slots {
    listener: &'static str,
    free: Arc<Semaphore>,
}

impl Slots {
    /// [`MAX_CONNECTIONS`] slots for the listener named `listener` (in logs).
    pub fn new(listener: &'static str) -> Slots {
        Slots::with(listener, MAX_CONNECTIONS)
    }

    /// `n` slots.
    pub fn with(listener: &'static str, n: usize) -> Slots {
        Slots {
            listener,
            free: Arc::new(Semaphore::new(n)),
        }
    }

    /// A slot for a connection from `peer`, held until dropped; `None`,
    /// with a warning, when every slot is taken.
    pub fn take(&self, peer: impl Display) -> Option<OwnedSemaphorePermit> {
        let slot = self.free.clone().try_acquire_owned().ok();
        if slot.is_none() {
            tracing::warn!(
                "{}: refused {peer}: {MAX_CONNECTIONS} connections are open",
                self.listener
            );
        }
        slot
    }
}

/// Whether `given` is `secret`, in time that depends only on the lengths.
pub fn same_secret(secret: &str, given: &str) -> bool {
    let (a, b) = (secret.as_bytes(), given.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_run_out_and_come_back() {
        let slots = Slots::with("test", 2);
        let a = slots.take("a").unwrap();
        let _b = slots.take("b").unwrap();
        assert!(slots.take("c").is_none());
        drop(a);
        assert!(slots.take("c").is_some());
    }

    #[test]
    fn secrets_match_only_whole() {
        assert!(same_secret("open sesame", "open sesame"));
        assert!(!same_secret("open sesame", "open sesam"));
        assert!(!same_secret("open sesame", "open sesamE"));
        assert!(!same_secret("open sesame", ""));
    }
}

//! The requests in flight over D-Bus: who asked, at which request path,
//! and how to cancel them when their caller leaves the bus.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio_util::sync::CancellationToken;
use tokio_util::task::task_tracker::TaskTrackerToken;
use tokio_util::task::TaskTracker;

/// Every open D-Bus request, shared by the interface and the watchers.
#[derive(Default)]
pub struct Registry {
    inner: Mutex<Inner>,
    claims: TaskTracker,
}

#[derive(Default)]
struct Inner {
    next_id: u64,
    next_token: u64,
    open: HashMap<u64, Entry>,
}

struct Entry {
    sender: String,
    path: Option<String>,
    cancel: Option<CancellationToken>,
}

/// One open request; it leaves the registry (and frees its path) when dropped.
pub struct Claim {
    registry: Arc<Registry>,
    id: u64,
    _open: TaskTrackerToken,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a request of `sender`, at `path` if it has one. `None` when
    /// another open request already uses that path.
    pub fn claim(self: &Arc<Self>, sender: &str, path: Option<String>) -> Option<Claim> {
        let mut inner = self.lock();
        if path.is_some() && inner.open.values().any(|e| e.path == path) {
            return None;
        }
        inner.next_id += 1;
        let id = inner.next_id;
        inner.open.insert(
            id,
            Entry {
                sender: sender.to_string(),
                path,
                cancel: None,
            },
        );
        Some(Claim {
            registry: self.clone(),
            id,
            _open: self.claims.token(),
        })
    }

    /// A fresh number for a generated handle token.
    pub fn next_token(&self) -> u64 {
        let mut inner = self.lock();
        inner.next_token += 1;
        inner.next_token
    }

    /// Cancels every open request of `sender`; returns how many.
    pub fn cancel_sender(&self, sender: &str) -> usize {
        let inner = self.lock();
        let mine: Vec<_> = inner.open.values().filter(|e| e.sender == sender).collect();
        for entry in &mine {
            if let Some(cancel) = &entry.cancel {
                cancel.cancel();
            }
        }
        mine.len()
    }

    /// Waits until no request is open.
    pub async fn idle(&self) {
        self.claims.close();
        self.claims.wait().await;
        self.claims.reopen();
    }
}

impl Claim {
    /// Ties the request's cancellation to its claim.
    pub fn attach(&self, cancel: CancellationToken) {
        if let Some(entry) = self.registry.lock().open.get_mut(&self.id) {
            entry.cancel = Some(cancel);
        }
    }

    /// Frees the request's path for reuse while the claim stays open.
    pub fn free_path(&self) {
        if let Some(entry) = self.registry.lock().open.get_mut(&self.id) {
            entry.path = None;
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.registry.lock().open.remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_claimed_once_until_freed() {
        let registry = Arc::new(Registry::default());
        let first = registry.claim(":1.5", Some("/a".into())).unwrap();
        assert!(registry.claim(":1.6", Some("/a".into())).is_none());
        assert!(registry.claim(":1.6", None).is_some());
        first.free_path();
        assert!(!registry.claims.is_empty());
        let again = registry.claim(":1.6", Some("/a".into())).unwrap();
        drop((first, again));
        assert!(registry.claims.is_empty());
    }

    #[test]
    fn cancels_only_the_senders_requests() {
        let registry = Arc::new(Registry::default());
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        let claim_a = registry.claim(":1.5", None).unwrap();
        claim_a.attach(a.clone());
        let claim_b = registry.claim(":1.6", None).unwrap();
        claim_b.attach(b.clone());
        assert_eq!(registry.cancel_sender(":1.5"), 1);
        assert!(a.is_cancelled() && !b.is_cancelled());
        assert_eq!(registry.lock().open.len(), 2);
    }
}

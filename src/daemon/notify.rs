//! Telling systemd how the service is doing (`sd_notify`): `STATUS=` lines
//! while loading, `READY=1` once it can answer, `WATCHDOG=1` while it is
//! alive, `STOPPING=1` when it shuts down. Without `NOTIFY_SOCKET` (not
//! under systemd) every call does nothing.

use sd_notify::NotifyState;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio::task::JoinHandle;

/// Notifications waiting for the sender thread; more are dropped.
const BACKLOG: usize = 64;

/// Notifications handed to the sender thread, and those it has sent (or
/// failed to): [`flush`] waits for the second to catch up.
static QUEUED: AtomicUsize = AtomicUsize::new(0);
static SENT: AtomicUsize = AtomicUsize::new(0);

/// Hands `states` to the thread that sends them. A send blocks while the
/// manager's socket is full, so it never happens on the caller's thread
/// (the async runtime would stall with it); when the manager has stopped
/// reading and the backlog is full too, the notification is dropped.
fn send(states: &[NotifyState]) {
    if std::env::var_os("NOTIFY_SOCKET").is_none() {
        return;
    }
    static SENDER: OnceLock<Option<SyncSender<String>>> = OnceLock::new();
    let sender = SENDER.get_or_init(|| {
        let (tx, rx) = sync_channel::<String>(BACKLOG);
        let spawned = std::thread::Builder::new()
            .name("loopd-notify".into())
            .spawn(move || {
                for message in rx {
                    let states = [NotifyState::Custom(&message)];
                    if let Err(e) = sd_notify::notify(&states) {
                        tracing::warn!("sd_notify: {e}");
                    }
                    SENT.fetch_add(1, Ordering::Release);
                }
            });
        match spawned {
            Ok(_) => Some(tx),
            Err(e) => {
                tracing::warn!("sd_notify: cannot start its thread: {e}");
                None
            }
        }
    });
    let Some(sender) = sender else { return };
    let message = states
        .iter()
        .map(|state| state.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    QUEUED.fetch_add(1, Ordering::AcqRel);
    if let Err(TrySendError::Full(message) | TrySendError::Disconnected(message)) =
        sender.try_send(message)
    {
        QUEUED.fetch_sub(1, Ordering::AcqRel);
        tracing::debug!("sd_notify: the service manager is not reading; dropped {message:?}");
    }
}

/// Waits, at most `limit`, until every notification handed over has been
/// sent: the process is about to exit, and `STOPPING=1` must not die with
/// the sender thread.
pub async fn flush(limit: Duration) {
    let until = Instant::now() + limit;
    while SENT.load(Ordering::Acquire) < QUEUED.load(Ordering::Acquire) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// A human-readable status line (`systemctl status` shows it).
pub fn status(text: &str) {
    tracing::info!("{text}");
    send(&[NotifyState::Status(text)]);
}

/// The service can answer requests.
pub fn ready(text: &str) {
    tracing::info!("{text}");
    send(&[NotifyState::Ready, NotifyState::Status(text)]);
}

/// The service is shutting down.
pub fn stopping() {
    send(&[NotifyState::Stopping, NotifyState::Status("stopping")]);
}

/// When systemd's watchdog is on (`WatchdogSec=`), pings it at half the
/// interval from the async runtime, so a runtime that stops turning is
/// restarted. Returns the pinging task, or `None` when there is no watchdog.
pub fn start_watchdog() -> Option<JoinHandle<()>> {
    let interval = sd_notify::watchdog_enabled()?;
    let every = (interval / 2).max(Duration::from_millis(10));
    tracing::info!("watchdog: pinging every {every:?}");
    Some(tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            send(&[NotifyState::Watchdog]);
        }
    }))
}

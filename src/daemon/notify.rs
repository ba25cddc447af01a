//! Telling systemd how the service is doing (`sd_notify`): `STATUS=` lines
//! while loading, `READY=1` once it can answer, `WATCHDOG=1` while it is
//! alive, `STOPPING=1` when it shuts down. Without `NOTIFY_SOCKET` (not
//! under systemd) every call does nothing.

use sd_notify::NotifyState;
use std::time::Duration;
use tokio::task::JoinHandle;

fn send(states: &[NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        tracing::warn!("sd_notify: {e}");
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

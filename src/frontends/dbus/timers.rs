//! Timers set over D-Bus ring as a `TimerRang` signal, sent to each
//! connection of the Unix user that set them and to no one else: on the
//! system bus, another user never hears of them.

use super::service::Service;
use super::OBJECT_PATH;
use crate::frontends::held::HeldRings;
use crate::tools::timers::Rang;
use std::collections::HashSet;
use zbus::fdo::DBusProxy;
use zbus::names::BusName;
use zbus::object_server::SignalEmitter;
use zbus::Connection;

/// The callers whose timers D-Bus rings: every D-Bus user.
pub const CALLERS: &str = "dbus-uid:";

/// Rings each timer of a D-Bus user as it goes off, until the daemon stops.
/// A ring that reaches none of the user's connections is held and rung to
/// the next one ([`HeldRings`]).
pub async fn ring(
    conn: Connection,
    bus: DBusProxy<'static>,
    mut rings: tokio::sync::broadcast::Receiver<Rang>,
) {
    let mut held = HeldRings::new();
    let mut seen_before = HashSet::new();
    loop {
        let rang = tokio::select! {
            _ = held.due() => {
                let settled = settled(&bus, &mut seen_before).await;
                let (conn, bus, settled) = (&conn, &bus, &settled);
                held.ring_again(|rang| async move {
                    announce(conn, bus, &rang, Some(settled)).await
                })
                .await;
                continue;
            }
            rang = rings.recv() => rang,
        };
        let rang = match rang {
            Ok(rang) => rang,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!("D-Bus: {missed} timer(s) rang while the bus was behind");
                continue;
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        };
        if !announce(&conn, &bus, &rang, None).await {
            held.hold(rang);
        }
    }
}

/// The connections that were on the bus at the last retry too: a held ring
/// goes only to them, so that a client that has just connected has had a
/// second to subscribe to `TimerRang` before it comes. (Unique names are
/// never reused, so one seen both times is the same connection.)
async fn settled(bus: &DBusProxy<'static>, seen_before: &mut HashSet<String>) -> HashSet<String> {
    let now: HashSet<String> = match bus.list_names().await {
        Ok(names) => names.iter().map(|n| n.to_string()).collect(),
        Err(_) => return HashSet::new(),
    };
    let settled = now.intersection(seen_before).cloned().collect();
    *seen_before = now;
    settled
}

/// The Unix user a D-Bus timer belongs to.
fn owner_uid(rang: &Rang) -> Option<u32> {
    rang.timer
        .owner
        .strip_prefix(CALLERS)
        .and_then(|uid| uid.parse::<u32>().ok())
}

/// Sends a ring to its user's connections (of those `only`, when given);
/// whether any got it (a timer set elsewhere is not D-Bus's to ring, and
/// counts as delivered).
async fn announce(
    conn: &Connection,
    bus: &DBusProxy<'static>,
    rang: &Rang,
    only: Option<&HashSet<String>>,
) -> bool {
    let Some(uid) = owner_uid(rang) else {
        return true;
    };
    let heard = signal(conn, bus, uid, rang, only).await;
    if heard > 0 {
        tracing::info!(
            "D-Bus: timer {} rang to {heard} connection(s) of uid {uid}",
            rang.timer.id
        );
    }
    heard > 0
}

/// Sends `TimerRang` to every connection of `uid` (of those `only`, when
/// given); returns how many.
async fn signal(
    conn: &Connection,
    bus: &DBusProxy<'static>,
    uid: u32,
    rang: &Rang,
    only: Option<&HashSet<String>>,
) -> usize {
    let timer = rang.details().to_string();
    let names = match bus.list_names().await {
        Ok(names) => names,
        Err(e) => {
            tracing::warn!("D-Bus: cannot list connections to ring a timer: {e}");
            return 0;
        }
    };
    let own = conn.unique_name().map(|n| n.to_string());
    let mut heard = 0;
    for name in names {
        let name = name.to_string();
        if !name.starts_with(':')
            || Some(&name) == own.as_ref()
            || only.is_some_and(|only| !only.contains(&name))
        {
            continue;
        }
        let Ok(bus_name) = BusName::try_from(name.clone()) else {
            continue;
        };
        if bus.get_connection_unix_user(bus_name.clone()).await.ok() != Some(uid) {
            continue;
        }
        let sent = match SignalEmitter::new(conn, OBJECT_PATH) {
            Ok(emitter) => {
                let emitter = emitter.set_destination(bus_name);
                Service::timer_rang(&emitter, &rang.spoken, &timer).await
            }
            Err(e) => Err(e),
        };
        match sent {
            Ok(()) => heard += 1,
            Err(e) => tracing::debug!("D-Bus: timer signal to {name} failed: {e}"),
        }
    }
    heard
}

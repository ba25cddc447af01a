//! Timers over Wyoming, where the connection can carry them: the protocol's
//! own timer events, as Home Assistant sends them to its satellites.
//!
//! A connection that stays open says so by sending a `ping` (a Wyoming peer
//! that keeps a connection pings it); from then on it hears the timers of
//! its peer (one caller: [`Caller::wyoming`]): `timer-started` and
//! `timer-cancelled` when one of its requests sets or cancels one, and
//! `timer-finished` on every such connection of the peer when one goes off.
//! A ring that reaches none is held for the next ([`HeldRings`]). While a
//! peer has no connection that stays (Home Assistant opens one per
//! request), a timer asked for through it is refused in words, never set
//! to go off unheard.
//!
//! [`Caller::wyoming`]: crate::daemon::Caller::wyoming

use super::event::Event;
use crate::frontends::held::HeldRings;
use crate::tools::timers::{Rang, Timer, Timers};
use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;
use tokio::sync::mpsc;

/// Timer events waiting for one connection to write them.
const BACKLOG: usize = 16;

/// The connections that stay open, by the caller they ask for.
#[derive(Default)]
pub struct Listening {
    connections: Mutex<Vec<Connection>>,
    next_id: Mutex<u64>,
}

struct Connection {
    id: u64,
    caller: String,
    events: mpsc::Sender<Event>,
}

/// One connection's place among those that hear timers; it leaves when
/// dropped (the connection closed).
pub struct Listener {
    id: u64,
    caller: String,
    listening: Arc<Listening>,
    timers: Arc<Timers>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        lock(&self.listening.connections).retain(|c| c.id != self.id);
        self.timers.stops_ringing_for(&self.caller);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Listening {
    /// Adds a connection of `caller` that stays open: timers may now be set
    /// for `caller`, and their events come out of the receiver.
    pub fn join(
        self: &Arc<Self>,
        caller: &str,
        timers: &Arc<Timers>,
    ) -> (Listener, mpsc::Receiver<Event>) {
        let (events, heard) = mpsc::channel(BACKLOG);
        let id = {
            let mut next = lock(&self.next_id);
            *next += 1;
            *next
        };
        lock(&self.connections).push(Connection {
            id,
            caller: caller.to_string(),
            events,
        });
        timers.rings_for(caller);
        let listener = Listener {
            id,
            caller: caller.to_string(),
            listening: self.clone(),
            timers: timers.clone(),
        };
        (listener, heard)
    }

    /// Hands `event` to every connection of `caller` that stays open; how
    /// many took it.
    fn tell(&self, caller: &str, event: &Event) -> usize {
        lock(&self.connections)
            .iter()
            .filter(|c| c.caller == caller)
            .filter(|c| c.events.try_send(event.clone()).is_ok())
            .count()
    }
}

/// Rings each timer set over Wyoming as `timer-finished` to its peer's
/// connections that stay open, holding those that reach none; ends when the
/// timers are gone.
pub async fn ring(listening: Arc<Listening>, mut rings: Receiver<Rang>) {
    let mut held = HeldRings::new();
    loop {
        let rang = tokio::select! {
            _ = held.due() => {
                let listening = &listening;
                held.ring_again(|rang| async move { announce(listening, &rang) }).await;
                continue;
            }
            rang = rings.recv() => rang,
        };
        let rang = match rang {
            Ok(rang) if rang.timer.owner.starts_with(super::CALLERS) => rang,
            Ok(_) => continue,
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!("Wyoming: {missed} timer(s) rang while Wyoming was behind");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if !announce(&listening, &rang) {
            held.hold(rang);
        }
    }
}

/// Sends a ring's `timer-finished`; whether any connection took it.
fn announce(listening: &Listening, rang: &Rang) -> bool {
    let finished = Event::new("timer-finished", json!({"id": rang.timer.id.to_string()}));
    let heard = listening.tell(&rang.timer.owner, &finished);
    if heard > 0 {
        tracing::info!(
            "Wyoming: timer {} rang to {heard} connection(s)",
            rang.timer.id
        );
    }
    heard > 0
}

/// The timer events a request made: `timer-started` for each timer in
/// `after` that was not in `before`, `timer-cancelled` for each that went
/// from it before it was due.
pub fn changes(before: &[Timer], after: &[Timer], now: DateTime<Utc>) -> Vec<Event> {
    let had = |list: &[Timer], timer: &Timer| list.iter().any(|t| t.id == timer.id);
    let started = after
        .iter()
        .filter(|t| !had(before, t))
        .map(|t| started(t, now));
    let cancelled = before
        .iter()
        .filter(|t| !had(after, t) && t.due > now)
        .map(|t| Event::new("timer-cancelled", json!({"id": t.id.to_string()})));
    started.chain(cancelled).collect()
}

/// `timer-started`: the id, the seconds it runs (an alarm's until it is
/// due), its name, and the hours, minutes and seconds asked for.
fn started(timer: &Timer, now: DateTime<Utc>) -> Event {
    let total = match timer.kind {
        crate::tools::timers::Kind::Timer => timer.length_s(),
        crate::tools::timers::Kind::Alarm => {
            ((timer.due - now).num_milliseconds() + 500).div_euclid(1000)
        }
    }
    .max(0);
    let mut data = Map::new();
    data.insert("id".into(), json!(timer.id.to_string()));
    data.insert("total_seconds".into(), json!(total));
    if let Some(label) = &timer.label {
        data.insert("name".into(), json!(label));
    }
    data.insert("start_hours".into(), json!(total / 3600));
    data.insert("start_minutes".into(), json!(total % 3600 / 60));
    data.insert("start_seconds".into(), json!(total % 60));
    Event::new("timer-started", Value::Object(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::timers::Kind;
    use chrono::Duration;

    fn timer(id: u64, kind: Kind, set_at: DateTime<Utc>, seconds: i64) -> Timer {
        Timer {
            id,
            owner: "wyoming:127.0.0.1".into(),
            kind,
            label: (id == 2).then(|| "pasta".to_string()),
            set_at,
            due: set_at + Duration::seconds(seconds),
        }
    }

    #[test]
    fn a_request_s_timers_become_started_and_cancelled_events() {
        let now = Utc::now();
        let old = timer(1, Kind::Timer, now, 600);
        let pasta = timer(2, Kind::Timer, now, 3725);
        let alarm = timer(3, Kind::Alarm, now - Duration::seconds(100), 700);
        let events = changes(&[old], &[pasta, alarm], now);
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["timer-started", "timer-started", "timer-cancelled"]);
        assert_eq!(
            Value::Object(events[0].data.clone()),
            json!({"id": "2", "total_seconds": 3725, "name": "pasta",
                   "start_hours": 1, "start_minutes": 2, "start_seconds": 5})
        );
        assert_eq!(
            events[1].data["total_seconds"], 600,
            "an alarm counts from now"
        );
        assert_eq!(Value::Object(events[2].data.clone()), json!({"id": "1"}));
        let rang = timer(4, Kind::Timer, now - Duration::seconds(5), 2);
        assert!(changes(&[rang], &[], now).is_empty(), "a ring is no cancel");
    }

    #[test]
    fn only_connections_that_stay_hear_their_own_peer_s_timers() {
        let timers = Timers::open(None, None);
        let listening = Arc::new(Listening::default());
        assert!(!timers.can_ring("wyoming:127.0.0.1"));
        let (kitchen, mut heard) = listening.join("wyoming:127.0.0.1", &timers);
        let (_other, mut other_heard) = listening.join("wyoming:10.0.0.7", &timers);
        assert!(timers.can_ring("wyoming:127.0.0.1"));
        let done = Event::new("timer-finished", json!({"id": "1"}));
        assert_eq!(listening.tell("wyoming:127.0.0.1", &done), 1);
        assert_eq!(heard.try_recv().unwrap().kind, "timer-finished");
        assert!(other_heard.try_recv().is_err());
        drop(kitchen);
        assert!(!timers.can_ring("wyoming:127.0.0.1"));
        assert!(timers.can_ring("wyoming:10.0.0.7"));
        assert_eq!(listening.tell("wyoming:127.0.0.1", &done), 0);
    }
}

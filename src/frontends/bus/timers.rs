//! Timers set on the message bus ring on it: a `speak` for the voice
//! (`{utterance, lang, expect_response: false, meta}`), then a
//! `loopd.timer` `{id, kind, label, due, late, spoken}` for skills and
//! screens, to every connection (the bus loopd joined or hosts, and each
//! socket client). Its clients are one party (see [`Caller::bus`]), so
//! all of them hear every timer set on it.
//!
//! [`Caller::bus`]: crate::daemon::Caller::bus

use super::handler::Handler;
use super::message::BusMessage;
use super::reply::{Speak, SpeakMeta};
use crate::frontends::held::HeldRings;
use crate::tools::timers::Rang;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;
use tokio_util::sync::CancellationToken;

/// The caller whose timers the bus rings.
pub const CALLER: &str = "bus";

/// The language a timer is spoken in.
const LANG: &str = "en-us";

/// Rings each timer set on the bus as it goes off, until `stop`. A ring
/// that reaches no connection is held and rung to the next one
/// ([`HeldRings`]).
pub async fn ring(handler: Handler, mut rings: Receiver<Rang>, stop: CancellationToken) {
    let mut held = HeldRings::new();
    loop {
        let rang = tokio::select! {
            _ = stop.cancelled() => return,
            _ = held.due() => {
                let handler = &handler;
                held.ring_again(|rang| async move { announce(handler, &rang).await }).await;
                continue;
            }
            rang = rings.recv() => rang,
        };
        let rang = match rang {
            Ok(rang) if rang.timer.owner == CALLER => rang,
            Ok(_) => continue,
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!("bus: {missed} timer(s) rang while the bus was behind");
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        if !announce(&handler, &rang).await {
            held.hold(rang);
        }
    }
}

/// Sends a ring's `speak` and `loopd.timer`; whether any connection got them.
async fn announce(handler: &Handler, rang: &Rang) -> bool {
    let heard = handler.announce(speak(rang)).await;
    if heard == 0 {
        return false;
    }
    handler.announce(details(rang)).await;
    tracing::info!("bus: timer {} rang to {heard} connection(s)", rang.timer.id);
    true
}

fn speak(rang: &Rang) -> BusMessage {
    let speak = Speak {
        utterance: &rang.spoken,
        lang: LANG,
        expect_response: false,
        meta: SpeakMeta { skill: "loopd" },
    };
    from_loopd(BusMessage::new(
        "speak",
        serde_json::to_value(speak).unwrap_or_default(),
    ))
}

fn details(rang: &Rang) -> BusMessage {
    from_loopd(BusMessage::new("loopd.timer", rang.details()))
}

fn from_loopd(mut message: BusMessage) -> BusMessage {
    message.context.insert("source".into(), json!("loopd"));
    message
}

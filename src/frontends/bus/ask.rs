//! `loopd.ask`: streams `loopd.token` (and `loopd.event`) replies, then
//! one `loopd.answer` or `loopd.error`.

use super::handler::Peer;
use super::message::BusMessage;
use super::request;
use crate::daemon::{AskError, Daemon};
use crate::engine::LoopEvent;
use serde_json::{json, Value};

/// Runs one `loopd.ask` to its terminal reply.
pub async fn run(daemon: &Daemon, peer: &Peer, message: &BusMessage) {
    let id = match message.data.get("request_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        other => {
            let raw = other.cloned().unwrap_or(Value::Null);
            let detail = "loopd.ask needs a non-empty string `request_id`";
            tracing::warn!("bus: {detail} (got {raw})");
            peer.send(error(message, raw, "InvalidArgs", detail)).await;
            return;
        }
    };
    let ask = match request::ask_from(message, "utterance") {
        Ok(ask) => ask,
        Err(e) => {
            tracing::warn!("bus: bad loopd.ask `{id}`: {e}");
            peer.send(error(message, id.into(), "InvalidArgs", &e))
                .await;
            return;
        }
    };
    let mut ticket = match daemon.submit(ask) {
        Ok(ticket) => ticket,
        Err(e) => {
            peer.send(failed(message, &id, &e)).await;
            return;
        }
    };
    let cancel = ticket.canceller();
    if !peer.open(&id, cancel.clone()) {
        cancel.cancel();
        let detail = format!("request_id `{id}` is already in use");
        peer.send(error(message, id.into(), "InvalidArgs", &detail))
            .await;
        return;
    }
    let mut delivered = true;
    while let Some(event) = peer.next_event(&mut ticket).await {
        let reply = match event {
            LoopEvent::AnswerToken { text } => message.reply(
                "loopd.token",
                json!({"request_id": id, "channel": "answer", "text": text}),
            ),
            LoopEvent::ThoughtToken { text } => message.reply(
                "loopd.token",
                json!({"request_id": id, "channel": "thought", "text": text}),
            ),
            other => {
                let event = serde_json::to_value(&other).unwrap_or(Value::Null);
                let kind = event["type"].clone();
                message.reply(
                    "loopd.event",
                    json!({"request_id": id, "kind": kind, "event": event}),
                )
            }
        };
        if delivered && !peer.send(reply).await {
            delivered = false;
            cancel.cancel();
        }
    }
    let reply = match ticket.finish().await {
        Ok(answer) => message.reply(
            "loopd.answer",
            json!({
                "request_id": id,
                "answer": answer.answer,
                "stats": answer.stats,
                "loop": answer.loop_id,
                "persona": answer.persona,
                "termination": answer.termination,
            }),
        ),
        Err(e) => failed(message, &id, &e),
    };
    peer.close(&id);
    if delivered {
        peer.send(reply).await;
    }
}

fn failed(message: &BusMessage, id: &str, e: &AskError) -> BusMessage {
    error(message, id.into(), e.name(), &e.to_string())
}

fn error(message: &BusMessage, id: Value, name: &str, detail: &str) -> BusMessage {
    message.reply(
        "loopd.error",
        json!({"request_id": id, "error": name, "message": detail}),
    )
}

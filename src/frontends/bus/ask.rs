//! `loopd.ask`: streams `loopd.token` (and `loopd.event`) replies, then
//! one `loopd.answer` or `loopd.error`.

use super::handler::Peer;
use super::message::BusMessage;
use super::reply::{LoopdAnswer, LoopdError, LoopdEvent, LoopdToken};
use crate::daemon::{AskError, Ticket};
use crate::frontends::outgoing::Outgoing;

/// Runs one queued (or refused) `loopd.ask` to its terminal reply.
pub async fn run(
    peer: &Peer,
    message: &BusMessage,
    id: String,
    submitted: Result<Ticket, AskError>,
) {
    let mut ticket = match submitted {
        Ok(ticket) => ticket,
        Err(e) => {
            peer.send(LoopdError::failed(message, &id, &e)).await;
            return;
        }
    };
    let cancel = ticket.canceller();
    if !peer.open(&id, cancel.clone()) {
        cancel.cancel();
        let detail = format!("request_id `{id}` is already in use");
        peer.send(LoopdError::reply(
            message,
            id.into(),
            "InvalidArgs",
            &detail,
        ))
        .await;
        return;
    }
    let mut delivered = true;
    while let Some(event) = peer.next_event(&mut ticket).await {
        let reply = match Outgoing::from(event) {
            Outgoing::Token { channel, text } => LoopdToken {
                request_id: &id,
                channel: channel.as_str(),
                text: &text,
            }
            .reply(message),
            Outgoing::Event { kind, json } => LoopdEvent {
                request_id: &id,
                kind: kind.into(),
                event: json,
            }
            .reply(message),
        };
        if delivered && !peer.send(reply).await {
            delivered = false;
            cancel.cancel();
        }
    }
    let reply = match ticket.finish().await {
        Ok(answer) => LoopdAnswer::reply(message, &id, &answer),
        Err(e) => LoopdError::failed(message, &id, &e),
    };
    peer.close(&id);
    if delivered {
        peer.send(reply).await;
    }
}

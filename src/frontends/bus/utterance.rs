//! `recognizer_loop:utterance` and `ovos.utterance.handle`: one `speak`
//! per sentence as the answer streams, then `ovos.utterance.handled`.

use super::handler::Peer;
use super::message::BusMessage;
use super::reply::Speak;
use crate::daemon::{AskError, Ticket};
use crate::frontends::outgoing::SpokenAnswer;
use serde_json::json;

/// Spoken when the answer failed.
const SORRY: &str = "Sorry, I could not answer that.";

/// Spoken when the loop ended without an answer.
const NO_ANSWER: &str = "Sorry, I have no answer to that.";

/// Answers one queued (or refused) utterance out loud, in `lang`.
pub async fn run(
    peer: &Peer,
    message: &BusMessage,
    submitted: Result<Ticket, AskError>,
    lang: String,
) {
    let mut voice = Voice {
        peer,
        message,
        lang,
        spoken: 0,
        gone: false,
    };
    match submitted {
        Err(e) => {
            tracing::warn!("bus: cannot answer an utterance: {e}");
            voice.say(SORRY).await;
        }
        Ok(mut ticket) => {
            let cancel = ticket.canceller();
            let mut spoken = SpokenAnswer::new();
            while let Some(event) = peer.next_event(&mut ticket).await {
                for sentence in spoken.hear(&event) {
                    voice.say(&sentence).await;
                }
                if voice.gone {
                    cancel.cancel();
                }
            }
            match ticket.finish().await {
                Ok(_) => {
                    if let Some(rest) = spoken.finish() {
                        voice.say(&rest).await;
                    }
                    if voice.spoken == 0 {
                        voice.say(NO_ANSWER).await;
                    }
                }
                Err(AskError::Cancelled(_)) | Err(AskError::ShuttingDown) => {}
                Err(e) => {
                    tracing::warn!("bus: an utterance failed: {} ({e})", e.name());
                    voice.say(SORRY).await;
                }
            }
        }
    }
    if !voice.gone {
        peer.send(message.reply("ovos.utterance.handled", json!({})))
            .await;
    }
}

/// Sends `speak` replies to one utterance.
struct Voice<'a> {
    peer: &'a Peer,
    message: &'a BusMessage,
    lang: String,
    spoken: usize,
    gone: bool,
}

impl Voice<'_> {
    async fn say(&mut self, sentence: &str) {
        if self.gone {
            return;
        }
        let speak = Speak::reply(self.message, sentence, &self.lang);
        self.spoken += 1;
        self.gone = !self.peer.send(speak).await;
    }
}

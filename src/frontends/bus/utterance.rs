//! `recognizer_loop:utterance` and `ovos.utterance.handle`: one `speak`
//! per sentence as the answer streams, then `ovos.utterance.handled`.

use super::handler::Peer;
use super::message::BusMessage;
use super::request;
use super::speech::Sentences;
use crate::daemon::{Ask, AskError, Daemon};
use crate::engine::LoopEvent;
use serde_json::{json, Value};

/// Language used when neither the message nor its session names one.
const DEFAULT_LANG: &str = "en-US";

/// Spoken when the answer failed.
const SORRY: &str = "Sorry, I could not answer that.";

/// Spoken when the loop ended without an answer.
const NO_ANSWER: &str = "Sorry, I have no answer to that.";

/// Answers one utterance out loud.
pub async fn run(daemon: &Daemon, peer: &Peer, message: &BusMessage) {
    let ask = first_utterance(message)
        .and_then(|text| request::ask_with_prompt(message, text))
        .and_then(|ask| Ok((ask, lang(message)?)));
    let (ask, lang) = match ask {
        Ok((ask, lang)) => (
            Ask {
                barge_in: true,
                ..ask
            },
            lang,
        ),
        Err(e) => {
            tracing::warn!("bus: ignoring {}: {e}", message.kind);
            return;
        }
    };
    let mut voice = Voice {
        peer,
        message,
        lang,
        spoken: 0,
        gone: false,
    };
    match daemon.submit(ask) {
        Err(e) => {
            tracing::warn!("bus: cannot answer an utterance: {e}");
            voice.say(SORRY).await;
        }
        Ok(mut ticket) => {
            let cancel = ticket.canceller();
            let mut sentences = Sentences::new();
            while let Some(event) = peer.next_event(&mut ticket).await {
                if let LoopEvent::AnswerToken { text } = event {
                    for sentence in sentences.push(&text) {
                        voice.say(&sentence).await;
                    }
                }
                if voice.gone {
                    cancel.cancel();
                }
            }
            match ticket.finish().await {
                Ok(_) => {
                    if let Some(rest) = sentences.finish() {
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
        let speak = self.message.reply(
            "speak",
            json!({
                "utterance": sentence,
                "lang": self.lang,
                "expect_response": false,
                "meta": {"skill": "loopd"},
            }),
        );
        self.spoken += 1;
        self.gone = !self.peer.send(speak).await;
    }
}

/// The first utterance of `data.utterances`.
fn first_utterance(message: &BusMessage) -> Result<String, String> {
    match message.data.get("utterances") {
        Some(Value::Array(items)) => match items.first() {
            Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
            Some(Value::String(_)) => Err("the utterance is empty".into()),
            Some(other) => Err(format!(
                "`utterances` must hold strings, not {}",
                request::type_name(other)
            )),
            None => Err("`utterances` is empty".into()),
        },
        Some(other) => Err(format!(
            "`utterances` must be a list of strings, not {}",
            request::type_name(other)
        )),
        None => Err("`utterances` is missing".into()),
    }
}

/// `data.lang`, else the session's `lang`, else [`DEFAULT_LANG`].
fn lang(message: &BusMessage) -> Result<String, String> {
    if let Some(lang) = request::string(&message.data, "lang")? {
        return Ok(lang);
    }
    let session = message.context.get("session").and_then(|s| s.get("lang"));
    Ok(session
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_LANG)
        .to_string())
}

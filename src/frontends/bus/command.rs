//! The requests loopd answers on a bus, each read once from its message
//! into a [`Command`]; a message that cannot be read is [`Refused`] with
//! the reply its protocol has for that (or none).

use super::message::BusMessage;
use super::reply::{LoopdError, PersonaAnswer};
use super::request::{self, type_name};
use crate::daemon::Ask;
use serde_json::Value;

/// Language of a spoken answer when neither the utterance nor its session
/// names one.
pub const DEFAULT_LANG: &str = "en-US";

/// A request loopd answers, read from a bus message.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `ovos.persona.list`: the personas.
    ListPersonas,
    /// `ovos.persona.query` `{persona_id?, utterance}`: one persona's answer.
    QueryPersona(PersonaQuery),
    /// `loopd.ask` `{request_id, utterance, …}`: an answer streamed as
    /// `loopd.token`s, then `loopd.answer` or `loopd.error`.
    Ask {
        /// The caller's id for the request, echoed in every reply.
        request_id: String,
        /// The question.
        ask: Ask,
    },
    /// `loopd.cancel` `{request_id}`: stops an open `loopd.ask`.
    Cancel {
        /// The request to stop.
        request_id: String,
    },
    /// `recognizer_loop:utterance` / `ovos.utterance.handle`
    /// `{utterances, lang?}`: an answer spoken sentence by sentence.
    Utterance {
        /// The first utterance, as a spoken turn (it barges in).
        ask: Ask,
        /// The language to speak in.
        lang: String,
    },
}

/// An `ovos.persona.query`, with what its answer echoes.
#[derive(Debug, Clone, PartialEq)]
pub struct PersonaQuery {
    /// The persona asked, as its answer names it.
    pub persona_id: String,
    /// The utterance, echoed in the answer.
    pub utterance: String,
    /// The question for the daemon.
    pub ask: Ask,
}

/// Why a message of a type loopd answers was not taken.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// The protocol has an error reply for it: send this.
    Reply(Box<BusMessage>),
    /// The protocol has none: log this.
    Log(String),
}

impl Command {
    /// Reads `message`: `Ok(None)` for a type loopd does not answer (a bus
    /// carries everyone's traffic); utterances only when `utterances` is
    /// set. `default_persona` is who answers a query that names nobody.
    pub fn read(
        message: &BusMessage,
        utterances: bool,
        default_persona: &str,
    ) -> Result<Option<Command>, Refused> {
        let command = match message.kind.as_str() {
            "ovos.persona.list" => Command::ListPersonas,
            "ovos.persona.query" => Command::QueryPersona(query(message, default_persona)?),
            "loopd.ask" => ask(message)?,
            "loopd.cancel" => match request::string(&message.data, "request_id") {
                Ok(Some(request_id)) => Command::Cancel { request_id },
                Ok(None) => return Err(Refused::Log("loopd.cancel without a request_id".into())),
                Err(e) => return Err(Refused::Log(format!("bad loopd.cancel: {e}"))),
            },
            "recognizer_loop:utterance" | "ovos.utterance.handle" if utterances => {
                utterance(message)
                    .map_err(|e| Refused::Log(format!("ignoring {}: {e}", message.kind)))?
            }
            _ => return Ok(None),
        };
        Ok(Some(command))
    }
}

fn query(message: &BusMessage, default_persona: &str) -> Result<PersonaQuery, Refused> {
    let data = &message.data;
    let utterance = data.get("utterance").cloned().unwrap_or(Value::Null);
    let refuse = |persona_id: Value, error: String| {
        Refused::Reply(Box::new(PersonaAnswer::failed(
            message,
            persona_id,
            utterance.clone(),
            "InvalidArgs",
            &error,
        )))
    };
    let persona_id = match request::string(data, "persona_id") {
        Ok(name) => name.unwrap_or_else(|| default_persona.to_string()),
        Err(e) => {
            let raw = data.get("persona_id").cloned().unwrap_or(Value::Null);
            return Err(refuse(raw, e));
        }
    };
    let text = match &utterance {
        Value::String(text) => text.clone(),
        Value::Null => return Err(refuse(persona_id.into(), "`utterance` is missing".into())),
        other => {
            let error = format!("`utterance` must be a string, not {}", type_name(other));
            return Err(refuse(persona_id.into(), error));
        }
    };
    let ask = request::ask_with_prompt(message, text.clone())
        .map_err(|e| refuse(persona_id.clone().into(), e))?;
    Ok(PersonaQuery {
        ask: Ask {
            persona: Some(persona_id.clone()),
            ..ask
        },
        persona_id,
        utterance: text,
    })
}

fn ask(message: &BusMessage) -> Result<Command, Refused> {
    let request_id = match message.data.get("request_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        other => {
            let raw = other.cloned().unwrap_or(Value::Null);
            let detail = "loopd.ask needs a non-empty string `request_id`";
            tracing::warn!("bus: {detail} (got {raw})");
            return Err(Refused::Reply(Box::new(LoopdError::reply(
                message,
                raw,
                "InvalidArgs",
                detail,
            ))));
        }
    };
    match request::ask_from(message, "utterance") {
        Ok(ask) => Ok(Command::Ask { request_id, ask }),
        Err(e) => {
            tracing::warn!("bus: bad loopd.ask `{request_id}`: {e}");
            Err(Refused::Reply(Box::new(LoopdError::reply(
                message,
                request_id.into(),
                "InvalidArgs",
                &e,
            ))))
        }
    }
}

fn utterance(message: &BusMessage) -> Result<Command, String> {
    let text = first_utterance(message)?;
    let ask = request::ask_with_prompt(message, text)?;
    Ok(Command::Utterance {
        ask: Ask {
            barge_in: true,
            ..ask
        },
        lang: lang(message)?,
    })
}

/// The first utterance of `data.utterances`.
fn first_utterance(message: &BusMessage) -> Result<String, String> {
    match message.data.get("utterances") {
        Some(Value::Array(items)) => match items.first() {
            Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
            Some(Value::String(_)) => Err("the utterance is empty".into()),
            Some(other) => Err(format!(
                "`utterances` must hold strings, not {}",
                type_name(other)
            )),
            None => Err("`utterances` is empty".into()),
        },
        Some(other) => Err(format!(
            "`utterances` must be a list of strings, not {}",
            type_name(other)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(kind: &str, data: Value) -> Result<Option<Command>, Refused> {
        Command::read(&BusMessage::new(kind, data), true, "default")
    }

    #[test]
    fn each_request_is_read_once_into_its_command() {
        assert_eq!(
            read("ovos.persona.list", json!({})),
            Ok(Some(Command::ListPersonas))
        );
        assert_eq!(read("someone.else", json!({"x": 1})), Ok(None));
        let Ok(Some(Command::Ask { request_id, ask })) = read(
            "loopd.ask",
            json!({"request_id": "r1", "utterance": "hi", "max_turns": 3}),
        ) else {
            panic!("not an ask");
        };
        assert_eq!((request_id.as_str(), ask.prompt.as_str()), ("r1", "hi"));
        assert_eq!(ask.limits.max_turns, Some(3));
        let Ok(Some(Command::QueryPersona(query))) =
            read("ovos.persona.query", json!({"utterance": "hi"}))
        else {
            panic!("not a query");
        };
        assert_eq!(query.persona_id, "default");
        assert_eq!(query.ask.persona.as_deref(), Some("default"));
        let Ok(Some(Command::Utterance { ask, lang })) =
            read("recognizer_loop:utterance", json!({"utterances": ["hi"]}))
        else {
            panic!("not an utterance");
        };
        assert!(ask.barge_in);
        assert_eq!(lang, DEFAULT_LANG);
        let message = BusMessage::new("ovos.utterance.handle", json!({"utterances": ["hi"]}));
        assert_eq!(Command::read(&message, false, "default"), Ok(None));
    }

    #[test]
    fn a_bad_request_gets_its_protocols_refusal() {
        let Err(Refused::Reply(reply)) = read("loopd.ask", json!({"request_id": 7})) else {
            panic!("no loopd.error");
        };
        assert_eq!(reply.kind, "loopd.error");
        assert_eq!(reply.data["request_id"], 7);
        let Err(Refused::Reply(reply)) = read("ovos.persona.query", json!({"utterance": 3})) else {
            panic!("no ovos.persona.answer");
        };
        assert_eq!(reply.kind, "ovos.persona.answer");
        assert_eq!(reply.data["error_name"], "InvalidArgs");
        assert_eq!(reply.data["utterance"], 3);
        assert!(matches!(
            read("loopd.cancel", json!({})),
            Err(Refused::Log(_))
        ));
        assert!(matches!(
            read("recognizer_loop:utterance", json!({"utterances": []})),
            Err(Refused::Log(_))
        ));
    }
}

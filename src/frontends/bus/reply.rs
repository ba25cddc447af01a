//! The replies loopd sends on a bus, as types: each one's `data`, and the
//! reply message it becomes (the request's context, `source` and
//! `destination` swapped).

use super::message::BusMessage;
use crate::daemon::{Answer, AskError};
use serde::Serialize;
use serde_json::Value;

/// Makes the reply to `request` of type `kind` carrying `data`.
fn reply(request: &BusMessage, kind: &str, data: &impl Serialize) -> BusMessage {
    request.reply(kind, serde_json::to_value(data).unwrap_or(Value::Null))
}

/// `ovos.persona.list.response` `{personas}`.
#[derive(Debug, Serialize)]
pub struct PersonaList<'a> {
    /// Every persona loopd serves, the default first.
    pub personas: Vec<PersonaEntry<'a>>,
}

/// One persona of a [`PersonaList`].
#[derive(Debug, Serialize)]
pub struct PersonaEntry<'a> {
    /// Its id (its name).
    pub persona_id: &'a str,
    /// Its name.
    pub name: &'a str,
    /// What it is for.
    pub description: &'a str,
}

impl PersonaList<'_> {
    /// The reply to `request`.
    pub fn reply(&self, request: &BusMessage) -> BusMessage {
        reply(request, "ovos.persona.list.response", self)
    }
}

/// `ovos.persona.answer` `{persona_id, utterance, response}`, or with
/// `error` and `error_name` instead of `response`.
#[derive(Debug, Serialize)]
pub struct PersonaAnswer<'a> {
    /// The persona that answered (as the query named it).
    pub persona_id: Value,
    /// The utterance, as the query gave it.
    pub utterance: Value,
    /// The answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<&'a str>,
    /// Why there is no answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    /// The error's name (`Busy`, `InvalidArgs`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_name: Option<&'a str>,
}

impl PersonaAnswer<'_> {
    /// The answer to `request`.
    pub fn answered(
        request: &BusMessage,
        persona_id: &str,
        utterance: &str,
        response: &str,
    ) -> BusMessage {
        let answer = PersonaAnswer {
            persona_id: persona_id.into(),
            utterance: utterance.into(),
            response: Some(response),
            error: None,
            error_name: None,
        };
        reply(request, "ovos.persona.answer", &answer)
    }

    /// The failure of `request`, logged.
    pub fn failed(
        request: &BusMessage,
        persona_id: Value,
        utterance: Value,
        name: &str,
        error: &str,
    ) -> BusMessage {
        tracing::warn!("bus: ovos.persona.query failed: {error}");
        let answer = PersonaAnswer {
            persona_id,
            utterance,
            response: None,
            error: Some(error),
            error_name: Some(name),
        };
        reply(request, "ovos.persona.answer", &answer)
    }
}

/// `loopd.token` `{request_id, channel, text}`: a piece of the answer or of
/// the reasoning.
#[derive(Debug, Serialize)]
pub struct LoopdToken<'a> {
    /// The request.
    pub request_id: &'a str,
    /// `answer` or `thought`.
    pub channel: &'a str,
    /// The text.
    pub text: &'a str,
}

impl LoopdToken<'_> {
    /// The reply to `request`.
    pub fn reply(&self, request: &BusMessage) -> BusMessage {
        reply(request, "loopd.token", self)
    }
}

/// `loopd.event` `{request_id, kind, event}`: a step of the loop (a tool
/// call, an observation, a plan, …).
#[derive(Debug, Serialize)]
pub struct LoopdEvent<'a> {
    /// The request.
    pub request_id: &'a str,
    /// The event's type.
    pub kind: Value,
    /// The event, as `loopd ask --json` traces it.
    pub event: Value,
}

impl LoopdEvent<'_> {
    /// The reply to `request`.
    pub fn reply(&self, request: &BusMessage) -> BusMessage {
        reply(request, "loopd.event", self)
    }
}

/// `loopd.answer` `{request_id, answer, stats, loop, persona, termination}`.
#[derive(Debug, Serialize)]
pub struct LoopdAnswer<'a> {
    /// The request.
    pub request_id: &'a str,
    /// What to say.
    pub answer: &'a str,
    /// What it cost.
    pub stats: &'a Value,
    /// The engine that ran.
    #[serde(rename = "loop")]
    pub loop_id: &'a str,
    /// The persona that answered.
    pub persona: &'a str,
    /// How the loop ended.
    pub termination: &'a str,
}

impl LoopdAnswer<'_> {
    /// The answer to `request`.
    pub fn reply(request: &BusMessage, request_id: &str, answer: &Answer) -> BusMessage {
        let data = LoopdAnswer {
            request_id,
            answer: &answer.answer,
            stats: &answer.stats,
            loop_id: &answer.loop_id,
            persona: &answer.persona,
            termination: answer.termination.as_str(),
        };
        reply(request, "loopd.answer", &data)
    }
}

/// `loopd.error` `{request_id, error, message}`.
#[derive(Debug, Serialize)]
pub struct LoopdError<'a> {
    /// The request, as the caller gave it (`null` when it gave none).
    pub request_id: Value,
    /// The error's name (`InvalidArgs`, `Busy`, `Cancelled`, …).
    pub error: &'a str,
    /// What went wrong.
    pub message: &'a str,
}

impl LoopdError<'_> {
    /// The error reply to `request`.
    pub fn reply(
        request: &BusMessage,
        request_id: Value,
        error: &str,
        message: &str,
    ) -> BusMessage {
        let data = LoopdError {
            request_id,
            error,
            message,
        };
        reply(request, "loopd.error", &data)
    }

    /// The reply to `request` that failed with `e`.
    pub fn failed(request: &BusMessage, request_id: &str, e: &AskError) -> BusMessage {
        LoopdError::reply(request, request_id.into(), e.name(), &e.to_string())
    }
}

/// `speak` `{utterance, lang, expect_response: false, meta}`: one sentence
/// for the voice to say.
#[derive(Debug, Serialize)]
pub struct Speak<'a> {
    /// The sentence.
    pub utterance: &'a str,
    /// Its language.
    pub lang: &'a str,
    /// Always `false`: loopd does not wait for a reply.
    pub expect_response: bool,
    /// Who speaks: `{"skill": "loopd"}`.
    pub meta: SpeakMeta,
}

/// The `meta` of a [`Speak`].
#[derive(Debug, Serialize)]
pub struct SpeakMeta {
    /// `loopd`.
    pub skill: &'static str,
}

impl<'a> Speak<'a> {
    /// `sentence` in `lang`, as a reply to `request`.
    pub fn reply(request: &BusMessage, sentence: &'a str, lang: &'a str) -> BusMessage {
        let speak = Speak {
            utterance: sentence,
            lang,
            expect_response: false,
            meta: SpeakMeta { skill: "loopd" },
        };
        reply(request, "speak", &speak)
    }
}

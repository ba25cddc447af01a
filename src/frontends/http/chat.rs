//! `POST /v1/chat/completions`: the client's conversation becomes one
//! [`Ask`] of the persona named as the model; the answer comes back whole
//! or as server-sent chunks.
//!
//! The last message must be the user's; the ones before it are the history
//! (a system message replaces the persona's system prompt). loopd's own
//! request options may ride along (read by the one reader, see [`options`]),
//! and `thoughts` (stream the loop's reasoning as `reasoning_content`).
//! Tools a client defines itself make one model turn with them instead of
//! the persona's loop ([`client_tools`]).

use super::{client_tools, error, Served};
use crate::brain::Role;
use crate::daemon::{Ask, AskError, Caller, Ticket};
use crate::frontends::outgoing::{Channel, Outgoing};
use crate::frontends::request::AskOptions;
use crate::openai::{
    self, ChatCompletion, ChatCompletionChunk, ChatCompletionRequest, ChunkChoice,
    CompletionChoice, Content, Delta, PromptTokensDetails, Stop, Timings, WireMessage, WireUsage,
};
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{Map, Value};
use std::convert::Infallible;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;

/// What the client asked for besides the question.
pub(super) struct Wanted {
    /// The model (persona) asked for.
    pub(super) model: String,
    stream: bool,
    include_usage: bool,
    thoughts: bool,
}

/// Handles one chat completion request.
pub(super) async fn completions(
    State(served): State<Served>,
    body: Result<Json<ChatCompletionRequest>, JsonRejection>,
) -> Response {
    let request = match body {
        Ok(Json(request)) => request,
        Err(rejection) => return bad_request(&rejection.body_text()),
    };
    let (mut ask, mut wanted) = match read(request) {
        Ok(read) => read,
        Err(why) => return bad_request(&why),
    };
    served.route(&mut ask);
    if wanted.model.is_empty() {
        wanted.model = served.daemon.personas()[0].name.clone();
    }
    let ticket = match served.daemon.submit(ask) {
        Ok(ticket) => ticket,
        Err(e) => return failed(&e),
    };
    if wanted.stream {
        streamed(ticket, wanted)
    } else {
        whole(ticket, wanted).await
    }
}

/// The request as an [`Ask`], and how to answer it.
pub(super) fn read(request: ChatCompletionRequest) -> Result<(Ask, Wanted), String> {
    let client_tools = client_tools::read(&request)?;
    let mut messages = openai::from_wire(&request.messages)?;
    let last = match (&client_tools, messages.last()) {
        (Some(_), Some(_)) => {
            client_tools::check_results(&request.messages)?;
            let question = crate::engine::question(&messages).to_string();
            crate::brain::Message::user(question)
        }
        _ => messages
            .pop()
            .filter(|m| m.role == Role::User)
            .ok_or("the last message must be the user's")?,
    };
    let system: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.clone())
        .collect();
    messages.retain(|m| m.role != Role::System);
    let thoughts = match request.extra.get("thoughts") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`thoughts` must be true or false, not {other}")),
    };
    let ask = Ask {
        top_p: request.top_p,
        seed: request.seed,
        stop: request.stop.clone().map(Stop::strings).unwrap_or_default(),
        system_prompt: (!system.is_empty()).then(|| system.join("\n\n")),
        history: Some(messages),
        client_tools,
        ..options(&request)?.ask(Caller::http(), last.content)?
    };
    let wanted = Wanted {
        model: request.model,
        stream: request.stream,
        include_usage: request.stream_options.is_some_and(|o| o.include_usage),
        thoughts,
    };
    Ok((ask, wanted))
}

/// The request options a body may carry as they are.
const RIDING_ALONG: &[&str] = &[
    "loop",
    "toolboxes",
    "session",
    "max_turns",
    "max_total_tokens",
    "timeout",
];

/// loopd's request options as this wire carries them: the model names the
/// persona, `user` the session, `toolboxes` the toolboxes (`tools` are the
/// client's own); `loop`, `session` and the limits ride along as they are.
fn options(request: &ChatCompletionRequest) -> Result<AskOptions, String> {
    let mut fields: Map<String, Value> = request
        .extra
        .iter()
        .filter(|(key, _)| RIDING_ALONG.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if !fields.contains_key("session") {
        if let Some(user) = request.extra.get("user") {
            fields.insert("session".into(), user.clone());
        }
    }
    if !request.model.is_empty() {
        fields.insert("persona".into(), request.model.clone().into());
    }
    let max_tokens = request.max_completion_tokens.or(request.max_tokens);
    fields.insert("max_tokens".into(), max_tokens.into());
    fields.insert(
        "temperature".into(),
        request.temperature.map(f64::from).into(),
    );
    AskOptions::read(&fields)
}

/// The whole answer as one `chat.completion`. A client that goes away
/// first (the handler is dropped) cancels the request.
async fn whole(mut ticket: Ticket, wanted: Wanted) -> Response {
    let _cancel_if_the_client_goes = ticket.canceller().drop_guard();
    let answer = match ticket.finish().await {
        Ok(answer) => answer,
        Err(e) => return failed(&e),
    };
    let completion = ChatCompletion {
        id: completion_id(),
        object: "chat.completion".into(),
        created: now(),
        model: wanted.model,
        choices: vec![CompletionChoice {
            index: 0,
            message: WireMessage {
                role: "assistant".into(),
                content: match answer.tool_calls.is_empty() {
                    true => Some(Content::Text(answer.answer.clone())),
                    false => None,
                },
                tool_calls: client_tools::wire_calls(&answer.tool_calls),
                ..WireMessage::default()
            },
            finish_reason: Some(finish_reason(&answer).into()),
        }],
        usage: usage(&answer.stats),
        timings: Some(timings(&answer.stats)),
    };
    Json(completion).into_response()
}

/// The answer as server-sent chunks, ended by `[DONE]`. A client that
/// goes away cancels the request.
fn streamed(mut ticket: Ticket, wanted: Wanted) -> Response {
    let (events, mut receiver) = mpsc::channel::<Event>(64);
    tokio::spawn(async move {
        let cancel = ticket.canceller();
        let _cancel_when_gone = cancel.clone().drop_guard();
        let chunks = Chunks {
            id: completion_id(),
            created: now(),
            model: wanted.model.clone(),
        };
        let send = |event: Event| {
            let events = events.clone();
            async move { events.send(event).await.is_ok() }
        };
        let role = Delta {
            role: Some("assistant".into()),
            content: Some(String::new()),
            ..Delta::default()
        };
        if !send(chunks.event(role, None)).await {
            return;
        }
        loop {
            let event = tokio::select! {
                event = ticket.next_event() => event,
                _ = events.closed() => return,
            };
            let Some(event) = event else { break };
            let delta = match Outgoing::from(event) {
                Outgoing::Token {
                    channel: Channel::Answer,
                    text,
                } => Delta {
                    content: Some(text),
                    ..Delta::default()
                },
                Outgoing::Token {
                    channel: Channel::Thought,
                    text,
                } if wanted.thoughts => Delta {
                    reasoning_content: Some(text),
                    ..Delta::default()
                },
                _ => continue,
            };
            if !send(chunks.event(delta, None)).await {
                return;
            }
        }
        match ticket.finish().await {
            Ok(answer) => {
                let calls = client_tools::call_deltas(&answer.tool_calls);
                if !calls.is_empty() {
                    let delta = Delta {
                        tool_calls: calls,
                        ..Delta::default()
                    };
                    if !send(chunks.event(delta, None)).await {
                        return;
                    }
                }
                let last = chunks.event(Delta::default(), Some(finish_reason(&answer)));
                if !send(last).await {
                    return;
                }
                if wanted.include_usage {
                    let mut chunk = chunks.chunk(None, None);
                    chunk.usage = Some(usage(&answer.stats));
                    if !send(json_event(&chunk)).await {
                        return;
                    }
                }
            }
            Err(e) => {
                let body = serde_json::json!({
                    "error": {"message": e.to_string(), "type": kind(&e), "code": e.name()}
                });
                if !send(Event::default().data(body.to_string())).await {
                    return;
                }
            }
        }
        send(Event::default().data("[DONE]")).await;
        drop(ticket);
    });
    let stream = futures_util::stream::poll_fn(move |cx| {
        receiver
            .poll_recv(cx)
            .map(|event| event.map(Ok::<_, Infallible>))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// What each chunk of one completion shares.
struct Chunks {
    id: String,
    created: u64,
    model: String,
}

impl Chunks {
    fn chunk(&self, delta: Option<Delta>, finish: Option<&str>) -> ChatCompletionChunk {
        ChatCompletionChunk {
            id: self.id.clone(),
            object: "chat.completion.chunk".into(),
            created: self.created,
            model: self.model.clone(),
            choices: delta
                .map(|delta| ChunkChoice {
                    index: 0,
                    delta,
                    finish_reason: finish.map(str::to_string),
                })
                .into_iter()
                .collect(),
            ..ChatCompletionChunk::default()
        }
    }

    fn event(&self, delta: Delta, finish: Option<&str>) -> Event {
        json_event(&self.chunk(Some(delta), finish))
    }
}

fn json_event(chunk: &ChatCompletionChunk) -> Event {
    Event::default().data(serde_json::to_string(chunk).unwrap_or_default())
}

/// The loop's token counts, over all its LLM calls.
fn usage(stats: &Value) -> WireUsage {
    let count = |key: &str| stats[key].as_u64().unwrap_or(0) as usize;
    let (prompt, completion) = (count("prompt_tokens"), count("completion_tokens"));
    WireUsage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: Some(PromptTokensDetails {
            cached_tokens: count("cached_tokens"),
        }),
    }
}

/// `tool_calls` when the answer is calls for the client to make, else `stop`.
pub(super) fn finish_reason(answer: &crate::daemon::Answer) -> &'static str {
    match answer.tool_calls.is_empty() {
        true => "stop",
        false => "tool_calls",
    }
}

/// The model's own time over all the loop's LLM calls, as llama.cpp's
/// server reports it, so a client can tell it from what the request cost
/// around it.
fn timings(stats: &Value) -> Timings {
    let count = |key: &str| stats[key].as_u64().unwrap_or(0) as usize;
    let ms = |key: &str| stats[key].as_f64().unwrap_or(0.0);
    Timings {
        prompt_n: count("prefill_tokens"),
        prompt_ms: ms("prefill_ms"),
        predicted_n: count("completion_tokens"),
        predicted_ms: ms("decode_ms"),
        cache_n: count("cached_tokens"),
    }
}

fn completion_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("chatcmpl-loopd-{}-{n}", now())
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn bad_request(why: &str) -> Response {
    error(StatusCode::BAD_REQUEST, "invalid_request_error", None, why)
}

/// The error's OpenAI type.
fn kind(e: &AskError) -> &'static str {
    match e {
        AskError::UnknownLoop(_) | AskError::UnknownPersona(_) | AskError::InvalidArgs(_) => {
            "invalid_request_error"
        }
        AskError::Busy(_) => "rate_limit_error",
        _ => "server_error",
    }
}

/// A request that did not get an answer, as an HTTP error.
fn failed(e: &AskError) -> Response {
    let status = match e {
        AskError::UnknownLoop(_) | AskError::InvalidArgs(_) => StatusCode::BAD_REQUEST,
        AskError::UnknownPersona(_) => StatusCode::NOT_FOUND,
        AskError::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
        AskError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        AskError::Cancelled(_) | AskError::BudgetExhausted(_) | AskError::ModelError(_) => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
    };
    error(status, kind(e), Some(e.name()), &e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(body: Value) -> Result<(Ask, Wanted), String> {
        read(serde_json::from_value(body).unwrap())
    }

    #[test]
    fn a_conversation_becomes_one_ask_with_its_history() {
        let (ask, wanted) = request(json!({
            "model": "quick",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "What is 2+2?"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 40,
            "loop": "react",
            "toolboxes": ["math"],
            "thoughts": true,
            "user": "kitchen",
            "max_turns": 3,
            "timeout": 9
        }))
        .unwrap();
        assert_eq!(ask.prompt, "What is 2+2?");
        assert_eq!(ask.persona.as_deref(), Some("quick"));
        assert_eq!(ask.system_prompt.as_deref(), Some("Be brief."));
        assert_eq!(ask.history.as_ref().unwrap().len(), 2);
        assert_eq!(ask.loop_id.as_deref(), Some("react"));
        assert_eq!(ask.tools, Some(vec!["math".to_string()]));
        assert_eq!(ask.max_tokens, Some(40));
        assert_eq!(ask.session.as_deref(), Some("kitchen"));
        assert_eq!(ask.limits.max_turns, Some(3));
        assert_eq!(ask.limits.timeout.map(|t| t.as_secs()), Some(9));
        assert_eq!(ask.caller, Caller::http());
        assert!(wanted.stream && wanted.include_usage && wanted.thoughts);
    }

    #[test]
    fn requests_loopd_cannot_answer_say_why() {
        let last_not_user = request(json!({"messages": [{"role": "assistant", "content": "x"}]}));
        assert_eq!(
            last_not_user.err().unwrap(),
            "the last message must be the user's"
        );
        let bad_loop = request(json!({"messages": [{"role": "user", "content": "x"}], "loop": 3}));
        assert!(bad_loop.err().unwrap().contains("`loop` must be"));
        let bad_role = request(json!({"messages": [{"role": "robot", "content": "x"}]}));
        assert!(bad_role.err().unwrap().contains("robot"));
        let bad_boxes =
            request(json!({"messages": [{"role": "user", "content": "x"}], "toolboxes": 5}));
        assert_eq!(
            bad_boxes.err().unwrap(),
            "`toolboxes` must be a list of strings, not 5"
        );
    }
}

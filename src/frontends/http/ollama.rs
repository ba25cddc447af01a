//! Ollama's API on the same server (`/api/chat`, `/api/generate`,
//! `/api/tags`, `/api/show`, `/api/ps`, `/api/version`), for the clients
//! that speak it: Home Assistant's Ollama integration, Open WebUI, the
//! `ollama` Python client. A request is rewritten into the OpenAI shape
//! and read by [`chat::read`](super::chat) like any other, so both APIs
//! take the same fields, tools and errors; answers stream as NDJSON.
//! Personas are the models (`default` and `default:latest` are the same).

use super::chat::{self, finish_reason};
use super::Served;
use crate::daemon::{Answer, AskError, Ticket};
use crate::engine::parse::ToolCall;
use crate::frontends::outgoing::Outgoing;
use crate::openai::{
    ChatCompletionRequest, Content, Stop, WireFunction, WireMessage, WireToolCall,
};
use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::time::Instant;
use tokio::sync::mpsc;

/// The Ollama version loopd answers as (clients check for tool support).
const VERSION: &str = "0.12.0";

/// What `/api/chat` and `/api/generate` both take.
#[derive(Debug, Deserialize)]
struct Common {
    #[serde(default)]
    model: String,
    #[serde(default)]
    format: Option<Value>,
    #[serde(default)]
    options: Option<Map<String, Value>>,
    #[serde(default)]
    stream: Option<bool>,
    /// Accepted; the model stays loaded.
    #[serde(default, rename = "keep_alive")]
    _keep_alive: Option<Value>,
}

/// `POST /api/chat`.
#[derive(Debug, Deserialize)]
pub(super) struct ChatRequest {
    #[serde(flatten)]
    common: Common,
    #[serde(default)]
    messages: Vec<OllamaMessage>,
    #[serde(default)]
    tools: Vec<Value>,
}

/// One message, Ollama's way: tool calls carry arguments as an object and
/// no id; a tool result follows the calls in order.
#[derive(Debug, Deserialize)]
struct OllamaMessage {
    role: String,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<OllamaToolCall>,
}

#[derive(Debug, Deserialize)]
struct OllamaToolCall {
    function: OllamaFunction,
}

#[derive(Debug, Deserialize)]
struct OllamaFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

/// `POST /api/generate`.
#[derive(Debug, Deserialize)]
pub(super) struct GenerateRequest {
    #[serde(flatten)]
    common: Common,
    #[serde(default)]
    prompt: String,
    #[serde(default)]
    system: Option<String>,
}

/// `POST /api/show`.
#[derive(Debug, Deserialize)]
pub(super) struct ShowRequest {
    #[serde(default)]
    model: String,
    #[serde(default)]
    name: String,
}

/// Handles `/api/chat`.
pub(super) async fn chat(
    State(served): State<Served>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> Response {
    let request = match body {
        Ok(Json(request)) => request,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, &rejection.body_text()),
    };
    let mut messages = Vec::new();
    let mut pending: std::collections::VecDeque<String> = Default::default();
    for (i, message) in request.messages.into_iter().enumerate() {
        match as_wire(i, message, &mut pending) {
            Ok(wire) => messages.push(wire),
            Err(why) => return error(StatusCode::BAD_REQUEST, &why),
        }
    }
    let wire = ChatCompletionRequest {
        messages,
        tools: request.tools,
        ..ChatCompletionRequest::default()
    };
    answer(&served, wire, request.common, Shape::Chat).await
}

/// Handles `/api/generate`.
pub(super) async fn generate(
    State(served): State<Served>,
    body: Result<Json<GenerateRequest>, JsonRejection>,
) -> Response {
    let request = match body {
        Ok(Json(request)) => request,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, &rejection.body_text()),
    };
    let mut messages = Vec::new();
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        messages.push(text_message("system", system));
    }
    messages.push(text_message("user", request.prompt));
    let wire = ChatCompletionRequest {
        messages,
        ..ChatCompletionRequest::default()
    };
    answer(&served, wire, request.common, Shape::Generate).await
}

/// `GET /api/tags`: every persona, then the model, as installed models.
pub(super) async fn tags(State(served): State<Served>) -> Json<Value> {
    let models: Vec<Value> = served
        .model_names()
        .iter()
        .map(|name| model_entry(&served, name))
        .collect();
    Json(json!({ "models": models }))
}

/// `GET /api/ps`: the personas and the model, all loaded.
pub(super) async fn ps(State(served): State<Served>) -> Json<Value> {
    let models: Vec<Value> = served
        .model_names()
        .iter()
        .map(|name| {
            let mut entry = model_entry(&served, name);
            entry["expires_at"] = json!("2999-01-01T00:00:00Z");
            entry["size_vram"] = json!(0);
            entry
        })
        .collect();
    Json(json!({ "models": models }))
}

/// `POST /api/show`: one persona's or the model's details.
pub(super) async fn show(
    State(served): State<Served>,
    body: Result<Json<ShowRequest>, JsonRejection>,
) -> Response {
    let request = match body {
        Ok(Json(request)) => request,
        Err(rejection) => return error(StatusCode::BAD_REQUEST, &rejection.body_text()),
    };
    let asked = if request.model.is_empty() {
        request.name
    } else {
        request.model
    };
    let name = model_name(&asked);
    let persona = served.daemon.personas().iter().find(|p| p.name == name);
    let system = match persona {
        Some(persona) => persona.description.clone(),
        None if *name == *served.model_id => String::new(),
        None => return error(StatusCode::NOT_FOUND, &format!("model '{asked}' not found")),
    };
    let info = served.daemon.brain_info();
    Json(json!({
        "modelfile": "",
        "parameters": "",
        "template": "",
        "system": system,
        "details": details(&served),
        "model_info": {"general.architecture": info.arch, "general.name": info.model,
                        "context_length": info.context_length},
        "capabilities": ["completion", "tools"],
    }))
    .into_response()
}

/// `GET /api/version`.
pub(super) async fn version() -> Json<Value> {
    Json(json!({ "version": VERSION }))
}

fn model_entry(served: &Served, persona: &str) -> Value {
    let name = format!("{persona}:latest");
    json!({
        "name": name,
        "model": name,
        "modified_at": chrono::Utc::now().to_rfc3339(),
        "size": 0,
        "digest": format!("{:064x}", fxhash(persona)),
        "details": details(served),
    })
}

fn details(served: &Served) -> Value {
    let info = served.daemon.brain_info();
    json!({"format": "gguf", "family": info.arch, "families": [info.arch],
           "parameter_size": "", "quantization_level": ""})
}

/// A stable number for a name (a digest clients can compare).
fn fxhash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A persona name without Ollama's `:latest` tag.
fn model_name(model: &str) -> String {
    model.strip_suffix(":latest").unwrap_or(model).to_string()
}

fn text_message(role: &str, text: String) -> WireMessage {
    WireMessage {
        role: role.into(),
        content: Some(Content::Text(text)),
        ..WireMessage::default()
    }
}

/// Message `i` in the OpenAI shape: each call gets an id, which the tool
/// messages after it name in order (`pending`).
fn as_wire(
    i: usize,
    message: OllamaMessage,
    pending: &mut std::collections::VecDeque<String>,
) -> Result<WireMessage, String> {
    let mut wire = text_message(&message.role, message.content.unwrap_or_default());
    if message.role == "tool" {
        wire.tool_call_id = Some(
            pending
                .pop_front()
                .ok_or("a `tool` message follows no assistant message with `tool_calls`")?,
        );
    }
    for (j, call) in message.tool_calls.into_iter().enumerate() {
        let id = format!("call_{i}_{j}");
        pending.push_back(id.clone());
        let arguments = match call.function.arguments {
            Value::Null => "{}".to_string(),
            Value::String(text) => text,
            other => other.to_string(),
        };
        wire.tool_calls.push(WireToolCall {
            id,
            kind: "function".into(),
            function: WireFunction {
                name: call.function.name,
                arguments,
            },
        });
    }
    Ok(wire)
}

/// `format` and `options` (temperature, num_predict, stop, seed, top_p;
/// num_ctx and the rest accepted) onto the OpenAI request.
fn with_options(
    mut wire: ChatCompletionRequest,
    common: Common,
) -> Result<ChatCompletionRequest, String> {
    wire.model = model_name(&common.model);
    match common.format {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(Value::String(s)) if s == "json" => {
            wire.extra
                .insert("response_format".into(), json!({"type": "json_object"}));
        }
        Some(schema @ Value::Object(_)) => {
            wire.extra.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": "format", "schema": schema}}),
            );
        }
        Some(other) => {
            return Err(format!(
                "`format` must be \"json\" or a JSON schema, not {other}"
            ))
        }
    }
    let options = common.options.unwrap_or_default();
    let number = |key: &str| -> Result<Option<f64>, String> {
        match options.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(format!("option `{key}` must be a number, not {other}")),
        }
    };
    wire.temperature = number("temperature")?.map(|t| t as f32);
    wire.top_p = number("top_p")?.map(|t| t as f32);
    wire.seed = number("seed")?.map(|s| s as u64);
    number("num_ctx")?;
    wire.max_tokens = number("num_predict")?
        .filter(|n| *n > 0.0)
        .map(|n| n.min(u32::MAX as f64) as usize);
    wire.stop = match options.get("stop") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(Stop::One(s.clone())),
        Some(Value::Array(items)) => Some(Stop::Many(
            items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(String::from)
                        .ok_or("option `stop` must hold strings")
                })
                .collect::<Result<_, _>>()?,
        )),
        Some(other) => return Err(format!("option `stop` must be strings, not {other}")),
    };
    Ok(wire)
}

/// Which of Ollama's two answer shapes.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// `{"message": {"role", "content", "tool_calls"}}`.
    Chat,
    /// `{"response": "…"}`.
    Generate,
}

/// Runs the request, with the `common` fields applied, and answers in
/// `shape`, streamed as NDJSON (the default) or whole.
async fn answer(
    served: &Served,
    wire: ChatCompletionRequest,
    common: Common,
    shape: Shape,
) -> Response {
    let started = Instant::now();
    let stream = common.stream.unwrap_or(true);
    let read = with_options(wire, common).and_then(chat::read);
    let (mut ask, wanted) = match read {
        Ok(read) => read,
        Err(why) => return error(StatusCode::BAD_REQUEST, &why),
    };
    let model = match wanted.model.is_empty() {
        true => served.daemon.personas()[0].name.clone(),
        false => wanted.model.clone(),
    };
    ask.persona = Some(model.clone());
    served.route(&mut ask);
    let ticket = match served.daemon.submit(ask) {
        Ok(ticket) => ticket,
        Err(e) => return failed(&e),
    };
    let lines = Lines {
        model: format!("{model}:latest"),
        shape,
        started,
    };
    if stream {
        streamed(ticket, lines)
    } else {
        whole(ticket, lines).await
    }
}

/// How one answer's lines are written.
struct Lines {
    model: String,
    shape: Shape,
    started: Instant,
}

impl Lines {
    fn piece(&self, text: &str, calls: &[ToolCall], done: Option<&Answer>) -> Value {
        let mut line = json!({
            "model": self.model,
            "created_at": chrono::Utc::now().to_rfc3339(),
            "done": done.is_some(),
        });
        match self.shape {
            Shape::Chat => {
                let mut message = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
                        .collect();
                }
                line["message"] = message;
            }
            Shape::Generate => line["response"] = json!(text),
        }
        if let Some(answer) = done {
            let count = |key: &str| answer.stats[key].as_u64().unwrap_or(0);
            let nanos = self.started.elapsed().as_nanos() as u64;
            line["done_reason"] = json!(match finish_reason(answer) {
                "tool_calls" => "stop",
                other => other,
            });
            line["total_duration"] = json!(nanos);
            line["load_duration"] = json!(0);
            let nanos_of = |key: &str| (answer.stats[key].as_f64().unwrap_or(0.0) * 1e6) as u64;
            line["prompt_eval_count"] = json!(count("prompt_tokens"));
            line["prompt_eval_duration"] = json!(nanos_of("prefill_ms"));
            line["eval_count"] = json!(count("completion_tokens"));
            line["eval_duration"] = json!(nanos_of("decode_ms"));
        }
        line
    }
}

async fn whole(mut ticket: Ticket, lines: Lines) -> Response {
    let _cancel_if_the_client_goes = ticket.canceller().drop_guard();
    match ticket.finish().await {
        Ok(answer) => {
            Json(lines.piece(&answer.answer, &answer.tool_calls, Some(&answer))).into_response()
        }
        Err(e) => failed(&e),
    }
}

/// The answer as NDJSON lines: the pieces as they come, the calls, then a
/// last line with `done: true` (or `{"error"}`). A client that goes away
/// cancels the request.
fn streamed(mut ticket: Ticket, lines: Lines) -> Response {
    let (out, mut receiver) = mpsc::channel::<String>(64);
    tokio::spawn(async move {
        let _cancel_when_gone = ticket.canceller().drop_guard();
        let send = |line: Value| {
            let out = out.clone();
            async move { out.send(format!("{line}\n")).await.is_ok() }
        };
        loop {
            let event = tokio::select! {
                event = ticket.next_event() => event,
                _ = out.closed() => return,
            };
            let Some(event) = event else { break };
            if let Some(text) = Outgoing::answer_text(event) {
                if !send(lines.piece(&text, &[], None)).await {
                    return;
                }
            }
        }
        match ticket.finish().await {
            Ok(answer) => {
                if !answer.tool_calls.is_empty()
                    && !send(lines.piece("", &answer.tool_calls, None)).await
                {
                    return;
                }
                send(lines.piece("", &[], Some(&answer))).await;
            }
            Err(e) => {
                send(json!({"error": e.to_string()})).await;
            }
        }
        drop(ticket);
    });
    let stream = futures_util::stream::poll_fn(move |cx| {
        receiver
            .poll_recv(cx)
            .map(|line| line.map(Ok::<_, std::convert::Infallible>))
    });
    let mut response = Response::new(Body::from_stream(stream));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/x-ndjson"),
    );
    response
}

/// Ollama's error shape: `{"error": "…"}`.
fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

fn failed(e: &AskError) -> Response {
    let status = match e {
        AskError::UnknownPersona(_) => StatusCode::NOT_FOUND,
        AskError::UnknownLoop(_) | AskError::InvalidArgs(_) => StatusCode::BAD_REQUEST,
        AskError::Busy(_) | AskError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let message = match e {
        AskError::UnknownPersona(name) => format!("model '{name}' not found"),
        other => other.to_string(),
    };
    error(status, &message)
}

//! loopd as an OpenAI-compatible HTTP server (`loopd serve --http
//! HOST:PORT`): `GET /v1/models` lists the personas as models, then the
//! model itself, and `POST /v1/chat/completions` runs the named persona's
//! loop on the daemon's one queue, streaming the answer as chunks (thoughts
//! too, as `reasoning_content`, when the request sets `"thoughts": true`).
//! Named by its own id (its GGUF name in lower case, words joined by `-`),
//! the model answers bare: one turn with the client's messages and tools,
//! no persona's prompt, loop or toolboxes.
//!
//! Loopback needs no key; beyond it, every request must carry
//! `Authorization: Bearer <key>` with the key from the configured file.

mod chat;
mod client_tools;
mod ollama;

use crate::daemon::Daemon;
use crate::frontends::{guard, origin};
use crate::openai::{ErrorBody, ErrorDetail, ModelEntry, ModelList};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Where the HTTP front end listens and the key it asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpOptions {
    /// The TCP address.
    pub listen: SocketAddr,
    /// The bearer key clients must send; required beyond loopback.
    pub api_key: Option<String>,
}

impl HttpOptions {
    /// Checks that an address beyond loopback has a key.
    pub fn check(&self) -> Result<(), String> {
        if !self.listen.ip().is_loopback() && self.api_key.is_none() {
            return Err(format!(
                "--http {} is beyond loopback: give clients a key with --http-key-file",
                self.listen
            ));
        }
        Ok(())
    }
}

/// Reads a chat-completions request body as the handler does: the
/// [`Ask`](crate::daemon::Ask) it becomes, or why it is refused (HTTP 400).
pub fn read_chat_body(body: &[u8]) -> Result<crate::daemon::Ask, String> {
    let request: crate::openai::ChatCompletionRequest =
        serde_json::from_slice(body).map_err(|e| e.to_string())?;
    chat::read(request).map(|(ask, _)| ask)
}

/// What every handler shares.
#[derive(Clone)]
struct Served {
    daemon: Daemon,
    api_key: Option<Arc<str>>,
    /// The model's own id among the personas ([`model_id`]).
    model_id: Arc<str>,
}

/// A model's id as the APIs list it: its name in lower case, words joined
/// by `-` (`qwen2.5-coder-0.5b-instruct-awq`).
fn model_id(name: &str) -> String {
    name.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

impl Served {
    /// Every name a client may ask for: the personas, the default first,
    /// then the model's own id (unless a persona has the same name).
    fn model_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .daemon
            .personas()
            .iter()
            .map(|p| p.name.clone())
            .collect();
        if !names.iter().any(|n| **n == *self.model_id) {
            names.push(self.model_id.to_string());
        }
        names
    }

    /// Makes `ask` a bare model turn when it names the model rather than a
    /// persona: the default persona's brain, with no system prompt but the
    /// client's, no toolboxes, and the plain loop (the client's tools, when
    /// it sends some, make it a client-tools turn as with any persona).
    fn route(&self, ask: &mut crate::daemon::Ask) {
        let model = &*self.model_id;
        let is_persona = self.daemon.personas().iter().any(|p| p.name == model);
        if ask.persona.as_deref() != Some(model) || is_persona {
            return;
        }
        ask.persona = None;
        ask.loop_id = Some("none".into());
        ask.tools = Some(Vec::new());
        ask.system_prompt.get_or_insert_with(String::new);
    }
}

/// Serves until `stop` is cancelled; returns once the address is bound, an
/// error when it cannot be.
pub async fn serve(
    daemon: Daemon,
    options: HttpOptions,
    stop: CancellationToken,
) -> Result<tokio::task::JoinHandle<()>, String> {
    options.check()?;
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|e| format!("http: cannot listen on {}: {e}", options.listen))?;
    let served = Served {
        model_id: model_id(&daemon.brain_info().model).into(),
        daemon,
        api_key: options.api_key.map(Arc::from),
    };
    let app = Router::new()
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", post(chat::completions))
        .route("/api/chat", post(ollama::chat))
        .route("/api/generate", post(ollama::generate))
        .route("/api/tags", get(ollama::tags))
        .route("/api/ps", get(ollama::ps))
        .route("/api/show", post(ollama::show))
        .route("/api/version", get(ollama::version))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(served.clone(), authorize))
        .layer(middleware::from_fn(timed))
        .with_state(served);
    tracing::info!(
        "http: OpenAI-compatible API on http://{}/v1",
        options.listen
    );
    Ok(tokio::spawn(accept(listener, app, stop)))
}

/// Serves each connection with HTTP/1.1 under [`guard`]'s bounds: at most
/// [`guard::MAX_CONNECTIONS`] at once, headers within
/// [`guard::HEADER_READ`], an idle connection closed after
/// [`guard::HEADER_READ`] as well. On `stop`, each connection finishes the
/// request it is answering and closes.
async fn accept(listener: tokio::net::TcpListener, app: Router, stop: CancellationToken) {
    let slots = guard::Slots::new("http");
    let connections = tokio_util::task::TaskTracker::new();
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(guard::HEADER_READ);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!("http: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = stop.cancelled() => break,
        };
        let Some(slot) = slots.take(peer) else {
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = http1.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let stop = stop.clone();
        connections.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                _ = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = served {
                tracing::debug!("http: {peer}: {e}");
            }
            drop(slot);
        });
    }
    connections.close();
    connections.wait().await;
}

/// Refuses web pages ([`origin`]: a `Host` that is a name rather than
/// this machine, an `Origin` from another site) with 403; then lets a
/// request through when no key is set or it carries the key.
async fn authorize(State(served): State<Served>, request: Request, next: Next) -> Response {
    if let Some(refused) = web_page(&request) {
        tracing::warn!("http: refused a web page ({refused})");
        return error(
            StatusCode::FORBIDDEN,
            "invalid_request_error",
            Some("forbidden_origin"),
            "web pages may not use this API: the Host must be this machine's address or localhost, and an Origin one of its pages",
        );
    }
    let Some(key) = &served.api_key else {
        return next.run(request).await;
    };
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if given.is_some_and(|given| guard::same_secret(key, given.trim())) {
        return next.run(request).await;
    }
    error(
        StatusCode::UNAUTHORIZED,
        "invalid_api_key",
        None,
        "a valid `Authorization: Bearer` key is needed",
    )
}

/// The `Origin` and `Host` of a request from a web page ([`origin`]).
fn web_page(request: &Request) -> Option<String> {
    let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok());
    let (host, from) = (header(header::HOST), header(header::ORIGIN));
    let allowed = origin::host_allowed(host) && origin::origin_allowed(from, host);
    (!allowed).then(|| {
        format!(
            "Origin {}, Host {}",
            from.unwrap_or("none"),
            host.unwrap_or("none")
        )
    })
}

/// Adds `Server-Timing: total;dur=MS`, the server's own time from the
/// request to its response (for a whole answer, all of it; for a stream,
/// until the first byte), so a client can tell what loopd adds to the
/// model's time (`timings`).
async fn timed(request: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    let mut response = next.run(request).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    if let Ok(value) = header::HeaderValue::from_str(&format!("total;dur={ms:.2}")) {
        response.headers_mut().insert("server-timing", value);
    }
    response
}

/// `GET /v1/models`: the personas, the default first, then the model.
async fn models(State(served): State<Served>) -> Json<ModelList> {
    let data = served
        .model_names()
        .into_iter()
        .map(|id| ModelEntry {
            id,
            object: "model".into(),
            created: 0,
            owned_by: "loopd".into(),
        })
        .collect();
    Json(ModelList {
        object: "list".into(),
        data,
    })
}

async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        None,
        "loopd serves /v1/models and /v1/chat/completions",
    )
}

/// An OpenAI-shaped error response.
fn error(status: StatusCode, kind: &str, code: Option<&str>, message: &str) -> Response {
    let body = ErrorBody {
        error: ErrorDetail {
            message: message.to_string(),
            kind: kind.to_string(),
            code: code.map(str::to_string),
        },
    };
    (status, Json(body)).into_response()
}

//! A brain on another machine: any server that speaks OpenAI's
//! `/v1/chat/completions` with server-sent events (llama.cpp's
//! `llama-server`, vLLM, Ollama).
//!
//! Each generation is one streamed request. Until the first chunk arrives a
//! refused connection, a timeout or a 429/5xx answer is retried with
//! back-off; after it, a failure ends the generation. Cancelling (or
//! dropping the [`Generation`]) closes the stream, which tells the server to
//! stop. A reply's native tool calls come back as
//! [`Completion::tool_calls`]; the usage (and llama.cpp's timings) become
//! loopd's [`Usage`]. The loops' grammars are sent only to servers that
//! follow Lark grammars ([`GrammarDialect`]); otherwise the brain says it is
//! unconstrained.

use super::{
    Brain, BrainError, BrainInfo, ChatRequest, Completion, EndReason, FunctionCall, Generation,
    GenerationEvent, Piece, Usage,
};
use crate::openai::{
    self, ChatCompletionChunk, ChatCompletionRequest, ModelList, Stop, StreamOptions, WireUsage,
};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// How a server takes a loop's grammar (Lark text in llguidance's dialect).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GrammarDialect {
    /// It does not: loops run unconstrained.
    #[default]
    None,
    /// llama.cpp built with llguidance: `grammar: "%llguidance {}\n<lark>"`.
    LlamaCppLlguidance,
    /// vLLM: `structured_outputs: {"grammar": <lark>}`.
    Vllm,
}

/// Where the remote brain is and how to talk to it.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteBrainConfig {
    /// The server's base URL (`http://host:8080` or `…/v1`).
    pub url: String,
    /// The server's model; without it, the first one `/v1/models` lists.
    pub model: Option<String>,
    /// Sent as `Authorization: Bearer …`.
    pub api_key: Option<String>,
    /// How the server takes grammars.
    pub grammar: GrammarDialect,
    /// Longest wait for the first chunk, retries included.
    pub first_chunk_timeout: Duration,
    /// Longest wait between two chunks.
    pub idle_timeout: Duration,
    /// Tries after the first before the first chunk.
    pub retries: usize,
}

impl RemoteBrainConfig {
    /// A config for `url` with the default timeouts and retries.
    pub fn new(url: impl Into<String>) -> Self {
        RemoteBrainConfig {
            url: url.into(),
            model: None,
            api_key: None,
            grammar: GrammarDialect::None,
            first_chunk_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(30),
            retries: 3,
        }
    }
}

/// `brain = { url, model, api_key_file, fallback, grammar, timeout_s,
/// retries }` in the daemon config or a persona.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemoteBrainSettings {
    /// The server's base URL.
    pub url: String,
    /// The server's model (default: the first it lists).
    #[serde(default)]
    pub model: Option<String>,
    /// A file holding the API key (default: `$LOOPD_BRAIN_API_KEY`).
    #[serde(default)]
    pub api_key_file: Option<std::path::PathBuf>,
    /// `local`: the local model answers when the server cannot.
    #[serde(default)]
    pub fallback: Option<Fallback>,
    /// How the server takes grammars.
    #[serde(default)]
    pub grammar: GrammarDialect,
    /// Longest wait for the first chunk, in seconds (default 60).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Tries after the first, before the first chunk (default 3).
    #[serde(default)]
    pub retries: Option<usize>,
}

/// What answers when the remote brain cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// The local model.
    Local,
}

/// Where the API key comes from when no file is named.
pub const API_KEY_ENV: &str = "LOOPD_BRAIN_API_KEY";

impl RemoteBrainSettings {
    /// The connection config: the key read from its file (or the
    /// environment), the timeout checked.
    pub fn config(&self) -> Result<RemoteBrainConfig, String> {
        let mut config = RemoteBrainConfig::new(self.url.clone());
        config.model = self.model.clone();
        config.grammar = self.grammar;
        config.api_key = match &self.api_key_file {
            Some(path) => {
                let key = std::fs::read_to_string(path)
                    .map_err(|e| format!("brain api_key_file {}: {e}", path.display()))?;
                Some(key.trim().to_string()).filter(|k| !k.is_empty())
            }
            None => std::env::var(API_KEY_ENV).ok().filter(|k| !k.is_empty()),
        };
        if let Some(seconds) = self.timeout_s {
            if !(seconds > 0.0 && seconds.is_finite()) {
                return Err(format!("brain timeout_s must be above 0, not {seconds}"));
            }
            config.first_chunk_timeout = Duration::from_secs_f64(seconds);
        }
        if let Some(retries) = self.retries {
            config.retries = retries;
        }
        Ok(config)
    }
}

/// First pause between two tries; it doubles each time.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How much of an error body goes into an error message.
const ERROR_BODY_CHARS: usize = 300;

/// An OpenAI-compatible server as a [`Brain`].
pub struct RemoteBrain {
    shared: Arc<Shared>,
}

struct Shared {
    client: reqwest::Client,
    endpoint: String,
    config: RemoteBrainConfig,
    info: BrainInfo,
}

impl RemoteBrain {
    /// A brain on the server at `config.url`. Asks `/v1/models` once for
    /// the model's name when the config gives none, and for the context
    /// size llama.cpp reports; a server that is down now is not an error
    /// (it may be up when asked), unless no model name is known.
    pub async fn connect(config: RemoteBrainConfig) -> Result<RemoteBrain, BrainError> {
        let url = config.url.trim_end_matches('/');
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(BrainError::Load(format!(
                "remote brain `{url}`: the URL must start with http://"
            )));
        }
        if url.starts_with("https://") {
            return Err(BrainError::Load(format!(
                "remote brain `{url}`: loopd is built without TLS; use http:// (e.g. through a local proxy)"
            )));
        }
        let base = url.strip_suffix("/v1").unwrap_or(url).to_string();
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(|e| BrainError::Load(format!("remote brain: {e}")))?;
        let listed = list_models(&client, &base, config.api_key.as_deref()).await;
        let model = match (&config.model, &listed) {
            (Some(model), _) => model.clone(),
            (None, Ok(list)) if !list.data.is_empty() => list.data[0].id.clone(),
            (None, Ok(_)) => {
                return Err(BrainError::Load(format!(
                    "remote brain {base}: the server lists no model; name one with --model"
                )))
            }
            (None, Err(e)) => {
                return Err(BrainError::Load(format!(
                    "remote brain {base}: {e}; name the model with --model to start without it"
                )))
            }
        };
        if let Err(e) = &listed {
            tracing::warn!("remote brain {base}: {e}; going on, it may be up when asked");
        }
        let unconstrained = match config.grammar {
            GrammarDialect::None => {
                Some("the remote server is not set up to follow grammars".to_string())
            }
            _ => None,
        };
        let info = BrainInfo {
            model,
            arch: "remote".into(),
            device: base.clone(),
            threads: 0,
            context_length: 0,
            template_supports_tools: true,
            unconstrained,
            knowledge_model: None,
        };
        Ok(RemoteBrain {
            shared: Arc::new(Shared {
                client,
                endpoint: format!("{base}/v1/chat/completions"),
                config,
                info,
            }),
        })
    }
}

async fn list_models(
    client: &reqwest::Client,
    base: &str,
    api_key: Option<&str>,
) -> Result<ModelList, String> {
    let mut request = client
        .get(format!("{base}/v1/models"))
        .timeout(Duration::from_secs(5));
    if let Some(key) = api_key {
        request = request.bearer_auth(key);
    }
    let response = request
        .send()
        .await
        .map_err(|e| format!("cannot list its models: {}", describe(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("listing its models answered {status}"));
    }
    response
        .json()
        .await
        .map_err(|e| format!("its model list is unreadable: {e}"))
}

impl Brain for RemoteBrain {
    fn info(&self) -> &BrainInfo {
        &self.shared.info
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        let (events, generation) = Generation::channel();
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let shared = self.shared.clone();
                runtime.spawn(async move {
                    let outcome = tokio::select! {
                        outcome = shared.generate(&request, &cancel, &events) => outcome,
                        _ = events.closed() => return,
                    };
                    let _ = events.send(match outcome {
                        Ok(done) => GenerationEvent::Finished(done),
                        Err(e) => GenerationEvent::Failed(e),
                    });
                });
            }
            Err(_) => {
                let why = "the remote brain needs a tokio runtime".to_string();
                let _ = events.send(GenerationEvent::Failed(BrainError::Generation(why)));
            }
        }
        generation
    }
}

/// One attempt that failed before any chunk, and whether to try again.
struct Refused {
    error: String,
    retry: bool,
}

impl Shared {
    async fn generate(
        &self,
        request: &ChatRequest,
        cancel: &CancellationToken,
        events: &UnboundedSender<GenerationEvent>,
    ) -> Result<Completion, BrainError> {
        let body = self.body(request);
        let started = Instant::now();
        let deadline = started + self.config.first_chunk_timeout;
        let mut backoff = FIRST_BACKOFF;
        let mut tries = 0;
        let response = loop {
            tries += 1;
            let attempt = tokio::time::timeout_at(deadline.into(), self.send(&body));
            let refused = tokio::select! {
                _ = cancel.cancelled() => return Ok(cancelled(String::new(), Usage::default())),
                outcome = attempt => match outcome {
                    Ok(Ok(response)) => break response,
                    Ok(Err(refused)) => refused,
                    Err(_) => Refused {
                        error: format!("no answer within {:?}", self.config.first_chunk_timeout),
                        retry: false,
                    },
                },
            };
            if !refused.retry || tries > self.config.retries || Instant::now() + backoff > deadline
            {
                return Err(BrainError::Generation(format!(
                    "remote brain {}: {} (after {tries} {})",
                    self.info.device,
                    refused.error,
                    if tries == 1 { "try" } else { "tries" }
                )));
            }
            tracing::debug!(
                "remote brain: {}; trying again in {backoff:?}",
                refused.error
            );
            tokio::select! {
                _ = cancel.cancelled() => return Ok(cancelled(String::new(), Usage::default())),
                _ = tokio::time::sleep(backoff) => {}
            }
            backoff *= 2;
        };
        let prefix = &request.assistant_prefix;
        self.read(response, prefix, started, deadline, cancel, events)
            .await
    }

    /// The wire request for `request`.
    fn body(&self, request: &ChatRequest) -> ChatCompletionRequest {
        let options = &request.options;
        let mut messages = openai::to_wire(&request.messages);
        let mut extra = serde_json::Map::new();
        if !request.assistant_prefix.is_empty() {
            messages.push(openai::WireMessage {
                role: "assistant".into(),
                content: Some(openai::Content::Text(request.assistant_prefix.clone())),
                ..Default::default()
            });
            extra.insert("continue_final_message".into(), json!(true));
            extra.insert("add_generation_prompt".into(), json!(false));
        }
        if options.top_k > 0 {
            extra.insert("top_k".into(), json!(options.top_k));
        }
        if options.repetition_penalty != 1.0 {
            extra.insert(
                "repetition_penalty".into(),
                json!(options.repetition_penalty),
            );
            extra.insert("repeat_penalty".into(), json!(options.repetition_penalty));
            extra.insert("repeat_last_n".into(), json!(options.repeat_last_n));
        }
        if let Some(grammar) = &request.grammar {
            match self.config.grammar {
                GrammarDialect::None => {}
                GrammarDialect::LlamaCppLlguidance => {
                    let text = format!("%llguidance {{}}\n{}", grammar.text());
                    extra.insert("grammar".into(), Value::String(text));
                }
                GrammarDialect::Vllm => {
                    extra.insert(
                        "structured_outputs".into(),
                        json!({"grammar": grammar.text()}),
                    );
                }
            }
        }
        ChatCompletionRequest {
            model: self.info.model.clone(),
            messages,
            stream: true,
            stream_options: Some(StreamOptions {
                include_usage: true,
            }),
            max_tokens: Some(options.max_tokens),
            max_completion_tokens: None,
            temperature: Some(options.temperature),
            top_p: Some(options.top_p),
            seed: Some(options.seed),
            stop: (!options.stop.is_empty()).then(|| Stop::Many(options.stop.clone())),
            tools: request.tools.clone(),
            extra,
        }
    }

    async fn send(&self, body: &ChatCompletionRequest) -> Result<reqwest::Response, Refused> {
        let mut request = self.client.post(&self.endpoint).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| Refused {
            error: describe(&e),
            retry: e.is_connect() || e.is_timeout() || e.is_request(),
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry = status.as_u16() == 429 || status.is_server_error();
        let text = response.text().await.unwrap_or_default();
        let detail = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
            .unwrap_or(text);
        let detail: String = detail.chars().take(ERROR_BODY_CHARS).collect();
        Err(Refused {
            error: format!("the server answered {status}: {}", detail.trim()),
            retry,
        })
    }

    /// Reads the streamed chunks into pieces and the completion.
    async fn read(
        &self,
        response: reqwest::Response,
        prefix: &str,
        started: Instant,
        deadline: Instant,
        cancel: &CancellationToken,
        events: &UnboundedSender<GenerationEvent>,
    ) -> Result<Completion, BrainError> {
        let failed = |why: String| BrainError::Generation(format!("remote brain: {why}"));
        let mut stream = sse_stream::SseStream::from_bytes_stream(response.bytes_stream());
        let mut reply = Reply {
            prefix: prefix.to_string(),
            ..Reply::default()
        };
        loop {
            let wait = match reply.first_chunk {
                None => deadline,
                Some(_) => Instant::now() + self.config.idle_timeout,
            };
            let next = tokio::select! {
                _ = cancel.cancelled() => {
                    let usage = reply.usage(started, Instant::now());
                    return Ok(cancelled(reply.text, usage));
                }
                next = tokio::time::timeout_at(wait.into(), stream.next()) => next,
            };
            let event = match next {
                Err(_) => return Err(failed("the server stopped sending".into())),
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(failed(format!("the stream broke: {e}"))),
                Ok(Some(Ok(event))) => event,
            };
            let Some(data) = event.data else { continue };
            if data.trim() == "[DONE]" {
                break;
            }
            let chunk: ChatCompletionChunk = serde_json::from_str(&data)
                .map_err(|e| failed(format!("an unreadable chunk ({e}): {data}")))?;
            if let Some(error) = chunk.error {
                let message = error["message"].as_str().map(str::to_string);
                return Err(failed(message.unwrap_or_else(|| error.to_string())));
            }
            reply.first_chunk.get_or_insert_with(Instant::now);
            if let Some(text) = reply.add(chunk) {
                if events
                    .send(GenerationEvent::Piece(Piece { text, token: 0 }))
                    .is_err()
                {
                    let usage = reply.usage(started, Instant::now());
                    return Ok(cancelled(reply.text, usage));
                }
            }
        }
        let rest = reply.release();
        if !rest.is_empty() {
            let _ = events.send(GenerationEvent::Piece(Piece {
                text: rest,
                token: 0,
            }));
        }
        let usage = reply.usage(started, Instant::now());
        let end = match reply.finish_reason.as_deref() {
            Some("length") => EndReason::MaxTokens,
            _ => EndReason::EndOfTurn,
        };
        let tool_calls = reply.tool_calls();
        Ok(Completion {
            text: reply.text,
            end,
            usage,
            tool_calls,
        })
    }
}

fn cancelled(text: String, usage: Usage) -> Completion {
    Completion {
        text,
        end: EndReason::Cancelled,
        usage,
        tool_calls: Vec::new(),
    }
}

/// A reqwest error in words, with its cause (`connection refused`, …).
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// What the chunks so far add up to.
#[derive(Default)]
struct Reply {
    /// The assistant prefix sent, while the reply may still repeat it
    /// (llama.cpp's does; vLLM's does not): text is held back until it
    /// is clear, and a repeat is dropped.
    prefix: String,
    held: String,
    text: String,
    calls: Vec<(String, String)>,
    finish_reason: Option<String>,
    usage: Option<WireUsage>,
    timings: Option<openai::Timings>,
    first_chunk: Option<Instant>,
    first_piece: Option<Instant>,
}

impl Reply {
    /// Adds a chunk; returns its new text, if any.
    fn add(&mut self, chunk: ChatCompletionChunk) -> Option<String> {
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        if chunk.timings.is_some() {
            self.timings = chunk.timings;
        }
        let mut new = String::new();
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if let Some(text) = choice.delta.content {
                new.push_str(&text);
            }
            for call in choice.delta.tool_calls {
                if self.calls.len() <= call.index {
                    self.calls.resize(call.index + 1, Default::default());
                }
                if self.first_piece.is_none() {
                    self.first_piece = Some(Instant::now());
                }
                let (name, arguments) = &mut self.calls[call.index];
                if let Some(function) = call.function {
                    name.push_str(function.name.as_deref().unwrap_or(""));
                    arguments.push_str(function.arguments.as_deref().unwrap_or(""));
                }
            }
            if choice.finish_reason.is_some() {
                self.finish_reason = choice.finish_reason;
            }
        }
        let new = self.past_prefix(new);
        if new.is_empty() {
            return None;
        }
        self.first_piece.get_or_insert_with(Instant::now);
        self.text.push_str(&new);
        Some(new)
    }

    /// `new` without the part that repeats the prefix; held back while it
    /// might still be a repeat.
    fn past_prefix(&mut self, new: String) -> String {
        if self.prefix.is_empty() {
            return new;
        }
        self.held.push_str(&new);
        if self.held.len() < self.prefix.len() && self.prefix.starts_with(&self.held) {
            return String::new();
        }
        let prefix = std::mem::take(&mut self.prefix);
        let held = std::mem::take(&mut self.held);
        match held.strip_prefix(&prefix) {
            Some(rest) => rest.to_string(),
            None => held,
        }
    }

    /// Text still held back when the stream ends (a reply shorter than
    /// the prefix), now known not to repeat it.
    fn release(&mut self) -> String {
        self.prefix.clear();
        let held = std::mem::take(&mut self.held);
        self.text.push_str(&held);
        held
    }

    /// The calls the server returned; arguments that are not JSON stay text.
    fn tool_calls(&self) -> Vec<FunctionCall> {
        self.calls
            .iter()
            .filter(|(name, _)| !name.is_empty())
            .map(|(name, arguments)| FunctionCall {
                name: name.clone(),
                arguments: match arguments.trim() {
                    "" => json!({}),
                    text => serde_json::from_str(text).unwrap_or(Value::String(text.into())),
                },
            })
            .collect()
    }

    /// The server's counts and timings as loopd's usage; times the server
    /// does not report are measured here.
    fn usage(&self, started: Instant, ended: Instant) -> Usage {
        let wire = self.usage.clone().unwrap_or_default();
        let first = self.first_piece.or(self.first_chunk).unwrap_or(ended);
        let cached = match (&self.timings, &wire.prompt_tokens_details) {
            (Some(t), _) => t.cache_n,
            (None, Some(details)) => details.cached_tokens,
            (None, None) => 0,
        };
        let prompt_tokens = wire
            .prompt_tokens
            .max(self.timings.as_ref().map_or(0, |t| t.prompt_n + t.cache_n));
        let completion_tokens = wire
            .completion_tokens
            .max(self.timings.as_ref().map_or(0, |t| t.predicted_n));
        let millis = |ms: f64| Duration::from_secs_f64(ms.max(0.0) / 1000.0);
        Usage {
            prompt_tokens,
            prefill_tokens: prompt_tokens.saturating_sub(cached),
            completion_tokens,
            time_to_first_token: first - started,
            prefill_time: self
                .timings
                .as_ref()
                .map_or(first - started, |t| millis(t.prompt_ms)),
            decode_time: self
                .timings
                .as_ref()
                .map_or(ended - first, |t| millis(t.predicted_ms)),
            ..Usage::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GenerateOptions, Grammar, Message};

    fn shared(grammar: GrammarDialect) -> Shared {
        let mut config = RemoteBrainConfig::new("http://127.0.0.1:9");
        config.grammar = grammar;
        Shared {
            client: reqwest::Client::new(),
            endpoint: String::new(),
            config,
            info: BrainInfo {
                model: "m".into(),
                ..BrainInfo::default()
            },
        }
    }

    fn request() -> ChatRequest {
        ChatRequest {
            messages: vec![Message::user("Hi")],
            options: GenerateOptions {
                stop: vec!["Observation:".into()],
                ..GenerateOptions::default()
            },
            assistant_prefix: "Thought:".into(),
            grammar: Some(Grammar::lark("start: \"yes\"")),
            ..ChatRequest::default()
        }
    }

    #[test]
    fn a_request_carries_the_prefix_stops_sampling_and_grammar_where_understood() {
        let body = serde_json::to_value(shared(GrammarDialect::None).body(&request())).unwrap();
        assert_eq!(
            body["messages"][1],
            json!({"role": "assistant", "content": "Thought:"})
        );
        assert_eq!(body["stop"], json!(["Observation:"]));
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["temperature"], 0.0);
        assert_eq!(body["top_k"], 40);
        assert!(body.get("grammar").is_none() && body.get("structured_outputs").is_none());
        let llama = shared(GrammarDialect::LlamaCppLlguidance).body(&request());
        assert_eq!(llama.extra["grammar"], "%llguidance {}\nstart: \"yes\"");
        let vllm = shared(GrammarDialect::Vllm).body(&request());
        assert_eq!(
            vllm.extra["structured_outputs"]["grammar"],
            "start: \"yes\""
        );
    }

    #[test]
    fn chunks_add_up_to_text_tool_calls_and_usage() {
        let mut reply = Reply::default();
        let chunks = [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "lo"}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "a", "function": {"name": "clock", "arguments": "{\"ci"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": "ty\": \"Paris\"}"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 1, "id": "b", "function": {"name": "math", "arguments": "oops"}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
                   "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49},
                   "timings": {"prompt_n": 10, "prompt_ms": 20.0, "cache_n": 30,
                               "predicted_n": 9, "predicted_ms": 80.0}}),
        ];
        let texts: Vec<Option<String>> = chunks
            .into_iter()
            .map(|c| reply.add(serde_json::from_value(c).unwrap()))
            .collect();
        assert_eq!(texts[..2], [Some("Hel".into()), Some("lo".into())]);
        assert_eq!(reply.text, "Hello");
        let calls = reply.tool_calls();
        assert_eq!(calls[0].name, "clock");
        assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
        assert_eq!(calls[1].arguments, json!("oops"));
        let now = Instant::now();
        let usage = reply.usage(now, now);
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.prefill_tokens,
                usage.completion_tokens
            ),
            (40, 10, 9)
        );
        assert_eq!(usage.prefill_time, Duration::from_millis(20));
        assert_eq!(usage.decode_time, Duration::from_millis(80));
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn a_reply_that_repeats_the_prefix_loses_the_repeat_and_one_that_does_not_keeps_all() {
        let text = |content: &str| -> ChatCompletionChunk {
            serde_json::from_value(
                json!({"choices": [{"index": 0, "delta": {"content": content}}]}),
            )
            .unwrap()
        };
        let mut repeats = Reply {
            prefix: "Thought:".into(),
            ..Reply::default()
        };
        assert_eq!(repeats.add(text("Thou")), None);
        assert_eq!(repeats.add(text("ght: I")), Some(" I".into()));
        assert_eq!(repeats.add(text(" know")), Some(" know".into()));
        assert_eq!(repeats.text, " I know");
        let mut continues = Reply {
            prefix: "Thought:".into(),
            ..Reply::default()
        };
        assert_eq!(continues.add(text(" The")), Some(" The".into()));
        let mut short = Reply {
            prefix: "Thought:".into(),
            ..Reply::default()
        };
        assert_eq!(short.add(text("Th")), None);
        assert_eq!(short.release(), "Th");
        assert_eq!(short.text, "Th");
    }
}

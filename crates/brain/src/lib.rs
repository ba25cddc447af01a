//! The brain: something that turns a chat into a stream of generated text.
//!
//! Engines talk to a [`Brain`] only. The local brain ([`LocalBrain`]) runs a
//! quantized GGUF model with candle on a worker thread of its own; the
//! scripted brain ([`ScriptedBrain`]) replays canned replies for deterministic
//! engine tests. Both hand back a [`Generation`]: pieces of text as they are
//! produced, then one [`Completion`] with the end reason and the [`Usage`].
//! [`openai`] holds the OpenAI chat wire format that the remote brain and
//! loopd's HTTP front end both speak.

#![deny(missing_docs)]

pub mod device;
pub mod draft;
mod fallback;
pub mod fit;
pub mod gguf;
pub mod grammar;
pub mod knowledge;
pub mod kv_cache;
mod local;
pub mod model;
pub mod openai;
pub mod prefix_cache;
pub mod prompt_store;
mod remote;
pub mod sampler;
mod scripted;
pub mod stop;
pub mod template;
pub mod tokenizer;

use serde::{Deserialize, Serialize};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use fallback::FallbackBrain;
pub use grammar::{Grammar, GrammarError};
pub use knowledge::KnowledgeBrain;
pub use local::{LocalBrain, LocalBrainConfig};
pub use remote::{
    Fallback, GrammarDialect, RemoteBrain, RemoteBrainConfig, RemoteBrainSettings, API_KEY_ENV,
};
pub use scripted::ScriptedBrain;

/// Who said a message in a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the whole conversation.
    System,
    /// The person (or the loop speaking for them, e.g. an observation).
    User,
    /// The model.
    Assistant,
    /// The result of a tool call, in templates that have a tool role.
    Tool,
}

/// A tool call the assistant made, in the OpenAI/Hugging Face shape that chat
/// templates expect (`{"type":"function","function":{"name","arguments"}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallMessage {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function called and its arguments.
    pub function: FunctionCall,
}

/// Name and arguments of a called function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Tool name.
    pub name: String,
    /// Arguments as a JSON object.
    pub arguments: serde_json::Value,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: String,
    /// Tool calls made by an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallMessage>,
    /// For tool messages: the name of the tool that produced the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Message {
    /// A message with plain text content.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            name: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

/// How to generate: sampling, limits and where to stop.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// Most tokens to generate.
    pub max_tokens: usize,
    /// 0 means greedy.
    pub temperature: f32,
    /// Keep only the k most likely tokens (0 = off).
    pub top_k: usize,
    /// Keep the smallest set of tokens whose probability reaches p (1.0 = off).
    pub top_p: f32,
    /// Penalty for tokens seen in the last `repeat_last_n` tokens (1.0 = off).
    pub repetition_penalty: f32,
    /// How many recent tokens the repetition penalty looks at.
    pub repeat_last_n: usize,
    /// Seed of the sampler's random generator.
    pub seed: u64,
    /// Generation stops before any of these strings; they are not emitted.
    pub stop: Vec<String>,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            max_tokens: 512,
            temperature: 0.0,
            top_k: 40,
            top_p: 0.95,
            repetition_penalty: 1.0,
            repeat_last_n: 64,
            seed: 299_792_458,
            stop: Vec::new(),
        }
    }
}

/// Largest `max_tokens` one call may ask for.
pub const MAX_TOKENS_LIMIT: usize = 8192;

/// Highest sampling temperature accepted.
pub const MAX_TEMPERATURE: f32 = 5.0;

/// Most stop strings one call may carry: an engine's own stops plus a
/// client's (OpenAI allows a client 4).
pub const MAX_STOPS: usize = 16;

/// Longest stop string accepted, in bytes.
pub const MAX_STOP_LEN: usize = 256;

/// A sampling option outside its range; every front end, the CLI and the
/// config report it with this one check.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{option} must be {range}, not {value}")]
pub struct OutOfRange {
    /// The option's name (`temperature`, `max_tokens`, …).
    pub option: &'static str,
    /// What it may be.
    pub range: String,
    /// What it was.
    pub value: String,
}

impl GenerateOptions {
    /// Checks every option against its range.
    pub fn check(&self) -> Result<(), OutOfRange> {
        let bad = |option, range: String, value: String| {
            Err(OutOfRange {
                option,
                range,
                value,
            })
        };
        if !(1..=MAX_TOKENS_LIMIT).contains(&self.max_tokens) {
            let range = format!("between 1 and {MAX_TOKENS_LIMIT}");
            return bad("max_tokens", range, self.max_tokens.to_string());
        }
        if !(0.0..=MAX_TEMPERATURE).contains(&self.temperature) {
            let range = format!("between 0 and {MAX_TEMPERATURE}");
            return bad("temperature", range, self.temperature.to_string());
        }
        if !(self.top_p > 0.0 && self.top_p <= 1.0) {
            return bad("top_p", "in (0, 1]".into(), self.top_p.to_string());
        }
        if !(self.repetition_penalty > 0.0 && self.repetition_penalty.is_finite()) {
            let value = self.repetition_penalty.to_string();
            return bad("repetition_penalty", "a number > 0".into(), value);
        }
        if self.stop.len() > MAX_STOPS {
            let range = format!("at most {MAX_STOPS} strings");
            return bad("stop", range, format!("{} strings", self.stop.len()));
        }
        if let Some(s) = self
            .stop
            .iter()
            .find(|s| s.is_empty() || s.len() > MAX_STOP_LEN)
        {
            let range = format!("strings of 1 to {MAX_STOP_LEN} bytes");
            return bad("stop", range, format!("{} bytes", s.len()));
        }
        Ok(())
    }
}

/// A request to the brain: the conversation so far, the tools the chat
/// template may list, and how to generate the assistant's next message.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    /// The conversation, oldest first.
    pub messages: Vec<Message>,
    /// Tool definitions in the OpenAI `{"type":"function","function":{…}}` shape.
    pub tools: Vec<serde_json::Value>,
    /// Sampling and limits.
    pub options: GenerateOptions,
    /// Text the assistant's reply starts with: it follows the generation
    /// prompt and the model continues from it (e.g. `Thought:` keeps a small
    /// model in a loop's format). The generated text does not repeat it.
    pub assistant_prefix: String,
    /// The conversation this call belongs to. A local brain keeps one prefix
    /// cache per session (`None` shares one default cache), so the calls of
    /// a loop and the turns of a session only compute their new tokens.
    pub session: Option<String>,
    /// A grammar the reply (after `assistant_prefix`) must follow. The local
    /// brain enforces it token by token; other brains may ignore it.
    pub grammar: Option<Grammar>,
    /// The reply answers from what the model knows, not from tools: a
    /// [`KnowledgeBrain`] sends it to its larger model.
    pub from_knowledge: bool,
}

/// A piece of generated text, as it streams.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// New text (whole UTF-8 characters; may be empty while a character is split
    /// across tokens or while text might be the start of a stop string).
    pub text: String,
    /// The token that produced it.
    pub token: u32,
}

/// Why generation ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The model produced an end-of-turn token.
    EndOfTurn,
    /// A stop string was produced (the string is not part of the text).
    Stop(String),
    /// `max_tokens` were generated.
    MaxTokens,
    /// The context window is full.
    ContextFull,
    /// The request was cancelled.
    Cancelled,
}

/// What a generation cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Usage {
    /// Tokens in the rendered prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens actually computed (the rest came from the KV cache).
    pub prefill_tokens: usize,
    /// Tokens generated.
    pub completion_tokens: usize,
    /// From the request to the first generated token.
    #[serde(with = "millis")]
    pub time_to_first_token: Duration,
    /// Time spent computing the prompt, until its first token is chosen
    /// (as llama.cpp's server counts its `prompt_ms`).
    #[serde(with = "millis")]
    pub prefill_time: Duration,
    /// Time spent generating after the first token.
    #[serde(with = "millis")]
    pub decode_time: Duration,
    /// Drafted tokens checked by speculative decoding ([`draft`]).
    pub draft_tokens: usize,
    /// Of those, the ones kept (each saved a forward pass of its own).
    pub draft_tokens_taken: usize,
}

impl Usage {
    /// Prompt tokens served from the KV cache.
    pub fn cached_tokens(&self) -> usize {
        self.prompt_tokens.saturating_sub(self.prefill_tokens)
    }

    /// Prefill speed in tokens per second (0 when nothing was computed).
    pub fn prefill_tok_s(&self) -> f64 {
        rate(self.prefill_tokens, self.prefill_time)
    }

    /// Decode speed in tokens per second, counting tokens after the first.
    pub fn decode_tok_s(&self) -> f64 {
        rate(self.completion_tokens.saturating_sub(1), self.decode_time)
    }
}

fn rate(tokens: usize, time: Duration) -> f64 {
    if tokens == 0 || time.is_zero() {
        0.0
    } else {
        tokens as f64 / time.as_secs_f64()
    }
}

mod millis {
    use serde::Serializer;
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }
}

/// The end of a generation: its whole text, why it ended and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// Everything generated (stop string excluded).
    pub text: String,
    /// Why it ended.
    pub end: EndReason,
    /// Token counts and timings.
    pub usage: Usage,
    /// Tool calls the brain returned as calls rather than text (a remote
    /// server's native tool calls); a local brain leaves them in the text.
    pub tool_calls: Vec<FunctionCall>,
}

/// Something a brain could not do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BrainError {
    /// The model file is unreadable, damaged or of a kind loopd cannot run;
    /// the GGUF error names the file and what is wrong with it.
    #[error(transparent)]
    Model(#[from] gguf::GgufError),
    /// The model could not be loaded for another reason (its device, its
    /// thread).
    #[error("{0}")]
    Load(String),
    /// The chat template failed to render the conversation.
    #[error("chat template: {0}")]
    Template(String),
    /// The prompt does not fit in the context window.
    #[error("the prompt is {prompt} tokens, the context window holds {context}")]
    ContextOverflow {
        /// Prompt length in tokens.
        prompt: usize,
        /// Context window in tokens.
        context: usize,
    },
    /// The forward pass or sampling failed.
    #[error("generation failed: {0}")]
    Generation(String),
    /// A grammar did not compile, or constrained decoding failed.
    #[error("{0}")]
    Grammar(String),
    /// The worker that runs the model is gone.
    #[error("the model worker has stopped")]
    WorkerGone,
    /// A scripted brain ran out of replies.
    #[error("the scripted brain has no reply left")]
    ScriptExhausted,
}

/// What a generation stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum GenerationEvent {
    /// New text.
    Piece(Piece),
    /// Generation ended normally (including cancellation and limits).
    Finished(Completion),
    /// Generation failed.
    Failed(BrainError),
}

/// A running generation: read its events from async or blocking code.
/// Dropping it cancels the generation.
#[derive(Debug)]
pub struct Generation {
    events: mpsc::UnboundedReceiver<GenerationEvent>,
}

impl Generation {
    /// A generation and the sender its producer writes to.
    pub fn channel() -> (mpsc::UnboundedSender<GenerationEvent>, Generation) {
        let (tx, rx) = mpsc::unbounded_channel();
        (tx, Generation { events: rx })
    }

    /// The next event; `None` after `Finished` or `Failed`.
    pub async fn next(&mut self) -> Option<GenerationEvent> {
        self.events.recv().await
    }

    /// The next event, blocking the calling (non-async) thread.
    pub fn blocking_next(&mut self) -> Option<GenerationEvent> {
        self.events.blocking_recv()
    }

    /// Waits for the end, ignoring the pieces.
    pub async fn finish(mut self) -> Result<Completion, BrainError> {
        while let Some(event) = self.next().await {
            match event {
                GenerationEvent::Piece(_) => {}
                GenerationEvent::Finished(done) => return Ok(done),
                GenerationEvent::Failed(e) => return Err(e),
            }
        }
        Err(BrainError::WorkerGone)
    }
}

/// Facts about the model behind a brain, for front ends and stats.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BrainInfo {
    /// Model name (file stem or GGUF `general.name`).
    pub model: String,
    /// GGUF architecture (`llama`, `qwen2`, …) or `scripted`.
    pub arch: String,
    /// Device it runs on (`cpu`, `cuda:0`, …).
    pub device: String,
    /// Compute threads (CPU).
    pub threads: usize,
    /// Context window in tokens.
    pub context_length: usize,
    /// Whether the chat template renders tool definitions.
    pub template_supports_tools: bool,
    /// Why this brain cannot follow a request's grammar, when it cannot:
    /// loops then run unconstrained, and their stats say so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unconstrained: Option<String>,
    /// The larger model that answers questions from what it knows, when a
    /// [`KnowledgeBrain`] has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knowledge_model: Option<String>,
}

/// A language model that engines can call.
pub trait Brain: Send + Sync {
    /// What model this is and where it runs.
    fn info(&self) -> &BrainInfo;

    /// Starts generating the assistant's next message. Returns at once;
    /// read the events from the returned [`Generation`]. Cancelling `cancel`
    /// (or dropping the generation) stops it between two tokens.
    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation;

    /// Checks, before a request is queued, that `grammar` compiles: a
    /// grammar (or a JSON schema in it) that cannot be followed is the
    /// caller's error, named. A brain with its own compiler keeps what it
    /// compiled for the request that follows.
    fn check_grammar(&self, grammar: &Grammar) -> Result<(), GrammarError> {
        grammar.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_options_are_checked_against_their_ranges() {
        assert_eq!(GenerateOptions::default().check(), Ok(()));
        let with = |change: fn(&mut GenerateOptions)| {
            let mut options = GenerateOptions::default();
            change(&mut options);
            options.check().unwrap_err().option
        };
        assert_eq!(with(|o| o.max_tokens = 0), "max_tokens");
        assert_eq!(with(|o| o.max_tokens = MAX_TOKENS_LIMIT + 1), "max_tokens");
        assert_eq!(with(|o| o.temperature = -0.1), "temperature");
        assert_eq!(with(|o| o.temperature = f32::NAN), "temperature");
        assert_eq!(with(|o| o.temperature = 5.5), "temperature");
        assert_eq!(with(|o| o.top_p = 0.0), "top_p");
        assert_eq!(
            with(|o| o.repetition_penalty = f32::INFINITY),
            "repetition_penalty"
        );
        let error = GenerateOptions {
            temperature: 9.0,
            ..GenerateOptions::default()
        }
        .check()
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "temperature must be between 0 and 5, not 9"
        );
    }
}

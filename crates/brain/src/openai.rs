//! The OpenAI chat-completions wire format, as loopd speaks it both ways:
//! the remote brain sends [`ChatCompletionRequest`]s to a server and reads
//! [`ChatCompletionChunk`]s back; the HTTP front end reads requests from
//! clients and writes chunks (or one [`ChatCompletion`]) to them.
//!
//! Only the fields loopd uses are typed; a request's other fields are kept
//! in [`ChatCompletionRequest::extra`] (server-specific parameters such as
//! llama.cpp's `grammar`).

use crate::{FunctionCall, Message, Role, ToolCallMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `POST /v1/chat/completions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionRequest {
    /// The model (for loopd's server: a persona).
    #[serde(default)]
    pub model: String,
    /// The conversation, oldest first.
    pub messages: Vec<WireMessage>,
    /// Whether to answer with server-sent chunks.
    #[serde(default)]
    pub stream: bool,
    /// Streaming options (`include_usage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// Most tokens to generate (the older name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// Most tokens to generate (the newer name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<usize>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Where to stop (one string or several).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// Tool definitions, `{"type":"function","function":{…}}`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    /// Every other field, as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stream_options`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamOptions {
    /// Whether the last chunk carries the usage.
    #[serde(default)]
    pub include_usage: bool,
}

/// `stop`: one string or a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Stop {
    /// One stop string.
    One(String),
    /// Several.
    Many(Vec<String>),
}

impl Stop {
    /// The stop strings.
    pub fn strings(self) -> Vec<String> {
        match self {
            Stop::One(s) => vec![s],
            Stop::Many(v) => v,
        }
    }
}

/// One message on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireMessage {
    /// `system`, `developer`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The text, or a list of content parts.
    #[serde(default)]
    pub content: Option<Content>,
    /// An assistant message's tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireToolCall>,
    /// A tool message's call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// A tool message's tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A message's content: plain text or parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// Parts; the `text` ones are read, the others (images, audio) are not.
    Parts(Vec<Value>),
}

impl Content {
    /// The text of every text part, joined.
    pub fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// A tool call in a message: arguments are JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireToolCall {
    /// The call's id, which its tool message names.
    #[serde(default)]
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type", default = "function")]
    pub kind: String,
    /// Name and arguments.
    pub function: WireFunction,
}

fn function() -> String {
    "function".into()
}

/// A called function, arguments as JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireFunction {
    /// Tool name.
    pub name: String,
    /// Arguments, a JSON object written as text.
    #[serde(default)]
    pub arguments: String,
}

/// One server-sent chunk of a streamed completion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionChunk {
    /// The completion's id, the same in every chunk.
    #[serde(default)]
    pub id: String,
    /// `chat.completion.chunk`.
    #[serde(default)]
    pub object: String,
    /// Unix seconds.
    #[serde(default)]
    pub created: u64,
    /// The model.
    #[serde(default)]
    pub model: String,
    /// The choices' deltas (one choice here).
    #[serde(default)]
    pub choices: Vec<ChunkChoice>,
    /// The usage, in the last chunk when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<WireUsage>,
    /// llama.cpp's timings, in its last chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
    /// An error reported inside the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

/// One choice's delta.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Which choice.
    #[serde(default)]
    pub index: usize,
    /// What is new.
    #[serde(default)]
    pub delta: Delta,
    /// Why it ended, in its last chunk (`stop`, `length`, `tool_calls`).
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// What a chunk adds to the message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// `assistant`, in the first chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// New answer text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// New thinking text (the field reasoning servers and clients use).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Pieces of tool calls, by index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallDelta>,
}

/// A piece of one tool call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCallDelta {
    /// Which call of the message.
    #[serde(default)]
    pub index: usize,
    /// The call's id, in its first piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `function`, in its first piece.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The function's name and a piece of its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionDelta>,
}

/// A piece of a called function.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionDelta {
    /// The name, in the call's first piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// More of the arguments' JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
}

/// Token counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireUsage {
    /// Tokens in the prompt.
    #[serde(default)]
    pub prompt_tokens: usize,
    /// Tokens generated.
    #[serde(default)]
    pub completion_tokens: usize,
    /// Both.
    #[serde(default)]
    pub total_tokens: usize,
    /// Of the prompt, the tokens a cache served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PromptTokensDetails {
    /// Prompt tokens served from a cache.
    #[serde(default)]
    pub cached_tokens: usize,
}

/// llama.cpp's `timings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Prompt tokens computed.
    #[serde(default)]
    pub prompt_n: usize,
    /// Milliseconds computing them.
    #[serde(default)]
    pub prompt_ms: f64,
    /// Tokens generated.
    #[serde(default)]
    pub predicted_n: usize,
    /// Milliseconds generating them.
    #[serde(default)]
    pub predicted_ms: f64,
    /// Prompt tokens reused from its cache.
    #[serde(default)]
    pub cache_n: usize,
}

/// A whole (not streamed) completion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletion {
    /// The completion's id.
    pub id: String,
    /// `chat.completion`.
    pub object: String,
    /// Unix seconds.
    pub created: u64,
    /// The model.
    pub model: String,
    /// The answer (one choice).
    pub choices: Vec<CompletionChoice>,
    /// Token counts.
    pub usage: WireUsage,
    /// Where the model's time went (llama.cpp's extension), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
}

/// One whole choice.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionChoice {
    /// Which choice.
    pub index: usize,
    /// The assistant's message.
    pub message: WireMessage,
    /// Why it ended.
    pub finish_reason: Option<String>,
}

/// `GET /v1/models`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelList {
    /// `list`.
    pub object: String,
    /// The models.
    pub data: Vec<ModelEntry>,
}

/// One model of the list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelEntry {
    /// Its name, as requests give it.
    pub id: String,
    /// `model`.
    #[serde(default)]
    pub object: String,
    /// Unix seconds.
    #[serde(default)]
    pub created: u64,
    /// Who serves it.
    #[serde(default)]
    pub owned_by: String,
}

/// An error body: `{"error": {"message", "type", "code"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// For people.
    pub message: String,
    /// A kind (`invalid_request_error`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// loopd's error name (`Busy`, `InvalidArgs`, …), when there is one.
    #[serde(default)]
    pub code: Option<String>,
}

/// loopd's conversation in wire messages. Tool calls get ids
/// (`call_<message>_<call>`) that the tool messages after them name, in
/// order.
pub fn to_wire(messages: &[Message]) -> Vec<WireMessage> {
    let mut pending: std::collections::VecDeque<String> = Default::default();
    messages
        .iter()
        .enumerate()
        .map(|(m, message)| {
            let role = match message.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
            };
            let tool_calls: Vec<WireToolCall> = message
                .tool_calls
                .iter()
                .enumerate()
                .map(|(c, call)| WireToolCall {
                    id: format!("call_{m}_{c}"),
                    kind: "function".into(),
                    function: WireFunction {
                        name: call.function.name.clone(),
                        arguments: call.function.arguments.to_string(),
                    },
                })
                .collect();
            if !tool_calls.is_empty() {
                pending = tool_calls.iter().map(|c| c.id.clone()).collect();
            }
            let tool_call_id = match message.role {
                Role::Tool => Some(pending.pop_front().unwrap_or_else(|| format!("call_{m}"))),
                _ => None,
            };
            WireMessage {
                role: role.into(),
                content: Some(Content::Text(message.content.clone())),
                tool_calls,
                tool_call_id,
                name: message.name.clone(),
            }
        })
        .collect()
}

/// A client's wire messages as loopd's conversation; an unknown role is an
/// error naming it. `developer` reads as `system`; a tool message is named
/// after the call it answers.
pub fn from_wire(messages: &[WireMessage]) -> Result<Vec<Message>, String> {
    let mut names = std::collections::HashMap::new();
    messages
        .iter()
        .map(|wire| {
            let role = match wire.role.as_str() {
                "system" | "developer" => Role::System,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                other => return Err(format!("unknown message role `{other}`")),
            };
            let mut message = Message::new(
                role,
                wire.content.as_ref().map(Content::text).unwrap_or_default(),
            );
            for call in &wire.tool_calls {
                names.insert(call.id.clone(), call.function.name.clone());
                message.tool_calls.push(ToolCallMessage {
                    kind: "function".into(),
                    function: FunctionCall {
                        name: call.function.name.clone(),
                        arguments: serde_json::from_str(&call.function.arguments)
                            .unwrap_or(Value::String(call.function.arguments.clone())),
                    },
                });
            }
            message.name = wire.name.clone().or_else(|| {
                wire.tool_call_id
                    .as_ref()
                    .and_then(|id| names.get(id).cloned())
            });
            Ok(message)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_calls_and_results_round_trip_with_ids() {
        let mut call = Message::assistant("");
        call.tool_calls.push(ToolCallMessage {
            kind: "function".into(),
            function: FunctionCall {
                name: "clock".into(),
                arguments: json!({"city": "Paris"}),
            },
        });
        let mut result = Message::new(Role::Tool, "14:05");
        result.name = Some("clock".into());
        let conversation = vec![Message::user("What time is it?"), call, result];
        let wire = to_wire(&conversation);
        assert_eq!(wire[1].tool_calls[0].id, "call_1_0");
        assert_eq!(
            wire[1].tool_calls[0].function.arguments,
            r#"{"city":"Paris"}"#
        );
        assert_eq!(wire[2].tool_call_id.as_deref(), Some("call_1_0"));
        assert_eq!(from_wire(&wire).unwrap(), conversation);
    }

    #[test]
    fn content_parts_stop_lists_and_unknown_roles_read_as_clients_send_them() {
        let request: ChatCompletionRequest = serde_json::from_value(json!({
            "model": "default",
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "Be brief."},
                                                   {"type": "image_url", "image_url": {}}]},
                {"role": "user", "content": "Hi"}
            ],
            "stop": "END",
            "grammar": "root ::= \"x\""
        }))
        .unwrap();
        let messages = from_wire(&request.messages).unwrap();
        assert_eq!(messages[0], Message::system("Be brief."));
        assert_eq!(request.stop.unwrap().strings(), vec!["END".to_string()]);
        assert_eq!(request.extra["grammar"], "root ::= \"x\"");
        let odd = WireMessage {
            role: "narrator".into(),
            ..WireMessage::default()
        };
        assert_eq!(
            from_wire(&[odd]).unwrap_err(),
            "unknown message role `narrator`"
        );
    }
}

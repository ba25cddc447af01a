//! Tools a client defines and runs itself, on the OpenAI wire: `tools`,
//! `tool_choice`, `parallel_tool_calls` and `response_format` read into
//! [`ClientTools`], and the calls the model made written back as
//! `tool_calls` (whole, or as stream deltas).

use crate::daemon::ClientTools;
use crate::engine::client_turn::{ClientTurn, ToolChoice};
use crate::engine::parse::ToolCall;
use crate::openai::{
    ChatCompletionRequest, FunctionDelta, ToolCallDelta, WireFunction, WireMessage, WireToolCall,
};
use crate::tools::ToolSpec;
use serde_json::{json, Value};

/// Most tools one request may define.
const MAX_TOOLS: usize = 128;

/// The request's own tools and how they may be used; `None` when it
/// defines none and asks for no JSON reply (the persona's loop answers).
pub fn read(request: &ChatCompletionRequest) -> Result<Option<ClientTools>, String> {
    let format = response_format(request.extra.get("response_format"))?;
    if request.tools.is_empty() && format.is_none() {
        if let Some(choice) = request.extra.get("tool_choice").filter(|c| !c.is_null()) {
            if choice != "none" && choice != "auto" {
                return Err(format!(
                    "`tool_choice` {choice} names tools, but `tools` is empty"
                ));
            }
        }
        return Ok(None);
    }
    if request.tools.len() > MAX_TOOLS {
        return Err(format!(
            "at most {MAX_TOOLS} tools, not {}",
            request.tools.len()
        ));
    }
    let tools = request
        .tools
        .iter()
        .map(spec_of)
        .collect::<Result<Vec<_>, _>>()?;
    let choice = tool_choice(request.extra.get("tool_choice"), &tools)?;
    let parallel = match request.extra.get("parallel_tool_calls") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "`parallel_tool_calls` must be true or false, not {other}"
            ))
        }
    };
    Ok(Some(ClientTools {
        tools,
        turn: ClientTurn {
            choice,
            parallel,
            format,
        },
    }))
}

/// A `{"type": "function", "function": {"name", "description",
/// "parameters"}}` tool as loopd's spec; its parameters must be a JSON Schema.
fn spec_of(tool: &Value) -> Result<ToolSpec, String> {
    let shape = "each tool must be {\"type\": \"function\", \"function\": {\"name\": …, \"parameters\": {…}}}";
    if tool.get("type").and_then(Value::as_str) != Some("function") {
        return Err(shape.into());
    }
    let function = tool
        .get("function")
        .and_then(Value::as_object)
        .ok_or(shape)?;
    let name = function.get("name").and_then(Value::as_str).ok_or(shape)?;
    let good_name = (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    if !good_name {
        return Err(format!(
            "tool name `{name}`: 1 to 64 letters, digits, `_`, `-` or `.`"
        ));
    }
    let parameters = function
        .get("parameters")
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    if !parameters.is_object() {
        return Err(format!(
            "tool `{name}`: `parameters` must be a JSON Schema object"
        ));
    }
    jsonschema::validator_for(&parameters)
        .map_err(|e| format!("tool `{name}`: `parameters` is not a valid JSON Schema: {e}"))?;
    Ok(ToolSpec {
        name: name.to_string(),
        description: function
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        argument_schema: parameters,
        output_schema: json!({}),
    })
}

fn tool_choice(choice: Option<&Value>, tools: &[ToolSpec]) -> Result<ToolChoice, String> {
    let named = |name: &str| -> Result<ToolChoice, String> {
        if !tools.iter().any(|t| t.name == name) {
            return Err(format!(
                "`tool_choice` names `{name}`, which is not in `tools`"
            ));
        }
        Ok(ToolChoice::Function(name.to_string()))
    };
    let choice = match choice {
        None | Some(Value::Null) => ToolChoice::Auto,
        Some(Value::String(s)) if s == "auto" => ToolChoice::Auto,
        Some(Value::String(s)) if s == "none" => ToolChoice::None,
        Some(Value::String(s)) if s == "required" => ToolChoice::Required,
        Some(other) => match other.pointer("/function/name").and_then(Value::as_str) {
            Some(name) if other.get("type").and_then(Value::as_str) == Some("function") => {
                named(name)?
            }
            _ => {
                return Err(format!(
                    "`tool_choice` must be \"auto\", \"none\", \"required\" or \
                     {{\"type\": \"function\", \"function\": {{\"name\": …}}}}, not {other}"
                ))
            }
        },
    };
    if tools.is_empty() && matches!(choice, ToolChoice::Required | ToolChoice::Function(_)) {
        return Err("`tool_choice` asks for a call, but `tools` is empty".into());
    }
    Ok(choice)
}

/// The schema a JSON reply must follow: `json_object` (any object) or
/// `json_schema` (its `schema`); `None` for `text` or nothing.
fn response_format(format: Option<&Value>) -> Result<Option<Value>, String> {
    let Some(format) = format.filter(|f| !f.is_null()) else {
        return Ok(None);
    };
    match format.get("type").and_then(Value::as_str) {
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(json!({"type": "object"}))),
        Some("json_schema") => {
            let schema = format
                .pointer("/json_schema/schema")
                .filter(|s| s.is_object())
                .ok_or("`response_format` json_schema needs `json_schema.schema`, an object")?;
            jsonschema::validator_for(schema)
                .map_err(|e| format!("`response_format` schema is not a valid JSON Schema: {e}"))?;
            Ok(Some(schema.clone()))
        }
        _ => Err(format!(
            "`response_format.type` must be text, json_object or json_schema, not {}",
            format.get("type").unwrap_or(&Value::Null)
        )),
    }
}

/// Refuses a `tool` message that answers no call made before it.
pub fn check_results(messages: &[WireMessage]) -> Result<(), String> {
    let mut called = std::collections::HashSet::new();
    for message in messages {
        called.extend(message.tool_calls.iter().map(|c| c.id.as_str()));
        if message.role == "tool" {
            let id = message.tool_call_id.as_deref().unwrap_or_default();
            if !called.contains(id) {
                return Err(format!(
                    "a `tool` message answers `tool_call_id` {id:?}, which no assistant message called"
                ));
            }
        }
    }
    Ok(())
}

/// The id of call `i` of this reply.
fn call_id(i: usize) -> String {
    format!("call_{:016x}_{i}", rand::random::<u64>())
}

/// The calls as an assistant message's `tool_calls`.
pub fn wire_calls(calls: &[ToolCall]) -> Vec<WireToolCall> {
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| WireToolCall {
            id: call_id(i),
            kind: "function".into(),
            function: WireFunction {
                name: call.name.clone(),
                arguments: call.arguments.to_string(),
            },
        })
        .collect()
}

/// The calls as one stream delta's `tool_calls`, each whole.
pub fn call_deltas(calls: &[ToolCall]) -> Vec<ToolCallDelta> {
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| ToolCallDelta {
            index: i,
            id: Some(call_id(i)),
            kind: Some("function".into()),
            function: Some(FunctionDelta {
                name: Some(call.name.clone()),
                arguments: Some(call.arguments.to_string()),
            }),
        })
        .collect()
}

//! The one reader of a request: every wire hands its fields to
//! [`AskOptions`] (D-Bus's `a{sv}` through [`AskOptions::from_dbus`]), and
//! [`AskOptions::ask`] makes the daemon's [`Ask`]. A front end adds only
//! what its wire alone has (an OpenAI history, a spoken turn's barge-in).

use crate::daemon::{Ask, Caller, Limits};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use zbus::zvariant::{OwnedValue, Value as Variant};

/// loopd's own request options, named the same on every wire.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
pub struct AskOptions {
    /// An engine id instead of the persona's loop.
    #[serde(rename = "loop")]
    pub loop_id: Option<String>,
    /// Who answers (default: the default persona).
    pub persona: Option<String>,
    /// The conversation, among the caller's own.
    pub session: Option<String>,
    /// Most tokens per model call.
    pub max_tokens: Option<usize>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Toolboxes instead of the persona's: a list of names, or one
    /// comma-separated string (`toolboxes` where the wire's own `tools`
    /// means something else).
    #[serde(alias = "toolboxes", default, deserialize_with = "toolbox_names")]
    pub tools: Option<Vec<String>>,
    /// Most loop turns.
    pub max_turns: Option<usize>,
    /// Most tokens over the whole run.
    pub max_total_tokens: Option<usize>,
    /// Seconds the run may take.
    pub timeout: Option<f64>,
}

/// The option keys, as a wire names them.
pub const KEYS: &[&str] = &[
    "loop",
    "persona",
    "session",
    "max_tokens",
    "temperature",
    "tools",
    "max_turns",
    "max_total_tokens",
    "timeout",
];

impl AskOptions {
    /// Reads the options among `fields`, checking each one's type; keys
    /// that are not options are left to the wire.
    pub fn read(fields: &Map<String, Value>) -> Result<AskOptions, String> {
        let options: Map<String, Value> = fields
            .iter()
            .filter(|(key, _)| KEYS.contains(&key.as_str()) || key.as_str() == "toolboxes")
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        serde_json::from_value(Value::Object(options.clone())).map_err(|e| {
            let alone = |key: &String, value: &Value| {
                let one = Map::from_iter([(key.clone(), value.clone())]);
                serde_json::from_value::<AskOptions>(Value::Object(one)).is_err()
            };
            match options.iter().find(|(key, value)| alone(key, value)) {
                Some((key, value)) => {
                    format!("`{key}` must be {}, not {}", expected(key), shown(value))
                }
                None => e.to_string(),
            }
        })
    }

    /// Reads the options of a D-Bus call; an unknown key is an error, and
    /// the keys in `also` are the wire's own (left out here).
    pub fn from_dbus(
        fields: &HashMap<String, OwnedValue>,
        also: &[&str],
    ) -> Result<AskOptions, String> {
        let mut json = Map::new();
        for (key, value) in fields {
            if also.contains(&key.as_str()) {
                continue;
            }
            if !KEYS.contains(&key.as_str()) {
                return Err(format!(
                    "unknown option `{key}` (known: {})",
                    [KEYS, also].concat().join(", ")
                ));
            }
            let value = to_json(value).ok_or_else(|| {
                format!(
                    "`{key}` must be {}, not of type `{}`",
                    expected(key),
                    value.value_signature()
                )
            })?;
            json.insert(key.clone(), value);
        }
        AskOptions::read(&json)
    }

    /// The question with these options, asked by `caller`.
    pub fn ask(self, caller: Caller, prompt: String) -> Result<Ask, String> {
        let timeout = match self.timeout {
            None => None,
            Some(seconds) => Some(Limits::timeout_secs(seconds).ok_or_else(|| {
                format!(
                    "`timeout` must be a positive number of seconds (at most a year), not {seconds}"
                )
            })?),
        };
        Ok(Ask {
            caller,
            prompt,
            loop_id: self.loop_id,
            persona: self.persona,
            session: self.session,
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            tools: self.tools,
            limits: Limits {
                max_turns: self.max_turns,
                max_total_tokens: self.max_total_tokens,
                timeout,
            },
            ..Ask::default()
        })
    }
}

/// What a key's value must be, for error messages.
fn expected(key: &str) -> &'static str {
    match key {
        "max_tokens" | "max_turns" | "max_total_tokens" => "a whole number",
        "temperature" | "timeout" => "a number",
        "tools" | "toolboxes" => "a list of strings",
        _ => "a string",
    }
}

/// A value as an error message shows it: its JSON type.
fn shown(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        other => type_name(other).to_string(),
    }
}

/// The JSON type of a value, for error messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The D-Bus adapter: a string, a number or an array of strings as JSON;
/// any other D-Bus type is `None`.
fn to_json(value: &Variant<'_>) -> Option<Value> {
    Some(match value {
        Variant::Value(inner) => return to_json(inner),
        Variant::Str(s) => Value::from(s.as_str()),
        Variant::U8(n) => Value::from(*n),
        Variant::U16(n) => Value::from(*n),
        Variant::U32(n) => Value::from(*n),
        Variant::U64(n) => Value::from(*n),
        Variant::I16(n) => Value::from(*n),
        Variant::I32(n) => Value::from(*n),
        Variant::I64(n) => Value::from(*n),
        Variant::F64(x) => Value::from(*x),
        Variant::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| match to_json(item)? {
                    Value::String(s) => Some(Value::String(s)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// `tools`: a list of names, or one comma-separated string.
fn toolbox_names<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Names {
        Listed(Vec<String>),
        Joined(String),
    }
    Ok(match Option::<Names>::deserialize(deserializer)? {
        None => None,
        Some(Names::Listed(names)) => Some(names),
        Some(Names::Joined(names)) => Some(
            names
                .split(',')
                .map(|name| name.trim().to_string())
                .filter(|name| !name.is_empty())
                .collect(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: Value) -> Result<AskOptions, String> {
        AskOptions::read(value.as_object().unwrap())
    }

    #[test]
    fn reads_every_option_and_leaves_the_rest() {
        let options = read(json!({
            "utterance": "hi", "loop": "none", "persona": "p", "session": "s",
            "max_tokens": 12, "temperature": 0.5, "tools": ["clock"],
            "max_turns": 3, "max_total_tokens": 99, "timeout": 2.5, "lang": 7,
        }))
        .unwrap();
        let ask = options.ask(Caller::bus(), "hi".into()).unwrap();
        assert_eq!(ask.loop_id.as_deref(), Some("none"));
        assert_eq!(ask.persona.as_deref(), Some("p"));
        assert_eq!(ask.session.as_deref(), Some("s"));
        assert_eq!(ask.max_tokens, Some(12));
        assert_eq!(ask.temperature, Some(0.5));
        assert_eq!(ask.tools, Some(vec!["clock".to_string()]));
        assert_eq!(ask.limits.max_turns, Some(3));
        assert_eq!(ask.limits.max_total_tokens, Some(99));
        assert_eq!(ask.limits.timeout.map(|t| t.as_millis()), Some(2500));
        let joined = read(json!({"toolboxes": "a, b,", "session": null})).unwrap();
        assert_eq!(joined.tools, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(joined.session, None);
        let both = read(json!({"toolboxes": "a", "tools": "b"})).unwrap_err();
        assert!(both.contains("duplicate field `tools`"), "{both}");
    }

    #[test]
    fn a_wrong_type_is_named() {
        for (fields, needle) in [
            (json!({"loop": []}), "`loop` must be a string, not a list"),
            (
                json!({"max_tokens": -1}),
                "`max_tokens` must be a whole number, not -1",
            ),
            (
                json!({"max_tokens": "9"}),
                "`max_tokens` must be a whole number, not a string",
            ),
            (
                json!({"temperature": true}),
                "`temperature` must be a number, not a boolean",
            ),
            (
                json!({"tools": [1]}),
                "`tools` must be a list of strings, not a list",
            ),
            (
                json!({"toolboxes": {}}),
                "`toolboxes` must be a list of strings, not an object",
            ),
        ] {
            let err = read(fields.clone()).unwrap_err();
            assert_eq!(err, needle, "{fields}");
        }
        let err = read(json!({"timeout": -1}))
            .unwrap()
            .ask(Caller::bus(), String::new())
            .unwrap_err();
        assert!(err.contains("`timeout` must be a positive number"), "{err}");
    }
}

//! The `a{sv}` options of `Ask` and `AskSync`, checked key by key.

use super::error::Error;
use crate::daemon::{Ask, Limits};
use std::collections::HashMap;
use zbus::zvariant::{OwnedValue, Value};

/// The option keys a caller may send.
pub const KEYS: &[&str] = &[
    "loop",
    "persona",
    "session",
    "handle_token",
    "max_tokens",
    "temperature",
    "tools",
    "max_turns",
    "max_total_tokens",
    "timeout",
];

/// A request as read from a call: what to ask and, for `Ask`, the
/// caller's handle token.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The question for the daemon.
    pub ask: Ask,
    /// The last element of the request object's path, if the caller chose it.
    pub handle_token: Option<String>,
}

/// Reads the options; a wrong type or an unknown key is `InvalidArgs`
/// naming the key.
pub fn parse(prompt: String, options: &HashMap<String, OwnedValue>) -> Result<Parsed, Error> {
    let mut parsed = Parsed {
        ask: Ask {
            prompt,
            ..Ask::default()
        },
        handle_token: None,
    };
    let mut keys: Vec<&String> = options.keys().collect();
    keys.sort();
    for key in keys {
        let value = unwrap_variant(&options[key]);
        let ask = &mut parsed.ask;
        match key.as_str() {
            "loop" => ask.loop_id = Some(string(key, value)?),
            "persona" => ask.persona = Some(string(key, value)?),
            "session" => ask.session = Some(string(key, value)?),
            "handle_token" => {
                let token = string(key, value)?;
                check_token(&token)?;
                parsed.handle_token = Some(token);
            }
            "max_tokens" => ask.max_tokens = Some(count(key, value)?),
            "temperature" => ask.temperature = Some(number(key, value)?),
            "tools" => ask.tools = Some(strings(key, value)?),
            "max_turns" => ask.limits.max_turns = Some(count(key, value)?),
            "max_total_tokens" => ask.limits.max_total_tokens = Some(count(key, value)?),
            "timeout" => {
                let seconds = number(key, value)?;
                let timeout = Limits::timeout_secs(seconds).ok_or_else(|| {
                    Error::InvalidArgs(format!(
                        "option `timeout` must be a positive number of seconds (at most a year), not {seconds}"
                    ))
                })?;
                ask.limits.timeout = Some(timeout);
            }
            other => {
                return Err(Error::InvalidArgs(format!(
                    "unknown option `{other}` (known: {})",
                    KEYS.join(", ")
                )))
            }
        }
    }
    Ok(parsed)
}

/// A handle token must be one object-path element: `[A-Za-z0-9_]+`.
pub fn check_token(token: &str) -> Result<(), Error> {
    let valid = !token.is_empty()
        && token.len() <= 255
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if valid {
        Ok(())
    } else {
        Err(Error::InvalidArgs(format!(
            "option `handle_token` must match [A-Za-z0-9_]+ (at most 255 characters), not {token:?}"
        )))
    }
}

fn unwrap_variant<'a>(mut value: &'a Value<'a>) -> &'a Value<'a> {
    while let Value::Value(inner) = value {
        value = inner;
    }
    value
}

fn wrong_type(key: &str, expected: &str, value: &Value<'_>) -> Error {
    Error::InvalidArgs(format!(
        "option `{key}` must be {expected}, not of type `{}`",
        value.value_signature()
    ))
}

fn string(key: &str, value: &Value<'_>) -> Result<String, Error> {
    match value {
        Value::Str(s) => Ok(s.to_string()),
        other => Err(wrong_type(key, "a string (s)", other)),
    }
}

fn count(key: &str, value: &Value<'_>) -> Result<usize, Error> {
    let n: i128 = match value {
        Value::U8(n) => (*n).into(),
        Value::U16(n) => (*n).into(),
        Value::U32(n) => (*n).into(),
        Value::U64(n) => (*n).into(),
        Value::I16(n) => (*n).into(),
        Value::I32(n) => (*n).into(),
        Value::I64(n) => (*n).into(),
        other => return Err(wrong_type(key, "an unsigned integer (u)", other)),
    };
    usize::try_from(n)
        .map_err(|_| Error::InvalidArgs(format!("option `{key}` must not be negative, not {n}")))
}

fn number(key: &str, value: &Value<'_>) -> Result<f64, Error> {
    match value {
        Value::F64(x) => Ok(*x),
        Value::U8(_)
        | Value::U16(_)
        | Value::U32(_)
        | Value::U64(_)
        | Value::I16(_)
        | Value::I32(_)
        | Value::I64(_) => Ok(count(key, value)? as f64),
        other => Err(wrong_type(key, "a number (d)", other)),
    }
}

fn strings(key: &str, value: &Value<'_>) -> Result<Vec<String>, Error> {
    let Value::Array(array) = value else {
        return Err(wrong_type(key, "an array of strings (as)", value));
    };
    array
        .iter()
        .map(|item| match unwrap_variant(item) {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(wrong_type(key, "an array of strings (as)", other)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: Vec<(&str, Value<'static>)>) -> HashMap<String, OwnedValue> {
        pairs
            .into_iter()
            .map(|(k, v)| (k.to_string(), OwnedValue::try_from(v).unwrap()))
            .collect()
    }

    fn invalid(pairs: Vec<(&str, Value<'static>)>) -> String {
        match parse("hi".into(), &options(pairs)) {
            Err(Error::InvalidArgs(m)) => m,
            other => panic!("expected InvalidArgs, got {other:?}"),
        }
    }

    #[test]
    fn reads_every_key() {
        let p = parse(
            "hi".into(),
            &options(vec![
                ("loop", Value::from("none")),
                ("persona", Value::from("react")),
                ("session", Value::from("s1")),
                ("handle_token", Value::from("t_1")),
                ("max_tokens", Value::from(24u32)),
                ("temperature", Value::from(0.5f64)),
                ("tools", Value::from(vec!["clock", "math"])),
            ]),
        )
        .unwrap();
        assert_eq!(p.ask.loop_id.as_deref(), Some("none"));
        assert_eq!(p.ask.persona.as_deref(), Some("react"));
        assert_eq!(p.ask.session.as_deref(), Some("s1"));
        assert_eq!(p.handle_token.as_deref(), Some("t_1"));
        assert_eq!(p.ask.max_tokens, Some(24));
        assert_eq!(p.ask.temperature, Some(0.5));
        assert_eq!(p.ask.tools, Some(vec!["clock".into(), "math".into()]));
    }

    #[test]
    fn accepts_other_integer_types() {
        for v in [Value::from(7i32), Value::from(7u64), Value::from(7u8)] {
            let p = parse("hi".into(), &options(vec![("max_tokens", v)])).unwrap();
            assert_eq!(p.ask.max_tokens, Some(7));
        }
    }

    #[test]
    fn names_the_bad_key() {
        assert!(invalid(vec![("max_tokens", Value::from("24"))]).contains("`max_tokens`"));
        assert!(invalid(vec![("max_tokens", Value::from(-1i32))]).contains("negative"));
        assert!(invalid(vec![("loop", Value::from(3u32))]).contains("`loop`"));
        assert!(invalid(vec![("tools", Value::from("clock"))]).contains("`tools`"));
        assert!(invalid(vec![("temperature", Value::from("hot"))]).contains("`temperature`"));
        assert!(invalid(vec![("colour", Value::from("red"))]).contains("`colour`"));
        assert!(invalid(vec![("handle_token", Value::from("a/b"))]).contains("handle_token"));
        assert!(invalid(vec![("handle_token", Value::from(""))]).contains("handle_token"));
    }
}

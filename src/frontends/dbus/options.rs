//! The `a{sv}` options of `Ask` and `AskSync`: the request options go
//! through the one reader ([`AskOptions::from_dbus`]); `handle_token` is
//! D-Bus's own.

use super::error::Error;
use crate::daemon::{Ask, Caller};
use crate::frontends::request::AskOptions;
use std::collections::HashMap;
use zbus::zvariant::{OwnedValue, Value};

/// The option D-Bus has besides the request options.
const HANDLE_TOKEN: &str = "handle_token";

/// A request as read from a call: what to ask and, for `Ask`, the
/// caller's handle token.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The question for the daemon (its caller is set once known).
    pub ask: Ask,
    /// The last element of the request object's path, if the caller chose it.
    pub handle_token: Option<String>,
}

/// Reads the options; a wrong type or an unknown key is `InvalidArgs`
/// naming the key.
pub fn parse(prompt: String, options: &HashMap<String, OwnedValue>) -> Result<Parsed, Error> {
    let ask = AskOptions::from_dbus(options, &[HANDLE_TOKEN])
        .and_then(|read| read.ask(Caller::default(), prompt))
        .map_err(Error::InvalidArgs)?;
    let handle_token = match options.get(HANDLE_TOKEN).map(|v| unwrap_variant(v)) {
        None => None,
        Some(Value::Str(token)) => {
            check_token(token)?;
            Some(token.to_string())
        }
        Some(other) => {
            return Err(Error::InvalidArgs(format!(
                "option `{HANDLE_TOKEN}` must be a string, not of type `{}`",
                other.value_signature()
            )))
        }
    };
    Ok(Parsed { ask, handle_token })
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
        assert!(invalid(vec![("max_tokens", Value::from(-1i32))]).contains("not -1"));
        assert!(invalid(vec![("loop", Value::from(3u32))]).contains("`loop`"));
        assert!(invalid(vec![("tools", Value::from(vec![1u32]))]).contains("`tools`"));
        assert!(invalid(vec![("temperature", Value::from("hot"))]).contains("`temperature`"));
        assert!(invalid(vec![("colour", Value::from("red"))]).contains("`colour`"));
        assert!(invalid(vec![("handle_token", Value::from("a/b"))]).contains("handle_token"));
        assert!(invalid(vec![("handle_token", Value::from(""))]).contains("handle_token"));
    }
}

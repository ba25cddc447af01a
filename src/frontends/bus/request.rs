//! Reads a daemon [`Ask`] out of a message's data: the question here, the
//! options through the one reader ([`AskOptions`]).

use super::message::BusMessage;
use crate::daemon::{Ask, Caller};
pub use crate::frontends::request::type_name;
use crate::frontends::request::AskOptions;
use serde_json::{Map, Value};

/// The [`Ask`] a message carries: the question from `data[text_key]`,
/// optional `loop`, `persona`, `session`, `max_tokens`, `temperature`,
/// `tools`, `max_turns`, `max_total_tokens` and `timeout` (seconds), and the session from `data.session`, else
/// `context.session.session_id`, else the default session.
pub fn ask_from(message: &BusMessage, text_key: &str) -> Result<Ask, String> {
    let data = &message.data;
    let prompt = match data.get(text_key) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "`{text_key}` must be a string, not {}",
                type_name(other)
            ))
        }
        None => return Err(format!("`{text_key}` is missing")),
    };
    ask_with_prompt(message, prompt)
}

/// Like [`ask_from`], with the question already taken out.
pub fn ask_with_prompt(message: &BusMessage, prompt: String) -> Result<Ask, String> {
    let mut options = AskOptions::read(&message.data)?;
    if options.session.is_none() {
        options.session = message.session_id().map(String::from);
    }
    options.ask(Caller::bus(), prompt)
}

/// An optional string field; `null` counts as missing.
pub fn string(data: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match data.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "`{key}` must be a string, not {}",
            type_name(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &str) -> BusMessage {
        BusMessage::parse(text).unwrap()
    }

    #[test]
    fn reads_every_option() {
        let m = msg(
            r#"{"type":"loopd.ask","data":{"utterance":"hi","loop":"none",
            "persona":"p","max_tokens":12,"temperature":0.5,"tools":["clock"]},
            "context":{"session":{"session_id":"s9"}}}"#,
        );
        let ask = ask_from(&m, "utterance").unwrap();
        assert_eq!(ask.prompt, "hi");
        assert_eq!(ask.loop_id.as_deref(), Some("none"));
        assert_eq!(ask.persona.as_deref(), Some("p"));
        assert_eq!(ask.session.as_deref(), Some("s9"));
        assert_eq!(ask.max_tokens, Some(12));
        assert_eq!(ask.temperature, Some(0.5));
        assert_eq!(ask.tools, Some(vec!["clock".to_string()]));
        let m = msg(
            r#"{"type":"loopd.ask","data":{"utterance":"hi","session":"mine","tools":"a, b"}}"#,
        );
        let ask = ask_from(&m, "utterance").unwrap();
        assert_eq!(ask.session.as_deref(), Some("mine"));
        assert_eq!(ask.tools, Some(vec!["a".to_string(), "b".to_string()]));
    }

    #[test]
    fn wrong_types_are_named() {
        for (data, needle) in [
            (
                r#"{"utterance":5}"#,
                "`utterance` must be a string, not a number",
            ),
            (r#"{}"#, "`utterance` is missing"),
            (r#"{"utterance":"x","loop":[]}"#, "`loop` must be a string"),
            (
                r#"{"utterance":"x","max_tokens":-1}"#,
                "`max_tokens` must be a whole number",
            ),
            (
                r#"{"utterance":"x","max_tokens":"9"}"#,
                "`max_tokens` must be a whole number",
            ),
            (
                r#"{"utterance":"x","temperature":true}"#,
                "`temperature` must be a number",
            ),
            (
                r#"{"utterance":"x","tools":[1]}"#,
                "`tools` must be a list of strings",
            ),
        ] {
            let m = msg(&format!(r#"{{"type":"loopd.ask","data":{data}}}"#));
            let err = ask_from(&m, "utterance").unwrap_err();
            assert!(err.contains(needle), "{data}: {err}");
        }
    }
}

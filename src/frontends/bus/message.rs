//! The OVOS message envelope: `{"type", "data", "context"}`.

use serde_json::{Map, Value};

/// One message on the bus.
#[derive(Debug, Clone, PartialEq)]
pub struct BusMessage {
    /// The message type, e.g. `ovos.persona.query`.
    pub kind: String,
    /// The payload.
    pub data: Map<String, Value>,
    /// Routing and session information, kept as it came.
    pub context: Map<String, Value>,
}

impl BusMessage {
    /// A message with an empty context.
    pub fn new(kind: &str, data: Value) -> BusMessage {
        BusMessage {
            kind: kind.to_string(),
            data: object(data),
            context: Map::new(),
        }
    }

    /// Parses one frame. `data` and `context` may be missing or `null`;
    /// anything else that is not an object is an error.
    pub fn parse(text: &str) -> Result<BusMessage, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not a JSON message: {e}"))?;
        let Value::Object(mut fields) = value else {
            return Err("a message must be a JSON object".into());
        };
        let kind = match fields.remove("type") {
            Some(Value::String(kind)) if !kind.is_empty() => kind,
            Some(Value::String(_)) => return Err("the message `type` is empty".into()),
            Some(_) => return Err("the message `type` must be a string".into()),
            None => return Err("the message has no `type`".into()),
        };
        let mut part = |name: &str| match fields.remove(name) {
            None | Some(Value::Null) => Ok(Map::new()),
            Some(Value::Object(map)) => Ok(map),
            Some(_) => Err(format!("`{name}` of `{kind}` must be an object")),
        };
        let data = part("data")?;
        let context = part("context")?;
        Ok(BusMessage {
            kind,
            data,
            context,
        })
    }

    /// The message as one line of JSON.
    pub fn to_json(&self) -> String {
        let mut out = Map::new();
        out.insert("type".into(), Value::String(self.kind.clone()));
        out.insert("data".into(), Value::Object(self.data.clone()));
        out.insert("context".into(), Value::Object(self.context.clone()));
        Value::Object(out).to_string()
    }

    /// A reply: this message's context (session and unknown keys kept)
    /// with `source` and `destination` swapped.
    pub fn reply(&self, kind: &str, data: Value) -> BusMessage {
        let mut context = self.context.clone();
        let source = context.remove("source");
        let destination = context.remove("destination");
        if let Some(d) = destination {
            context.insert("source".into(), d);
        }
        if let Some(s) = source {
            context.insert("destination".into(), s);
        }
        BusMessage {
            kind: kind.to_string(),
            data: object(data),
            context,
        }
    }

    /// The session id from `context.session.session_id`, if any.
    pub fn session_id(&self) -> Option<&str> {
        self.context
            .get("session")?
            .get("session_id")?
            .as_str()
            .filter(|s| !s.is_empty())
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            let mut map = Map::new();
            map.insert("value".into(), other);
            map
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_and_writes_the_envelope() {
        let m = BusMessage::parse(r#"{"type":"a.b","data":{"x":1}}"#).unwrap();
        assert_eq!(m.kind, "a.b");
        assert_eq!(m.data["x"], 1);
        assert!(m.context.is_empty());
        assert_eq!(m.to_json(), r#"{"type":"a.b","data":{"x":1},"context":{}}"#);
    }

    #[test]
    fn refuses_what_is_not_an_envelope() {
        for bad in [
            "garbage",
            "[1,2]",
            r#"{"data":{}}"#,
            r#"{"type":3}"#,
            r#"{"type":""}"#,
            r#"{"type":"a","data":[]}"#,
            r#"{"type":"a","context":"x"}"#,
        ] {
            assert!(BusMessage::parse(bad).is_err(), "{bad}");
        }
        assert!(BusMessage::parse(r#"{"type":"a","data":null}"#).is_ok());
    }

    #[test]
    fn reply_swaps_source_and_destination_and_keeps_the_rest() {
        let m = BusMessage::parse(
            r#"{"type":"q","data":{},"context":{"source":"skill","destination":["loopd"],
                "session":{"session_id":"s1"},"mine":{"k":[1]}}}"#,
        )
        .unwrap();
        let r = m.reply("q.answer", json!({"ok": true}));
        assert_eq!(r.context["source"], json!(["loopd"]));
        assert_eq!(r.context["destination"], "skill");
        assert_eq!(r.context["mine"], json!({"k": [1]}));
        assert_eq!(r.data["ok"], true);
        assert_eq!(m.session_id(), Some("s1"));
        let lone = BusMessage::parse(r#"{"type":"q","context":{"source":"audio"}}"#).unwrap();
        let r = lone.reply("x", Value::Null);
        assert_eq!(r.context.get("source"), None);
        assert_eq!(r.context["destination"], "audio");
        assert_eq!(lone.session_id(), None);
    }
}

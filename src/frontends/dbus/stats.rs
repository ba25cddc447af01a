//! An [`Answer`]'s stats as the `a{sv}` of `AskSync` and `Finished`.
//!
//! The rule: each top-level field of `Answer.stats` keeps its JSON type.
//! A JSON integer goes as `t` (u64; `x` if negative), any other number as
//! `d`, a string as `s`, a boolean as `b`; a null field is left out; an
//! array or object goes as one `s` holding its JSON, under the key with
//! `_json` added (`calls` → `calls_json`). `loop`, `persona` and
//! `termination` are added as `s`.

use crate::daemon::Answer;
use serde_json::Value as Json;
use std::collections::HashMap;
use zbus::zvariant::{OwnedValue, Str};

/// The stats of an answer as D-Bus values.
pub fn to_dbus(answer: &Answer) -> HashMap<String, OwnedValue> {
    let mut out = HashMap::new();
    if let Json::Object(fields) = &answer.stats {
        for (key, value) in fields {
            let entry = match value {
                Json::Null => continue,
                Json::Bool(b) => (key.clone(), OwnedValue::from(*b)),
                Json::Number(n) => (key.clone(), number(n)),
                Json::String(s) => (key.clone(), string(s.clone())),
                nested => (format!("{key}_json"), string(nested.to_string())),
            };
            out.insert(entry.0, entry.1);
        }
    }
    out.insert("loop".into(), string(answer.loop_id.clone()));
    out.insert("persona".into(), string(answer.persona.clone()));
    out.insert(
        "termination".into(),
        string(answer.termination.as_str().to_string()),
    );
    out
}

fn number(n: &serde_json::Number) -> OwnedValue {
    if let Some(u) = n.as_u64() {
        OwnedValue::from(u)
    } else if let Some(i) = n.as_i64() {
        OwnedValue::from(i)
    } else {
        OwnedValue::from(n.as_f64().unwrap_or(f64::NAN))
    }
}

fn string(s: String) -> OwnedValue {
    OwnedValue::from(Str::from(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Termination;
    use zbus::zvariant::Value;

    #[test]
    fn keeps_json_types() {
        let answer = Answer {
            loop_id: "none".into(),
            persona: "react".into(),
            answer: "hi".into(),
            termination: Termination::Answered,
            stats: serde_json::json!({
                "llm_calls": 1, "wall_ms": 12.5, "ttft_ms": null,
                "note": "x", "calls": [{"a": 1}], "ok": true
            }),
            note: None,
            tool_calls: Vec::new(),
        };
        let s = to_dbus(&answer);
        assert_eq!(*s["llm_calls"], Value::U64(1));
        assert_eq!(*s["wall_ms"], Value::F64(12.5));
        assert!(!s.contains_key("ttft_ms"));
        assert_eq!(*s["note"], Value::from("x"));
        assert_eq!(*s["calls_json"], Value::from(r#"[{"a":1}]"#));
        assert_eq!(*s["ok"], Value::Bool(true));
        assert_eq!(*s["loop"], Value::from("none"));
        assert_eq!(*s["termination"], Value::from("answered"));
    }
}

//! What an OVOS peer (ovos-bus-client) sees of loopd on a bus.

use super::checks::{check_ask_stream, check_spoken};
use super::{client, replies};
use serde_json::{json, Value};
use std::path::Path;

/// The OVOS peer's view: persona list and query, `loopd.ask` streaming
/// and spoken utterances, on the bus listening at `port`.
pub fn exercise(port: u16, dir: &Path, tag: &str) {
    let list = client(port, "list", json!({}), dir);
    let personas = list["response"]["data"]["personas"].as_array().unwrap();
    let names: Vec<&str> = personas
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"quick") && names.contains(&"default"),
        "{list}"
    );
    for p in personas {
        assert_eq!(p["persona_id"], p["name"]);
    }

    let session = format!("{tag}-query");
    let query = client(
        port,
        "query",
        json!({"persona_id": "quick", "utterance": "Hi there!", "session": session,
               "context": {"source": "tester", "destination": "loopd",
                           "x_unknown": {"kept": [1, 2]}}}),
        dir,
    );
    let answer = &query["answer"];
    assert_eq!(answer["data"]["persona_id"], "quick", "{answer}");
    assert_eq!(answer["data"]["utterance"], "Hi there!");
    assert!(answer["data"]["error"].is_null(), "{answer}");
    assert!(!answer["data"]["response"].as_str().unwrap().is_empty());
    assert_eq!(answer["context"]["session"]["session_id"], session);
    assert_eq!(answer["context"]["x_unknown"], json!({"kept": [1, 2]}));
    assert_eq!(answer["context"]["source"], "loopd");
    assert_eq!(answer["context"]["destination"], "tester");

    let unknown = client(
        port,
        "query",
        json!({"persona_id": "nobody", "utterance": "Hi"}),
        dir,
    );
    let data = &unknown["answer"]["data"];
    assert_eq!(data["persona_id"], "nobody");
    assert!(data["response"].is_null(), "{data}");
    assert!(data["error"].as_str().unwrap().contains("nobody"), "{data}");

    let id = format!("{tag}-ask");
    let asked = client(
        port,
        "ask",
        json!({"request_id": id, "session": format!("{tag}-ask"),
               "data": {"utterance": "Say hello.", "loop": "none", "max_tokens": 16}}),
        dir,
    );
    let replies_ = replies(&asked);
    let messages: Vec<Value> = replies_.iter().map(|(_, m)| m.clone()).collect();
    let done = check_ask_stream(&messages, &id);
    assert_eq!(
        done["context"]["session"]["session_id"],
        format!("{tag}-ask")
    );
    eprintln!(
        "{tag}: loopd.ask first token after {:.0} ms, answer after {:.0} ms",
        replies_[0].0 * 1000.0,
        replies_.last().unwrap().0 * 1000.0
    );

    for kind in ["recognizer_loop:utterance", "ovos.utterance.handle"] {
        let session = format!("{tag}-{kind}");
        let result = client(
            port,
            "utterance",
            json!({"type": kind, "utterance": "Tell me about the moon.", "session": session}),
            dir,
        );
        let spoken = check_spoken(&replies(&result), &session);
        let handled = replies(&result).last().unwrap().0;
        eprintln!(
            "{tag}: {kind}: first speak after {:.0} ms, handled after {:.0} ms, {} sentences",
            spoken[0].0 * 1000.0,
            handled * 1000.0,
            spoken.len()
        );
        assert!(spoken.len() >= 2, "one sentence only: {spoken:?}");
        assert!(
            handled - spoken[0].0 > 0.1,
            "the first sentence was not spoken while the answer streamed: {spoken:?}, handled at {handled}"
        );
    }
}

//! Protocol checks and small clients shared by the bus tests.

use crate::common::serve::Serve;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message as Frame;

/// Largest frame in the tests' config.
pub const MAX_FRAME: usize = 4096;

/// A config whose default persona answers in a few plain sentences without
/// a loop (so utterances are quick), with small answers and frames.
pub fn config(dir: &Path) -> String {
    let persona = dir.join("quick.toml");
    std::fs::write(
        &persona,
        "name = \"quick\"\n\
         description = \"Short plain answers.\"\n\
         engine = \"none\"\n\
         system_prompt = \"You are a helpful assistant. Answer in two or three short sentences.\"\n",
    )
    .unwrap();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "default_persona = \"quick\"\npersonas = [{:?}]\n\
             [requests]\nmax_tokens = 48\n[bus]\nmax_frame_bytes = {MAX_FRAME}\n",
            persona.display().to_string()
        ),
    )
    .unwrap();
    config.display().to_string()
}

/// Waits until loopd's log has `needle` at least `count` times.
pub fn wait_for_log(serve: &Serve, needle: &str, count: usize, timeout: Duration) {
    let until = Instant::now() + timeout;
    while serve.stderr().matches(needle).count() < count {
        assert!(
            Instant::now() < until,
            "loopd did not log `{needle}` {count} time(s) in {timeout:?}:\n{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Checks a `loopd.ask` stream: tokens, then exactly one `loopd.answer`
/// whose text is the concatenated answer tokens. Returns the answer.
pub fn check_ask_stream(messages: &[Value], id: &str) -> Value {
    let mine: Vec<&Value> = messages
        .iter()
        .filter(|m| m["data"]["request_id"] == id && m["type"] != "loopd.ask")
        .collect();
    let (last, before) = mine.split_last().expect("replies to the ask");
    assert_eq!(last["type"], "loopd.answer", "{last}");
    let mut spoken = String::new();
    let mut tokens = 0;
    for m in before {
        match m["type"].as_str().unwrap() {
            "loopd.token" => {
                tokens += 1;
                let channel = m["data"]["channel"].as_str().unwrap();
                assert!(channel == "answer" || channel == "thought", "{m}");
                if channel == "answer" {
                    spoken.push_str(m["data"]["text"].as_str().unwrap());
                }
            }
            "loopd.event" => assert!(m["data"]["kind"].is_string(), "{m}"),
            _ => panic!("unexpected reply before the answer: {m}"),
        }
    }
    assert!(tokens > 0, "no tokens streamed before {last}");
    let data = &last["data"];
    assert_eq!(spoken, data["answer"].as_str().unwrap());
    assert!(
        data["stats"]["completion_tokens"].as_u64().unwrap() > 0,
        "{data}"
    );
    assert!(data["stats"]["ttft_ms"].is_number(), "{data}");
    (*last).clone()
}

/// Checks an utterance's replies: at least one `speak`, then
/// `ovos.utterance.handled` last. Returns the `speak` times and texts.
pub fn check_spoken(replies: &[(f64, Value)], session: &str) -> Vec<(f64, String)> {
    let (last, speaks) = replies.split_last().expect("replies to the utterance");
    assert_eq!(last.1["type"], "ovos.utterance.handled", "{replies:?}");
    assert!(!speaks.is_empty(), "nothing was spoken: {replies:?}");
    for (_, m) in replies {
        assert_eq!(m["context"]["session"]["session_id"], session, "{m}");
    }
    speaks
        .iter()
        .map(|(t, m)| {
            assert_eq!(m["type"], "speak", "{m}");
            assert_eq!(m["data"]["lang"], "en-US");
            assert_eq!(m["data"]["expect_response"], false);
            let text = m["data"]["utterance"].as_str().unwrap().to_string();
            assert!(!text.trim().is_empty(), "{m}");
            (*t, text)
        })
        .collect()
}

/// A JSON-lines client of loopd's Unix socket.
pub struct Lines {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Lines {
    pub fn connect(path: PathBuf) -> Lines {
        let stream = UnixStream::connect(&path)
            .unwrap_or_else(|e| panic!("cannot connect to {}: {e}", path.display()));
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        Lines {
            writer: stream.try_clone().unwrap(),
            reader: BufReader::new(stream),
        }
    }

    /// Another handle on the same connection, to read it from another
    /// thread while this one writes.
    pub fn reader(&self) -> Lines {
        Lines {
            writer: self.writer.try_clone().unwrap(),
            reader: BufReader::new(self.writer.try_clone().unwrap()),
        }
    }

    pub fn send_raw(&mut self, line: &[u8]) {
        self.writer.write_all(line).unwrap();
        self.writer.write_all(b"\n").unwrap();
    }

    pub fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    pub fn next(&mut self) -> Value {
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .expect("a reply within 60 s");
        assert!(!line.is_empty(), "the socket closed");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Reads replies until one matches `last`.
    pub fn until(&mut self, last: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let m = self.next();
            let done = last(&m);
            seen.push(m);
            if done {
                return seen;
            }
        }
    }
}

/// A `loopd.ask` over the socket: a short plain question, plus `extra` data.
pub fn ask(id: &str, extra: Value) -> Value {
    let mut data = json!({"utterance": "Say hello.", "loop": "none", "max_tokens": 16,
                          "request_id": id});
    if let (Some(d), Value::Object(extra)) = (data.as_object_mut(), extra) {
        d.extend(extra);
    }
    json!({"type": "loopd.ask", "data": data,
           "context": {"session": {"session_id": "sock"}, "source": "me", "destination": "loopd"}})
}

/// Whether a reply ends the request `id`.
pub fn answered(id: &'static str) -> impl Fn(&Value) -> bool {
    move |m| {
        m["data"]["request_id"] == id && (m["type"] == "loopd.answer" || m["type"] == "loopd.error")
    }
}

/// A text frame as JSON; panics on anything else (a relayed garbage frame
/// would fail here).
pub fn text(frame: Option<Result<Frame, tokio_tungstenite::tungstenite::Error>>) -> Value {
    match frame {
        Some(Ok(Frame::Text(t))) => serde_json::from_str(t.as_str())
            .unwrap_or_else(|e| panic!("a frame that is not JSON was relayed ({e}): {t}")),
        other => panic!("expected a text frame, got {other:?}"),
    }
}

/// The `i`-th of many kinds of bad frames: bytes that are not UTF-8, text
/// that is not JSON, JSON of the wrong shape, wrong types, nulls, missing
/// fields, deep nesting, unknown types, loops, personas and toolboxes.
pub fn malformed(i: usize) -> Vec<u8> {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let text = match i % 16 {
        0 => return vec![0xff, 0xfe, b'{', 0xc3, 0x28, b'}'],
        1 => format!("not json {i}"),
        2 => format!("[{i}, 2, 3]"),
        3 => json!({"type": i, "data": {}}).to_string(),
        4 => json!({"type": "loopd.ask", "data": null}).to_string(),
        5 => json!({"type": "loopd.ask", "data": {"request_id": format!("m{i}")}}).to_string(),
        6 => {
            json!({"type": "loopd.ask", "data": {"utterance": null, "request_id": format!("m{i}")}})
                .to_string()
        }
        7 => json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": i}}).to_string(),
        8 => format!(
            r#"{{"type": "loopd.ask", "data": {{"utterance": {}}}}}"#,
            deep(4000)
        ),
        9 => json!({"type": format!("someone.else.{i}"), "data": {"x": [1, {"y": null}]}})
            .to_string(),
        10 => {
            json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": format!("m{i}"),
                                                "loop": "no-such-loop"}})
            .to_string()
        }
        11 => {
            json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": format!("m{i}"),
                                                "persona": "nobody"}})
            .to_string()
        }
        12 => {
            json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": format!("m{i}"),
                                                "tools": ["no-such-toolbox"]}})
            .to_string()
        }
        13 => {
            json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": format!("m{i}"),
                                                "max_tokens": -3, "temperature": "hot"}})
            .to_string()
        }
        14 => json!({"type": "loopd.cancel", "data": {"request_id": [i]}}).to_string(),
        _ => "{\"type\": \"loopd.ask\", \"data\": {\"utterance\": \"unterminated".to_string(),
    };
    text.into_bytes()
}

/// Checks how 16 clients × 4 asks at once ended, by kind (`answer`,
/// `Busy`, …): all 64 ended, at least one was answered, the queue turned
/// at least one away as `Busy`, and nothing else happened.
pub fn check_load(kinds: &std::collections::BTreeMap<String, usize>, front: &str) {
    eprintln!("16 × 4 asks on {front}: {kinds:?}");
    assert_eq!(kinds.values().sum::<usize>(), 64, "{kinds:?}");
    assert!(kinds.get("answer").copied().unwrap_or(0) >= 1, "{kinds:?}");
    assert!(kinds.get("Busy").copied().unwrap_or(0) >= 1, "{kinds:?}");
    assert_eq!(kinds.len(), 2, "only answers and Busy: {kinds:?}");
}

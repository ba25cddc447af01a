//! The message-bus front end end to end, on the real default model: with
//! the real `ovos-messagebus` server and `ovos-bus-client`, on loopd's own
//! hosted bus, and on the JSON-lines socket; bad input on both; and
//! rejoining a bus that restarts.

mod common;
mod ovos;

use common::serve::{temp_dir, Serve};
use futures_util::{SinkExt, StreamExt};
use ovos::{client, free_port, replies, wait_for_port, OvosBus};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message as Frame;

/// Largest frame in the tests' config.
const MAX_FRAME: usize = 4096;

/// A config whose default persona answers in a few plain sentences without
/// a loop (so utterances are quick), with small answers and frames.
fn config(dir: &Path) -> String {
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
fn wait_for_log(serve: &Serve, needle: &str, count: usize, timeout: Duration) {
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
fn check_ask_stream(messages: &[Value], id: &str) -> Value {
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
fn check_spoken(replies: &[(f64, Value)], session: &str) -> Vec<(f64, String)> {
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

/// The OVOS peer's view: persona list and query, `loopd.ask` streaming
/// and spoken utterances, on the bus listening at `port`.
fn exercise_with_ovos_client(port: u16, dir: &Path, tag: &str) {
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

#[test]
fn ovos_messagebus_peers_get_personas_asks_and_speech() {
    let dir = temp_dir("bus-ovos");
    let bus = OvosBus::start(free_port(), &dir);
    let config = config(&dir);
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--bus",
            &bus.url(),
            "--handle-utterances",
            "--config",
            &config,
        ],
        &[],
    );
    wait_for_log(&serve, "bus: joined", 1, Duration::from_secs(20));
    exercise_with_ovos_client(bus.port, &dir, "joined");
}

#[test]
fn ovos_bus_client_works_on_loopds_own_bus() {
    let dir = temp_dir("bus-hosted");
    let port = free_port();
    let config = config(&dir);
    let listen = format!("127.0.0.1:{port}");
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--bus-listen",
            &listen,
            "--handle-utterances",
            "--config",
            &config,
        ],
        &[],
    );
    assert!(
        wait_for_port(port, Duration::from_secs(10)),
        "{}",
        serve.stderr()
    );
    exercise_with_ovos_client(port, &dir, "hosted");
}

#[test]
fn loopd_rejoins_a_bus_that_restarts() {
    let dir = temp_dir("bus-rejoin");
    let mut bus = OvosBus::start(free_port(), &dir);
    let config = config(&dir);
    let serve = Serve::start(
        &["--no-dbus", "--bus", &bus.url(), "--config", &config],
        &[],
    );
    wait_for_log(&serve, "bus: joined", 1, Duration::from_secs(20));
    let query = json!({"persona_id": "quick", "utterance": "Hi", "timeout": 60});
    let first = client(bus.port, "query", query.clone(), &dir);
    assert!(first["answer"]["data"]["response"].is_string(), "{first}");

    let gone = Instant::now();
    bus.kill();
    wait_for_log(&serve, "bus: lost", 1, Duration::from_secs(10));
    std::thread::sleep(Duration::from_secs(1));
    bus.restart();
    wait_for_log(&serve, "bus: joined", 2, Duration::from_secs(20));
    let again = client(bus.port, "query", query, &dir);
    assert!(again["answer"]["data"]["response"].is_string(), "{again}");
    let took = gone.elapsed();
    eprintln!("answered again {took:?} after the bus went away");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// A JSON-lines client of loopd's Unix socket.
struct Lines {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Lines {
    fn connect(path: PathBuf) -> Lines {
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

    fn send_raw(&mut self, line: &[u8]) {
        self.writer.write_all(line).unwrap();
        self.writer.write_all(b"\n").unwrap();
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    fn next(&mut self) -> Value {
        let mut line = String::new();
        self.reader
            .read_line(&mut line)
            .expect("a reply within 60 s");
        assert!(!line.is_empty(), "the socket closed");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Reads replies until one matches `last`.
    fn until(&mut self, last: impl Fn(&Value) -> bool) -> Vec<Value> {
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

fn ask(id: &str, extra: Value) -> Value {
    let mut data = json!({"utterance": "Say hello.", "loop": "none", "max_tokens": 16,
                          "request_id": id});
    if let (Some(d), Value::Object(extra)) = (data.as_object_mut(), extra) {
        d.extend(extra);
    }
    json!({"type": "loopd.ask", "data": data,
           "context": {"session": {"session_id": "sock"}, "source": "me", "destination": "loopd"}})
}

fn answered(id: &'static str) -> impl Fn(&Value) -> bool {
    move |m| {
        m["data"]["request_id"] == id && (m["type"] == "loopd.answer" || m["type"] == "loopd.error")
    }
}

#[test]
fn the_socket_streams_asks_and_cancels() {
    let dir = temp_dir("bus-socket");
    let config = config(&dir);
    let serve = Serve::start(&["--no-dbus", "--no-bus", "--config", &config], &[]);
    let mut lines = Lines::connect(serve.socket_path());
    let start = Instant::now();
    lines.send(ask("s1", json!({})));
    let seen = lines.until(answered("s1"));
    let first = start.elapsed();
    let done = check_ask_stream(&seen, "s1");
    assert_eq!(done["context"]["session"]["session_id"], "sock");
    assert_eq!(done["context"]["source"], "loopd");
    assert_eq!(done["context"]["destination"], "me");
    eprintln!(
        "socket: answer after {first:?}; ttft_ms {}",
        done["data"]["stats"]["ttft_ms"]
    );

    lines.send(ask(
        "s2",
        json!({"max_tokens": 400, "utterance": "Write a long story."}),
    ));
    let token = lines.next();
    assert_eq!(token["type"], "loopd.token", "{token}");
    lines.send(json!({"type": "loopd.cancel", "data": {"request_id": "s2"}}));
    let end = lines.until(answered("s2"));
    let last = end.last().unwrap();
    assert_eq!(last["type"], "loopd.error", "{last}");
    assert_eq!(last["data"]["error"], "Cancelled", "{last}");
}

/// Every kind of bad input over the socket gets its error reply (or none
/// for a type loopd does not serve), and a good request still works.
#[test]
fn bad_input_on_the_socket_gets_errors_and_the_socket_keeps_serving() {
    let dir = temp_dir("bus-socket-bad");
    let config = config(&dir);
    let serve = Serve::start(&["--no-dbus", "--no-bus", "--config", &config], &[]);
    let mut lines = Lines::connect(serve.socket_path());
    lines.send_raw(b"this is not json");
    lines.send_raw(b"[1, 2, 3]");
    lines.send(json!({"type": "someone.elses.message", "data": {"utterance": "hi"}}));
    lines.send(json!({"type": "loopd.ask", "data": {"utterance": 5, "request_id": "b1"}}));
    lines.send(json!({"type": "loopd.ask", "data": {"utterance": "hi"}}));
    lines.send(json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": "b2", "loop": "nope"}}));
    lines.send(json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": "b3", "max_tokens": "ten"}}));
    lines.send(
        json!({"type": "ovos.persona.query", "data": {"utterance": ["hi"], "persona_id": "quick"}}),
    );
    lines.send(json!({"type": "loopd.cancel", "data": {"request_id": 7}}));
    lines.send_raw(&vec![b'x'; MAX_FRAME * 3]);
    lines.send(ask("good", json!({})));
    let seen = lines.until(answered("good"));
    check_ask_stream(&seen, "good");

    let errors: Vec<&Value> = seen
        .iter()
        .filter(|m| m["data"]["request_id"] != "good")
        .collect();
    let find = |pred: &dyn Fn(&Value) -> bool, what: &str| {
        let found: Vec<_> = errors.iter().filter(|m| pred(m)).collect();
        assert_eq!(found.len(), 1, "{what}: {errors:#?}");
    };
    let general = |needle: String| {
        move |m: &Value| {
            m["type"] == "loopd.error"
                && m["data"]["request_id"].is_null()
                && m["data"]["message"].as_str().unwrap().contains(&needle)
        }
    };
    find(&general("not a JSON message".into()), "garbage");
    find(&general("must be a JSON object".into()), "a JSON array");
    find(&general("request_id".into()), "ask without a request_id");
    find(
        &general(format!("more than {MAX_FRAME} bytes")),
        "oversize line",
    );
    let named = |id: &'static str, error: &'static str, needle: &'static str| {
        move |m: &Value| {
            m["type"] == "loopd.error"
                && m["data"]["request_id"] == id
                && m["data"]["error"] == error
                && m["data"]["message"].as_str().unwrap().contains(needle)
        }
    };
    find(
        &named("b1", "InvalidArgs", "`utterance` must be a string"),
        "b1",
    );
    find(&named("b2", "UnknownLoop", "nope"), "b2");
    find(&named("b3", "InvalidArgs", "`max_tokens`"), "b3");
    find(
        &|m: &Value| {
            m["type"] == "ovos.persona.answer"
                && m["data"]["error"]
                    .as_str()
                    .unwrap_or("")
                    .contains("`utterance` must be a string")
        },
        "bad persona query",
    );
    assert_eq!(errors.len(), 8, "only the expected replies: {errors:#?}");
    assert!(serve.stderr().contains("WARN"), "bad input is logged");
}

/// Bad input on loopd's hosted bus: malformed frames go no further, wrong
/// types get `loopd.error`, other peers' types are relayed unanswered, an
/// oversize frame closes that connection with 1009, and the bus keeps
/// serving the others.
#[test]
fn bad_input_on_the_hosted_bus_is_contained() {
    let dir = temp_dir("bus-hosted-bad");
    let port = free_port();
    let config = config(&dir);
    let listen = format!("127.0.0.1:{port}");
    let serve = Serve::start(
        &["--no-dbus", "--bus-listen", &listen, "--config", &config],
        &[],
    );
    assert!(
        wait_for_port(port, Duration::from_secs(10)),
        "{}",
        serve.stderr()
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let url = format!("ws://127.0.0.1:{port}/any/route");
        let (mut a, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        let (mut b, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        for ws in [&mut a, &mut b] {
            let hello = text(ws.next().await);
            assert_eq!(hello["type"], "connected", "{hello}");
        }
        for frame in [
            "garbage".to_string(),
            json!({"type": "someone.else", "data": {"x": 1}}).to_string(),
            json!({"type": "loopd.ask", "data": {"utterance": false, "request_id": "w1"}})
                .to_string(),
        ] {
            a.send(Frame::text(frame)).await.unwrap();
        }
        a.send(Frame::text("y".repeat(MAX_FRAME * 2)))
            .await
            .unwrap();
        let mut closed = None;
        while let Some(Ok(frame)) = a.next().await {
            if let Frame::Close(close) = frame {
                closed = close;
                break;
            }
        }
        let closed = closed.expect("a close frame after the oversize frame");
        assert_eq!(closed.code, CloseCode::Size, "{closed:?}");

        let good = ask("w2", json!({}));
        b.send(Frame::text(good.to_string())).await.unwrap();
        let mut seen = Vec::new();
        loop {
            let m = text(b.next().await);
            let done = m["data"]["request_id"] == "w2" && m["type"] == "loopd.answer";
            seen.push(m);
            if done {
                break;
            }
        }
        let count = |kind: &str, id: Value| {
            seen.iter()
                .filter(|m| m["type"] == kind && m["data"]["request_id"] == id)
                .count()
        };
        assert_eq!(
            count("someone.else", Value::Null),
            1,
            "relayed once: {seen:#?}"
        );
        assert_eq!(count("loopd.ask", json!("w1")), 1, "{seen:#?}");
        assert_eq!(
            count("loopd.ask", json!("w2")),
            1,
            "b's own frame comes back"
        );
        let error: Vec<&Value> = seen.iter().filter(|m| m["type"] == "loopd.error").collect();
        assert_eq!(error.len(), 1, "{seen:#?}");
        assert_eq!(error[0]["data"]["request_id"], "w1");
        assert_eq!(error[0]["data"]["error"], "InvalidArgs");
        check_ask_stream(&seen, "w2");
    });
    assert!(serve.stderr().contains("frame too large") || serve.stderr().contains("closing"));
}

/// A text frame as JSON; panics on anything else (a relayed garbage frame
/// would fail here).
fn text(frame: Option<Result<Frame, tokio_tungstenite::tungstenite::Error>>) -> Value {
    match frame {
        Some(Ok(Frame::Text(t))) => serde_json::from_str(t.as_str())
            .unwrap_or_else(|e| panic!("a frame that is not JSON was relayed ({e}): {t}")),
        other => panic!("expected a text frame, got {other:?}"),
    }
}

/// A client that stops reading is dropped once it falls a bounded number
/// of frames behind (close 1013), while the others keep being served.
#[test]
fn a_client_that_stops_reading_is_dropped_not_buffered() {
    let dir = temp_dir("bus-slow");
    let port = free_port();
    let config = config(&dir);
    let listen = format!("127.0.0.1:{port}");
    let serve = Serve::start(
        &["--no-dbus", "--bus-listen", &listen, "--config", &config],
        &[],
    );
    assert!(
        wait_for_port(port, Duration::from_secs(10)),
        "{}",
        serve.stderr()
    );
    const FRAMES: usize = 6000;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let url = format!("ws://127.0.0.1:{port}/core");
        let (mut slow, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        let (fast, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        let (mut sink, mut stream) = fast.split();
        let echoed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = echoed.clone();
        let reader = tokio::spawn(async move {
            let mut fillers = 0;
            while fillers < FRAMES {
                if text(stream.next().await)["type"] == "filler" {
                    fillers += 1;
                    counter.store(fillers, std::sync::atomic::Ordering::SeqCst);
                }
            }
            stream
        });
        let pad = "z".repeat(MAX_FRAME - 100);
        for i in 0..FRAMES {
            let frame = json!({"type": "filler", "data": {"i": i, "pad": pad}});
            sink.send(Frame::text(frame.to_string())).await.unwrap();
            if i % 100 == 99 {
                while echoed.load(std::sync::atomic::Ordering::SeqCst) <= i {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        }
        let mut stream = reader.await.unwrap();

        let mut received = 0;
        let close = loop {
            match slow.next().await {
                Some(Ok(Frame::Text(_))) => received += 1,
                Some(Ok(Frame::Close(close))) => break close.expect("a close code"),
                other => panic!("expected frames then a close, got {other:?}"),
            }
        };
        assert_eq!(close.code, CloseCode::Again, "{close:?}");
        assert!(
            received < FRAMES,
            "the slow client got all {received} frames"
        );

        sink.send(Frame::text(ask("f1", json!({})).to_string()))
            .await
            .unwrap();
        let mut seen = Vec::new();
        loop {
            let m = text(stream.next().await);
            let done = m["data"]["request_id"] == "f1" && m["type"] == "loopd.answer";
            seen.push(m);
            if done {
                break;
            }
        }
        check_ask_stream(&seen, "f1");
    });
    assert!(
        serve.stderr().contains("frames behind the bus"),
        "{}",
        serve.stderr()
    );
}

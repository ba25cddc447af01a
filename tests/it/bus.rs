//! The message-bus front end end to end, on the real default model: with
//! the real `ovos-messagebus` server and `ovos-bus-client`, on loopd's own
//! hosted bus, and on the JSON-lines socket; bad input on both; and
//! rejoining a bus that restarts. Raw-frame tests (bad input on the hosted
//! and a joined bus, a client that stops reading) are in `ovos::frames`.

use crate::common::serve::{temp_dir, Serve};
use crate::ovos;
use crate::ovos::checks::{
    answered, ask, check_ask_stream, check_load, config, malformed, wait_for_log, Lines, MAX_FRAME,
};
use crate::ovos::{client, free_port, wait_for_port, OvosBus};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

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
    ovos::peer::exercise(bus.port, &dir, "joined");
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
    ovos::peer::exercise(port, &dir, "hosted");
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

#[test]
fn the_socket_streams_asks_and_cancels() {
    let dir = temp_dir("bus-socket");
    let config = config(&dir);
    let mut serve = Serve::start(&["--no-dbus", "--no-bus", "--config", &config], &[]);
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
    let cancelled = Instant::now();
    lines.send(json!({"type": "loopd.cancel", "data": {"request_id": "s2"}}));
    let end = lines.until(answered("s2"));
    let last = end.last().unwrap();
    assert_eq!(last["type"], "loopd.error", "{last}");
    assert_eq!(last["data"]["error"], "Cancelled", "{last}");
    eprintln!(
        "cancel (socket loopd.cancel): {} token(s) after, Cancelled {:.1} ms later",
        end.iter().filter(|m| m["type"] == "loopd.token").count(),
        cancelled.elapsed().as_secs_f64() * 1000.0
    );

    let story = json!({"max_tokens": 400, "utterance": "Write a long story about a cat."});
    lines.send(ask("s3", story));
    let token = lines.next();
    assert_eq!(token["type"], "loopd.token", "{token}");
    let reader = std::thread::spawn(move || {
        let end = lines.until(answered("s3"));
        (end, Instant::now())
    });
    let stopped = Instant::now();
    assert!(
        serve.stop(),
        "loopd did not stop cleanly:\n{}",
        serve.stderr()
    );
    let (end, ended) = reader.join().unwrap();
    let last = end.last().unwrap();
    assert_eq!(last["type"], "loopd.error", "in flight at shutdown: {last}");
    assert_eq!(last["data"]["error"], "Cancelled", "{last}");
    eprintln!(
        "cancel (SIGTERM, socket client): {} token(s) after, Cancelled {:.1} ms later",
        end.iter().filter(|m| m["type"] == "loopd.token").count(),
        ended.duration_since(stopped).as_secs_f64() * 1000.0
    );
    assert!(
        !serve.socket_path().exists(),
        "the socket is removed on exit"
    );
}

/// 16 socket clients × 4 asks at once: every request gets exactly one
/// terminal reply; what does not fit in the queue is answered `Busy` at
/// once, not left hanging. Nobody reads the harness's notify socket after
/// `READY=1`, like a service manager that stalls: the daemon's status
/// updates must not block it (they did, after 10 answers).
#[test]
fn sixteen_clients_times_four_asks_get_one_reply_each() {
    let dir = temp_dir("bus-load");
    let config = config(&dir);
    let serve = Serve::start(&["--no-dbus", "--no-bus", "--config", &config], &[]);
    let path = serve.socket_path();
    let clients: Vec<_> = (0..16)
        .map(|n| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut lines = Lines::connect(path);
                let ids: Vec<String> = (0..4).map(|k| format!("c{n}-{k}")).collect();
                for id in &ids {
                    lines.send(ask(id, json!({"max_tokens": 8})));
                }
                let mut ends: Vec<(String, String)> = Vec::new();
                while ends.len() < ids.len() {
                    let m = lines.next();
                    if m["type"] == "loopd.answer" || m["type"] == "loopd.error" {
                        let id = m["data"]["request_id"].as_str().unwrap().to_string();
                        let kind = match m["type"].as_str().unwrap() {
                            "loopd.answer" => "answer".to_string(),
                            _ => m["data"]["error"].as_str().unwrap().to_string(),
                        };
                        ends.push((id, kind));
                    }
                }
                lines.send(ask("after", json!({"max_tokens": 4})));
                let after = lines.until(answered("after"));
                let strays: Vec<&Value> = after
                    .iter()
                    .filter(|m| m["type"] == "loopd.answer" || m["type"] == "loopd.error")
                    .filter(|m| m["data"]["request_id"] != "after")
                    .collect();
                assert!(strays.is_empty(), "a second terminal reply: {strays:?}");
                let mut got: Vec<&String> = ends.iter().map(|(id, _)| id).collect();
                got.sort();
                assert_eq!(got, ids.iter().collect::<Vec<_>>(), "one reply per request");
                ends
            })
        })
        .collect();
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for client in clients {
        for (_, kind) in client.join().unwrap() {
            *kinds.entry(kind).or_default() += 1;
        }
    }
    check_load(&kinds, "the socket");
}

/// 10,000 malformed lines of every kind on one socket connection, with 20
/// good asks among them: loopd neither crashes nor loses a good request
/// (each gets its answer, or `Busy` when the queue is full).
#[test]
fn ten_thousand_malformed_lines_lose_no_good_request() {
    let dir = temp_dir("bus-socket-flood");
    let config = config(&dir);
    let serve = Serve::start(&["--no-dbus", "--no-bus", "--config", &config], &[]);
    let mut lines = Lines::connect(serve.socket_path());
    let mut reader = lines.reader();
    let collect = std::thread::spawn(move || {
        let (mut ended, mut errors) = (std::collections::BTreeMap::new(), 0);
        while ended.len() < 20 {
            let m = reader.next();
            let id = m["data"]["request_id"].as_str().unwrap_or("").to_string();
            let kind = match m["type"].as_str() {
                Some("loopd.answer") => "answer",
                Some("loopd.error") if id.starts_with("good-") => "Busy",
                Some("loopd.error") => {
                    errors += 1;
                    continue;
                }
                _ => continue,
            };
            if id.starts_with("good-") {
                assert_eq!(
                    m["data"]
                        .get("error")
                        .map_or("Busy", |e| e.as_str().unwrap()),
                    "Busy",
                    "{m}"
                );
                let again = ended.insert(id, kind);
                assert!(again.is_none(), "a second terminal reply: {m}");
            }
        }
        (ended, errors)
    });
    for i in 0..10_000 {
        lines.send_raw(&malformed(i));
        if i % 500 == 250 {
            lines.send(ask(&format!("good-{}", i / 500), json!({"max_tokens": 4})));
        }
    }
    let (ended, errors) = collect.join().unwrap();
    let answers = ended.values().filter(|k| **k == "answer").count();
    eprintln!(
        "socket flood: 20 of 20 good asks ended ({answers} answered, {} Busy), {errors} error replies",
        20 - answers
    );
    assert_eq!(ended.len(), 20);
    assert!(answers >= 1);
    assert!(errors >= 5_000, "bad lines get error replies: {errors}");
}

/// A new utterance in the same session talks over the answer being spoken:
/// the earlier one stops (nothing more is spoken for it) and the new one is
/// answered at once.
#[test]
fn a_new_utterance_in_the_session_interrupts_the_spoken_answer() {
    let dir = temp_dir("bus-barge-in");
    let config = config(&dir);
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--no-bus",
            "--handle-utterances",
            "--config",
            &config,
        ],
        &[],
    );
    let mut lines = Lines::connect(serve.socket_path());
    let utterance = |turn: u32, text: &str, max_tokens: u32| {
        json!({"type": "recognizer_loop:utterance",
               "data": {"utterances": [text], "max_tokens": max_tokens},
               "context": {"session": {"session_id": "talk"}, "turn": turn}})
    };
    let of = |m: &Value, turn: u32, kind: &str| m["context"]["turn"] == turn && m["type"] == kind;
    lines.send(utterance(
        1,
        "Tell me a long story about a cat and a dog.",
        400,
    ));
    lines.until(|m| of(m, 1, "speak"));
    let interrupted = Instant::now();
    lines.send(utterance(2, "Say hello.", 16));
    let seen = lines.until(|m| of(m, 2, "ovos.utterance.handled"));
    let first_reply = seen
        .iter()
        .position(|m| of(m, 2, "speak"))
        .expect("the new utterance is spoken");
    let spoken_after = seen.iter().filter(|m| of(m, 1, "speak")).count();
    eprintln!(
        "barge-in: {spoken_after} more sentence(s) of the first answer, the new answer's \
         first sentence {:?} after it was asked",
        interrupted.elapsed()
    );
    assert!(
        spoken_after <= 1,
        "the first answer went on being spoken: {seen:#?}"
    );
    assert!(
        seen.iter().any(|m| of(m, 1, "ovos.utterance.handled")),
        "the first utterance ends: {seen:#?}"
    );
    assert!(
        seen[first_reply..].iter().all(|m| !of(m, 1, "speak")),
        "nothing of the first answer is spoken over the second: {seen:#?}"
    );
    assert!(serve.stderr().contains("interrupted by a new turn"));
}

/// The socket's directory is made private, a socket another loopd serves
/// is refused, and a stale one (left by a crash) is replaced.
#[test]
fn the_socket_path_is_private_exclusive_and_recovers_from_a_crash() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("bus-socket-path");
    let config = config(&dir);
    let path = dir.join("private/loopd/bus.sock");
    let socket = path.display().to_string();
    let args = [
        "--no-dbus",
        "--no-bus",
        "--config",
        &config,
        "--socket",
        &socket,
    ];
    let mut first = Serve::start(&args, &[]);
    for private in [dir.join("private"), dir.join("private/loopd")] {
        let mode = std::fs::metadata(&private).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "{}", private.display());
    }
    let second = std::panic::catch_unwind(|| Serve::start(&args, &[]));
    let why = match second {
        Ok(_) => panic!("a second loopd took over a socket in use"),
        Err(panic) => panic.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    assert!(why.contains("another process already serves"), "{why}");
    assert!(first.stop());

    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(path.exists(), "a stale socket file is left behind");
    let _third = Serve::start(&args, &[]);
    let mut lines = Lines::connect(path);
    lines.send(json!({"type": "ovos.persona.list", "data": {}}));
    let list = lines.next();
    assert_eq!(list["type"], "ovos.persona.list.response", "{list}");
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

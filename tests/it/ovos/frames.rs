//! Raw WebSocket frames against loopd's hosted bus and a joined OVOS bus:
//! bad input, a client that stops reading.

use super::checks::{
    ask, check_ask_stream, check_load, config, malformed, text, wait_for_log, MAX_FRAME,
};
use super::{free_port, wait_for_port, OvosBus};
use crate::common::serve::{temp_dir, Serve};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message as Frame;

/// `loopd serve` hosting a bus on a free port, once the port accepts.
fn hosting(dir: &std::path::Path) -> (Serve, u16) {
    let port = free_port();
    let config = config(dir);
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
    (serve, port)
}

/// Bad input on loopd's hosted bus: malformed frames go no further, wrong
/// types get `loopd.error`, other peers' types are relayed unanswered, an
/// oversize frame closes that connection with 1009, and the bus keeps
/// serving the others.
#[test]
fn bad_input_on_the_hosted_bus_is_contained() {
    let dir = temp_dir("bus-hosted-bad");
    let (serve, port) = hosting(&dir);
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

/// A client of the hosted bus that leaves in the middle of a long answer
/// has its request cancelled at once: the model does not go on generating
/// for nobody, and the next client's question is answered.
#[test]
fn a_client_that_leaves_mid_answer_is_cancelled() {
    let dir = temp_dir("bus-leave");
    let (serve, port) = hosting(&dir);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let url = format!("ws://127.0.0.1:{port}/core");
        let (mut asker, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        let (mut watcher, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        for ws in [&mut asker, &mut watcher] {
            assert_eq!(text(ws.next().await)["type"], "connected");
        }
        let story = json!({"max_tokens": 400, "utterance": "Write a long story about a cat."});
        asker
            .send(Frame::text(ask("gone", story).to_string()))
            .await
            .unwrap();
        loop {
            let m = text(asker.next().await);
            if m["type"] == "loopd.token" && m["data"]["request_id"] == "gone" {
                break;
            }
        }
        asker.close(None).await.unwrap();
        drop(asker);

        watcher
            .send(Frame::text(ask("next", json!({})).to_string()))
            .await
            .unwrap();
        let mut tokens_after_leaving = 0;
        let mut ended = None;
        let mut seen = Vec::new();
        loop {
            let m = text(watcher.next().await);
            let id = m["data"]["request_id"].clone();
            if id == "gone" && m["type"] == "loopd.token" {
                tokens_after_leaving += 1;
            }
            if id == "gone" && (m["type"] == "loopd.answer" || m["type"] == "loopd.error") {
                ended = Some(m.clone());
            }
            let done = id == "next" && m["type"] == "loopd.answer";
            seen.push(m);
            if done {
                break;
            }
        }
        let ended = ended.expect("the request that lost its client ended before the next one");
        assert_eq!(ended["type"], "loopd.error", "{ended}");
        assert_eq!(ended["data"]["error"], "Cancelled", "{ended}");
        eprintln!("tokens relayed after the client left: {tokens_after_leaving}");
        // Tokens generated before the close was seen, and those already on
        // their way to the watcher, still arrive: 9 on CI's loaded 2-core
        // runner. A request that went on would send hundreds (of 400).
        assert!(
            tokens_after_leaving <= 32,
            "{tokens_after_leaving} tokens went on being generated for nobody"
        );
        check_ask_stream(&seen, "next");
    });
    drop(serve);
}

/// A hosted bus beyond loopback needs a shared secret: without one loopd
/// refuses to start; with one, a client that does not present it is
/// turned away (HTTP 401) and one that does (`?secret=` or a bearer
/// header) is served.
#[test]
fn the_hosted_bus_beyond_loopback_needs_a_secret() {
    let dir = temp_dir("bus-secret");
    let config = config(&dir);
    let port = free_port();
    let listen = format!("0.0.0.0:{port}");
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["serve", "--model"])
        .arg(crate::common::model_path(crate::common::SMOLLM))
        .args(["--no-dbus", "--bus-listen", &listen, "--config", &config])
        .env("XDG_RUNTIME_DIR", &dir)
        .env("XDG_CONFIG_HOME", &dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("refusing to host the message bus") && stderr.contains("secret_file"),
        "{stderr}"
    );

    let secret_file = dir.join("bus-secret");
    std::fs::write(&secret_file, "open sesame 42\n").unwrap();
    let secret_file = secret_file.display().to_string();
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--bus-listen",
            &listen,
            "--bus-secret-file",
            &secret_file,
            "--config",
            &config,
        ],
        &[],
    );
    assert!(wait_for_port(port, Duration::from_secs(10)));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::Error as WsError;
        let base = format!("ws://127.0.0.1:{port}/core");
        for url in [
            base.clone(),
            format!("{base}?secret=open%20sesame"),
            format!("{base}?secret=wrong"),
        ] {
            match tokio_tungstenite::connect_async(url.as_str()).await {
                Err(WsError::Http(response)) => assert_eq!(response.status(), 401, "{url}"),
                other => panic!("{url}: expected HTTP 401, got {other:?}"),
            }
        }
        let mut request = base.as_str().into_client_request().unwrap();
        request
            .headers_mut()
            .insert("authorization", "Bearer open sesame 42".parse().unwrap());
        let (mut bearer, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        assert_eq!(text(bearer.next().await)["type"], "connected");
        let (mut query, _) =
            tokio_tungstenite::connect_async(format!("{base}?route=x&secret=open%20sesame%2042"))
                .await
                .unwrap();
        assert_eq!(text(query.next().await)["type"], "connected");
        query
            .send(Frame::text(ask("s1", json!({})).to_string()))
            .await
            .unwrap();
        let mut seen = Vec::new();
        loop {
            let m = text(query.next().await);
            let done = m["data"]["request_id"] == "s1" && m["type"] == "loopd.answer";
            seen.push(m);
            if done {
                break;
            }
        }
        check_ask_stream(&seen, "s1");
    });
    assert!(serve.stderr().contains("did not present the bus secret"));
}

/// 16 clients of the hosted bus × 4 asks at once: every request gets
/// exactly one terminal reply (answer or `Busy`), none twice.
#[test]
fn sixteen_bus_clients_times_four_asks_get_one_reply_each() {
    let dir = temp_dir("bus-hosted-load");
    let (_serve, port) = hosting(&dir);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let kinds = runtime.block_on(load(format!("ws://127.0.0.1:{port}/core")));
    check_load(&kinds, "the hosted bus");
}

/// Twelve asks sent at once by one client are queued in the order they
/// came: the first eight always fit the queue (eight wait behind the
/// running one), whatever the later ones meet.
#[test]
fn asks_from_one_client_are_queued_in_the_order_they_came() {
    let dir = temp_dir("bus-hosted-order");
    let (_serve, port) = hosting(&dir);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ends = runtime.block_on(async {
        let url = format!("ws://127.0.0.1:{port}/core");
        let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .unwrap();
        assert_eq!(text(ws.next().await)["type"], "connected");
        for k in 0..12 {
            let frame = ask(&format!("o{k:02}"), json!({"max_tokens": 8})).to_string();
            ws.send(Frame::text(frame)).await.unwrap();
        }
        let mut ends = std::collections::BTreeMap::new();
        while ends.len() < 12 {
            let m = text(ws.next().await);
            let id = m["data"]["request_id"].as_str().unwrap_or("").to_string();
            match m["type"].as_str() {
                Some("loopd.answer") => ends.insert(id, "answer".to_string()),
                Some("loopd.error") => ends.insert(id, m["data"]["error"].to_string()),
                _ => None,
            };
        }
        ends
    });
    eprintln!("12 asks from one client: {ends:?}");
    for k in 0..8 {
        assert_eq!(ends[&format!("o{k:02}")], "answer", "{ends:?}");
    }
    assert!(ends.values().any(|kind| kind.contains("Busy")), "{ends:?}");
}

/// The same load through a real `ovos-messagebus` that loopd joined: all
/// 16 clients' asks reach loopd over its one link to the bus.
#[test]
fn sixteen_clients_of_a_joined_bus_times_four_asks_get_one_reply_each() {
    let dir = temp_dir("bus-join-load");
    let bus = OvosBus::start(free_port(), &dir);
    let config = config(&dir);
    let serve = Serve::start(
        &["--no-dbus", "--bus", &bus.url(), "--config", &config],
        &[],
    );
    wait_for_log(&serve, "bus: joined", 1, Duration::from_secs(20));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let kinds = runtime.block_on(load(bus.url()));
    check_load(&kinds, "a joined bus");
    assert_eq!(serve.stderr().matches("bus: joined").count(), 1);
}

/// 16 clients of the bus at `url`, each with 4 asks at once and one more
/// after them: how the 64 ended, by kind; every client gets exactly one
/// terminal reply per request. The clients stay connected until all are
/// done: `ovos-messagebus` aborts the connection of a sender whose frame it
/// was relaying to a client that had just closed.
async fn load(url: String) -> std::collections::BTreeMap<String, usize> {
    let done = std::sync::Arc::new(tokio::sync::Barrier::new(16));
    let clients = (0..16).map(|n| {
        let url = url.clone();
        let done = done.clone();
        tokio::spawn(async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
                .await
                .unwrap();
            assert_eq!(text(ws.next().await)["type"], "connected");
            let mine: Vec<String> = (0..4).map(|k| format!("h{n}-{k}")).collect();
            for id in &mine {
                let frame = ask(id, json!({"max_tokens": 8})).to_string();
                ws.send(Frame::text(frame)).await.unwrap();
            }
            let after = format!("h{n}-after");
            ws.send(Frame::text(
                ask(&after, json!({"max_tokens": 4})).to_string(),
            ))
            .await
            .unwrap();
            let mut ends: Vec<(String, String)> = Vec::new();
            loop {
                let m = text(ws.next().await);
                let id = m["data"]["request_id"].as_str().unwrap_or("").to_string();
                let terminal = m["type"] == "loopd.answer" || m["type"] == "loopd.error";
                if !terminal || !id.starts_with(&format!("h{n}-")) {
                    continue;
                }
                let kind = match m["type"].as_str().unwrap() {
                    "loopd.answer" => "answer".to_string(),
                    _ => m["data"]["error"].as_str().unwrap().to_string(),
                };
                ends.push((id, kind));
                if ends.len() == mine.len() + 1 {
                    break;
                }
            }
            let mut ids: Vec<&String> = ends.iter().map(|(id, _)| id).collect();
            ids.sort();
            let mut expected: Vec<&String> = mine.iter().chain([&after]).collect();
            expected.sort();
            assert_eq!(ids, expected, "one terminal reply per request, none twice");
            done.wait().await;
            ends
        })
    });
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for client in clients.collect::<Vec<_>>() {
        for (id, kind) in client.await.unwrap() {
            if !id.ends_with("after") {
                *kinds.entry(kind).or_default() += 1;
            }
        }
    }
    kinds
}

/// 10,000 malformed frames of every kind on the hosted bus (bytes that are
/// not UTF-8 as binary frames), with 20 good asks among them: the bus keeps
/// serving, and every good ask ends exactly once.
#[test]
fn ten_thousand_malformed_frames_on_the_hosted_bus_lose_no_good_request() {
    let dir = temp_dir("bus-hosted-flood");
    let (serve, port) = hosting(&dir);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = format!("ws://127.0.0.1:{port}/core");
    let (ended, errors) = runtime.block_on(flood(&url, true));
    check_flood(&ended, errors, "hosted bus");
    assert!(serve.stderr().contains("ignoring a frame"));
}

/// The same flood through a real `ovos-messagebus` that loopd joined (text
/// frames only: that bus relays bytes that are not UTF-8 as text frames,
/// which no WebSocket client accepts). loopd stays joined throughout.
#[test]
fn ten_thousand_malformed_frames_on_a_joined_bus_lose_no_good_request() {
    let dir = temp_dir("bus-join-flood");
    let bus = OvosBus::start(free_port(), &dir);
    let config = config(&dir);
    let serve = Serve::start(
        &["--no-dbus", "--bus", &bus.url(), "--config", &config],
        &[],
    );
    wait_for_log(&serve, "bus: joined", 1, Duration::from_secs(20));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (ended, errors) = runtime.block_on(flood(&bus.url(), false));
    check_flood(&ended, errors, "joined bus");
    let log = serve.stderr();
    assert!(log.contains("ignoring a frame"), "{log}");
    assert_eq!(log.matches("bus: joined").count(), 1, "{log}");
}

/// Sends 10,000 malformed frames ([`malformed`]) with a good ask after
/// every 500th, and collects how each good ask ended (by request id) and
/// how many error replies the bad ones got. Bytes that are not UTF-8 go as
/// binary frames when `binary` is set, else are left out. The sender waits
/// for its own sync frame every 200 frames, so it does not fall behind.
async fn flood(url: &str, binary: bool) -> (std::collections::BTreeMap<String, String>, usize) {
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    assert_eq!(text(ws.next().await)["type"], "connected");
    let (mut sink, mut stream) = ws.split();
    let synced = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = synced.clone();
    let reader = tokio::spawn(async move {
        let (mut ended, mut errors) = (std::collections::BTreeMap::new(), 0);
        while ended.len() < 20 {
            let frame = stream.next().await;
            let Some(Ok(frame)) = frame else {
                panic!("the bus closed: {frame:?}")
            };
            // A joined bus relays the bad frames too.
            let Ok(m) = serde_json::from_slice::<Value>(&frame.into_data()) else {
                continue;
            };
            if m["type"] == "test.sync" {
                let n = m["data"]["n"].as_u64().unwrap() as usize;
                seen.store(n, std::sync::atomic::Ordering::SeqCst);
                continue;
            }
            let id = m["data"]["request_id"].as_str().unwrap_or("").to_string();
            let kind = match m["type"].as_str() {
                Some("loopd.answer") => "answer".to_string(),
                Some("loopd.error") => m["data"]["error"].as_str().unwrap().to_string(),
                _ => continue,
            };
            if id.starts_with("good-") {
                assert!(
                    ended.insert(id, kind).is_none(),
                    "a second terminal reply: {m}"
                );
            } else {
                errors += 1;
            }
        }
        (ended, errors)
    });
    for i in 0..10_000 {
        let frame = match String::from_utf8(malformed(i)) {
            Ok(text) if text.len() <= MAX_FRAME => Some(Frame::text(text)),
            Ok(_) => None,
            Err(e) => binary.then(|| Frame::binary(e.into_bytes())),
        };
        if let Some(frame) = frame {
            sink.send(frame).await.unwrap();
        }
        if i % 500 == 250 {
            let good = ask(&format!("good-{}", i / 500), json!({"max_tokens": 4}));
            sink.send(Frame::text(good.to_string())).await.unwrap();
        }
        if i % 200 == 199 {
            let sync = json!({"type": "test.sync", "data": {"n": i}});
            sink.send(Frame::text(sync.to_string())).await.unwrap();
            while synced.load(std::sync::atomic::Ordering::SeqCst) < i && !reader.is_finished() {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
    }
    reader.await.unwrap()
}

/// Every good ask of a [`flood`] ended once, as an answer or `Busy`, at
/// least one was answered, and the bad asks got error replies.
fn check_flood(ended: &std::collections::BTreeMap<String, String>, errors: usize, front: &str) {
    let answers = ended.values().filter(|k| *k == "answer").count();
    eprintln!(
        "{front} flood: 20 of 20 good asks ended ({answers} answered, the rest {:?}), \
         {errors} error replies",
        ended
            .values()
            .filter(|k| *k != "answer")
            .collect::<std::collections::BTreeSet<_>>()
    );
    assert_eq!(ended.len(), 20);
    assert!(answers >= 1);
    assert!(
        ended.values().all(|k| k == "answer" || k == "Busy"),
        "{ended:?}"
    );
    assert!(errors >= 3_000, "bad asks get error replies: {errors}");
}

/// A client that stops reading is dropped once it falls a bounded number
/// of frames behind (close 1013), while the others keep being served.
#[test]
fn a_client_that_stops_reading_is_dropped_not_buffered() {
    let dir = temp_dir("bus-slow");
    let (serve, port) = hosting(&dir);
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

/// On a joined bus, other peers' garbage and oversize frames are ignored
/// (logged), a wrong type gets `loopd.error`, and loopd stays joined.
#[test]
fn bad_input_on_a_joined_bus_is_ignored_and_loopd_stays_joined() {
    let dir = temp_dir("bus-join-bad");
    let bus = OvosBus::start(free_port(), &dir);
    let config = config(&dir);
    let serve = Serve::start(
        &["--no-dbus", "--bus", &bus.url(), "--config", &config],
        &[],
    );
    wait_for_log(&serve, "bus: joined", 1, Duration::from_secs(20));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(bus.url().as_str())
            .await
            .unwrap();
        let oversize = json!({"type": "loopd.ask",
            "data": {"utterance": "x".repeat(MAX_FRAME * 2), "request_id": "big"}});
        for frame in [
            "garbage".to_string(),
            oversize.to_string(),
            json!({"type": "loopd.ask", "data": {"utterance": "hi", "request_id": "j1", "tools": 3}})
                .to_string(),
            ask("j2", json!({})).to_string(),
        ] {
            ws.send(Frame::text(frame)).await.unwrap();
        }
        let mut seen = Vec::new();
        loop {
            let frame = ws.next().await;
            let Some(Ok(Frame::Text(t))) = frame else {
                panic!("the bus closed: {frame:?}")
            };
            let Ok(m) = serde_json::from_str::<Value>(t.as_str()) else {
                continue;
            };
            let done = m["data"]["request_id"] == "j2" && m["type"] == "loopd.answer";
            seen.push(m);
            if done {
                break;
            }
        }
        let replies: Vec<&Value> = seen
            .iter()
            .filter(|m| m["type"] == "loopd.error" || m["type"] == "loopd.token")
            .filter(|m| m["data"]["request_id"] != "j2")
            .collect();
        assert_eq!(replies.len(), 1, "{replies:#?}");
        assert_eq!(replies[0]["type"], "loopd.error");
        assert_eq!(replies[0]["data"]["request_id"], "j1");
        assert!(replies[0]["data"]["message"].as_str().unwrap().contains("`tools`"));
        check_ask_stream(&seen, "j2");
    });
    let log = serve.stderr();
    assert!(log.contains("ignoring a frame of"), "{log}");
    assert!(
        log.contains("ignoring a frame: not a JSON message"),
        "{log}"
    );
    assert_eq!(log.matches("bus: joined").count(), 1, "{log}");
}

/// A web page may not use the hosted bus: a handshake with another site's
/// `Origin`, or with a `Host` that is a name (DNS rebinding), gets HTTP
/// 403; the real OVOS client's own Origin (this machine) is let in.
#[test]
fn web_pages_are_refused_by_the_hosted_bus() {
    let dir = temp_dir("bus-origin");
    let (serve, port) = hosting(&dir);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        use tokio_tungstenite::tungstenite::Error as WsError;
        let url = format!("ws://127.0.0.1:{port}/core");
        for (name, value) in [
            ("origin", "http://evil.example"),
            ("origin", "null"),
            ("host", "evil.example"),
        ] {
            let mut request = url.as_str().into_client_request().unwrap();
            request.headers_mut().insert(name, value.parse().unwrap());
            match tokio_tungstenite::connect_async(request).await {
                Err(WsError::Http(response)) => {
                    assert_eq!(response.status(), 403, "{name}: {value}")
                }
                other => panic!("{name}: {value}: expected HTTP 403, got {other:?}"),
            }
        }
        let mut request = url.as_str().into_client_request().unwrap();
        let own = format!("http://127.0.0.1:{port}");
        request.headers_mut().insert("origin", own.parse().unwrap());
        let (mut ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        assert_eq!(text(ws.next().await)["type"], "connected");
    });
    assert!(
        serve.stderr().contains("refused") && serve.stderr().contains("evil.example"),
        "{}",
        serve.stderr()
    );
}

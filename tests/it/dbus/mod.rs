//! `io.loopd.Loopd1` end to end: a private `dbus-daemon`, the real
//! `loopd serve` on the default model, and a zbus client.

pub mod client;
mod system;

use client::*;
use futures_util::StreamExt;
use std::time::{Duration, Instant};
use zbus::zvariant::Value;

#[test]
fn an_mcp_server_in_the_config_is_listed_by_list_tools_and_can_be_asked_for() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::with_config(crate::common::SMOLLM, &crate::mcp::vault_config());
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let loopd = loopd(&conn).await;
        let tools: serde_json::Value =
            serde_json::from_str(&loopd.list_tools().await.unwrap()).unwrap();
        let vault: Vec<&serde_json::Value> = tools
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["toolbox"] == "vault")
            .collect();
        assert_eq!(vault.len(), 1, "{tools}");
        assert_eq!(vault[0]["name"], "station_code");
        assert_eq!(vault[0]["source"], "mcp");
        let calculate = tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "calculate");
        assert_eq!(calculate.unwrap()["source"], "builtin");

        let opts = options(&[
            ("loop", Value::from("none")),
            ("max_tokens", Value::from(8u32)),
            ("tools", Value::from(vec!["vault"])),
        ]);
        let (answer, _) = loopd.ask_sync("Say hi.", opts).await.unwrap();
        assert!(!answer.trim().is_empty());
        let unknown = options(&[("tools", Value::from(vec!["safe"]))]);
        let refused = loopd.ask_sync("Say hi.", unknown).await.unwrap_err();
        assert_eq!(error_name(&refused), "io.loopd.Loopd1.Error.InvalidArgs");
        assert!(
            refused.to_string().contains("unknown toolbox `safe`"),
            "{refused}"
        );
    });
}

/// A program's toolbox on D-Bus (`toolbox.py`, jeepney) registered on
/// `fixture`'s bus as `doors`; killed when dropped.
fn doors(fixture: &Fixture) -> crate::common::Ready {
    let script =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/dbus/toolbox.py");
    let python = crate::ovos::python();
    let jeepney = std::process::Command::new(&python)
        .args(["-c", "import jeepney"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        jeepney,
        "the D-Bus toolbox test needs jeepney in {}: run .ci/run, or pip install jeepney there",
        python.display()
    );
    let mut command = std::process::Command::new(python);
    command
        .arg(script)
        .arg("doors")
        .env("DBUS_SESSION_BUS_ADDRESS", &fixture.bus.address);
    crate::common::Ready::spawn(command, &fixture.serve.dir.join("doors.log"))
}

/// The tools `ListTools` gives for toolbox `name`: (tool, source).
async fn listed(loopd: &Loopd1Proxy<'_>, name: &str) -> Vec<(String, String)> {
    let tools: serde_json::Value =
        serde_json::from_str(&loopd.list_tools().await.unwrap()).unwrap();
    tools
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["toolbox"] == name)
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_programs_toolbox_is_registered_checked_and_gone_when_it_leaves() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::start();
    let mut program = doors(&fixture);
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let loopd = loopd(&conn).await;
        assert_eq!(
            listed(&loopd, "doors").await,
            [
                ("door_code".to_string(), "dbus".to_string()),
                ("wait".to_string(), "dbus".to_string())
            ]
        );
        let path = zbus::zvariant::ObjectPath::try_from("/mine").unwrap();
        let tools = r#"[{"name": "x", "argument_schema": {"type": "object"}}]"#;
        let refused = [
            (
                loopd.register_toolbox("doors", tools, path.clone()).await,
                "io.loopd.Loopd1.Error.NotAllowed",
                "registered by",
            ),
            (
                loopd.register_toolbox("math", tools, path.clone()).await,
                "io.loopd.Loopd1.Error.InvalidArgs",
                "built-in",
            ),
            (
                loopd.register_toolbox("mine", "{", path.clone()).await,
                "io.loopd.Loopd1.Error.InvalidArgs",
                "not JSON",
            ),
            (
                loopd
                    .register_toolbox(
                        "mine",
                        r#"[{"name": "x", "argument_schema": {"type": 5}}]"#,
                        path.clone(),
                    )
                    .await,
                "io.loopd.Loopd1.Error.InvalidArgs",
                "invalid argument_schema",
            ),
            (
                loopd.unregister_toolbox("doors").await,
                "io.loopd.Loopd1.Error.NotAllowed",
                "registered by",
            ),
        ];
        for (result, name, text) in refused {
            let e = result.unwrap_err();
            assert_eq!(error_name(&e), name, "{e}");
            assert!(e.to_string().contains(text), "{e}");
        }
        loopd.register_toolbox("mine", tools, path).await.unwrap();
        assert_eq!(listed(&loopd, "mine").await.len(), 1);
        loopd.unregister_toolbox("mine").await.unwrap();
        assert!(listed(&loopd, "mine").await.is_empty());

        program.kill();
        let until = Instant::now() + Duration::from_secs(10);
        while !listed(&loopd, "doors").await.is_empty() {
            assert!(
                Instant::now() < until,
                "the toolbox stayed after its program left"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let opts = options(&[("tools", Value::from(vec!["doors"]))]);
        let gone = loopd.ask_sync("Which door?", opts).await.unwrap_err();
        assert!(
            gone.to_string().contains("unknown toolbox `doors`"),
            "{gone}"
        );
    });
}

/// The target: a fact only a program's D-Bus toolbox knows, answered by
/// the default model with ReAct and with native tool calls .
#[test]
fn the_default_model_answers_from_a_dbus_toolbox_with_react_and_native_tools() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::with_config(crate::common::QWEN, "");
    let _program = doors(&fixture);
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let loopd = loopd(&conn).await;
        for engine in ["react", "native-tools"] {
            let opts = options(&[
                ("loop", Value::from(engine)),
                ("session", Value::from(engine)),
                ("tools", Value::from(vec!["doors"])),
            ]);
            let (answer, stats) = loopd
                .ask_sync("What is the access code of the garage door?", opts)
                .await
                .unwrap();
            assert!(answer.contains("4417"), "{engine}: {answer} {stats:?}");
            assert!(u64_stat(&stats, "tool_calls") >= 1, "{engine}: {stats:?}");
        }
    });
}

#[test]
fn properties_tools_ask_sync_and_bad_input() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::start();
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let loopd = loopd(&conn).await;

        assert!(loopd.loops().await.unwrap().iter().any(|l| l == "react"));
        assert!(!loopd.model().await.unwrap().is_empty());
        assert!(!loopd.device().await.unwrap().is_empty());
        assert_eq!(loopd.state().await.unwrap(), "ready");
        assert_eq!(loopd.version().await.unwrap(), env!("CARGO_PKG_VERSION"));

        let tools: serde_json::Value =
            serde_json::from_str(&loopd.list_tools().await.unwrap()).unwrap();
        let names: Vec<&str> = tools
            .as_array()
            .expect("ListTools gives a JSON array")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert!(names.contains(&"calculate"), "tools: {names:?}");

        let opts = options(&[
            ("loop", Value::from("none")),
            ("max_tokens", Value::from(24u32)),
            ("session", Value::from("dbus-sync")),
        ]);
        let (answer, stats) = loopd
            .ask_sync("What is the capital of France?", opts)
            .await
            .unwrap();
        assert!(!answer.trim().is_empty());
        assert_eq!(u64_stat(&stats, "llm_calls"), 1);
        assert!(u64_stat(&stats, "prompt_tokens") > 0);
        assert!(u64_stat(&stats, "completion_tokens") > 0);
        assert_eq!(str_stat(&stats, "loop"), "none");
        assert!(!str_stat(&stats, "persona").is_empty());
        assert!(!str_stat(&stats, "termination").is_empty());
        assert!(matches!(
            stats.get("wall_ms").map(|v| &**v),
            Some(Value::F64(_))
        ));

        let bad: Vec<(Options, &str)> = vec![
            (
                options(&[("loop", Value::from("no-such-loop"))]),
                "io.loopd.Loopd1.Error.UnknownLoop",
            ),
            (
                options(&[("persona", Value::from("nobody"))]),
                "io.loopd.Loopd1.Error.UnknownPersona",
            ),
            (
                options(&[("max_tokens", Value::from("24"))]),
                "io.loopd.Loopd1.Error.InvalidArgs",
            ),
            (
                options(&[("max_tokens", Value::from(0u32))]),
                "io.loopd.Loopd1.Error.InvalidArgs",
            ),
            (
                options(&[("tools", Value::from(3u32))]),
                "io.loopd.Loopd1.Error.InvalidArgs",
            ),
            (
                options(&[("colour", Value::from("red"))]),
                "io.loopd.Loopd1.Error.InvalidArgs",
            ),
            (
                options(&[("handle_token", Value::from("a/b"))]),
                "io.loopd.Loopd1.Error.InvalidArgs",
            ),
        ];
        for (opts, expected) in bad {
            let sync = loopd.ask_sync("hi", opts.clone()).await.unwrap_err();
            assert_eq!(error_name(&sync), expected, "AskSync {opts:?}: {sync}");
            let streaming = loopd.ask("hi", opts.clone()).await.unwrap_err();
            assert_eq!(
                error_name(&streaming),
                expected,
                "Ask {opts:?}: {streaming}"
            );
        }
        let e = loopd
            .ask_sync("hi", options(&[("max_tokens", Value::from("24"))]))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("max_tokens"), "{e}");
        let e = loopd
            .ask_sync("   ", options(&[("loop", Value::from("none"))]))
            .await
            .unwrap_err();
        assert_eq!(error_name(&e), "io.loopd.Loopd1.Error.InvalidArgs");
        let wrong_signature = conn
            .call_method(Some(NAME), PATH, Some(NAME), "AskSync", &("hi",))
            .await
            .unwrap_err();
        assert!(
            wrong_signature.to_string().contains("Signature mismatch"),
            "{wrong_signature:?}"
        );

        let (answer, _) = loopd.ask_sync("Say hello.", short("x")).await.unwrap();
        assert!(!answer.trim().is_empty(), "still serving after bad input");
    });

    let stderr = second_daemon_stderr(&fixture);
    assert!(
        stderr.contains("io.loopd.Loopd1 is already owned"),
        "a second loopd must say the name is taken:\n{stderr}"
    );
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let (answer, _) = loopd(&conn)
            .await
            .ask_sync("Hi!", short("y"))
            .await
            .unwrap();
        assert!(!answer.trim().is_empty(), "the first loopd still serves");
    });
}

#[test]
fn streaming_ask_cancel_and_cleanup() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut fixture = Fixture::start();
    let rt = runtime();
    let _in_runtime = rt.enter();
    let conn = rt.block_on(fixture.connect());
    rt.block_on(async {
        let other = fixture.connect().await;
        let loopd = loopd(&conn).await;
        let mut states = state_changes(&conn).await;

        let path = request_path(&conn, "first");
        let mut signals = subscribe(&conn, &path).await;
        let asked = Instant::now();
        let returned = loopd
            .ask("What is the capital of France?", short("first"))
            .await
            .unwrap();
        assert_eq!(returned.as_str(), path);
        let (mut tokens, mut first_token, mut events) = (String::new(), None, 0);
        let (answer, stats) = loop {
            match next_signal(&mut signals, Duration::from_secs(60)).await {
                Signal::Token(channel, text) => {
                    first_token.get_or_insert_with(|| asked.elapsed());
                    if channel == "answer" {
                        tokens.push_str(&text);
                    } else {
                        assert_eq!(channel, "thought");
                    }
                }
                Signal::Event(kind, json) => {
                    let event: serde_json::Value = serde_json::from_str(&json).unwrap();
                    assert_eq!(event["type"], kind.as_str());
                    events += 1;
                }
                Signal::Finished(answer, stats) => break (answer, stats),
                Signal::Failed(error, message) => panic!("Failed: {error}: {message}"),
            }
        };
        let finished = asked.elapsed();
        eprintln!(
            "D-Bus Ask (loop none, max_tokens 24): first Token after {:.1} ms, Finished after {:.1} ms ({events} events)",
            first_token.expect("at least one Token").as_secs_f64() * 1000.0,
            finished.as_secs_f64() * 1000.0
        );
        assert!(!answer.trim().is_empty());
        assert_eq!(answer.trim(), tokens.trim());
        assert_eq!(u64_stat(&stats, "llm_calls"), 1);
        assert!(u64_stat(&stats, "prompt_tokens") > 0);
        assert_eq!(str_stat(&stats, "loop"), "none");
        assert!(
            tokio::time::timeout(Duration::from_millis(500), signals.next())
                .await
                .is_err(),
            "nothing after Finished"
        );

        let gone = conn
            .call_method(Some(NAME), path.as_str(), Some(REQUEST), "Cancel", &())
            .await
            .unwrap_err();
        assert_eq!(
            error_name(&gone),
            "org.freedesktop.DBus.Error.UnknownObject"
        );
        let mut seen = Vec::new();
        while let Some(state) = next_state(&mut states, Duration::from_secs(5)).await {
            seen.push(state.clone());
            if seen.contains(&"busy".to_string()) && state == "ready" {
                break;
            }
        }
        assert!(
            seen.first().map(String::as_str) == Some("busy") && seen.last().map(String::as_str) == Some("ready"),
            "State changes signalled: {seen:?}"
        );

        let path = request_path(&conn, "long");
        let mut signals = subscribe(&conn, &path).await;
        loopd.ask(LONG_PROMPT, long("long")).await.unwrap();
        let reused = loopd.ask("hi", short("long")).await.unwrap_err();
        assert_eq!(error_name(&reused), "io.loopd.Loopd1.Error.InvalidArgs");
        let mut got_tokens = 0;
        while got_tokens < 3 {
            match next_signal(&mut signals, Duration::from_secs(60)).await {
                Signal::Token(..) => got_tokens += 1,
                Signal::Event(..) => {}
                Signal::Finished(..) | Signal::Failed(..) => panic!("ended before Cancel"),
            }
        }
        let stranger = other
            .call_method(Some(NAME), path.as_str(), Some(REQUEST), "Cancel", &())
            .await
            .unwrap_err();
        assert_eq!(error_name(&stranger), "io.loopd.Loopd1.Error.NotAllowed");
        let cancelled = Instant::now();
        conn.call_method(Some(NAME), path.as_str(), Some(REQUEST), "Cancel", &())
            .await
            .unwrap();
        let (error, message) = stopped_by("Cancel()", &mut signals, cancelled).await;
        assert_eq!(error, "Cancelled", "{message}");
        assert!(cancelled.elapsed() < Duration::from_secs(3));

        let (answer, _) = loopd.ask_sync("Say hello.", short("z")).await.unwrap();
        assert!(!answer.trim().is_empty());
        let (token, last) = ask_without_token(&loopd, &conn).await;
        assert!(token.starts_with('t'), "generated handle token {token}");
        assert_eq!(last, "Finished");
    });

    let path = request_path(&conn, "at_stop");
    let mut signals = rt.block_on(async {
        let mut signals = subscribe(&conn, &path).await;
        loopd(&conn)
            .await
            .ask(LONG_PROMPT, long("at_stop"))
            .await
            .unwrap();
        while !matches!(
            next_signal(&mut signals, Duration::from_secs(60)).await,
            Signal::Token(..)
        ) {}
        signals
    });
    let stopped = Instant::now();
    assert!(fixture.serve.stop(), "loopd serve exits 0 on SIGTERM");
    rt.block_on(async {
        let (error, message) = stopped_by("SIGTERM", &mut signals, stopped).await;
        assert_eq!(error, "Cancelled", "{message}");
    });
}

/// Reads a request's signals until it fails, printing how many tokens
/// came after `since` (when `what` cancelled it) and how long it took.
async fn stopped_by(
    what: &str,
    signals: &mut zbus::MessageStream,
    since: Instant,
) -> (String, String) {
    let mut tokens = 0;
    loop {
        match next_signal(signals, Duration::from_secs(10)).await {
            Signal::Failed(error, message) => {
                eprintln!(
                    "cancel (D-Bus {what}): {tokens} token(s) after, Failed {:.1} ms later",
                    since.elapsed().as_secs_f64() * 1000.0
                );
                return (error, message);
            }
            Signal::Finished(answer, _) => panic!("finished despite {what}: {answer}"),
            Signal::Token(..) => tokens += 1,
            Signal::Event(..) => {}
        }
    }
}

#[test]
fn a_caller_that_leaves_is_cancelled() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::start();
    runtime().block_on(async {
        let stays = fixture.connect().await;
        let loopd_b = loopd(&stays).await;
        for sync in [false, true] {
            let mut asking = None;
            let leaves = fixture.connect().await;
            let path = request_path(&leaves, "bye");
            let mut signals = subscribe(&leaves, &path).await;
            let loopd_a = loopd(&leaves).await;
            if sync {
                let pending = loopd_a.clone();
                asking = Some(tokio::spawn(async move {
                    pending.ask_sync(LONG_PROMPT, long("bye")).await
                }));
                let until = Instant::now() + Duration::from_secs(30);
                while loopd_b.state().await.unwrap() != "busy" {
                    assert!(Instant::now() < until, "AskSync never started");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
            } else {
                loopd_a.ask(LONG_PROMPT, long("bye")).await.unwrap();
                let mut got_tokens = 0;
                while got_tokens < 3 {
                    if let Signal::Token(..) =
                        next_signal(&mut signals, Duration::from_secs(60)).await
                    {
                        got_tokens += 1;
                    }
                }
            }
            assert_eq!(loopd_b.state().await.unwrap(), "busy");
            if let Some(task) = asking {
                task.abort();
            }
            drop((signals, loopd_a, leaves));
            let left = Instant::now();
            while loopd_b.state().await.unwrap() != "ready" {
                assert!(
                    left.elapsed() < Duration::from_secs(5),
                    "the request of a caller that left (AskSync: {sync}) still runs"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let free = left.elapsed();
            let (answer, _) = loopd_b.ask_sync("Say hello.", short("b")).await.unwrap();
            assert!(!answer.trim().is_empty());
            eprintln!(
                "caller left (AskSync: {sync}): daemon ready after {:.0} ms, next answer after {:.0} ms",
                free.as_secs_f64() * 1000.0,
                left.elapsed().as_secs_f64() * 1000.0
            );
        }
    });
    assert!(
        fixture.serve.stderr().contains("left; cancelled"),
        "{}",
        fixture.serve.stderr()
    );
}

/// The first LLM call of an `AskSync`, from the `calls_json` stat.
fn first_call(stats: &std::collections::HashMap<String, zbus::zvariant::OwnedValue>) -> (u64, u64) {
    let calls: serde_json::Value = serde_json::from_str(&str_stat(stats, "calls_json")).unwrap();
    let first = &calls[0];
    let n = |key: &str| {
        first[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {first}"))
    };
    assert_eq!(n("prefill_tokens") + n("cached_tokens"), n("prompt_tokens"));
    (n("prompt_tokens"), n("prefill_tokens"))
}

#[test]
fn the_warmed_persona_prompt_and_the_session_are_reused() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::start();
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let loopd = loopd(&conn).await;
        let ask = |question: &'static str| {
            let loopd = loopd.clone();
            async move {
                let opts = options(&[
                    ("max_tokens", Value::from(32u32)),
                    ("session", Value::from("kitchen")),
                ]);
                loopd.ask_sync(question, opts).await.unwrap().1
            }
        };
        let stats = ask("What is 12*12?").await;
        assert_eq!(str_stat(&stats, "loop"), "react");
        assert!(u64_stat(&stats, "cached_tokens") > 0);
        let (prompt, prefill) = first_call(&stats);
        assert!(
            prefill * 5 < prompt,
            "the default persona's warmed prompt was not reused: {prefill} of {prompt} computed"
        );

        let stats = ask("And 12 plus 12?").await;
        let (prompt, prefill) = first_call(&stats);
        assert!(
            prefill * 5 < prompt,
            "the session's cache was not reused by its follow-up: {prefill} of {prompt} computed"
        );
    });
}

/// 16 D-Bus clients × 4 `AskSync` calls at once: each call ends in exactly
/// one reply, an answer or the `Busy` error once the queue is full.
#[test]
fn sixteen_callers_times_four_asks_get_answers_or_busy() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::start();
    let kinds = runtime().block_on(async {
        let mut calls = Vec::new();
        for n in 0..16 {
            let conn = fixture.connect().await;
            for k in 0..4 {
                let conn = conn.clone();
                calls.push(tokio::spawn(async move {
                    let loopd = loopd(&conn).await;
                    let opts = options(&[
                        ("loop", Value::from("none")),
                        ("max_tokens", Value::from(8u32)),
                        ("session", Value::from(format!("load-{n}-{k}"))),
                    ]);
                    match loopd.ask_sync("Say hello.", opts).await {
                        Ok((answer, _)) if !answer.trim().is_empty() => "answer".to_string(),
                        Ok(_) => "empty answer".to_string(),
                        Err(e) => error_name(&e),
                    }
                }));
            }
        }
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        for call in calls {
            *kinds.entry(call.await.unwrap()).or_default() += 1;
        }
        kinds
    });
    eprintln!("16 × 4 AskSync calls: {kinds:?}");
    assert_eq!(kinds.values().sum::<usize>(), 64);
    assert!(kinds.get("answer").copied().unwrap_or(0) >= 1, "{kinds:?}");
    let busy = kinds
        .iter()
        .find(|(name, _)| name.ends_with("Busy"))
        .map(|(_, n)| *n);
    assert!(busy.unwrap_or(0) >= 1, "{kinds:?}");
    assert_eq!(kinds.len(), 2, "only answers and Busy: {kinds:?}");
}

/// The `i`-th of many kinds of bad calls: a body of the wrong signature,
/// wrong option types, out-of-range and unknown options, unknown loops,
/// personas and toolboxes, a bad handle token, an empty prompt, an unknown
/// method, and `Cancel` on a request that does not exist.
async fn bad_call(conn: &zbus::Connection, i: usize) -> zbus::Result<zbus::Message> {
    let opts = |pairs: &[(&'static str, Value<'static>)]| options(pairs);
    let call = |method: &'static str, body: (&'static str, Options)| async move {
        conn.call_method(Some(NAME), PATH, Some(NAME), method, &body)
            .await
    };
    match i % 12 {
        0 => {
            conn.call_method(Some(NAME), PATH, Some(NAME), "AskSync", &("hi",))
                .await
        }
        1 => {
            conn.call_method(Some(NAME), PATH, Some(NAME), "AskSync", &(42u32, opts(&[])))
                .await
        }
        2 => {
            call(
                "AskSync",
                ("hi", opts(&[("temperature", Value::from("hot"))])),
            )
            .await
        }
        3 => {
            call(
                "AskSync",
                ("hi", opts(&[("max_tokens", Value::from(-3i32))])),
            )
            .await
        }
        4 => {
            call(
                "AskSync",
                ("hi", opts(&[("loop", Value::from("no-such-loop"))])),
            )
            .await
        }
        5 => call("AskSync", ("hi", opts(&[("nope", Value::from(1u32))]))).await,
        6 => {
            call(
                "Ask",
                ("hi", opts(&[("handle_token", Value::from("bad/token"))])),
            )
            .await
        }
        7 => call("Frobnicate", ("hi", opts(&[]))).await,
        8 => call("AskSync", ("  ", opts(&[]))).await,
        9 => {
            call(
                "AskSync",
                ("hi", opts(&[("tools", Value::from(vec!["no-such"]))])),
            )
            .await
        }
        10 => {
            call(
                "AskSync",
                ("hi", opts(&[("persona", Value::from("nobody"))])),
            )
            .await
        }
        _ => {
            let path = format!("{PATH}/request/nobody/r{i}");
            conn.call_method(Some(NAME), path.as_str(), Some(REQUEST), "Cancel", &())
                .await
        }
    }
}

/// 10,000 bad calls from one client with 20 good `AskSync`s among them
/// from another: every bad call gets a D-Bus error, every good one ends
/// once (an answer or `Busy`), and the daemon goes on serving.
#[test]
fn ten_thousand_bad_calls_lose_no_good_request() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = Fixture::start();
    let (kinds, errors) = runtime().block_on(async {
        let bad = fixture.connect().await;
        let good = fixture.connect().await;
        let mut asks = Vec::new();
        let mut errors = std::collections::BTreeMap::<String, usize>::new();
        for i in 0..10_000 {
            match bad_call(&bad, i).await {
                Ok(reply) => panic!("bad call {i} succeeded: {reply:?}"),
                Err(e) => *errors.entry(error_name(&e)).or_default() += 1,
            }
            if i % 500 == 250 {
                let good = good.clone();
                asks.push(tokio::spawn(async move {
                    let opts = options(&[
                        ("loop", Value::from("none")),
                        ("max_tokens", Value::from(4u32)),
                    ]);
                    match loopd(&good).await.ask_sync("Say hello.", opts).await {
                        Ok((answer, _)) if !answer.trim().is_empty() => "answer".to_string(),
                        Ok(_) => "empty answer".to_string(),
                        Err(e) => error_name(&e),
                    }
                }));
            }
        }
        let mut kinds = std::collections::BTreeMap::<String, usize>::new();
        for ask in asks {
            *kinds.entry(ask.await.unwrap()).or_default() += 1;
        }
        (kinds, errors)
    });
    eprintln!(
        "D-Bus flood: 20 good AskSync calls ended {kinds:?}; 10,000 bad calls got {errors:?}"
    );
    assert_eq!(kinds.values().sum::<usize>(), 20);
    assert!(kinds.get("answer").copied().unwrap_or(0) >= 1, "{kinds:?}");
    assert!(
        kinds.keys().all(|k| k == "answer" || k.ends_with("Busy")),
        "{kinds:?}"
    );
    assert_eq!(errors.values().sum::<usize>(), 10_000);
    assert!(
        errors.contains_key("io.loopd.Loopd1.Error.InvalidArgs")
            && errors.contains_key("io.loopd.Loopd1.Error.UnknownLoop"),
        "{errors:?}"
    );
    // A body of the wrong signature is refused by zbus itself, before loopd
    // sees it, under zbus's own error name.
    let expected = |name: &str| {
        name.starts_with("io.loopd.Loopd1.Error.")
            || name == "org.freedesktop.DBus.Error.UnknownMethod"
            || name == "org.freedesktop.DBus.Error.UnknownObject"
            || name == "org.freedesktop.zbus.Error"
    };
    assert!(errors.keys().all(|name| expected(name)), "{errors:?}");
}

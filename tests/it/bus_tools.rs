//! Skills' toolboxes on the OVOS bus: a real `ovos-bus-client` toolbox
//! (`ovos/toolbox.py`) on the real `ovos-messagebus` and on loopd's hosted
//! bus, called through a `Toolset` as the loops call tools, and answering
//! the default model's loops end to end.

use crate::common::serve::{temp_dir, Serve};
use crate::common::QWEN;
use crate::ovos::checks::wait_for_log;
use crate::ovos::{client, free_port, toolbox, OvosBus};
use loopd::brain::ScriptedBrain;
use loopd::daemon::{Daemon, DaemonSettings};
use loopd::frontends::bus::{self, BusFrontEnd, BusMode, BusOptions};
use loopd::tools::{ExternalToolboxes, ToolConfig, ToolError, Toolset};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The bus front end in this process, on a daemon whose brain is never
/// asked (the tests call tools directly), with tool calls timing out after
/// two seconds.
async fn front_end(websocket: BusMode) -> (Daemon, BusFrontEnd) {
    let brain = Arc::new(ScriptedBrain::new(Vec::<String>::new()));
    let settings = DaemonSettings {
        tool_config: ToolConfig {
            call_timeout: Some(Duration::from_secs(2)),
            ..ToolConfig::default()
        },
        ..DaemonSettings::default()
    };
    let daemon = Daemon::start(brain, settings);
    let options = BusOptions {
        websocket: Some(websocket),
        socket: None,
        handle_utterances: false,
        max_frame_bytes: 1 << 20,
        secret: None,
    };
    let front = bus::start(daemon.clone(), options).await.unwrap();
    (daemon, front)
}

/// Waits until toolbox `id` is there (or, with `present` false, gone).
async fn until_toolbox(external: &ExternalToolboxes, id: &str, present: bool) {
    let until = Instant::now() + Duration::from_secs(20);
    while external.contains(id) != present {
        assert!(
            Instant::now() < until,
            "toolbox `{id}` {} within 20 s",
            if present { "did not appear" } else { "stayed" }
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Calls a tool off the async threads, as the loops do.
async fn call(external: &ExternalToolboxes, name: &str, args: Value) -> Result<Value, ToolError> {
    let config = ToolConfig {
        external: external.clone(),
        ..ToolConfig::default()
    };
    let tools = Toolset::named(&["station"], &config).unwrap();
    let name = name.to_string();
    tokio::task::spawn_blocking(move || tools.call(&name, args))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolbox_on_a_joined_ovos_bus_is_found_called_and_timed_out() {
    let dir = temp_dir("bus-tools-joined");
    let bus = OvosBus::start(free_port(), &dir);
    let mut skill = toolbox(bus.port, "station", &dir);
    let (daemon, _front) = front_end(BusMode::Join(bus.url())).await;
    let external = daemon.external_toolboxes().clone();
    until_toolbox(&external, "station", true).await;
    let listed = external.list();
    assert_eq!(listed[0].0, "station");
    assert_eq!(listed[0].1, loopd::tools::Source::Bus);
    let names: Vec<&str> = listed[0].2.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["station_code", "wait"]);

    assert_eq!(
        call(&external, "station_code", json!({"station": "Aurora"})).await,
        Ok(json!({"code": "VX-7781"}))
    );
    assert_eq!(
        call(&external, "station_code", json!({"station": "Vega"})).await,
        Err(ToolError::Failed(
            "ValueError: no station named 'Vega'".into()
        ))
    );
    let invalid = call(&external, "station_code", json!({"name": "Aurora"})).await;
    assert!(
        matches!(&invalid, Err(ToolError::InvalidArguments { reason, .. }) if reason.contains("station")),
        "{invalid:?}"
    );
    let started = Instant::now();
    let slow = call(&external, "wait", json!({"seconds": 4})).await;
    assert!(
        matches!(&slow, Err(ToolError::Failed(m)) if m.contains("no answer within 2 s")),
        "{slow:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));

    // A skill that dies on a bus loopd only joined costs one timeout.
    skill.kill();
    let started = Instant::now();
    let dead = call(&external, "station_code", json!({"station": "Aurora"})).await;
    assert!(
        matches!(&dead, Err(ToolError::Failed(m)) if m.contains("no answer within 2 s")),
        "{dead:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolbox_on_loopds_own_bus_goes_when_its_connection_closes_even_mid_call() {
    let dir = temp_dir("bus-tools-hosted");
    let port = free_port();
    let (daemon, _front) = front_end(BusMode::Host(format!("127.0.0.1:{port}"))).await;
    let external = daemon.external_toolboxes().clone();
    let mut skill = toolbox(port, "station", &dir);
    until_toolbox(&external, "station", true).await;
    assert_eq!(
        call(&external, "station_code", json!({"station": "cygnus"})).await,
        Ok(json!({"code": "LM-5190"}))
    );
    let stalled = tokio::spawn({
        let external = external.clone();
        async move { call(&external, "wait", json!({"seconds": 1.5})).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    skill.kill();
    assert_eq!(
        stalled.await.unwrap(),
        Err(ToolError::Failed(
            "toolbox `station` left the bus during the call".into()
        ))
    );
    until_toolbox(&external, "station", false).await;
}

/// The target: a fact only a skill's toolbox knows, answered through the
/// bus by the default model with ReAct and with native tool calls.
#[test]
fn the_default_model_answers_from_a_bus_toolbox_with_react_and_native_tools() {
    let dir = temp_dir("bus-tools-model");
    let bus = OvosBus::start(free_port(), &dir);
    let _skill = toolbox(bus.port, "station", &dir);
    let serve = Serve::start_on(QWEN, &["--no-dbus", "--bus", &bus.url()], &[]);
    wait_for_log(&serve, "bus: toolbox `station`", 1, Duration::from_secs(20));
    for engine in ["react", "native-tools"] {
        let asked = json!({
            "request_id": engine,
            "timeout": 120,
            "data": {
                "utterance": "What is the secret access code of the space station Borealis?",
                "loop": engine,
                "tools": ["station"],
            },
        });
        let result = client(bus.port, "ask", asked, &dir);
        let replies = result["replies"].as_array().unwrap();
        let answer = replies
            .iter()
            .map(|r| &r["message"])
            .find(|m| m["type"] == "loopd.answer")
            .unwrap_or_else(|| panic!("{engine}: no answer: {result}"));
        assert!(
            answer["data"]["answer"]
                .as_str()
                .unwrap()
                .contains("QT-2046"),
            "{engine}: {answer}\n{}",
            serve.stderr()
        );
    }
}

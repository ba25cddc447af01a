//! MCP servers as toolboxes, against real servers: the reference
//! `mcp-server-time` from PyPI, and `mcp/vault_server.py`, built on the `mcp`
//! SDK's FastMCP, which knows facts no model does.

use crate::common::{model_path, text, QWEN};
use loopd::tools::mcp::{self, McpServer};
use loopd::tools::{ExternalToolboxes, ToolConfig, ToolError, Toolset};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The Python venv's `bin` folder, with the `mcp` SDK and `mcp-server-time`
/// (the OVOS venv, `$LOOPD_OVOS_VENV`); fails with how to make it.
fn venv_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let python = crate::ovos::python();
        let bin = python.parent().unwrap().to_path_buf();
        let ok = Command::new(&python)
            .args(["-c", "import mcp.server.fastmcp"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok && bin.join("mcp-server-time").exists(),
            "the MCP tests need the `mcp` SDK and `mcp-server-time` in {}: run .ci/run, or \
             {}/pip install 'mcp>=1.20,<2' mcp-server-time",
            bin.display(),
            bin.display()
        );
        bin
    })
    .clone()
}

fn vault_script() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/mcp/vault_server.py")
        .display()
        .to_string()
}

/// The vault server, with its stalling and crashing tools when `trouble`.
fn vault(trouble: bool, timeout: Option<f64>) -> McpServer {
    McpServer {
        name: "vault".into(),
        command: venv_bin().join("python").display().to_string(),
        url: None,
        args: vec![vault_script()],
        env: [("VAULT_TROUBLE".to_string(), u8::from(trouble).to_string())].into(),
        timeout,
    }
}

/// `[[mcp]]` for the vault in a daemon config.
pub fn vault_config() -> String {
    format!(
        "[[mcp]]\nname = \"vault\"\ncommand = {:?}\nargs = [{:?}]\n",
        venv_bin().join("python").display().to_string(),
        vault_script()
    )
}

/// `--mcp vault=…` for the CLI.
fn vault_flag() -> String {
    format!(
        "vault={} {}",
        venv_bin().join("python").display(),
        vault_script()
    )
}

/// Calls a tool off the async threads, as the loops do.
async fn call(
    tools: &std::sync::Arc<Toolset>,
    name: &str,
    args: Value,
) -> Result<Value, ToolError> {
    let tools = tools.clone();
    let name = name.to_string();
    tokio::task::spawn_blocking(move || tools.call(&name, args))
        .await
        .unwrap()
}

fn toolset(external: &ExternalToolboxes, names: &[&str]) -> std::sync::Arc<Toolset> {
    let config = ToolConfig {
        external: external.clone(),
        ..ToolConfig::default()
    };
    std::sync::Arc::new(Toolset::named(names, &config).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_time_server_is_listed_and_called() {
    let external = ExternalToolboxes::default();
    let stop = CancellationToken::new();
    let _stop = stop.clone().drop_guard();
    let server = McpServer {
        name: "time".into(),
        command: venv_bin().join("mcp-server-time").display().to_string(),
        url: None,
        args: vec!["--local-timezone".into(), "Etc/UTC".into()],
        env: Default::default(),
        timeout: None,
    };
    mcp::start(server, external.clone(), stop.clone())
        .await
        .unwrap();
    let tools = toolset(&external, &["time"]);
    assert_eq!(tools.names(), ["get_current_time", "convert_time"]);
    let spec = tools.specs()[0].clone();
    assert_eq!(spec.argument_schema["required"], json!(["timezone"]));
    let now = call(
        &tools,
        "get_current_time",
        json!({"timezone": "Asia/Tokyo"}),
    )
    .await
    .unwrap();
    assert_eq!(now["timezone"], "Asia/Tokyo", "{now}");
    assert!(
        now["datetime"].as_str().unwrap().ends_with("+09:00"),
        "{now}"
    );
    let bad = call(&tools, "get_current_time", json!({"zone": "UTC"})).await;
    assert!(
        matches!(&bad, Err(ToolError::InvalidArguments { reason, .. }) if reason.contains("timezone")),
        "{bad:?}"
    );
    let refused = call(
        &tools,
        "get_current_time",
        json!({"timezone": "Mars/Olympus"}),
    )
    .await;
    assert!(
        matches!(&refused, Err(ToolError::Failed(m)) if m.contains("Mars/Olympus")),
        "{refused:?}"
    );
}

/// Two servers that offer tools of the same names: the second toolbox's
/// are offered as `<toolbox>_<name>`, and each name reaches its own server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clashing_tool_names_are_prefixed_with_their_toolbox() {
    let external = ExternalToolboxes::default();
    let stop = CancellationToken::new();
    let _stop = stop.clone().drop_guard();
    for (name, zone) in [("time", "Etc/UTC"), ("lima-time", "America/Lima")] {
        let server = McpServer {
            name: name.into(),
            command: venv_bin().join("mcp-server-time").display().to_string(),
            url: None,
            args: vec!["--local-timezone".into(), zone.into()],
            env: Default::default(),
            timeout: None,
        };
        mcp::start(server, external.clone(), stop.clone())
            .await
            .unwrap();
    }
    let tools = toolset(&external, &["time", "lima-time"]);
    assert_eq!(
        tools.names(),
        [
            "get_current_time",
            "convert_time",
            "lima_time_get_current_time",
            "lima_time_convert_time"
        ]
    );
    for (tool, zone) in [
        ("get_current_time", "Asia/Tokyo"),
        ("lima_time_get_current_time", "Europe/Paris"),
    ] {
        let now = call(&tools, tool, json!({"timezone": zone})).await.unwrap();
        assert_eq!(now["timezone"], zone, "{tool}: {now}");
    }
    // Each server names its own local zone in its tools' descriptions.
    let described = |name: &str| {
        tools
            .specs()
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.argument_schema.to_string())
            .unwrap()
    };
    assert!(described("get_current_time").contains("Etc/UTC"));
    assert!(described("lima_time_get_current_time").contains("America/Lima"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_call_times_out_and_a_crashed_server_is_restarted() {
    let external = ExternalToolboxes::default();
    let stop = CancellationToken::new();
    mcp::start(vault(true, Some(1.0)), external.clone(), stop.clone())
        .await
        .unwrap();
    let tools = toolset(&external, &["vault"]);
    assert_eq!(
        tools.names(),
        ["station_code", "wait", "crash", "environment"]
    );
    assert_eq!(
        call(&tools, "station_code", json!({"station": "Aurora"})).await,
        Ok(json!({"result": "VX-7781"}))
    );
    let environment = call(&tools, "environment", json!({})).await.unwrap();
    let names: Vec<&str> = environment["result"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .collect();
    assert!(
        names.contains(&"PATH") && names.contains(&"VAULT_TROUBLE"),
        "the server gets PATH and its own env: {names:?}"
    );
    assert!(
        names
            .iter()
            .all(|n| mcp::INHERITED.contains(n) || *n == "VAULT_TROUBLE" || n.starts_with("LC_")),
        "loopd's other variables stay with loopd: {names:?}"
    );
    let unknown = call(&tools, "station_code", json!({"station": "Vega"})).await;
    assert!(
        matches!(&unknown, Err(ToolError::Failed(m)) if m.contains("no station named 'Vega'")),
        "{unknown:?}"
    );

    let crashed = call(&tools, "crash", json!({})).await;
    assert!(
        matches!(&crashed, Err(ToolError::Failed(m)) if m.contains("MCP server `vault`")),
        "{crashed:?}"
    );
    let down = call(&tools, "station_code", json!({"station": "Aurora"})).await;
    assert!(
        matches!(&down, Err(ToolError::Failed(m)) if m.contains("not running now")),
        "{down:?}"
    );
    let restarted = Instant::now();
    let answer = loop {
        let tools = toolset(&external, &["vault"]);
        match call(&tools, "station_code", json!({"station": "cygnus"})).await {
            Ok(answer) => break answer,
            Err(ToolError::Failed(m)) if m.contains("not running now") => {
                assert!(
                    restarted.elapsed() < Duration::from_secs(30),
                    "the server was not restarted: {m}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(answer, json!({"result": "LM-5190"}));

    let started = Instant::now();
    let stalled = call(&tools, "wait", json!({"seconds": 4})).await;
    assert!(
        matches!(&stalled, Err(ToolError::Failed(m)) if m.contains("no answer within 1 s")),
        "{stalled:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    stop.cancel();
    let gone = Instant::now();
    while external.contains("vault") {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "the toolbox stayed after stop"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_is_reached_by_its_url() {
    let port = crate::ovos::free_port();
    let dir = crate::common::serve::temp_dir("mcp-http");
    let mut server = std::process::Command::new(venv_bin().join("python"))
        .arg(vault_script())
        .args(["--http", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("vault-http.log")).unwrap())
        .spawn()
        .unwrap();
    let _reap = Reap(&mut server);
    assert!(
        crate::ovos::wait_for_port(port, Duration::from_secs(30)),
        "the HTTP MCP server did not listen: {}",
        std::fs::read_to_string(dir.join("vault-http.log")).unwrap_or_default()
    );
    let external = ExternalToolboxes::default();
    let stop = CancellationToken::new();
    let _stop = stop.clone().drop_guard();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let vault = McpServer::from_flag(&format!("vault={url}")).unwrap();
    mcp::start(vault, external.clone(), stop.clone())
        .await
        .unwrap();
    let tools = toolset(&external, &["vault"]);
    assert_eq!(tools.names(), ["station_code"]);
    assert_eq!(
        call(&tools, "station_code", json!({"station": "Borealis"})).await,
        Ok(json!({"result": "QT-2046"}))
    );

    let nobody = format!("vault=http://127.0.0.1:{}/mcp", crate::ovos::free_port());
    let out = crate::common::loopd(&["ask", "--mcp", &nobody, "hi"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("MCP server `vault`: the MCP handshake failed"),
        "{stderr}"
    );
}

/// Kills a child process when dropped.
struct Reap<'a>(&'a mut std::process::Child);

impl Drop for Reap<'_> {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_server_that_cannot_start_is_one_clear_error() {
    let out = crate::common::loopd(&[
        "ask",
        "--mcp",
        "ghost=/no/such/mcp-server",
        "--tools",
        "ghost",
        "hi",
    ]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("MCP server `ghost`: cannot run `/no/such/mcp-server`"),
        "{stderr}"
    );
}

#[test]
fn tools_list_shows_an_mcp_servers_tools_and_source() {
    let out = crate::common::loopd(&["tools", "list", "--json", "--mcp", &vault_flag()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let vault: Vec<&Value> = list.iter().filter(|t| t["toolbox"] == "vault").collect();
    assert_eq!(vault.len(), 1, "{list:?}");
    assert_eq!(vault[0]["name"], "station_code");
    assert_eq!(vault[0]["source"], "mcp");
    assert_eq!(vault[0]["argument_schema"]["required"], json!(["station"]));
}

/// A persona with an MCP server of its own uses it with no flag at all.
#[test]
fn a_personas_own_mcp_server_is_started_and_used() {
    model_path(QWEN);
    let dir = crate::common::serve::temp_dir("mcp-persona");
    let persona = dir.join("keeper.toml");
    std::fs::write(
        &persona,
        format!(
            "name = \"keeper\"\nengine = \"react\"\ntoolboxes = [\"math\"]\n{}",
            vault_config()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env(loopd::models::MODEL_ENV, QWEN)
        .args(["ask", "--json", "--persona"])
        .arg(&persona)
        .arg("What is the secret access code of the space station Aurora?")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["answer"].as_str().unwrap().contains("VX-7781"),
        "{report}"
    );
    let shown = crate::common::loopd(&["personas", "show", persona.to_str().unwrap()]);
    let shown = text(&shown.stdout);
    assert!(
        shown.contains("[[mcp]]") && shown.contains("name = \"vault\""),
        "{shown}"
    );
}

/// The target: a fact only the server knows, answered through it by the
/// default model, with ReAct and with native tool calls.
#[test]
fn the_default_model_answers_from_an_mcp_server_with_react_and_native_tools() {
    model_path(QWEN);
    for engine in ["react", "native-tools"] {
        let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
            .env(loopd::models::MODEL_ENV, QWEN)
            .args(["ask", "--loop", engine, "--json", "--mcp", &vault_flag()])
            .arg("What is the secret access code of the space station Borealis?")
            .output()
            .unwrap();
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let answer = report["answer"].as_str().unwrap();
        assert!(answer.contains("QT-2046"), "{engine}: {report}");
        let called = report["trace"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["type"] == "tool_call" && e["name"] == "station_code");
        assert!(called, "{engine} answered without the tool: {report}");
    }
}

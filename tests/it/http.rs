//! `loopd serve --http`, the OpenAI-compatible API, through the official
//! `openai` Python client (`http/client.py`) on the fast model.

use crate::common::serve::{temp_dir, Serve};
use crate::ovos::{free_port, python};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `http/client.py URL KEY ARGS…` and reads its JSON line; fails with
/// how to install the client when it is missing.
pub fn client(url: &str, key: &str, args: &[&str]) -> Value {
    let mut all = vec![url, key];
    all.extend_from_slice(args);
    script("client.py", &all)
}

/// Runs `http/SCRIPT ARGS…` with the test venv's Python (which must have
/// the `openai` and `ollama` clients) and reads the JSON line it prints.
fn script(name: &str, args: &[&str]) -> Value {
    let python = python();
    let ok = Command::new(&python)
        .args(["-c", "import openai, ollama"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the HTTP tests need the `openai` and `ollama` clients in the test venv: run \
         .ci/run, or {} -m pip install openai 'ollama>=0.5,<1'",
        python.display()
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/http")
        .join(name);
    let out = Command::new(&python).arg(path).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{name} {args:?} printed no JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A config with a second persona, `quick`, that answers without a loop.
fn config(dir: &Path) -> String {
    let persona = dir.join("quick.toml");
    std::fs::write(
        &persona,
        "name = \"quick\"\ndescription = \"Short plain answers.\"\nengine = \"none\"\n\
         system_prompt = \"You are a helpful assistant. Answer in one short sentence.\"\n",
    )
    .unwrap();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "personas = [{:?}]\n[requests]\nmax_tokens = 48\n",
            persona.display().to_string()
        ),
    )
    .unwrap();
    config.display().to_string()
}

/// `loopd serve --http` on a free loopback port, and its base URL.
fn serving(name: &str, extra: &[&str]) -> (Serve, String) {
    let dir = temp_dir(name);
    serving_on(crate::common::SMOLLM, &config(&dir), extra)
}

/// `loopd serve --http` on `model` with the config file `config`, on a
/// free loopback port, and the server's base URL (without `/v1`).
fn serving_on(model: &str, config: &str, extra: &[&str]) -> (Serve, String) {
    let listen = format!("127.0.0.1:{}", free_port());
    let mut args = vec![
        "--no-dbus",
        "--no-bus",
        "--config",
        config,
        "--http",
        &listen,
    ];
    args.extend_from_slice(extra);
    let serve = Serve::start_on(model, &args, &[]);
    (serve, format!("http://{listen}/v1"))
}

#[test]
fn the_openai_client_lists_personas_and_gets_one_answer_streamed_or_whole() {
    let (serve, url) = serving("http-basic", &[]);
    let models = client(&url, "none", &["models"]);
    let ids = models["models"].as_array().unwrap();
    assert!(
        ids.contains(&json!("default")) && ids.contains(&json!("quick")),
        "{models}"
    );
    let model = ids.last().and_then(Value::as_str).unwrap_or_default();
    assert!(
        ids.len() == 3 && model.starts_with("smollm2"),
        "the model itself, after the personas: {models}"
    );

    let question = "What is the capital of France?";
    // The model by its own id answers bare: one turn, no persona's prompt,
    // loop or tool descriptions.
    let bare = client(&url, "none", &["ask", model, question, "whole"]);
    let persona = client(&url, "none", &["ask", "default", question, "whole"]);
    assert_eq!(bare["model"], model);
    assert!(
        bare["content"].as_str().is_some_and(|a| !a.is_empty()),
        "{bare}"
    );
    let tokens = |reply: &Value| reply["prompt_tokens"].as_u64().unwrap_or_default();
    assert!(
        tokens(&bare) > 0 && tokens(&bare) * 3 < tokens(&persona),
        "bare {bare}\npersona {persona}"
    );
    let whole = client(&url, "none", &["ask", "quick", question, "whole"]);
    let streamed = client(&url, "none", &["ask", "quick", question, "stream"]);
    eprintln!("whole: {whole}\nstreamed: {streamed}");
    let answer = whole["content"].as_str().unwrap();
    assert!(answer.contains("Paris"), "{whole}");
    assert_eq!(
        streamed["content"], whole["content"],
        "the same answer either way"
    );
    assert_eq!(whole["model"], "quick");
    for reply in [&whole, &streamed] {
        assert_eq!(reply["finish_reason"], "stop", "{reply}");
        assert!(reply["prompt_tokens"].as_u64().unwrap() > 10, "{reply}");
        assert!(reply["completion_tokens"].as_u64().unwrap() > 0, "{reply}");
    }
    assert!(streamed["first_delta_ms"].as_f64().is_some(), "{streamed}");
    assert_eq!(streamed["thoughts"], "", "no thoughts unless asked for");
    // The server's own time covers the model's: what loopd adds is the rest.
    let server_ms: f64 = whole["server_timing"]
        .as_str()
        .and_then(|t| t.strip_prefix("total;dur="))
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no Server-Timing total: {whole}"));
    let model_ms = whole["model_ms"].as_f64().unwrap_or_default();
    assert!(
        model_ms > 0.0 && server_ms >= model_ms,
        "server {server_ms} ms, model {model_ms} ms: {whole}"
    );
    drop(serve);
}

#[test]
fn a_loop_s_thoughts_stream_only_when_asked_for() {
    let (_serve, url) = serving("http-thoughts", &[]);
    let question = "What is 12*12?";
    let extra = json!({"loop": "react", "toolboxes": ["math"], "thoughts": true}).to_string();
    let with = client(
        &url,
        "none",
        &["ask", "default", question, "stream", &extra],
    );
    let extra = json!({"loop": "react", "toolboxes": ["math"]}).to_string();
    let without = client(
        &url,
        "none",
        &["ask", "default", question, "stream", &extra],
    );
    eprintln!("with thoughts: {with}\nwithout: {without}");
    assert!(
        with["thoughts"].as_str().unwrap().contains("Thought"),
        "{with}"
    );
    assert_eq!(without["thoughts"], "");
    assert_eq!(with["content"], without["content"]);
}

#[test]
fn what_loopd_cannot_answer_comes_back_as_openai_errors() {
    let (_serve, url) = serving("http-errors", &[]);
    let unknown = client(&url, "none", &["ask", "nobody", "Hi", "whole"]);
    assert_eq!(unknown["status"], 404, "{unknown}");
    assert!(
        unknown["message"].as_str().unwrap().contains("nobody"),
        "{unknown}"
    );
    let bad_loop = json!({"loop": "no-such-loop"}).to_string();
    let refused = client(&url, "none", &["ask", "quick", "Hi", "stream", &bad_loop]);
    assert_eq!(refused["status"], 400, "{refused}");
    assert_eq!(refused["error"], "BadRequestError", "{refused}");
}

#[test]
fn beyond_loopback_the_api_needs_its_key() {
    let dir = temp_dir("http-key");
    let port = free_port();
    let listen = format!("0.0.0.0:{port}");
    let refused = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["serve", "--no-dbus", "--no-bus", "--http", &listen])
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_RUNTIME_DIR", &dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("--http-key-file"), "{stderr}");

    let key = dir.join("key");
    std::fs::write(&key, "sesame\n").unwrap();
    let config = config(&dir);
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--no-bus",
            "--config",
            &config,
            "--http",
            &listen,
            "--http-key-file",
        ]
        .iter()
        .copied()
        .chain([key.to_str().unwrap()])
        .collect::<Vec<_>>(),
        &[],
    );
    let url = format!("http://127.0.0.1:{port}/v1");
    let wrong = client(&url, "open-up", &["models"]);
    assert_eq!(wrong["status"], 401, "{wrong}");
    assert_eq!(wrong["error"], "AuthenticationError", "{wrong}");
    let right = client(&url, "sesame", &["ask", "quick", "Say hello.", "whole"]);
    assert!(
        !right["content"].as_str().unwrap_or("").is_empty(),
        "{right}"
    );
    drop(serve);
}

/// On the plain persona, whose long answer streams as it comes (the default
/// persona's ReAct holds a list of numbers no source gives until it settles).
#[test]
fn a_client_that_goes_away_mid_answer_cancels_its_request() {
    let (serve, url) = serving("http-leave", &[]);
    let left = client(
        &url,
        "none",
        &[
            "leave",
            "quick",
            "Count from 1 to 1000, one number per line.",
        ],
    );
    assert_eq!(left["left"], true, "{left}");
    let until = Instant::now() + Duration::from_secs(30);
    while !serve.stderr().contains("0 answered, 1 failed") {
        assert!(
            Instant::now() < until,
            "the request was not cancelled:\n{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The status line and body of a raw HTTP/1.1 `GET /v1/models` to `port`
/// with these extra headers.
fn raw_get(port: &str, host: &str, extra: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    write!(
        stream,
        "GET /v1/models HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

/// A web page may not use the API: a `Host` that is a name (DNS
/// rebinding) or another site's `Origin` gets 403 in OpenAI's error shape;
/// this machine's address, `localhost` and a page of its own pass.
#[test]
fn web_pages_are_refused_by_the_api() {
    let (serve, url) = serving("http-origin", &[]);
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1");
    let own = format!("127.0.0.1:{port}");
    for (host, extra) in [
        ("evil.example", ""),
        (own.as_str(), "Origin: http://evil.example\r\n"),
        (own.as_str(), "Origin: null\r\n"),
    ] {
        let (status, body) = raw_get(port, host, extra);
        assert!(status.contains(" 403 "), "{host} {extra}: {status}");
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["code"], "forbidden_origin", "{body}");
    }
    for (host, extra) in [
        (own.as_str(), ""),
        ("localhost", ""),
        (own.as_str(), "Origin: http://localhost:3000\r\n"),
    ] {
        let (status, _) = raw_get(port, host, extra);
        assert!(status.contains(" 200 "), "{host} {extra}: {status}");
    }
    drop(serve);
}

/// Runs `http/tools.py API URL SCENARIO` and reads its JSON line.
/// Ollama's `options` seed and top_p reach the sampler: at temperature 1 the
/// same seed gives the same text, and different seeds different texts; a
/// `stop` string ends the reply before it.
#[test]
fn ollama_seed_and_stop_options_reach_the_model() {
    let (_serve, url) = serving("seed", &[]);
    let url = url.trim_end_matches("/v1");
    let out = script(
        "sampling.py",
        &[
            url,
            "quick",
            "Tell me something about the sea.",
            "7",
            "7",
            "8",
            "9",
        ],
    );
    let texts: Vec<&str> = out["texts"]
        .as_array()
        .unwrap_or_else(|| panic!("no texts: {out}"))
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 4, "{out}");
    assert!(!texts[0].is_empty(), "{out}");
    assert_eq!(texts[0], texts[1], "the same seed gave different texts");
    assert!(
        texts[2] != texts[0] || texts[3] != texts[0],
        "three seeds gave one text: {texts:?}"
    );
    let (plain, stopped) = (&out["listed"]["plain"], &out["listed"]["stopped"]);
    assert!(
        plain.as_str().is_some_and(|t| t.contains(',')),
        "without a stop the list has commas: {out}"
    );
    assert!(
        stopped
            .as_str()
            .is_some_and(|t| !t.trim().is_empty() && !t.contains(',')),
        "stop \",\" ends the reply at the first comma: {out}"
    );
}

fn tools_client(api: &str, url: &str, scenario: &str) -> Value {
    script("tools.py", &[api, url, scenario])
}

/// `loopd serve --http` on the default model (the one that calls tools),
/// with the default token limits; the base URL without `/v1`.
fn serving_qwen(name: &str) -> (Serve, String) {
    let config = temp_dir(name).join("config.toml");
    std::fs::write(&config, "").unwrap();
    let (serve, url) = serving_on(crate::common::QWEN, config.to_str().unwrap(), &[]);
    (serve, url.trim_end_matches("/v1").to_string())
}

/// Whether a call names the device: its `name` or `area` mentions `word`.
fn names(call: &Value, word: &str) -> bool {
    ["name", "area"].iter().any(|key| {
        call["arguments"][key]
            .as_str()
            .is_some_and(|v| v.to_lowercase().contains(word))
    })
}

#[test]
fn home_assistant_s_requests_call_the_right_intent_through_openai_and_ollama() {
    let (serve, base) = serving_qwen("http-home");
    for (api, url) in [("openai", format!("{base}/v1")), ("ollama", base.clone())] {
        let home = tools_client(api, &url, "home");
        eprintln!("{api}: {home}");
        let replies = home["replies"].as_array().unwrap();
        for stream in [false, true] {
            assert!(
                replies.iter().any(|r| r["stream"] == stream),
                "{api}: no reply with stream {stream}: {home}"
            );
        }
        for reply in replies {
            let command = reply["command"].as_str().unwrap();
            let calls = reply["calls"].as_array().unwrap();
            assert_eq!(calls.len(), 1, "{api}: {command}: {reply}");
            let call = &calls[0];
            let right = match command {
                "Turn on the kitchen light" => {
                    call["name"] == "HassTurnOn" && names(call, "kitchen")
                }
                "Turn off the porch light" => call["name"] == "HassTurnOff" && names(call, "porch"),
                "Set the thermostat to 21 degrees" => {
                    call["name"] == "HassClimateSetTemperature"
                        && call["arguments"]["temperature"].as_f64() == Some(21.0)
                }
                other => panic!("no expectation for {other}"),
            };
            assert!(right, "{api}: {command}: {call}");
            assert!(reply["content"].is_null(), "{api}: {command}: {reply}");
            if api == "openai" {
                assert_eq!(reply["finish_reason"], "tool_calls", "{reply}");
            }
        }

        let exchange = tools_client(api, &url, "exchange");
        eprintln!("{api}: {exchange}");
        assert_eq!(
            exchange["first"]["calls"][0]["name"], "HassTurnOn",
            "{exchange}"
        );
        let second = &exchange["second"];
        assert!(second["calls"].as_array().unwrap().is_empty(), "{exchange}");
        assert!(
            second["content"]
                .as_str()
                .is_some_and(|c| !c.trim().is_empty()),
            "{exchange}"
        );

        let choices = tools_client(api, &url, "choices");
        eprintln!("{api}: {choices}");
        let place: Value = serde_json::from_str(choices["format"]["content"].as_str().unwrap())
            .unwrap_or_else(|e| panic!("{api}: the JSON reply does not parse: {e}: {choices}"));
        assert!(
            place["city"].is_string() && place["country"].is_string(),
            "{place}"
        );
        if api == "openai" {
            assert!(
                !choices["required"]["calls"].as_array().unwrap().is_empty(),
                "{choices}"
            );
            assert_eq!(
                choices["named"]["calls"][0]["name"], "HassLightSet",
                "{choices}"
            );
            assert!(
                choices["none"]["calls"].as_array().unwrap().is_empty(),
                "{choices}"
            );
            assert!(choices["none"]["content"].is_string(), "{choices}");
        }
    }
    drop(serve);
}

#[test]
fn bad_tools_get_each_api_s_own_errors() {
    let (serve, url) = serving("http-bad-tools", &[]);
    let bad = tools_client("openai", &url, "bad");
    eprintln!("{bad}");
    for case in [
        "schema",
        "tool_choice",
        "orphan_result",
        "not_a_tool",
        "unsatisfiable",
    ] {
        assert_eq!(bad[case]["status"], 400, "{case}: {bad}");
        assert_eq!(bad[case]["type"], "invalid_request_error", "{case}: {bad}");
    }
    // Valid JSON Schema with a keyword the grammar cannot enforce
    // (`uniqueItems`) is approximated, not refused.
    assert_eq!(bad["unsupported_keyword"]["status"], 200, "{bad}");
    let base = url.trim_end_matches("/v1");
    let misc = tools_client("ollama", base, "misc");
    eprintln!("{misc}");
    assert_eq!(
        misc["tags"],
        json!([
            "default:latest",
            "quick:latest",
            "smollm2-135m-8k-lc100k-mix1-ep2:latest"
        ]),
        "the personas, then the model: {misc}"
    );
    assert!(
        misc["show"].as_array().unwrap().contains(&json!("tools")),
        "{misc}"
    );
    assert_eq!(misc["unknown_model"]["status"], 404, "{misc}");
    for case in ["orphan_result", "bad_format"] {
        assert_eq!(misc[case]["status"], 400, "{case}: {misc}");
    }
    assert_eq!(misc["generate"]["done"], true, "{misc}");
    assert!(
        misc["generate"]["eval_count"].as_u64().unwrap() > 0,
        "{misc}"
    );
    drop(serve);
}

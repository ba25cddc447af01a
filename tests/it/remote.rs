//! The remote brain against a server nobody here wrote: llama.cpp's
//! `llama-server`, built from source by `tests/peers/llama-server.sh`,
//! serving the default model's GGUF.
//!
//! Building the server takes 10-15 minutes on two cores, so these tests are
//! ignored by a plain `cargo test`: `tests/peers/remote.sh` builds it and
//! runs them, and CI runs that script whenever the code they cover changed
//! since they last passed (`tests/peers/remote.passed`).

use crate::common::{model_path, text, QWEN};
use crate::ovos::free_port;
use loopd::brain::{
    Brain, ChatRequest, EndReason, GenerateOptions, GenerationEvent, Message, RemoteBrain,
    RemoteBrainConfig,
};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The `llama-server` binary; fails with how to build it.
fn binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/llama-server.sh");
        let out = Command::new("bash").arg(&script).output().unwrap();
        assert!(
            out.status.success(),
            "the remote-brain tests need llama.cpp's llama-server; `bash {}` builds it \
             (cmake, about 8 minutes) and failed:\n{}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(text(&out.stdout).trim())
    })
    .clone()
}

/// A running `llama-server` on a free port; killed when dropped.
pub struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl LlamaServer {
    /// Serves `model` (a reference model's name) with `args` added, once
    /// `/health` says so.
    pub fn start(model: &str, args: &[&str]) -> LlamaServer {
        let port = free_port();
        let log = crate::common::serve::temp_dir("llama-server").join("server.log");
        let child = Command::new(binary())
            .arg("-m")
            .arg(model_path(model))
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", "2", "-c", "8192", "--no-webui"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .expect("cannot start llama-server");
        let mut server = LlamaServer { child, port, log };
        let until = Instant::now() + Duration::from_secs(60);
        while !server.healthy() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("llama-server exited ({status}):\n{}", server.log());
            }
            assert!(
                Instant::now() < until,
                "llama-server never got ready:\n{}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    fn healthy(&self) -> bool {
        use std::io::{Read, Write};
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let request = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        let mut reply = String::new();
        stream.write_all(request.as_bytes()).is_ok()
            && stream.read_to_string(&mut reply).is_ok()
            && reply.starts_with("HTTP/1.1 200")
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What it logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `loopd ask ARGS --json`, its report and stderr.
fn ask_json(args: &[&str], env: &[(&str, &str)]) -> (Option<Value>, String, i32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_loopd"));
    command.arg("ask").args(args).arg("--json");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    let report = serde_json::from_slice(&out.stdout).ok();
    (report, text(&out.stderr), out.status.code().unwrap_or(-1))
}

#[test]
#[ignore = "needs llama.cpp's llama-server: tests/peers/remote.sh"]
fn loops_think_on_llama_server_and_call_tools_as_they_do_locally() {
    let server = LlamaServer::start(QWEN, &[]);
    let question = "Use the calculator to compute 1234 * 5678.";
    let url = server.url();
    for engine in ["react", "native-tools"] {
        let base = ["--loop", engine, "--tools", "math"];
        let remote: Vec<&str> = base
            .iter()
            .copied()
            .chain(["--brain", &url, question])
            .collect();
        let (report, stderr, _) = ask_json(&remote, &[]);
        let report = report.unwrap_or_else(|| panic!("no report: {stderr}"));
        eprintln!("{engine} on llama-server: {}", report["answer"]);
        assert!(
            report["answer"].as_str().unwrap().contains("7006652"),
            "{report}"
        );
        let stats = &report["stats"];
        assert_eq!(stats["tools"][0]["name"], "calculate", "{report}");
        assert!(
            stats["prompt_tokens"].as_u64().unwrap() > 100,
            "usage from the server"
        );
        assert!(
            stats["unconstrained"].as_str().unwrap().contains("grammar"),
            "{stats}"
        );
        assert_eq!(stats["calls"][0]["constrained"], false);
        assert!(
            report["model"].as_str().unwrap().ends_with(".gguf"),
            "{report}"
        );
    }
}

#[test]
#[ignore = "needs llama.cpp's llama-server: tests/peers/remote.sh"]
fn a_generation_streams_continues_its_prefix_stops_and_counts_like_the_local_one() {
    let server = LlamaServer::start(QWEN, &[]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let brain = RemoteBrain::connect(RemoteBrainConfig::new(server.url()))
            .await
            .unwrap();
        let request = ChatRequest {
            messages: vec![Message::user("Count from 1 to 20, separated by commas.")],
            options: GenerateOptions {
                max_tokens: 100,
                stop: vec!["7".into()],
                ..GenerateOptions::default()
            },
            assistant_prefix: "1,".into(),
            ..ChatRequest::default()
        };
        let mut generation = brain.generate(request, CancellationToken::new());
        let mut pieces = String::new();
        let done = loop {
            match generation.next().await.unwrap() {
                GenerationEvent::Piece(piece) => pieces.push_str(&piece.text),
                GenerationEvent::Finished(done) => break done,
                GenerationEvent::Failed(e) => panic!("{e}"),
            }
        };
        eprintln!("{done:?}");
        assert_eq!(pieces, done.text);
        assert!(
            done.text.starts_with(" 2, 3,"),
            "continued after the prefix: {:?}",
            done.text
        );
        assert!(!done.text.contains('7'), "stopped before the stop string");
        assert_eq!(done.end, EndReason::EndOfTurn);
        assert!(done.usage.prompt_tokens > 20 && done.usage.completion_tokens > 3);
        assert!(
            done.usage.prefill_time > Duration::ZERO && done.usage.decode_time > Duration::ZERO
        );
    });
}

#[test]
#[ignore = "needs llama.cpp's llama-server: tests/peers/remote.sh"]
fn cancelling_closes_the_stream_and_the_server_stops() {
    let server = LlamaServer::start(QWEN, &[]);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let brain = RemoteBrain::connect(RemoteBrainConfig::new(server.url()))
            .await
            .unwrap();
        let request = ChatRequest {
            messages: vec![Message::user("Count from 1 to 1000, one number per line.")],
            options: GenerateOptions {
                max_tokens: 2000,
                ..GenerateOptions::default()
            },
            ..ChatRequest::default()
        };
        let cancel = CancellationToken::new();
        let mut generation = brain.generate(request, cancel.clone());
        while !matches!(generation.next().await, Some(GenerationEvent::Piece(_))) {}
        cancel.cancel();
        let done = generation.finish().await.unwrap();
        assert_eq!(done.end, EndReason::Cancelled);
    });
    let until = Instant::now() + Duration::from_secs(10);
    while !server.log().contains("cancel task") {
        assert!(
            Instant::now() < until,
            "the server kept generating:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[ignore = "needs llama.cpp's llama-server: tests/peers/remote.sh"]
fn a_server_that_is_down_is_one_clear_error_unless_the_local_model_stands_in() {
    let dead = format!("http://127.0.0.1:{}", free_port());
    let args = [
        "--loop",
        "none",
        "--brain",
        &dead,
        "--model",
        "m",
        "Say hello.",
    ];
    let (_, stderr, code) = ask_json(&args, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("Connection refused") || stderr.contains("connection refused"),
        "{stderr}"
    );
    assert!(
        stderr.contains("after 4 tries"),
        "retried with back-off: {stderr}"
    );

    let fallback: Vec<&str> = args.iter().copied().chain(["--brain-fallback"]).collect();
    let (report, stderr, code) = ask_json(&fallback, &[]);
    assert_eq!(code, 0, "{stderr}");
    let report = report.unwrap();
    assert!(!report["answer"].as_str().unwrap().is_empty(), "{report}");
    assert!(
        stderr.contains("failed") && stderr.contains("answers"),
        "{stderr}"
    );
}

#[test]
#[ignore = "needs llama.cpp's llama-server: tests/peers/remote.sh"]
fn a_server_with_a_key_refuses_without_it_and_answers_with_it() {
    let server = LlamaServer::start(QWEN, &["--api-key", "sesame"]);
    let args = [
        "--loop",
        "none",
        "--brain",
        &server.url(),
        "--model",
        "m",
        "Say hello.",
    ];
    let (_, stderr, code) = ask_json(&args, &[("LOOPD_BRAIN_API_KEY", "")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    assert!(
        stderr.contains("after 1 try"),
        "a refusal is not retried: {stderr}"
    );
    let (report, stderr, code) = ask_json(&args, &[("LOOPD_BRAIN_API_KEY", "sesame")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!report.unwrap()["answer"].as_str().unwrap().is_empty());
}

#[test]
#[ignore = "needs llama.cpp's llama-server: tests/peers/remote.sh"]
fn a_persona_thinks_on_its_server_and_on_the_local_model_when_the_server_is_gone() {
    let mut server = Some(LlamaServer::start(QWEN, &[]));
    let dir = crate::common::serve::temp_dir("remote-persona");
    let big = dir.join("big.toml");
    let url = server.as_ref().unwrap().url();
    std::fs::write(
        &big,
        format!(
            "name = \"big\"\nengine = \"none\"\n\
             system_prompt = \"Answer in one short sentence.\"\n\
             brain = {{ url = \"{url}\", fallback = \"local\", retries = 1 }}\n"
        ),
    )
    .unwrap();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!("personas = [{:?}]\n", big.display().to_string()),
    )
    .unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let serve = crate::common::serve::Serve::start(
        &[
            "--no-dbus",
            "--no-bus",
            "--config",
            config.to_str().unwrap(),
            "--http",
            &listen,
        ],
        &[],
    );
    assert!(
        serve.stderr().contains("persona `big` thinks on"),
        "{}",
        serve.stderr()
    );
    let api = format!("http://{listen}/v1");
    let question = "What is the capital of France?";
    let served = crate::http::client(&api, "none", &["ask", "big", question, "whole"]);
    assert!(
        served["content"].as_str().unwrap().contains("Paris"),
        "{served}"
    );
    let log = server.as_ref().unwrap().log();
    let tasks = log.matches("processing task").count();
    assert!(
        tasks >= 2,
        "the server warmed the persona and answered it:\n{log}"
    );

    server = None;
    drop(server);
    let fallen_back = crate::http::client(&api, "none", &["ask", "big", question, "whole"]);
    assert!(
        !fallen_back["content"].as_str().unwrap().is_empty(),
        "{fallen_back}"
    );
    let stderr = serve.stderr();
    assert!(
        stderr.contains("failed") && stderr.contains("answers"),
        "{stderr}"
    );
}

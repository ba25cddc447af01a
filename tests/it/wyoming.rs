//! `loopd serve --wyoming` end to end, driven by the real `wyoming` client
//! library (PyPI `wyoming` 1.10, in the tests' venv) through `client.py`:
//! describe, transcribe, synthesize, a streamed handle, and timers.

use crate::common::serve::Serve;
use crate::common::{text, TempDir};
use crate::ovos::{free_port, python};
use serde_json::Value;
use std::process::Command;

/// The venv's Python with `wyoming` importable; fails with how to get it.
fn wyoming_python() -> std::path::PathBuf {
    let python = python();
    let ok = Command::new(&python)
        .args(["-c", "import wyoming"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the Wyoming tests need the `wyoming` package in the tests' venv: run .ci/run, \
         or {} -m pip install 'wyoming>=1.10,<1.11'",
        python.display()
    );
    python
}

/// Runs `tests/it/wyoming/SCRIPT 127.0.0.1 ARGS…` with the venv's Python
/// against `serve`; what it printed, as JSON. Fails with both sides' errors.
fn run_client(python: &std::path::Path, script: &str, args: &[&str], serve: &Serve) -> Value {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/wyoming")
        .join(script);
    let client = Command::new(python)
        .arg(script)
        .arg("127.0.0.1")
        .args(args)
        .output()
        .unwrap();
    assert!(
        client.status.success(),
        "client: {}\ndaemon: {}",
        text(&client.stderr),
        serve.stderr()
    );
    serde_json::from_slice(&client.stdout).unwrap()
}

#[test]
fn home_assistant_s_client_gets_asr_tts_and_streamed_answers() {
    let python = wyoming_python();
    loopd::models::resolve_speech(None).expect("Whisper is required: models/fetch whisper-tiny.en");
    let dir = TempDir::new("wyoming");
    let question = dir.join("q.wav");
    let said = crate::common::loopd(&[
        "say",
        "what is twelve times twelve",
        "-o",
        question.to_str().unwrap(),
    ]);
    assert!(
        said.status.success(),
        "espeak-ng is required: {}",
        text(&said.stderr)
    );
    let port = free_port();
    let address = format!("tcp://127.0.0.1:{port}");
    let mut serve = Serve::start(&["--no-dbus", "--no-bus", "--wyoming", &address], &[]);
    assert!(
        serve
            .notices
            .iter()
            .any(|n| n.contains(&format!("Wyoming on {address}"))),
        "{:?}",
        serve.notices
    );
    let out = run_client(
        &python,
        "client.py",
        &[&port.to_string(), question.to_str().unwrap()],
        &serve,
    );

    let info = &out["describe"];
    assert_eq!(info["asr_models"], serde_json::json!(["whisper-tiny.en"]));
    assert_eq!(info["tts_voices"], serde_json::json!(["en-us"]));
    assert!(info["handle_models"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m == "default"));
    assert_eq!(info["handled_streaming"], serde_json::json!([true]));
    assert_eq!(info["tts_streaming"], serde_json::json!([true]));

    let transcript = out["transcript"].as_str().unwrap().to_lowercase();
    assert!(transcript.contains("12 times 12"), "{transcript}");

    let tts = &out["synthesize"];
    assert_eq!(tts["first"], "audio-start");
    assert_eq!(tts["last"], "audio-stop");
    let seconds = tts["seconds"].as_f64().unwrap();
    assert!((1.0..6.0).contains(&seconds), "{seconds} s of speech");

    // Streamed text is spoken a sentence at a time: the first sentence's
    // audio starts before the rest of the text is sent, in one stream, and
    // the whole text sent again for older servers is not spoken twice.
    let streamed = &out["streamed"];
    assert_eq!(streamed["early"], "audio-start", "{streamed}");
    assert_eq!(streamed["starts"], 1, "{streamed}");
    assert_eq!(streamed["stops"], 1, "{streamed}");
    assert_eq!(streamed["last"], "synthesize-stopped", "{streamed}");
    let seconds = streamed["seconds"].as_f64().unwrap();
    assert!(
        (3.0..12.0).contains(&seconds),
        "{seconds} s of streamed speech"
    );

    let handle = &out["handle"];
    assert_eq!(handle["first"], "handled-start");
    assert_eq!(handle["last"], "handled-stop");
    // Answer text streams a sentence at a time (a sentence goes out once
    // its numbers are grounded), so a one-sentence answer is one chunk.
    let sentences = handle["text"]
        .as_str()
        .unwrap()
        .matches(['.', '!', '?'])
        .count()
        .max(1) as u64;
    assert!(
        handle["chunks"].as_u64().unwrap() >= sentences.min(2),
        "{handle}"
    );
    let answer = handle["text"].as_str().unwrap();
    assert!(
        !answer.trim().is_empty() && !answer.starts_with("NOT HANDLED"),
        "{handle}"
    );
    assert_eq!(handle["streamed"].as_str().unwrap().trim(), answer.trim());
    assert!(serve.stop(), "the daemon stops cleanly: {}", serve.stderr());
}

#[test]
fn bad_frames_and_audio_formats_get_an_error_event_and_the_service_lives_on() {
    use std::io::{BufRead, BufReader, Write};
    loopd::models::resolve_speech(None).expect("Whisper is required: models/fetch whisper-tiny.en");
    let port = free_port();
    let address = format!("tcp://127.0.0.1:{port}");
    let mut serve = Serve::start(&["--no-dbus", "--no-bus", "--wyoming", &address], &[]);
    let exchange = |bytes: &[u8]| -> String {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.write_all(bytes).unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let header: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        let mut data = vec![0; header["data_length"].as_u64().unwrap_or(0) as usize];
        std::io::Read::read_exact(&mut reader, &mut data).unwrap();
        line + &String::from_utf8_lossy(&data)
    };
    let reply = exchange(b"{\"type\": \"describe\", \"payload_length\": -1}\n");
    assert!(reply.contains("\"error\""), "{reply}");
    let reply = exchange(b"{\"type\":\"describe\"}\n");
    assert!(reply.contains("\"info\""), "{reply}");

    // Audio formats that would cost gigabytes to resample, and audio
    // longer than a recording may be, end the recording with an error.
    let event = |kind: &str, data: &str, payload: &[u8]| -> Vec<u8> {
        let data = format!(
            "{{\"type\":\"{kind}\",\"data\":{data},\"payload_length\":{}}}\n",
            payload.len()
        );
        [data.as_bytes(), payload].concat()
    };
    let chunk = vec![0u8; 8192];
    for rate in ["1", "4294967291", "96000"] {
        let format = format!("{{\"rate\":{rate},\"width\":2,\"channels\":1}}");
        let bytes = [
            event("transcribe", "{}", &[]),
            event("audio-start", &format, &[]),
            event("audio-chunk", &format, &chunk),
        ]
        .concat();
        let reply = exchange(&bytes);
        assert!(
            reply.contains("\"error\"") && reply.contains("8000 to 48000 Hz"),
            "rate {rate}: {reply}"
        );
    }
    let format = "{\"rate\":8000,\"width\":2,\"channels\":1}";
    let second = vec![0u8; 16_000];
    let mut bytes = [
        event("transcribe", "{}", &[]),
        event("audio-start", format, &[]),
    ]
    .concat();
    for _ in 0..31 {
        bytes.extend(event("audio-chunk", format, &second));
    }
    let reply = exchange(&bytes);
    assert!(
        reply.contains("\"error\"") && reply.contains("longer than 30 s"),
        "{reply}"
    );
    // A format out of bounds is refused at `audio-start`, before any audio.
    for format in [
        "{\"rate\":16000,\"width\":2,\"channels\":3}",
        "{\"rate\":16000,\"width\":4,\"channels\":1}",
    ] {
        let bytes = [
            event("transcribe", "{}", &[]),
            event("audio-start", format, &[]),
        ]
        .concat();
        let reply = exchange(&bytes);
        assert!(
            reply.contains("\"error\"") && reply.contains("1 to 2 channels"),
            "{format}: {reply}"
        );
    }
    assert!(serve.stop(), "{}", serve.stderr());
}

#[test]
fn sigterm_during_speech_work_exits_within_five_seconds() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    loopd::models::resolve_speech(None).expect("Whisper is required: models/fetch whisper-tiny.en");
    let dir = TempDir::new("wyoming-sigterm");
    let long = dir.join("long.wav");
    let story = "The quick brown fox jumps over the lazy dog near the quiet river bank. ".repeat(6);
    let said = crate::common::loopd(&["say", &story, "-o", long.to_str().unwrap()]);
    assert!(
        said.status.success(),
        "espeak-ng is required: {}",
        text(&said.stderr)
    );
    let pcm = loopd::voice::audio::Pcm::read_wav(&long).unwrap();
    let most = 29 * pcm.rate as usize;
    let audio: Vec<u8> = pcm.samples[..pcm.samples.len().min(most)]
        .iter()
        .flat_map(|s| ((s.clamp(-1.0, 1.0) * 32767.0) as i16).to_le_bytes())
        .collect();
    let format = format!("{{\"rate\":{},\"width\":2,\"channels\":1}}", pcm.rate);
    let event = |kind: &str, data: &str, payload: &[u8]| -> Vec<u8> {
        let header = format!(
            "{{\"type\":\"{kind}\",\"data\":{data},\"payload_length\":{}}}\n",
            payload.len()
        );
        [header.as_bytes(), payload].concat()
    };
    let mut request = [
        event("transcribe", "{}", &[]),
        event("audio-start", &format, &[]),
    ]
    .concat();
    for chunk in audio.chunks(16_000) {
        request.extend(event("audio-chunk", &format, chunk));
    }
    request.extend(event("audio-stop", "{}", &[]));

    let port = crate::ovos::free_port();
    let address = format!("tcp://127.0.0.1:{port}");
    let mut serve = Serve::start(&["--no-dbus", "--no-bus", "--wyoming", &address], &[]);
    // Enough transcriptions queued for the one Whisper to be busy for
    // much longer than the 5 s a stop may take.
    let clients: Vec<std::net::TcpStream> = (0..12)
        .map(|_| {
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            stream.write_all(&request).unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_secs(2));
    let stopping = Instant::now();
    let clean = serve.stop();
    let took = stopping.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "SIGTERM took {took:?} to stop the daemon\n{}",
        serve.stderr()
    );
    assert!(clean, "{}", serve.stderr());
    drop(clients);
}

#[test]
fn a_connection_that_stays_hears_its_timers_and_one_that_does_not_is_told() {
    let python = wyoming_python();
    loopd::models::resolve_speech(None).expect("Whisper is required: models/fetch whisper-tiny.en");
    let dir = TempDir::new("wyoming-timers");
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!("[tools]\ntimers_file = {:?}\n", dir.join("timers.json")),
    )
    .unwrap();
    let port = free_port();
    let address = format!("tcp://127.0.0.1:{port}");
    let mut serve = Serve::start(
        &[
            "--no-dbus",
            "--no-bus",
            "--wyoming",
            &address,
            "--config",
            config.to_str().unwrap(),
        ],
        &[],
    );
    let out = run_client(&python, "timers.py", &[&port.to_string()], &serve);

    // One request per connection, as Home Assistant makes them: no one
    // would hear the ring, so no timer is set.
    let once = &out["once"];
    assert!(
        once["answer"]
            .as_str()
            .unwrap()
            .starts_with("I cannot ring a timer through this connection"),
        "{once}"
    );
    assert_eq!(once["timers"], serde_json::json!([]), "{once}");

    let staying = &out["staying"];
    let tea = &staying["tea"];
    assert_eq!(tea["answer"], "Tea timer set for 2 seconds.", "{tea}");
    let started = &tea["timers"][0];
    assert_eq!(started["type"], "timer-started", "{tea}");
    assert_eq!(started["name"], "tea", "{tea}");
    assert_eq!(started["total_seconds"], 2, "{tea}");
    assert_eq!(started["start_seconds"], 2, "{tea}");

    let pasta = &staying["pasta"]["timers"][0];
    assert_eq!(pasta["type"], "timer-started", "{staying}");
    assert_eq!(pasta["total_seconds"], 600, "{staying}");
    let cancel = &staying["cancel"];
    assert_eq!(cancel["answer"], "Pasta timer cancelled.", "{cancel}");
    assert_eq!(
        cancel["timers"],
        serde_json::json!([{"type": "timer-cancelled", "id": pasta["id"]}]),
        "{cancel}"
    );

    let finished = &staying["finished"];
    assert_eq!(finished["id"], started["id"], "{staying}");
    let after = finished["after_s"].as_f64().unwrap();
    assert!(
        (2.0..10.0).contains(&after),
        "rang {after} s after it was asked for"
    );
    eprintln!("Wyoming: the 2 s tea timer rang {after:.2} s after it was asked for");
    assert!(serve.stop(), "the daemon stops cleanly: {}", serve.stderr());
}

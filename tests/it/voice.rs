//! The speech stages as a user runs them: `loopd say` with espeak-ng and
//! `loopd transcribe` with the real Whisper tiny.en.

use crate::common::{loopd, text, TempDir};
use loopd::models::resolve_speech;
use loopd::voice::audio::Pcm;
use serde_json::Value;

/// The default speech model's directory; fails (never skips) when missing.
fn whisper_dir() -> std::path::PathBuf {
    resolve_speech(None).unwrap_or_else(|e| {
        panic!(
            "the real Whisper model is required: {e}\n(.ci/run fetches it with `models/fetch all`)"
        )
    })
}

/// `loopd say TEXT --output FILE`; fails with a clear message when
/// espeak-ng is missing.
fn say(words: &str, out: &std::path::Path) {
    let said = loopd(&["say", words, "--output", out.to_str().unwrap()]);
    assert!(
        said.status.success(),
        "loopd say failed (espeak-ng is required: apt install espeak-ng): {}",
        text(&said.stderr)
    );
}

/// Lower case, digits for the number words espeak-ng's speech comes back
/// as, no punctuation.
fn normalised(transcript: &str) -> String {
    transcript
        .to_lowercase()
        .replace(|c: char| !c.is_alphanumeric() && c != ' ', "")
        .replace("twelve", "12")
}

#[test]
fn say_writes_speech_and_transcribe_hears_it() {
    whisper_dir();
    let dir = TempDir::new("voice");
    let question = dir.join("q.wav");
    say("what is twelve times twelve", &question);
    let speech = Pcm::read_wav(&question).unwrap();
    assert!(
        (1.0..5.0).contains(&speech.seconds()),
        "{} s of speech",
        speech.seconds()
    );
    let heard = loopd(&["transcribe", "--json", question.to_str().unwrap()]);
    assert!(heard.status.success(), "{}", text(&heard.stderr));
    let out: Value = serde_json::from_slice(&heard.stdout).unwrap();
    let transcript = out["transcript"].as_str().unwrap();
    assert_eq!(
        normalised(transcript),
        "what is 12 times 12",
        "{transcript}"
    );
    assert!(out["stt_ms"].as_f64().unwrap() > 0.0);
    assert!((out["audio_ms"].as_f64().unwrap() - speech.seconds() * 1000.0).abs() < 1.0);
}

#[test]
fn silence_transcribes_to_nothing() {
    whisper_dir();
    let dir = TempDir::new("silence");
    let path = dir.join("silence.wav");
    Pcm {
        rate: 16_000,
        samples: vec![0.0; 32_000],
    }
    .write_wav(&path)
    .unwrap();
    let heard = loopd(&["transcribe", path.to_str().unwrap()]);
    assert!(heard.status.success(), "{}", text(&heard.stderr));
    assert_eq!(text(&heard.stdout).trim(), "");
}

#[test]
fn bad_audio_and_unknown_models_are_clear_errors() {
    let dir = TempDir::new("badwav");
    let path = dir.join("bad.wav");
    std::fs::write(&path, b"RIFF....WAVEjunk").unwrap();
    whisper_dir();
    let heard = loopd(&["transcribe", path.to_str().unwrap()]);
    assert!(!heard.status.success());
    assert!(
        text(&heard.stderr).contains("audio:"),
        "{}",
        text(&heard.stderr)
    );
    let unknown = loopd(&[
        "transcribe",
        "--model",
        "whisper-huge",
        path.to_str().unwrap(),
    ]);
    assert!(!unknown.status.success());
    assert!(
        text(&unknown.stderr).contains("whisper-tiny.en"),
        "{}",
        text(&unknown.stderr)
    );
}

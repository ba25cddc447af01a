//! The speech stages as a user runs them: `loopd say` with espeak-ng and
//! `loopd transcribe` with the real Whisper tiny.en.

use crate::common::{loopd, text, TempDir};
use loopd::models::resolve_speech;
use loopd::voice::audio::Pcm;
use serde_json::Value;

/// The default speech model's directory; fails (never skips) when missing.
pub fn whisper_dir() -> std::path::PathBuf {
    resolve_speech(None).unwrap_or_else(|e| {
        panic!(
            "the real Whisper model is required: {e}\n(.ci/run fetches it with `models/fetch all`)"
        )
    })
}

/// `loopd say TEXT --output FILE`; fails with a clear message when
/// espeak-ng is missing.
pub fn say(words: &str, out: &std::path::Path) {
    let said = loopd(&["say", words, "--output", out.to_str().unwrap()]);
    assert!(
        said.status.success(),
        "loopd say failed (espeak-ng is required: apt install espeak-ng): {}",
        text(&said.stderr)
    );
}

/// Lower case, digits for the number words espeak-ng's speech comes back
/// as, no punctuation.
pub fn normalised(transcript: &str) -> String {
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
    assert!(out["language"].is_null(), "tiny.en has no language: {out}");
}

/// A transcription given up (newer speech made it stale) stops and says
/// so; the same model then transcribes as before.
#[test]
fn an_abandoned_transcription_gives_up_and_the_next_is_whole() {
    use loopd::voice::whisper::Whisper;
    use std::sync::atomic::AtomicBool;
    let dir = TempDir::new("abandon");
    let question = dir.join("q.wav");
    say("what is twelve times twelve", &question);
    let speech = Pcm::read_wav(&question).unwrap().resampled(16_000).unwrap();
    let mut whisper = Whisper::load(&whisper_dir(), &candle_core::Device::Cpu).unwrap();
    let given_up = whisper
        .transcribe_unless(&speech.samples, &AtomicBool::new(true))
        .unwrap();
    assert_eq!(given_up, None);
    let heard = whisper
        .transcribe_unless(&speech.samples, &AtomicBool::new(false))
        .unwrap()
        .expect("not abandoned");
    assert_eq!(normalised(&heard), "what is 12 times 12", "{heard}");
}

/// A transcription given as a hint the tokens of an earlier one (of the
/// same speech heard shorter, as while the user spoke; of all of it; of
/// something else said) reads them in one step and keeps only what it
/// would have said itself: the text is the text heard without a hint.
#[test]
fn a_hint_from_an_earlier_transcription_changes_the_work_not_the_text() {
    use loopd::voice::whisper::Whisper;
    use std::sync::atomic::AtomicBool;
    let dir = TempDir::new("hint");
    let question = dir.join("q.wav");
    say(
        "what is the weather like in paris tomorrow morning",
        &question,
    );
    let other = dir.join("other.wav");
    say("set a timer for ten minutes", &other);
    let speech = Pcm::read_wav(&question).unwrap().resampled(16_000).unwrap();
    let samples = &speech.samples;
    let mut whisper = Whisper::load(&whisper_dir(), &candle_core::Device::Cpu).unwrap();
    let never = AtomicBool::new(false);
    let mut hear = |samples: &[f32], hint: &[u32]| {
        whisper
            .hear(samples, hint, &never)
            .unwrap()
            .expect("not abandoned")
    };

    let plain = hear(samples, &[]);
    assert_eq!(plain.reused, 0);
    assert!(
        normalised(&plain.text).contains("weather like in paris"),
        "{plain:?}"
    );

    let again = hear(samples, &plain.tokens);
    assert_eq!(again.text, plain.text);
    assert_eq!(again.reused, plain.tokens.len(), "{again:?}");

    let earlier = hear(&samples[..samples.len() * 6 / 10], &[]);
    let grown = hear(samples, &earlier.tokens);
    assert_eq!(grown.text, plain.text, "hint {:?}", earlier.text);
    assert!(
        grown.reused > 0 && grown.reused <= earlier.tokens.len(),
        "{} of {:?} reused",
        grown.reused,
        earlier.text
    );

    let said = Pcm::read_wav(&other).unwrap().resampled(16_000).unwrap();
    let elsewhere = hear(&said.samples, &[]);
    let misled = hear(samples, &elsewhere.tokens);
    assert_eq!(misled.text, plain.text, "hint {:?}", elsewhere.text);
    assert!(misled.reused < elsewhere.tokens.len(), "{misled:?}");
}

#[test]
fn whisper_base_transcribes_each_language_in_that_language() {
    resolve_speech(Some("whisper-base")).unwrap_or_else(|e| {
        panic!("the real Whisper base model is required: {e}\n(.ci/run fetches it)")
    });
    let dir = TempDir::new("languages");
    for (voice, words, language, expected) in [
        (
            "de",
            "Guten Morgen. Wie geht es dir heute? Das Wetter ist heute sehr schön, und ich gehe in den Park.",
            "de",
            "guten morgen",
        ),
        ("en", "What is twelve times twelve?", "en", "12"),
    ] {
        let wav = dir.join(&format!("{voice}.wav"));
        let made = std::process::Command::new("espeak-ng")
            .args(["-v", voice, "-w", wav.to_str().unwrap(), words])
            .output()
            .expect("espeak-ng is required (apt install espeak-ng)");
        assert!(made.status.success(), "{}", text(&made.stderr));
        let heard = loopd(&[
            "transcribe",
            "--model",
            "whisper-base",
            "--json",
            wav.to_str().unwrap(),
        ]);
        assert!(heard.status.success(), "{}", text(&heard.stderr));
        let out: Value = serde_json::from_slice(&heard.stdout).unwrap();
        assert_eq!(out["language"], language, "{out}");
        let transcript = normalised(out["transcript"].as_str().unwrap());
        assert!(transcript.contains(expected), "{voice}: {out}");
    }
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

#[test]
fn the_endpointer_finds_speech_between_silences() {
    use loopd::voice::vad::{Endpointer, Endpointing, FRAME, RATE};
    let dir = TempDir::new("vad");
    let path = dir.join("q.wav");
    say("turn off the kitchen lights", &path);
    let speech = Pcm::read_wav(&path)
        .unwrap()
        .resampled(RATE as u32)
        .unwrap();
    let mut audio = vec![0.0; RATE];
    audio.extend(&speech.samples);
    audio.extend(vec![0.0; RATE]);
    let mut vad = Endpointer::new(Endpointing::default());
    let found = vad.push(&audio);
    assert_eq!(found.len(), 1, "{found:?}");
    let u = found[0];
    let speech_end = RATE + speech.samples.len();
    assert!(u.start < RATE && u.start > RATE / 2, "{u:?}");
    assert!(
        u.end > RATE + speech.samples.len() / 2 && u.end <= speech_end,
        "{u:?}"
    );
    assert!((u.endpoint_delay_ms() - 480.0).abs() <= 16.0 + 1.0, "{u:?}");
    assert_eq!(u.decided % FRAME, 0);
    assert!(!vad.in_speech());
    assert_eq!(vad.finish(), None);
}

#[test]
fn listen_answers_a_spoken_question_aloud() {
    whisper_dir();
    crate::common::model_path(crate::common::QWEN);
    let dir = TempDir::new("listen");
    let question = dir.join("q.wav");
    let answer = dir.join("a.wav");
    say("what is twelve times twelve", &question);
    let listened = loopd(&[
        "listen",
        "--model",
        crate::common::QWEN,
        "--input",
        question.to_str().unwrap(),
        "--output",
        answer.to_str().unwrap(),
        "--json",
    ]);
    assert!(listened.status.success(), "{}", text(&listened.stderr));
    let out: Value = serde_json::from_slice(&listened.stdout).unwrap();
    let transcript = out["transcript"].as_str().unwrap();
    assert_eq!(
        normalised(transcript),
        "what is 12 times 12",
        "{transcript}"
    );
    assert!(out["answer"].as_str().unwrap().contains("144"), "{out}");
    let stage = |key: &str| {
        out[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} in {out}"))
    };
    assert!(stage("stt_ms") > 0.0);
    assert!(stage("transcript_ms") >= stage("vad_ms"));
    assert!(stage("first_answer_token_ms") >= stage("transcript_ms"));
    assert!(stage("first_audio_ms") >= stage("first_answer_token_ms"));
    let heard_back = loopd(&["transcribe", answer.to_str().unwrap()]);
    assert!(heard_back.status.success(), "{}", text(&heard_back.stderr));
    assert!(
        text(&heard_back.stdout).contains("144"),
        "Whisper heard the answer as {}",
        text(&heard_back.stdout)
    );
}

#[test]
fn listen_to_silence_is_a_clear_error() {
    whisper_dir();
    let dir = TempDir::new("listen-silence");
    let path = dir.join("silence.wav");
    Pcm {
        rate: 16_000,
        samples: vec![0.0; 16_000],
    }
    .write_wav(&path)
    .unwrap();
    let out = dir.join("a.wav");
    let listened = loopd(&[
        "listen",
        "--input",
        path.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(!listened.status.success());
    assert!(
        text(&listened.stderr).contains("no question heard"),
        "{}",
        text(&listened.stderr)
    );
    assert!(!out.exists(), "no answer file without a question");
}

#[test]
fn a_piper_voice_speaks_what_whisper_hears() {
    whisper_dir();
    resolve_speech(Some("piper-joe")).unwrap_or_else(|e| {
        panic!(
            "the Piper voice is required: {e}\n(.ci/run fetches it with `models/fetch piper-joe`)"
        )
    });
    let dir = TempDir::new("piper");
    let path = dir.join("p.wav");
    let said = loopd(&[
        "say",
        "Twelve times twelve is 144.",
        "--voice",
        "piper-joe",
        "--output",
        path.to_str().unwrap(),
    ]);
    assert!(said.status.success(), "{}", text(&said.stderr));
    let speech = Pcm::read_wav(&path).unwrap();
    assert_eq!(speech.rate, 22_050);
    assert!(speech.seconds() > 1.0, "{} s", speech.seconds());
    let heard = loopd(&["transcribe", path.to_str().unwrap()]);
    assert!(heard.status.success(), "{}", text(&heard.stderr));
    // Piper's VITS samples noise inside the model, so every run speaks a
    // little differently; on one in a CI run whisper-tiny heard the
    // sentence, then hallucinated it once more over the trailing silence.
    // Each sentence heard must be the one spoken.
    let transcript = text(&heard.stdout);
    let sentences: Vec<&str> = transcript
        .split_terminator('.')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    assert!(
        !sentences.is_empty()
            && sentences.len() <= 2
            && sentences
                .iter()
                .all(|s| normalised(s).trim() == "12 times 12 is 144"),
        "{transcript}"
    );
    let broken = dir.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("voice.onnx"), b"not a model").unwrap();
    let failed = loopd(&[
        "say",
        "Hi.",
        "--voice",
        broken.to_str().unwrap(),
        "--output",
        path.to_str().unwrap(),
    ]);
    assert!(!failed.status.success());
    assert!(
        text(&failed.stderr).contains("voice"),
        "{}",
        text(&failed.stderr)
    );
}

/// espeak-ng speaks a long answer whole (its stdin is written while its
/// stdout is read, so the pipes cannot stall), and a text beyond the cap
/// is refused with a clear error instead of minutes of work.
#[test]
fn espeak_speaks_long_text_and_refuses_what_is_too_long() {
    use loopd::voice::speech::{Voice, MAX_SPEECH_CHARS};
    let voice = Voice::espeak("en-us");
    let sentence = "The quick brown fox jumps over the lazy dog. ";
    let long = sentence.repeat(60);
    let speech = voice
        .synthesize(&long)
        .expect("espeak-ng is required: apt install espeak-ng");
    assert!(
        speech.samples.len() as f32 / speech.rate as f32 > 60.0,
        "about two minutes of speech, got {} samples at {} Hz",
        speech.samples.len(),
        speech.rate
    );
    let too_long = "a".repeat(MAX_SPEECH_CHARS + 1);
    let refused = voice.synthesize(&too_long).unwrap_err().to_string();
    assert!(refused.contains("longer than"), "{refused}");
}

//! The voice front end as a user runs it: a conversation from a WAV file
//! with a barge-in, `loopd serve --listen` sharing the daemon's model, and
//! the sound-card path as far as a machine without a sound card allows
//! (ALSA's `null` device: it plays into nothing and captures zeros; what a
//! real microphone and loudspeaker do is not tested here).

use crate::common::serve::Serve;
use crate::common::{loopd, text, TempDir};
use crate::ovos::checks::{answered, ask, Lines};
use crate::voice::{normalised, say, whisper_dir};
use loopd::models::resolve_speech;
use loopd::voice::audio::Pcm;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Joins WAV files with silences between them: `(file, seconds after)`.
fn conversation(parts: &[(&std::path::Path, f32)], out: &std::path::Path) -> Vec<f64> {
    let mut audio = Pcm {
        rate: 16_000,
        samples: vec![0.0; 4_800],
    };
    let mut starts = Vec::new();
    for (path, silence) in parts {
        starts.push(audio.seconds());
        let speech = Pcm::read_wav(path).unwrap().resampled(16_000).unwrap();
        audio.samples.extend(speech.samples);
        audio
            .samples
            .extend(vec![0.0; (silence * 16_000.0) as usize]);
    }
    audio.write_wav(out).unwrap();
    starts
}

/// `loopd listen --model QWEN ARGS… --json`, which must succeed: its turns.
fn listen_json(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["listen", "--model", crate::common::QWEN];
    all.extend_from_slice(args);
    all.push("--json");
    let listened = loopd(&all);
    assert!(listened.status.success(), "{}", text(&listened.stderr));
    text(&listened.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn talking_over_an_answer_stops_it_and_asks_anew() {
    whisper_dir();
    crate::common::model_path(crate::common::QWEN);
    let dir = TempDir::new("barge-in");
    let (story, stop, sum) = (dir.join("s.wav"), dir.join("x.wav"), dir.join("q.wav"));
    say("tell me a story about a brave little robot", &story);
    say("stop", &stop);
    say("what is seven plus five", &sum);
    let input = dir.join("in.wav");
    // The story has up to 20 s to start playing: on a loaded machine the
    // first sentence of a 0.5B model's answer can take 10 s.
    let starts = conversation(&[(&story, 20.0), (&stop, 1.0), (&sum, 5.0)], &input);
    let output = dir.join("out.wav");
    let turns = listen_json(&[
        "--loop",
        "none",
        "--max-tokens",
        "120",
        "--input",
        input.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert!(
        normalised(turns[0]["transcript"].as_str().unwrap()).contains("story"),
        "{}",
        turns[0]
    );
    assert!(turns[0]["barge_in_ms"].as_f64().is_some(), "{}", turns[0]);
    // The loop is cancelled if it was still generating; a loop that had
    // finished (only its playback was left) keeps its own ending: answered,
    // or out of its 120 tokens.
    let ended = turns[0]["termination"].as_str().unwrap();
    assert!(
        ["Cancelled", "answered", "budget_exhausted"].contains(&ended),
        "{}",
        turns[0]
    );
    assert!(turns[1]["barge_in_ms"].is_null(), "{}", turns[1]);
    assert!(
        turns[1]["answer"].as_str().unwrap().contains("12"),
        "{}",
        turns[1]
    );

    let played = Pcm::read_wav(&output).unwrap();
    let loud = |from: f64, to: f64| {
        let at = |t: f64| ((t * played.rate as f64) as usize).min(played.samples.len());
        played.samples[at(from)..at(to)]
            .iter()
            .any(|s| s.abs() > 0.03)
    };
    let stopped_at = starts[1];
    assert!(
        loud(stopped_at - 2.0, stopped_at),
        "the story was playing when the user spoke"
    );
    assert!(
        !loud(stopped_at + 0.5, starts[2]),
        "the story kept playing after the user said stop"
    );
    assert!(
        loud(starts[2], played.seconds()),
        "the second answer was spoken"
    );
}

#[test]
fn a_follow_up_after_an_answer_needs_no_wake_phrase() {
    whisper_dir();
    crate::common::model_path(crate::common::QWEN);
    let dir = TempDir::new("follow-up");
    let (first, then) = (dir.join("q1.wav"), dir.join("q2.wav"));
    say("hey loop, what is two plus two", &first);
    say("and what is three plus three", &then);
    let input = dir.join("in.wav");
    conversation(&[(&first, 10.0), (&then, 8.0)], &input);
    let turns = |follow_up: &str| -> Vec<Value> {
        let output = dir.join(&format!("out-{follow_up}.wav"));
        listen_json(&[
            "--wake",
            "hey loop",
            "--follow-up",
            follow_up,
            "--max-tokens",
            "60",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ])
    };
    // Said 10 s after the first question: well within 20 s of its answer.
    let with = turns("20");
    assert_eq!(with.len(), 2, "{with:?}");
    // Taken as the next question, wake phrase or not (what the model
    // makes of it is not this test's business).
    assert!(
        normalised(with[1]["question"].as_str().unwrap()).contains("plus"),
        "{}",
        with[1]
    );
    assert!(
        !with[1]["answer"].as_str().unwrap().is_empty(),
        "{}",
        with[1]
    );
    let without = turns("0");
    assert_eq!(
        without.len(),
        1,
        "the follow-up was taken without a wake phrase: {without:?}"
    );
}

#[test]
fn serve_listens_and_answers_aloud_beside_the_other_front_ends() {
    whisper_dir();
    let dir = TempDir::new("serve-listen");
    let (question, answer) = (dir.join("q.wav"), dir.join("a.wav"));
    say("what is twelve times twelve", &question);
    let mut serve = Serve::start(
        &[
            "--no-dbus",
            "--no-bus",
            "--listen",
            "--listen-input",
            question.to_str().unwrap(),
            "--listen-output",
            answer.to_str().unwrap(),
        ],
        &[("LOOPD_LOG", "info,loopd::frontends::listen=debug")],
    );
    assert!(
        serve.notices.iter().any(|n| n.contains("listening on")),
        "{:?}",
        serve.notices
    );
    let mut socket = Lines::connect(serve.socket_path());
    socket.send(ask("beside", json!({})));
    let reply = socket.until(answered("beside"));
    assert_eq!(reply.last().unwrap()["type"], "loopd.answer", "{reply:?}");
    let until = Instant::now() + Duration::from_secs(120);
    while !serve.stderr().contains("the input ended") {
        assert!(
            Instant::now() < until,
            "no answer in 2 min:\n{}",
            serve.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let log = serve.stderr();
    assert!(
        log.contains("heard: \"What is 12 times 12?\""),
        "what was heard is logged at debug: {log}"
    );
    assert!(log.contains("after 1 answer(s)"), "{log}");
    assert!(serve.stop(), "{}", serve.stderr());
    let spoken = Pcm::read_wav(&answer).unwrap();
    assert!(
        spoken.samples.iter().any(|s| s.abs() > 0.03),
        "the answer was not spoken"
    );
}

#[test]
fn the_null_sound_device_is_listed_and_plays() {
    let listed = loopd(&["audio", "devices", "--json"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let devices: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let null = devices
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == "alsa:null")
        .unwrap_or_else(|| panic!("ALSA's null device is missing from {devices}"));
    assert_eq!(null["input"], true);
    assert_eq!(null["output"], true);
    assert!(text(&listed.stderr).is_empty(), "{}", text(&listed.stderr));

    let played = loopd(&["say", "Hello there.", "--device", "null"]);
    assert!(played.status.success(), "{}", text(&played.stderr));
    let missing = loopd(&["say", "Hello.", "--device", "no-such-card"]);
    assert!(!missing.status.success());
    assert!(
        text(&missing.stderr).contains("no playback device is named `no-such-card`"),
        "{}",
        text(&missing.stderr)
    );
}

#[test]
fn listen_hears_a_microphone_until_interrupted() {
    whisper_dir();
    crate::common::model_path(crate::common::SMOLLM);
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args([
            "listen",
            "--model",
            crate::common::SMOLLM,
            "--mic",
            "null",
            "--speaker",
            "null",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("listening") {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            panic!("loopd listen exited before listening: {said}");
        }
        said.push_str(&line);
    }
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        child.try_wait().unwrap().is_none(),
        "it stopped by itself: {said}"
    );
    // SAFETY: kill(2) on our own child's pid has no memory-safety requirements.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{said}");
    assert!(
        text(&out.stdout).is_empty(),
        "zeros are not a question: {}",
        text(&out.stdout)
    );
}

/// The Smart Turn model (`--turn smart-turn`) hears that a question is
/// finished after a short silence, sooner than the fixed silence ends it,
/// and waits out a pause in the middle of one, which the fixed silence cuts.
#[test]
fn a_turn_model_ends_a_finished_question_sooner_and_waits_out_a_pause() {
    whisper_dir();
    crate::common::model_path(crate::common::QWEN);
    resolve_speech(Some("smart-turn")).unwrap_or_else(|e| {
        panic!("the Smart Turn model is required: {e}\n(.ci/run fetches it with `models/fetch smart-turn`)")
    });
    let dir = TempDir::new("turn");
    let (whole, first, rest) = (
        dir.join("whole.wav"),
        dir.join("first.wav"),
        dir.join("rest.wav"),
    );
    say("What time is it in London?", &whole);
    say("What is twelve times", &first);
    say("thirteen?", &rest);
    let finished = dir.join("finished.wav");
    conversation(&[(&whole, 2.0)], &finished);
    let paused = dir.join("paused.wav");
    conversation(&[(&first, 0.7), (&rest, 2.0)], &paused);
    let turn = |input: &std::path::Path, turn: &str| -> Value {
        let output = dir.join(&format!("out-{turn}.wav"));
        let turns = listen_json(&[
            "--turn",
            turn,
            "--once",
            "--max-tokens",
            "30",
            "--input",
            input.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ]);
        assert_eq!(turns.len(), 1, "{turns:?}");
        turns[0].clone()
    };
    let heard = |turn: &Value| normalised(turn["transcript"].as_str().unwrap_or_default());

    let judged = turn(&finished, "smart-turn");
    let fixed = turn(&finished, "silence");
    assert!(heard(&judged).contains("london"), "{judged}");
    // The silence in the audio, not the wall time, which counts the
    // model's run and this machine's load.
    assert!(
        judged["silence_ms"].as_f64().unwrap() < 400.0,
        "a finished question ends after a short silence: {judged}"
    );
    assert!(fixed["silence_ms"].as_f64().unwrap() >= 470.0, "{fixed}");
    assert!(fixed["vad_ms"].as_f64().unwrap() >= 470.0, "{fixed}");
    assert!(!judged["answer"].as_str().unwrap().is_empty(), "{judged}");

    let waited = turn(&paused, "smart-turn");
    let cut = turn(&paused, "silence");
    let whole_question = |t: &Value| heard(t).contains("13") || heard(t).contains("thirteen");
    assert!(
        whole_question(&waited),
        "the pause was waited out: {waited}"
    );
    // "What is twelve times" was transcribed (and, on a fast enough
    // machine, asked) in the pause, then dropped when the speech went on:
    // the answer is the whole question's.
    assert!(
        waited["answer"].as_str().unwrap().contains("156"),
        "{waited}"
    );
    // Transcription begins 48 ms into a pause, before either rule ends the
    // turn (whether the question is asked before it ends depends on this
    // machine's speed: the bench reports it).
    for turn in [&judged, &fixed, &waited, &cut] {
        assert_eq!(turn["transcribed_early"], true, "{turn}");
    }
    // What was heard before the pause is the hint for the whole question:
    // Whisper read those tokens in one step.
    assert!(
        waited["stt_reused_tokens"].as_u64().unwrap() > 0,
        "{waited}"
    );
    assert!(
        !whole_question(&cut),
        "the fixed silence cuts at the pause: {cut}"
    );
}

/// While the user is still speaking, the question heard so far has its
/// prompt computed: the whole question then finds more of its prompt
/// computed than the persona's warmed prompt alone, and its answer is the
/// one asked without it.
#[test]
fn the_question_heard_so_far_is_computed_while_the_user_speaks() {
    whisper_dir();
    crate::common::model_path(crate::common::QWEN);
    let dir = TempDir::new("so-far");
    let spoken = dir.join("spoken.wav");
    say(
        "Please tell me the name of the capital city of France.",
        &spoken,
    );
    let question = dir.join("question.wav");
    conversation(&[(&spoken, 2.0)], &question);
    let turn = |early: bool| -> Value {
        let output = dir.join("out.wav");
        let mut args = vec![
            "--once",
            "--max-tokens",
            "30",
            "--input",
            question.to_str().unwrap(),
            "--output",
            output.to_str().unwrap(),
        ];
        if !early {
            args.push("--no-early");
        }
        let turns = listen_json(&args);
        assert_eq!(turns.len(), 1, "{turns:?}");
        turns[0].clone()
    };
    let first_call = |turn: &Value| turn["stats"]["calls"][0].clone();
    let ahead = turn(true);
    let after = turn(false);
    for turn in [&ahead, &after] {
        assert!(turn["answer"].as_str().unwrap().contains("Paris"), "{turn}");
    }
    assert!(ahead["prefilled_tokens"].as_u64().unwrap() > 0, "{ahead}");
    assert_eq!(after["prefilled_tokens"], 0, "{after}");
    assert_eq!(
        first_call(&ahead)["prompt_tokens"],
        first_call(&after)["prompt_tokens"],
        "the same prompt: {ahead}\n{after}"
    );
    let cached = |turn: &Value| first_call(turn)["cached_tokens"].as_u64().unwrap();
    assert!(
        cached(&ahead) > cached(&after),
        "the words heard before the end were computed already: {ahead}\n{after}"
    );
}

/// `seconds` of a song's backing at 16 kHz, no voice in it: a piano-like
/// melody of struck, decaying notes over a kick drum and a noisy snare.
fn music(seconds: f32) -> Vec<f32> {
    let notes = [261.6f32, 329.6, 392.0, 523.3, 440.0, 349.2, 293.7, 392.0];
    let mut noise = 0x2545_f491_u32;
    (0..(seconds * 16_000.0) as usize)
        .map(|i| {
            let t = i as f32 / 16_000.0;
            let struck = t % 0.5;
            let note = notes[(t / 0.5) as usize % notes.len()];
            let piano = (1..6)
                .map(|h| (std::f32::consts::TAU * note * h as f32 * t).sin() / h as f32)
                .sum::<f32>()
                * (-4.0 * struck).exp();
            let kick = (std::f32::consts::TAU * (60.0 + 80.0 * (-30.0 * struck).exp()) * struck)
                .sin()
                * (-12.0 * struck).exp();
            noise ^= noise << 13;
            noise ^= noise >> 17;
            noise ^= noise << 5;
            let hiss = noise as f32 / u32::MAX as f32 * 2.0 - 1.0;
            let snare = if t % 1.0 >= 0.5 {
                hiss * (-20.0 * (t % 1.0 - 0.5)).exp()
            } else {
                0.0
            };
            0.1 * piano + 0.15 * kick + 0.1 * snare
        })
        .collect()
}

#[test]
fn silero_vad_hears_the_question_and_not_the_music_around_it() {
    whisper_dir();
    crate::common::model_path(crate::common::QWEN);
    resolve_speech(Some("silero-vad")).unwrap_or_else(|e| {
        panic!("the Silero VAD model is required: {e}\n(.ci/run fetches it with `models/fetch silero-vad`)")
    });
    let dir = TempDir::new("silero");
    let question = dir.join("q.wav");
    say("what is seven plus five", &question);
    let spoken = Pcm::read_wav(&question).unwrap().resampled(16_000).unwrap();
    let mut samples = music(4.0);
    samples.extend(vec![0.0; 8_000]);
    samples.extend(spoken.samples);
    samples.extend(vec![0.0; 8_000]);
    // Music again while the answer is spoken: it must not stop it.
    samples.extend(music(6.0));
    samples.extend(vec![0.0; 16_000]);
    let input = dir.join("in.wav");
    Pcm {
        rate: 16_000,
        samples,
    }
    .write_wav(&input)
    .unwrap();
    let output = dir.join("out.wav");
    let turns = listen_json(&[
        "--vad",
        "silero-vad",
        "--loop",
        "none",
        "--max-tokens",
        "40",
        "--input",
        input.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    assert_eq!(turns.len(), 1, "only the question is heard: {turns:?}");
    let heard = normalised(turns[0]["transcript"].as_str().unwrap());
    assert!(
        heard.starts_with("what") && heard.contains("plus"),
        "the question alone, without the music: {}",
        turns[0]
    );
    assert!(turns[0]["barge_in_ms"].is_null(), "{}", turns[0]);
    assert!(
        !turns[0]["answer"].as_str().unwrap().is_empty(),
        "{}",
        turns[0]
    );
}

//! Timers and alarms end to end: set in words through a front end, kept by
//! `loopd serve`, rung to that front end when due, and kept across a
//! restart. The timer tool reads the request itself, so these run on the
//! fast model.

use crate::common::serve::{temp_dir, Serve};
use crate::dbus::client::{loopd, runtime, Fixture};
use crate::ovos::checks::Lines;
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use zbus::message::Type as MessageType;
use zbus::{MatchRule, MessageStream};

/// A config whose timers are kept in `dir`.
fn config(dir: &Path) -> String {
    let file = dir.join("config.toml");
    std::fs::write(
        &file,
        format!("[tools]\ntimers_file = {:?}\n", dir.join("timers.json")),
    )
    .unwrap();
    file.display().to_string()
}

fn ask(id: &str, utterance: &str) -> Value {
    json!({"type": "loopd.ask", "data": {"utterance": utterance, "request_id": id},
           "context": {"session": {"session_id": "kitchen"}, "source": "me"}})
}

/// Reads the socket until the answer to `id`; returns the answer's text.
fn answer(lines: &mut Lines, id: &str) -> String {
    let end = lines.until(|m| {
        m["data"]["request_id"] == id && (m["type"] == "loopd.answer" || m["type"] == "loopd.error")
    });
    let last = end.last().unwrap();
    assert_eq!(last["type"], "loopd.answer", "{last}");
    last["data"]["answer"].as_str().unwrap().to_string()
}

/// Reads the socket until a timer rings: its `speak` and `loopd.timer`.
fn ring(lines: &mut Lines) -> (Value, Value) {
    let seen = lines.until(|m| m["type"] == "loopd.timer");
    let speak = seen
        .iter()
        .rev()
        .find(|m| m["type"] == "speak")
        .unwrap_or_else(|| panic!("a `speak` before the `loopd.timer`: {seen:?}"))
        .clone();
    (speak, seen.last().unwrap().clone())
}

#[test]
fn a_timer_set_on_the_socket_rings_there_and_outlasts_a_restart() {
    let dir = temp_dir("timers-bus");
    let config = config(&dir);
    let args = ["--no-dbus", "--no-bus", "--config", config.as_str()];
    let mut serve = Serve::start(&args, &[]);
    let mut lines = Lines::connect(serve.socket_path());

    let asked = Instant::now();
    lines.send(ask("t1", "Set a tea timer for 2 seconds."));
    assert_eq!(answer(&mut lines, "t1"), "Tea timer set for 2 seconds.");
    lines.send(ask("t2", "How long is left on my tea timer?"));
    let left = answer(&mut lines, "t2");
    assert!(left.starts_with("The tea timer has "), "{left}");
    let (speak, details) = ring(&mut lines);
    let rang_after = asked.elapsed();
    assert_eq!(
        speak["data"]["utterance"], "Your tea timer is done.",
        "{speak}"
    );
    assert_eq!(speak["data"]["expect_response"], false);
    assert_eq!(details["data"]["label"], "tea", "{details}");
    assert_eq!(details["data"]["late"], false, "{details}");
    assert!(
        rang_after >= Duration::from_secs(2),
        "rang early: {rang_after:?}"
    );
    eprintln!("tea timer (2 s) rang {rang_after:?} after it was asked for");

    let eight_asked = Instant::now();
    lines.send(ask("t3", "Set a timer for 8 seconds."));
    assert_eq!(answer(&mut lines, "t3"), "Timer set for 8 seconds.");
    lines.send(ask("t4", "Set an alarm for 6:30 am called work."));
    let alarm = answer(&mut lines, "t4");
    assert!(
        alarm.starts_with("Work alarm set for 6:30 in the morning"),
        "{alarm}"
    );
    lines.send(ask("t5", "Cancel the work alarm."));
    assert_eq!(answer(&mut lines, "t5"), "Work alarm cancelled.");
    assert!(
        serve.stop(),
        "loopd did not stop cleanly:\n{}",
        serve.stderr()
    );
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("timers.json")).unwrap()).unwrap();
    assert_eq!(kept["timers"].as_array().unwrap().len(), 1, "{kept}");

    // The timer goes off while no client is connected: the ring is held for
    // the first one that comes.
    let again = Serve::start(&args, &[]);
    std::thread::sleep(Duration::from_secs(10).saturating_sub(eight_asked.elapsed()));
    let mut lines = Lines::connect(again.socket_path());
    let (speak, details) = ring(&mut lines);
    let said = speak["data"]["utterance"].as_str().unwrap();
    assert!(said.starts_with("Your 8 second timer "), "{said}");
    eprintln!(
        "after a restart: {said:?} (late: {})",
        details["data"]["late"]
    );
}

#[test]
fn a_timer_set_over_dbus_rings_as_a_signal_to_that_users_connections() {
    let dir = temp_dir("timers-dbus");
    let config = std::fs::read_to_string(self::config(&dir)).unwrap();
    let fixture = Fixture::with_config(crate::common::SMOLLM, &config);
    runtime().block_on(async {
        let conn = fixture.connect().await;
        let other = fixture.connect().await;
        let rule = || {
            MatchRule::builder()
                .msg_type(MessageType::Signal)
                .interface("io.loopd.Loopd1")
                .unwrap()
                .member("TimerRang")
                .unwrap()
                .build()
        };
        let mut mine = MessageStream::for_match_rule(rule(), &conn, Some(16))
            .await
            .unwrap();
        let mut theirs = MessageStream::for_match_rule(rule(), &other, Some(16))
            .await
            .unwrap();
        let proxy = loopd(&conn).await;
        let (answer, _) = proxy
            .ask_sync(
                "Set a timer for 2 seconds called bread.",
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(answer, "Bread timer set for 2 seconds.");
        for stream in [&mut mine, &mut theirs] {
            let (spoken, timer) = timer_rang(stream).await;
            assert_eq!(spoken, "Your bread timer is done.");
            assert_eq!(timer["label"], "bread", "{timer}");
            assert_eq!(timer["kind"], "timer", "{timer}");
        }

        // A timer that goes off while none of the user's connections is
        // there rings to the next one.
        let (answer, _) = proxy
            .ask_sync("Set a timer for 2 seconds called soup.", Default::default())
            .await
            .unwrap();
        assert_eq!(answer, "Soup timer set for 2 seconds.");
        drop((proxy, mine, theirs, conn, other));
        tokio::time::sleep(Duration::from_secs(4)).await;
        let later = fixture.connect().await;
        let mut later_stream = MessageStream::for_match_rule(rule(), &later, Some(16))
            .await
            .unwrap();
        let (spoken, _) = timer_rang(&mut later_stream).await;
        assert_eq!(spoken, "Your soup timer is done.");
    });
}

/// The next `TimerRang` on `stream` (within 30 s): what it says and the timer.
async fn timer_rang(stream: &mut MessageStream) -> (String, Value) {
    let signal = tokio::time::timeout(Duration::from_secs(30), stream.next())
        .await
        .expect("TimerRang within 30 s")
        .unwrap()
        .unwrap();
    let (spoken, timer): (String, String) = signal.body().deserialize().unwrap();
    (spoken, serde_json::from_str(&timer).unwrap())
}

#[test]
fn a_timer_asked_for_aloud_is_spoken_when_it_rings() {
    use crate::voice::{normalised, say, whisper_dir};
    whisper_dir();
    let dir = temp_dir("timers-listen");
    let (question, input, output) = (dir.join("q.wav"), dir.join("in.wav"), dir.join("out.wav"));
    say("set a timer for three seconds", &question);
    let mut audio = loopd::voice::audio::Pcm::read_wav(&question)
        .unwrap()
        .resampled(16_000)
        .unwrap();
    audio.samples.extend(vec![0.0; 12 * 16_000]);
    audio.write_wav(&input).unwrap();
    let listened = std::process::Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .args([
            "listen",
            "--model",
            crate::common::SMOLLM,
            "--json",
            "--input",
        ])
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&listened.stderr);
    assert!(listened.status.success(), "{stderr}");
    let turn: Value = serde_json::from_slice(&listened.stdout).unwrap();
    assert_eq!(turn["answer"], "Timer set for 3 seconds.", "{turn}");
    let heard = crate::common::loopd(&["transcribe", output.to_str().unwrap()]);
    let heard = normalised(&String::from_utf8_lossy(&heard.stdout));
    // Whisper hears espeak-ng's "Timer set for 3 seconds" as that, or as
    // "time yourself for free seconds", "... for three seconds" and the
    // like, depending on where the answer falls in its window; "seconds"
    // is in the answer, and the ring says "your 3 second timer is done"
    // (heard once in a CI run as "your 3 seconds time is done").
    let answer = heard.find("seconds");
    assert!(
        matches!(
            (answer, heard.rfind(" is done")),
            (Some(set), Some(done)) if set < done
        ),
        "the answer, then the timer ringing: {heard:?}"
    );
}

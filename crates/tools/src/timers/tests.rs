use super::tool::Desk;
use super::*;
use crate::ToolConfig;
use chrono::{Duration as Span, TimeZone};
use std::sync::atomic::{AtomicI64, Ordering};

/// 10:00 on a Friday, UTC.
fn ten_o_clock() -> DateTime<FixedOffset> {
    Utc.with_ymd_and_hms(2026, 11, 27, 10, 0, 0)
        .unwrap()
        .fixed_offset()
}

fn set_for(text: &str) -> (Kind, i64, Option<String>) {
    match read(text, ten_o_clock()) {
        Some(Command::Set {
            kind,
            due: Some(due),
            label,
        }) => (kind, (due - ten_o_clock()).num_seconds(), label),
        other => panic!("{text:?} read as {other:?}"),
    }
}

#[test]
fn lengths_and_times_are_read_as_people_say_them() {
    let timer = |s: i64| (Kind::Timer, s, None);
    let alarm = |s: i64| (Kind::Alarm, s, None);
    let cases = [
        ("Set a timer for 10 minutes.", timer(600)),
        ("set a timer for ten minutes", timer(600)),
        ("Timer for twenty five seconds", timer(25)),
        ("start a 5-minute timer", timer(300)),
        ("set a timer for 1 hour and 30 minutes", timer(5400)),
        ("set a timer for an hour and a half", timer(5400)),
        ("set a timer for half an hour", timer(1800)),
        ("set a timer for one and a half minutes", timer(90)),
        ("countdown 90 seconds", timer(90)),
        ("set a timer for 2 mins", timer(120)),
        ("timer 10min", timer(600)),
        ("Set a timer for a quarter of an hour", timer(900)),
        ("set a timer for a couple of minutes", timer(120)),
        ("Wake me up at 7 am.", alarm(21 * 3600)),
        ("set an alarm for 6:30 pm", alarm(8 * 3600 + 1800)),
        ("set an alarm for 18:30", alarm(8 * 3600 + 1800)),
        ("set an alarm for 11", alarm(3600)),
        ("set an alarm for seven thirty", alarm(9 * 3600 + 1800)),
        ("set an alarm for 7 a.m. tomorrow", alarm(21 * 3600)),
        ("set an alarm for noon", alarm(2 * 3600)),
        ("Wake me up at 6 in the morning", alarm(20 * 3600)),
        ("set an alarm for 10 minutes", alarm(600)),
        ("wake me up at 7pm", alarm(9 * 3600)),
        (
            "set an alarm for seven oh five am tomorrow",
            alarm(21 * 3600 + 300),
        ),
        ("set an alarm for ten oclock tonight", alarm(12 * 3600)),
        ("set an alarm for 19:30 tonight", alarm(9 * 3600 + 1800)),
    ];
    for (text, expected) in cases {
        assert_eq!(set_for(text), expected, "{text:?}");
    }
}

#[test]
fn labels_come_from_the_words_around_the_timer() {
    let label = |text: &str| set_for(text).2;
    assert_eq!(
        label("set a pasta timer for 10 minutes").as_deref(),
        Some("pasta")
    );
    assert_eq!(
        label("set a 10 minute timer for the eggs").as_deref(),
        Some("eggs")
    );
    assert_eq!(
        label("set a timer for 5 minutes for the eggs").as_deref(),
        Some("eggs")
    );
    assert_eq!(
        label("set a timer called tea for 3 minutes").as_deref(),
        Some("tea")
    );
    assert_eq!(
        label("set an alarm for 7 am called work").as_deref(),
        Some("work")
    );
    assert_eq!(label("set a timer for 10 minutes"), None);
    assert_eq!(label("wake me up at 7 am"), None);
}

#[test]
fn listing_cancelling_and_other_questions() {
    let now = ten_o_clock();
    let cancel = |text: &str| read(text, now);
    assert_eq!(
        cancel("cancel the pasta timer"),
        Some(Command::Cancel {
            kind: Some(Kind::Timer),
            label: Some("pasta".into()),
            all: false
        })
    );
    assert_eq!(
        cancel("Cancel all timers."),
        Some(Command::Cancel {
            kind: Some(Kind::Timer),
            label: None,
            all: true
        })
    );
    assert_eq!(
        cancel("turn off the alarm"),
        Some(Command::Cancel {
            kind: Some(Kind::Alarm),
            label: None,
            all: false
        })
    );
    assert_eq!(
        cancel("How much time is left on the pasta timer?"),
        Some(Command::List {
            kind: Some(Kind::Timer),
            label: Some("pasta".into())
        })
    );
    assert_eq!(
        cancel("when does my alarm go off"),
        Some(Command::List {
            kind: Some(Kind::Alarm),
            label: None
        })
    );
    assert_eq!(
        cancel("set a timer"),
        Some(Command::Set {
            kind: Kind::Timer,
            due: None,
            label: None
        })
    );
    for other in [
        "What time is it?",
        "What is 12 times 12?",
        "How many minutes are in 3 hours?",
        "Remind me to call mum",
        "",
    ] {
        assert_eq!(read(other, now), None, "{other:?}");
    }
}

#[test]
fn reminders_with_a_time_are_timers_and_alarms() {
    assert_eq!(
        set_for("Remind me in 10 minutes to check the oven."),
        (Kind::Timer, 600, Some("check the oven".into()))
    );
    assert_eq!(
        set_for("remind me to take my pills at 6 pm"),
        (Kind::Alarm, 8 * 3600, Some("take my pills".into()))
    );
    assert_eq!(
        read("cancel my reminder", ten_o_clock()),
        Some(Command::Cancel {
            kind: None,
            label: None,
            all: false
        })
    );
    for other in [
        "Remind me what 5 times 4 is.",
        "Can you remind me who wrote Hamlet?",
    ] {
        assert_eq!(read(other, ten_o_clock()), None, "{other:?}");
    }
}

#[test]
fn a_timer_is_asked_for_only_in_words_that_name_one() {
    let tool = &tools(&ToolConfig::default())[0];
    for asked in [
        "Set a timer for 10 minutes.",
        "wake me up at 7",
        "Remind me in an hour.",
        "cancel the alarm",
    ] {
        assert!(tool.asked_for(asked), "{asked:?}");
    }
    for not_asked in [
        "Hey, WhatsApp Maria and tell her I'll be there in 10 minutes.",
        "How many players are on the field for 1 soccer team?",
        "Boil the eggs for 7 minutes, right?",
        "um my part timer gets twelve pounds sixty an hour and she does twenty two hours a week",
    ] {
        assert!(!tool.asked_for(not_asked), "{not_asked:?}");
        assert!(read(not_asked, ten_o_clock()).is_none(), "{not_asked:?}");
    }
}

/// A store on a clock the test moves.
fn store(file: Option<PathBuf>) -> (Arc<Timers>, Arc<AtomicI64>) {
    let offset = Arc::new(AtomicI64::new(0));
    let moved = offset.clone();
    let start = ten_o_clock().to_utc();
    let now: Now = Arc::new(move || start + Span::seconds(moved.load(Ordering::Relaxed)));
    let timers = Timers::with_clock(file, Some("UTC".into()), now);
    timers.rings_for("local");
    timers.rings_for("dbus-uid:");
    (timers, offset)
}

fn ask(timers: &Arc<Timers>, owner: &str, request: &str) -> String {
    let desk = Desk {
        timers: Some(timers.clone()),
        owner: owner.into(),
    };
    desk.handle(request).unwrap().answer
}

#[test]
fn only_setting_and_cancelling_change_things() {
    let (timers, _) = store(None);
    let config = ToolConfig {
        timers: Some(timers.clone()),
        ..ToolConfig::default()
    };
    let tool = tools(&config).remove(0);
    let changes = |request: &str| tool.changes_things(&serde_json::json!({ "request": request }));
    assert!(changes("set a timer for 5 minutes"));
    assert!(
        changes("set a timer for"),
        "a timer asked for without a time yet"
    );
    assert!(changes("cancel my alarm"));
    assert!(!changes("how long is left on my timers"));
    assert!(!changes("What is the capital of France?"));
    assert!(timers.of("local").is_empty(), "asking sets nothing");
    let without_a_store = tools(&ToolConfig::default()).remove(0);
    let asks_a_change =
        |request: &str| without_a_store.changes_things(&serde_json::json!({ "request": request }));
    assert!(
        asks_a_change("set a timer for 5 minutes"),
        "read the same without a store, so that a change nobody asked for is refused"
    );
    assert!(!asks_a_change("how long is left on my timers"));
}

#[test]
fn each_caller_sets_lists_and_cancels_its_own_timers() {
    let (timers, clock) = store(None);
    assert_eq!(
        ask(&timers, "local", "set a pasta timer for 10 minutes"),
        "Pasta timer set for 10 minutes."
    );
    assert_eq!(
        ask(&timers, "local", "set a timer for 90 seconds"),
        "Timer set for 1 minute and 30 seconds."
    );
    assert_eq!(
        ask(&timers, "dbus-uid:1000", "wake me up at 7 am"),
        "Alarm set for 7:00 in the morning tomorrow."
    );
    assert_eq!(
        ask(&timers, "http", "set a timer for 5 minutes"),
        "I cannot ring a timer through this connection; ask me by voice, on the message bus or over D-Bus."
    );
    clock.store(30, Ordering::Relaxed);
    assert_eq!(
        ask(&timers, "local", "how long is left on my timers"),
        "You have 2 timers: the 1 minute 30 second timer has 1 minute left; the pasta timer has 9 minutes and 30 seconds left."
    );
    assert_eq!(
        ask(&timers, "dbus-uid:1000", "what timers do I have"),
        "You have no timers."
    );
    assert_eq!(
        ask(&timers, "dbus-uid:1000", "cancel the pasta timer"),
        "You have no pasta timer."
    );
    assert_eq!(
        ask(&timers, "local", "cancel the timer"),
        "Which one? You have the 1 minute 30 second timer and the pasta timer."
    );
    assert_eq!(
        ask(&timers, "local", "cancel the pasta timer"),
        "Pasta timer cancelled."
    );
    assert_eq!(timers.of("local").len(), 1);
    assert_eq!(
        ask(&timers, "dbus-uid:1000", "cancel my alarm"),
        "Alarm cancelled."
    );
    assert!(timers.of("dbus-uid:1000").is_empty());
}

#[test]
fn bounds_are_kept() {
    let (timers, _) = store(None);
    assert_eq!(
        ask(&timers, "local", "set a timer for 25 hours"),
        "A timer can run for at most a day."
    );
    for n in 0..MAX_PER_CALLER {
        ask(
            &timers,
            "local",
            &format!("set a timer for {} minutes", n + 1),
        );
    }
    assert_eq!(
        ask(&timers, "local", "set a timer for 3 hours"),
        "You already have 20 timers; cancel one first."
    );
    assert_eq!(
        ask(&timers, "local", "cancel all timers"),
        "Cancelled 20 timers."
    );
}

#[test]
fn timers_ring_when_due_and_outlast_a_restart() {
    let dir = std::env::temp_dir().join(format!("loopd-timers-{}", std::process::id()));
    let file = dir.join("timers.json");
    let _ = std::fs::remove_dir_all(&dir);
    let (timers, clock) = store(Some(file.clone()));
    ask(&timers, "local", "set an egg timer for 1 minute");
    ask(&timers, "local", "set a timer for 2 minutes");
    clock.store(61, Ordering::Relaxed);
    let rang = timers.take_due();
    assert_eq!(rang.len(), 1);
    assert_eq!(rang[0].spoken, "Your egg timer is done.");
    assert!(!rang[0].late);
    drop(timers);

    let (again, clock) = store(Some(file.clone()));
    assert_eq!(again.of("local").len(), 1, "the 2 minute timer was kept");
    clock.store(300, Ordering::Relaxed);
    let rang = again.take_due();
    assert_eq!(
        rang[0].spoken,
        "Your 2 minute timer went off at 10:02 in the morning, while I was stopped."
    );
    assert!(rang[0].late);

    std::fs::write(&file, "not json").unwrap();
    let (fresh, _) = store(Some(file.clone()));
    assert!(fresh.of("local").is_empty());
    assert_eq!(
        std::fs::read_to_string(file.with_extension("json.bad")).unwrap(),
        "not json"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_keeper_rings_subscribers() {
    let timers = Timers::open(None, Some("UTC".into()));
    timers.rings_for("bus");
    let mut rings = timers.subscribe();
    let stop = CancellationToken::new();
    let keeper = tokio::spawn({
        let timers = timers.clone();
        let stop = stop.clone();
        async move { timers.keep(stop).await }
    });
    let due = Utc::now() + Span::milliseconds(1200);
    timers
        .set("bus", Kind::Timer, due, Some("tea".into()))
        .unwrap();
    let rang = tokio::time::timeout(std::time::Duration::from_secs(5), rings.recv())
        .await
        .expect("the timer rang")
        .unwrap();
    assert_eq!(rang.spoken, "Your tea timer is done.");
    assert!(Utc::now() >= due);
    stop.cancel();
    keeper.await.unwrap();
}

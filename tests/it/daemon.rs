//! The daemon core with deterministic brains: one queue, one terminal reply
//! per request, Busy when full, cancellation, session memory, shutdown.

use loopd::brain::{
    Brain, BrainInfo, ChatRequest, Completion, EndReason, Generation, GenerationEvent, Piece,
    ScriptedBrain, Usage,
};
use loopd::daemon::{Ask, AskError, Caller, Daemon, DaemonSettings, State};
use loopd::engine::LoopEvent;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// A brain whose every reply waits for a permit, so tests decide when
/// generation ends; it records the requests it got.
struct GatedBrain {
    info: BrainInfo,
    gate: Arc<Semaphore>,
    seen: Mutex<Vec<ChatRequest>>,
}

impl GatedBrain {
    fn new() -> Arc<Self> {
        Arc::new(GatedBrain {
            info: BrainInfo {
                model: "gated".into(),
                ..Default::default()
            },
            gate: Arc::new(Semaphore::new(0)),
            seen: Mutex::new(Vec::new()),
        })
    }

    fn calls(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
}

impl Brain for GatedBrain {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        self.seen.lock().unwrap().push(request);
        let (tx, generation) = Generation::channel();
        let gate = self.gate.clone();
        tokio::spawn(async move {
            let end = tokio::select! {
                permit = gate.acquire_owned() => { permit.unwrap().forget(); EndReason::EndOfTurn }
                _ = cancel.cancelled() => EndReason::Cancelled,
            };
            let text = if end == EndReason::Cancelled {
                ""
            } else {
                "Paris."
            };
            if !text.is_empty() {
                let _ = tx.send(GenerationEvent::Piece(Piece {
                    text: text.into(),
                    token: 1,
                }));
            }
            let _ = tx.send(GenerationEvent::Finished(Completion {
                text: text.into(),
                end,
                usage: Usage::default(),
                tool_calls: Vec::new(),
            }));
        });
        generation
    }
}

fn plain(prompt: &str) -> Ask {
    Ask {
        prompt: prompt.into(),
        loop_id: Some("none".into()),
        ..Ask::default()
    }
}

fn settings(queue_limit: usize) -> DaemonSettings {
    DaemonSettings {
        queue_limit,
        ..DaemonSettings::default()
    }
}

async fn wait_for_calls(brain: &GatedBrain, n: usize) {
    for _ in 0..500 {
        if brain.calls() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the brain got {} calls, expected {n}", brain.calls());
}

#[tokio::test]
async fn streams_tokens_then_one_answer() {
    let brain = Arc::new(ScriptedBrain::new(["The capital is Paris."]));
    let daemon = Daemon::start(brain, settings(4));
    let mut ticket = daemon.submit(plain("Capital of France?")).unwrap();
    let mut spoken = String::new();
    while let Some(event) = ticket.next_event().await {
        if let LoopEvent::AnswerToken { text } = event {
            spoken.push_str(&text);
        }
    }
    let answer = ticket.finish().await.unwrap();
    assert_eq!(answer.answer, "The capital is Paris.");
    assert_eq!(spoken.trim(), answer.answer);
    assert_eq!(answer.loop_id, "none");
    assert_eq!(answer.persona, "default");
    assert_eq!(answer.stats["llm_calls"], 1);
    assert_eq!(
        daemon.open_requests(),
        1,
        "open until the front end drops the ticket"
    );
    drop(ticket);
    assert_eq!(daemon.open_requests(), 0);
}

#[tokio::test]
async fn a_session_remembers_its_last_turns_and_only_its_own() {
    let brain = Arc::new(ScriptedBrain::new(["Paris.", "About two million.", "Hi."]));
    let daemon = Daemon::start(brain.clone(), settings(4));
    let first = Ask {
        session: Some("kitchen".into()),
        ..plain("What is the capital of France?")
    };
    daemon.submit(first).unwrap().finish().await.unwrap();
    let follow_up = Ask {
        session: Some("kitchen".into()),
        ..plain("How many people live there?")
    };
    daemon.submit(follow_up).unwrap().finish().await.unwrap();
    daemon
        .submit(Ask {
            session: Some("garage".into()),
            ..plain("Hello")
        })
        .unwrap()
        .finish()
        .await
        .unwrap();

    let requests = brain.requests();
    let texts = |i: usize| -> Vec<String> {
        requests[i]
            .messages
            .iter()
            .map(|m| m.content.clone())
            .collect()
    };
    let second = texts(1);
    assert!(second.contains(&"What is the capital of France?".to_string()));
    assert!(second.contains(&"Paris.".to_string()));
    assert_eq!(second.last().unwrap(), "How many people live there?");
    let other = texts(2);
    assert!(!other.iter().any(|t| t.contains("France")), "{other:?}");
}

#[tokio::test]
async fn a_session_name_means_nothing_across_callers() {
    let brain = GatedBrain::new();
    let daemon = Daemon::start(brain.clone(), settings(4));
    let at = |caller: Caller, prompt: &str, barge_in: bool| Ask {
        caller,
        session: Some("default".into()),
        barge_in,
        ..plain(prompt)
    };
    let household = Caller::local();
    let stranger = Caller::wyoming("192.0.2.7".parse().unwrap());

    brain.gate.add_permits(1);
    let first = daemon.submit(at(household.clone(), "I am Ada.", false));
    first.unwrap().finish().await.unwrap();
    let spoken = daemon
        .submit(at(household.clone(), "Tell me a story.", true))
        .unwrap();
    wait_for_calls(&brain, 2).await;
    // A spoken turn of another caller does not barge in on the household's.
    let mut theirs = daemon
        .submit(at(stranger.clone(), "Who am I?", true))
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    brain.gate.add_permits(2);
    let mut spoken = spoken;
    assert!(spoken.finish().await.is_ok(), "the stranger cancelled it");
    theirs.finish().await.unwrap();

    let seen = brain.seen.lock().unwrap();
    let said =
        |i: usize| -> Vec<String> { seen[i].messages.iter().map(|m| m.content.clone()).collect() };
    assert!(said(1).contains(&"I am Ada.".to_string()), "{:?}", said(1));
    assert!(
        !said(2)
            .iter()
            .any(|t| t.contains("Ada") || t.contains("story")),
        "the stranger was given the household's session: {:?}",
        said(2)
    );
    assert_ne!(seen[1].session, seen[2].session);
}

#[tokio::test]
async fn a_full_queue_answers_busy_and_drops_nothing() {
    let brain = GatedBrain::new();
    let daemon = Daemon::start(brain.clone(), settings(1));
    let mut running = daemon.submit(plain("one")).unwrap();
    wait_for_calls(&brain, 1).await;
    assert_eq!(*daemon.state().borrow(), State::Busy);
    let mut waiting = daemon.submit(plain("two")).unwrap();
    let refused = daemon.submit(plain("three"));
    assert_eq!(refused.err().map(|e| e.name()), Some("Busy"));

    brain.gate.add_permits(2);
    assert_eq!(running.finish().await.unwrap().answer, "Paris.");
    assert_eq!(waiting.finish().await.unwrap().answer, "Paris.");
    assert_eq!(brain.calls(), 2);
    drop((running, waiting));
    assert_eq!(daemon.open_requests(), 0);
    let mut state = daemon.state();
    state.wait_for(|s| *s == State::Ready).await.unwrap();
}

#[tokio::test]
async fn cancelling_a_waiting_or_running_request_ends_it_as_cancelled() {
    let brain = GatedBrain::new();
    let daemon = Daemon::start(brain.clone(), settings(4));
    let mut running = daemon.submit(plain("one")).unwrap();
    let mut waiting = daemon.submit(plain("two")).unwrap();
    wait_for_calls(&brain, 1).await;

    waiting.canceller().cancel();
    running.canceller().cancel();
    assert!(matches!(
        running.finish().await,
        Err(AskError::Cancelled(_))
    ));
    assert!(matches!(
        waiting.finish().await,
        Err(AskError::Cancelled(_))
    ));
    assert_eq!(
        brain.calls(),
        1,
        "a request cancelled while waiting never runs"
    );

    brain.gate.add_permits(1);
    let after = daemon.submit(plain("three")).unwrap().finish().await;
    assert_eq!(after.unwrap().answer, "Paris.");
}

#[tokio::test]
async fn dropping_a_ticket_cancels_its_request() {
    let brain = GatedBrain::new();
    let daemon = Daemon::start(brain.clone(), settings(4));
    let running = daemon.submit(plain("one")).unwrap();
    let waiting = daemon.submit(plain("two")).unwrap();
    wait_for_calls(&brain, 1).await;
    drop(waiting);
    drop(running);
    let mut after = daemon.submit(plain("three")).unwrap();
    wait_for_calls(&brain, 2).await;
    brain.gate.add_permits(1);
    assert_eq!(after.finish().await.unwrap().answer, "Paris.");
    assert_eq!(
        brain.calls(),
        2,
        "the dropped running request was cancelled and the dropped waiting one never ran"
    );
}

#[tokio::test]
async fn bad_options_are_named_errors_before_anything_runs() {
    let brain = GatedBrain::new();
    let daemon = Daemon::start(brain.clone(), settings(4));
    let cases = [
        (
            Ask {
                loop_id: Some("dance".into()),
                ..plain("x")
            },
            "UnknownLoop",
            "dance",
        ),
        (
            Ask {
                persona: Some("pirate".into()),
                ..plain("x")
            },
            "UnknownPersona",
            "pirate",
        ),
        (
            Ask {
                max_tokens: Some(0),
                ..plain("x")
            },
            "InvalidArgs",
            "max_tokens",
        ),
        (
            Ask {
                temperature: Some(f64::NAN),
                ..plain("x")
            },
            "InvalidArgs",
            "temperature",
        ),
        (
            Ask {
                tools: Some(vec!["web".into()]),
                ..plain("x")
            },
            "InvalidArgs",
            "web",
        ),
        (plain("   "), "InvalidArgs", "empty"),
    ];
    for (ask, name, mentions) in cases {
        let err = daemon.submit(ask).err().expect("an error");
        assert_eq!(err.name(), name, "{err}");
        assert!(err.to_string().contains(mentions), "{err}");
    }
    assert_eq!(brain.calls(), 0);
    assert_eq!(daemon.open_requests(), 0);
}

#[tokio::test]
async fn shutdown_answers_every_open_request_and_refuses_new_ones() {
    let brain = GatedBrain::new();
    let daemon = Daemon::start(brain.clone(), settings(4));
    let mut running = daemon.submit(plain("one")).unwrap();
    let mut waiting = daemon.submit(plain("two")).unwrap();
    wait_for_calls(&brain, 1).await;

    let replies = tokio::spawn(async move { (running.finish().await, waiting.finish().await) });
    daemon.shutdown(Duration::from_secs(5)).await;
    let (first, second) = replies.await.unwrap();
    assert!(matches!(first, Err(AskError::Cancelled(_))), "{first:?}");
    assert!(matches!(second, Err(AskError::Cancelled(_))), "{second:?}");
    assert_eq!(daemon.open_requests(), 0);
    assert_eq!(*daemon.state().borrow(), State::Stopping);
    assert_eq!(
        daemon.submit(plain("late")).err(),
        Some(AskError::ShuttingDown)
    );
}

#[tokio::test]
async fn warming_computes_each_personas_first_prompt_then_reports_ready() {
    let brain = Arc::new(ScriptedBrain::new(["Hi", "FINAL_ANSWER: 4"]));
    let daemon = Daemon::start(brain.clone(), settings(4));
    assert_eq!(*daemon.state().borrow(), State::Warming);
    let warmed = daemon.warm().await.unwrap();
    assert_eq!(*daemon.state().borrow(), State::Ready);
    let requests = brain.requests();
    assert_eq!(requests.len(), 1);
    let persona = &daemon.personas()[0];
    assert_eq!(warmed.len(), 1);
    assert_eq!(warmed[0].persona, persona.name);
    assert_eq!(requests[0].session, Some(format!("warm:{}", persona.name)));
    assert_eq!(requests[0].options.max_tokens, 1);
    // What a real question sends first starts with the same messages.
    let mut ticket = daemon
        .submit(Ask {
            prompt: "What is 2+2?".into(),
            ..Ask::default()
        })
        .unwrap();
    let _ = ticket.finish().await;
    let asked = &brain.requests()[1];
    assert_eq!(asked.messages[..1], requests[0].messages[..1]);
    assert_eq!(asked.session.as_deref(), Some("local/default"));

    let dead = Daemon::start(
        Arc::new(ScriptedBrain::new(Vec::<String>::new())),
        settings(4),
    );
    let err = dead.warm().await.unwrap_err();
    assert!(err.contains("does not answer"), "{err}");
    assert_eq!(*dead.state().borrow(), State::Warming);
}

//! A run started before its request is certain: a voice front end begins
//! answering a transcript made in a pause, before it knows the pause ends
//! the turn. The model may think ahead, but no tool runs (a timer is not
//! set for a question the user is still asking) until the front end
//! releases the run, and a run never released is cancelled.

use tokio::sync::watch;

/// The run's side of a hold: tools wait on it.
#[derive(Debug, Clone)]
pub struct Hold(watch::Receiver<bool>);

/// The front end's side: releases the run once the request is certain.
#[derive(Debug)]
pub struct Release(watch::Sender<bool>);

/// A hold and the release that lifts it.
pub fn hold() -> (Hold, Release) {
    let (release, hold) = watch::channel(false);
    (Hold(hold), Release(release))
}

impl Hold {
    /// Waits until the run is released: true then, false if the release
    /// was dropped without it.
    pub async fn released(&mut self) -> bool {
        self.0.wait_for(|released| *released).await.is_ok()
    }

    /// Whether the run has been released.
    pub fn is_released(&self) -> bool {
        *self.0.borrow()
    }
}

impl PartialEq for Hold {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_channel(&other.0)
    }
}

impl Release {
    /// Lets the run's tools run and its answer count.
    pub fn release(&self) {
        self.0.send_replace(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_loop, Budget, LoopRequest, Settings, Termination};
    use loopd_brain::{GenerateOptions, Message, ScriptedBrain};
    use loopd_tools::{Tool, ToolError, ToolSpec, Toolset};
    use serde_json::{json, Value};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    /// A tool that counts its calls and changes things, or only reads.
    struct Switch {
        spec: ToolSpec,
        calls: Arc<AtomicUsize>,
        changes: bool,
    }

    impl Tool for Switch {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }

        fn call(&self, _: Value) -> Result<Value, ToolError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"done": true}))
        }

        fn changes_things(&self, _: &Value) -> bool {
            self.changes
        }
    }

    /// A held ReAct run that calls `switch` (which changes things or not)
    /// and answers; the count of its calls.
    fn held_run(changes: bool, held: Hold) -> (LoopRequest, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let mut tools = Toolset::empty();
        tools
            .add(Arc::new(Switch {
                spec: ToolSpec {
                    name: "switch".into(),
                    description: "Switches the lamp".into(),
                    argument_schema: json!({"type": "object", "properties": {}}),
                    output_schema: json!({}),
                },
                calls: calls.clone(),
                changes,
            }))
            .unwrap();
        let brain = ScriptedBrain::new([
            "Thought: I switch it.\nAction: switch\nAction Input: {}",
            "Thought: Done.\nFINAL_ANSWER: The lamp is on.",
        ]);
        let request = LoopRequest {
            engine: crate::build("react", &Settings::new()).unwrap(),
            conversation: vec![Message::user("Switch on the lamp")],
            brain: Arc::new(brain),
            tools: Arc::new(tools),
            budget: Budget::default(),
            options: GenerateOptions::default(),
            cancel: CancellationToken::new(),
            events: None,
            session: None,
            hold: Some(held),
        };
        (request, calls)
    }

    #[tokio::test]
    async fn a_held_run_changes_nothing_until_released() {
        let (held, release) = hold();
        let (request, calls) = held_run(true, held);
        let running = tokio::spawn(run_loop(request));
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(calls.load(Ordering::SeqCst), 0, "the tool waits");
        assert!(!running.is_finished());
        release.release();
        let outcome = running.await.unwrap();
        assert_eq!(outcome.answer, "The lamp is on.");
        assert_eq!(calls.load(Ordering::SeqCst), 1);

        let (held, release) = hold();
        let (request, calls) = held_run(true, held);
        let running = tokio::spawn(run_loop(request));
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        drop(release);
        let outcome = running.await.unwrap();
        assert_eq!(outcome.termination, Termination::Cancelled, "{outcome:?}");
        assert_eq!(calls.load(Ordering::SeqCst), 0, "never released, never run");

        let (held, _release) = hold();
        let (request, calls) = held_run(false, held);
        let outcome = run_loop(request).await;
        assert_eq!(
            outcome.answer, "The lamp is on.",
            "a reading tool runs while held"
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_hold_waits_for_its_release_and_fails_without_it() {
        let (mut held, release) = hold();
        assert!(!held.is_released());
        let waiting = tokio::spawn(async move { held.released().await });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        release.release();
        assert!(waiting.await.unwrap());
        let (mut dropped, release) = hold();
        drop(release);
        assert!(!dropped.released().await);
    }
}

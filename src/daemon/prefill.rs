//! A question's prompt computed while it is still being asked: a voice
//! front end hands in the words heard so far, and the brain computes the
//! prompt the question's engine would send first, in the question's own
//! session. The whole question, asked when the user is done, then finds
//! everything up to its last words already computed; words that changed
//! cost only the tokens after them.

use super::{Ask, AskError, Daemon, Prepared, State};
use crate::engine;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A prompt being computed ahead of its question ([`Daemon::prefill`]).
/// Dropping it lets it finish; [`Prefilling::cancel`], or any request that
/// starts, stops it before it computes anything more.
#[derive(Debug)]
pub struct Prefilling {
    cancel: CancellationToken,
    computed: Arc<AtomicUsize>,
}

impl Prefilling {
    /// Stops it: newer words make it stale.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Prompt tokens it computed (0 until it is done).
    pub fn computed(&self) -> usize {
        self.computed.load(Ordering::Relaxed)
    }
}

impl Daemon {
    /// Computes, in the background, the first prompt of `ask` (a question
    /// still being asked) into its session's prefix cache, generating
    /// nothing and running no tool that changes anything. `None` when the
    /// daemon is answering something else (the model is busy; this would
    /// only slow it), is stopping, or when the persona's brain is a remote
    /// server (it would send every half-heard question there). Call it
    /// inside the daemon's runtime.
    pub fn prefill(&self, ask: Ask) -> Result<Option<Prefilling>, AskError> {
        let shared = &self.shared;
        if shared.stopping.is_cancelled() || *shared.state.borrow() != State::Ready {
            return Ok(None);
        }
        let Prepared {
            persona,
            session,
            prompt,
            setup,
            history,
            whole,
            options,
            grammar,
            ..
        } = shared.settings.prepare(ask)?;
        if grammar.is_some() {
            return Ok(None);
        }
        let brain = self.brain_for(&persona).clone();
        if brain.info().device.contains("://") {
            return Ok(None);
        }
        let conversation =
            self.conversation(setup.system_prompt, history, &session, &prompt, whole);
        let cancel = super::lock(&shared.prefills).child_token();
        let computed = Arc::new(AtomicUsize::new(0));
        let prefilling = Prefilling {
            cancel: cancel.clone(),
            computed: computed.clone(),
        };
        let tools = Arc::new(setup.tools);
        shared.tickets.spawn(async move {
            let usage = engine::prefill(
                &brain,
                setup.engine,
                conversation,
                tools,
                &options,
                &session,
                cancel,
            )
            .await;
            match usage {
                Ok(Some(usage)) if usage.prefill_time > Duration::ZERO => {
                    computed.store(usage.prefill_tokens, Ordering::Relaxed)
                }
                Ok(Some(_)) => {}
                Ok(None) => {}
                Err(e) => tracing::debug!("a question heard so far was not computed: {e}"),
            }
        });
        Ok(Some(prefilling))
    }
}

//! A brain with a second one behind it: when the first fails before it has
//! produced any text (its server is down, refuses, times out), the second
//! answers the same request, so the voice still answers.

use super::{Brain, BrainInfo, ChatRequest, Generation, GenerationEvent};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// `first`, and `then` when `first` fails before its first piece.
pub struct FallbackBrain {
    first: Arc<dyn Brain>,
    then: Arc<dyn Brain>,
    info: BrainInfo,
}

impl FallbackBrain {
    /// Asks `first`, then `then` when `first` fails before any text (only
    /// on a tokio runtime; outside one, `first` alone). Loops are set up
    /// for `first` (its name, its grammar support).
    pub fn new(first: Arc<dyn Brain>, then: Arc<dyn Brain>) -> Self {
        let info = BrainInfo {
            template_supports_tools: first.info().template_supports_tools
                && then.info().template_supports_tools,
            ..first.info().clone()
        };
        FallbackBrain { first, then, info }
    }
}

impl Brain for FallbackBrain {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        let mut first = self.first.generate(request.clone(), cancel.clone());
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return first;
        };
        let (events, generation) = Generation::channel();
        let then = self.then.clone();
        let (named, fallback) = (self.first.info().model.clone(), then.info().model.clone());
        runtime.spawn(async move {
            let mut produced = false;
            while let Some(event) = first.next().await {
                match event {
                    GenerationEvent::Failed(e) if !produced => {
                        tracing::warn!("brain `{named}` failed ({e}); `{fallback}` answers");
                        let mut second = then.generate(request, cancel);
                        while let Some(event) = second.next().await {
                            if events.send(event).is_err() {
                                return;
                            }
                        }
                        return;
                    }
                    GenerationEvent::Piece(_) => produced = true,
                    _ => {}
                }
                if events.send(event).is_err() {
                    return;
                }
            }
        });
        generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BrainError, ScriptedBrain};

    /// A brain that always fails at once.
    struct Down(BrainInfo);

    impl Brain for Down {
        fn info(&self) -> &BrainInfo {
            &self.0
        }

        fn generate(&self, _: ChatRequest, _: CancellationToken) -> Generation {
            let (events, generation) = Generation::channel();
            let why = BrainError::Generation("connection refused".into());
            let _ = events.send(GenerationEvent::Failed(why));
            generation
        }
    }

    #[tokio::test]
    async fn the_second_brain_answers_when_the_first_fails_before_any_text() {
        let down = Arc::new(Down(BrainInfo::default()));
        let local = Arc::new(ScriptedBrain::new(["from the local model"]));
        let brain = FallbackBrain::new(down, local.clone());
        let done = brain
            .generate(ChatRequest::default(), CancellationToken::new())
            .finish()
            .await
            .unwrap();
        assert_eq!(done.text, "from the local model");

        let up = Arc::new(ScriptedBrain::new(["from the server"]));
        let brain = FallbackBrain::new(up, local.clone());
        let done = brain
            .generate(ChatRequest::default(), CancellationToken::new())
            .finish()
            .await
            .unwrap();
        assert_eq!(done.text, "from the server");
        assert_eq!(local.requests().len(), 1, "the second brain was asked once");
    }
}

//! Two models behind one brain: a fast one for the turns that tools carry,
//! and a larger one that knows more for the questions no tool can answer
//! ("What is the capital of Canada?"), which a small model gets wrong.

use super::{Brain, BrainInfo, ChatRequest, Generation};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Sends a request marked [`ChatRequest::from_knowledge`] to `knowing`,
/// every other request to `fast`.
pub struct KnowledgeBrain {
    fast: Arc<dyn Brain>,
    knowing: Arc<dyn Brain>,
    info: BrainInfo,
}

impl KnowledgeBrain {
    /// `fast` answers with tools; `knowing` answers from what it knows.
    /// Loops are set up for `fast` (its name, its grammar support); the
    /// info names `knowing` as the knowledge model.
    pub fn new(fast: Arc<dyn Brain>, knowing: Arc<dyn Brain>) -> Self {
        let info = BrainInfo {
            template_supports_tools: fast.info().template_supports_tools
                && knowing.info().template_supports_tools,
            unconstrained: fast
                .info()
                .unconstrained
                .clone()
                .or_else(|| knowing.info().unconstrained.clone()),
            knowledge_model: Some(knowing.info().model.clone()),
            ..fast.info().clone()
        };
        KnowledgeBrain {
            fast,
            knowing,
            info,
        }
    }
}

impl Brain for KnowledgeBrain {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        if request.from_knowledge {
            self.knowing.generate(request, cancel)
        } else {
            self.fast.generate(request, cancel)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brain::ScriptedBrain;

    #[tokio::test]
    async fn knowledge_requests_go_to_the_knowing_model() {
        let fast = Arc::new(ScriptedBrain::new(["fast"]));
        let knowing = Arc::new(ScriptedBrain::new(["knowing"]));
        let brain = KnowledgeBrain::new(fast.clone(), knowing.clone());
        assert_eq!(
            brain.info().knowledge_model.as_deref(),
            Some(knowing.info().model.as_str())
        );
        let asked = |from_knowledge| ChatRequest {
            from_knowledge,
            ..ChatRequest::default()
        };
        let cancel = CancellationToken::new();
        let done = brain
            .generate(asked(true), cancel.clone())
            .finish()
            .await
            .unwrap();
        assert_eq!(done.text, "knowing");
        let done = brain.generate(asked(false), cancel).finish().await.unwrap();
        assert_eq!(done.text, "fast");
        assert_eq!((fast.requests().len(), knowing.requests().len()), (1, 1));
    }
}

//! Two models behind one brain: a fast one for the turns that tools carry,
//! and a larger one that knows more for the questions no tool can answer
//! ("What is the capital of Canada?"), which a small model gets wrong.

use super::{
    Brain, BrainError, BrainInfo, ChatRequest, Generation, GenerationEvent, Grammar, GrammarError,
};
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// Sends a request marked [`ChatRequest::from_knowledge`] to the knowing
/// model, every other request to `fast`.
pub struct KnowledgeBrain {
    fast: Arc<dyn Brain>,
    knowing: Arc<Knowing>,
    info: BrainInfo,
}

/// Loads the knowing model.
type Loader = Box<dyn FnOnce() -> Result<Arc<dyn Brain>, String> + Send>;

/// The knowing model, loaded when it is first asked (a question that never
/// needs it costs no load time or memory).
struct Knowing {
    brain: OnceLock<Result<Arc<dyn Brain>, String>>,
    load: Mutex<Option<Loader>>,
}

impl Knowing {
    fn get(&self) -> Result<Arc<dyn Brain>, String> {
        self.brain
            .get_or_init(|| {
                let load = self.load.lock().ok().and_then(|mut load| load.take());
                match load {
                    Some(load) => load(),
                    None => Err("the knowledge model was not loaded".into()),
                }
            })
            .clone()
    }
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
            knowing: Arc::new(Knowing {
                brain: OnceLock::from(Ok(knowing)),
                load: Mutex::new(None),
            }),
            info,
        }
    }

    /// `fast`, with the knowing model `name` loaded by `load` when it is
    /// first asked. Both models must follow grammars and render tools
    /// alike (two local models do).
    pub fn lazy(
        fast: Arc<dyn Brain>,
        name: &str,
        load: impl FnOnce() -> Result<Arc<dyn Brain>, String> + Send + 'static,
    ) -> Self {
        let info = BrainInfo {
            knowledge_model: Some(name.to_string()),
            ..fast.info().clone()
        };
        KnowledgeBrain {
            fast,
            knowing: Arc::new(Knowing {
                brain: OnceLock::new(),
                load: Mutex::new(Some(Box::new(load))),
            }),
            info,
        }
    }
}

impl Brain for KnowledgeBrain {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn check_grammar(&self, grammar: &Grammar) -> Result<(), GrammarError> {
        self.fast.check_grammar(grammar)
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        if !request.from_knowledge {
            return self.fast.generate(request, cancel);
        }
        if let Some(Ok(knowing)) = self.knowing.brain.get() {
            return knowing.generate(request, cancel);
        }
        let (events, generation) = Generation::channel();
        let knowing = self.knowing.clone();
        let loading = std::thread::Builder::new()
            .name("loopd-knowledge-load".into())
            .spawn(move || {
                let brain = match knowing.get() {
                    Ok(brain) => brain,
                    Err(e) => {
                        let why = BrainError::Generation(format!("the knowledge model: {e}"));
                        let _ = events.send(GenerationEvent::Failed(why));
                        return;
                    }
                };
                let mut answer = brain.generate(request, cancel);
                while let Some(event) = answer.blocking_next() {
                    if events.send(event).is_err() {
                        return;
                    }
                }
            });
        if let Err(e) = loading {
            tracing::warn!("cannot start loading the knowledge model: {e}");
        }
        generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScriptedBrain;

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

    #[tokio::test]
    async fn a_lazy_knowing_model_is_loaded_when_first_asked() {
        let fast = Arc::new(ScriptedBrain::new(["fast"]));
        let knowing = Arc::new(ScriptedBrain::new(["knowing"]));
        let loaded = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (flag, model) = (loaded.clone(), knowing.clone());
        let brain = KnowledgeBrain::lazy(fast, "big", move || {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(model as Arc<dyn Brain>)
        });
        assert_eq!(brain.info().knowledge_model.as_deref(), Some("big"));
        let cancel = CancellationToken::new();
        let done = brain
            .generate(ChatRequest::default(), cancel.clone())
            .finish()
            .await
            .unwrap();
        assert_eq!(done.text, "fast");
        assert!(!loaded.load(std::sync::atomic::Ordering::SeqCst));
        let asked = ChatRequest {
            from_knowledge: true,
            ..ChatRequest::default()
        };
        let done = brain.generate(asked, cancel).finish().await.unwrap();
        assert_eq!(done.text, "knowing");
        assert!(loaded.load(std::sync::atomic::Ordering::SeqCst));

        let broken = KnowledgeBrain::lazy(Arc::new(ScriptedBrain::new(["x"])), "gone", || {
            Err("no such file".into())
        });
        let asked = ChatRequest {
            from_knowledge: true,
            ..ChatRequest::default()
        };
        let failed = broken
            .generate(asked, CancellationToken::new())
            .finish()
            .await;
        assert!(failed.is_err());
    }
}

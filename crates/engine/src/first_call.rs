//! The first LLM call an engine makes, found without running the model:
//! what `loopd serve` and `loopd bench` compute ahead of time so that a
//! question only costs its own tokens.

use super::{run_loop, Budget, Engine, LoopRequest};
use loopd_brain::{
    Brain, BrainError, BrainInfo, ChatRequest, GenerateOptions, Generation, GenerationEvent,
    Message, Usage,
};
use loopd_tools::Toolset;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The request `engine` would send first for `conversation`, as it would
/// send it to a brain described by `info`. `None` when the engine makes no
/// LLM call for it.
pub async fn first_call(
    engine: Arc<dyn Engine>,
    conversation: Vec<Message>,
    tools: Arc<Toolset>,
    options: GenerateOptions,
    info: &BrainInfo,
) -> Option<ChatRequest> {
    let recorder = Arc::new(Recorder {
        info: info.clone(),
        first: Mutex::new(None),
    });
    run_loop(LoopRequest {
        engine,
        conversation,
        brain: recorder.clone(),
        tools,
        budget: Budget::default(),
        options,
        cancel: CancellationToken::new(),
        events: None,
        session: None,
        hold: None,
    })
    .await;
    let first = recorder.first.lock().ok()?.take();
    first
}

/// The question a prompt is warmed with: everything before it is what
/// every question shares. It holds a number and no tool reads it, so the
/// engine's own method makes the first call ([`super::Run::read_first`]),
/// not ReAct's answer for questions a tool reads or no tool can help with.
const WARM_QUESTION: &str = "Hello from room 1.";

/// Computes, in `brain`'s cache for `session`, the first prompt `engine`
/// sends after `system` (the persona's prompt, if any), with the tools'
/// descriptions: later questions with the same system prompt, in any
/// session, compute only their own tokens; in both models of a brain with
/// a knowledge model. Returns what the model that takes the warming
/// question cost, or `None` when the engine makes no LLM call.
pub async fn warm(
    brain: &Arc<dyn Brain>,
    engine: Arc<dyn Engine>,
    system: Option<&str>,
    tools: Arc<Toolset>,
    options: &GenerateOptions,
    session: &str,
    cancel: CancellationToken,
) -> Result<Option<Usage>, BrainError> {
    let mut conversation: Vec<Message> = system.map(Message::system).into_iter().collect();
    conversation.push(Message::user(WARM_QUESTION));
    let Some(mut request) =
        first_call(engine, conversation, tools, options.clone(), brain.info()).await
    else {
        return Ok(None);
    };
    request.options.max_tokens = 1;
    request.session = Some(session.to_string());
    if brain.info().knowledge_model.is_some() {
        let knowledge = ChatRequest {
            from_knowledge: !request.from_knowledge,
            ..request.clone()
        };
        brain.generate(knowledge, cancel.clone()).finish().await?;
    }
    let done = brain.generate(request, cancel).finish().await?;
    Ok(Some(done.usage))
}

/// A brain that keeps the first request it gets and fails every call, so
/// the engine stops there.
struct Recorder {
    info: BrainInfo,
    first: Mutex<Option<ChatRequest>>,
}

impl Brain for Recorder {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn generate(&self, request: ChatRequest, _cancel: CancellationToken) -> Generation {
        if let Ok(mut first) = self.first.lock() {
            first.get_or_insert(request);
        }
        let (events, generation) = Generation::channel();
        let _ = events.send(GenerationEvent::Failed(BrainError::Generation(
            "recorded, not generated".into(),
        )));
        generation
    }
}

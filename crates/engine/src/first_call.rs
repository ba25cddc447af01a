//! The first LLM call an engine makes, found without running the model:
//! what `loopd serve` and `loopd bench` compute ahead of time so that a
//! question only costs its own tokens, and what a voice front end computes
//! while the user is still asking, so that the whole question costs only
//! its last words.

use super::{hold, run_loop, Budget, Engine, LoopRequest};
use loopd_brain::{
    Brain, BrainError, BrainInfo, ChatRequest, GenerateOptions, Generation, GenerationEvent,
    Message, Usage,
};
use loopd_tools::Toolset;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The request `engine` would send first for `conversation`, as it would
/// send it to a brain described by `info`. `None` when the engine makes no
/// LLM call for it, or would first run a tool that changes something (the
/// run is held and never released: finding a prompt sets no timer).
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
    let (held, never) = hold::hold();
    drop(never);
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
        hold: Some(held),
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
    let Some(request) = prompt_only(brain, engine, conversation, tools, options, session).await
    else {
        return Ok(None);
    };
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

/// Computes, in `brain`'s cache for `session`, the first prompt `engine`
/// sends for `conversation` (a question still being asked), generating
/// nothing: the question asked in full, in the same session, then computes
/// only the tokens after what the two share. Returns what it cost, or
/// `None` when the engine makes no LLM call for it.
pub async fn prefill(
    brain: &Arc<dyn Brain>,
    engine: Arc<dyn Engine>,
    conversation: Vec<Message>,
    tools: Arc<Toolset>,
    options: &GenerateOptions,
    session: &str,
    cancel: CancellationToken,
) -> Result<Option<Usage>, BrainError> {
    let Some(request) = prompt_only(brain, engine, conversation, tools, options, session).await
    else {
        return Ok(None);
    };
    let done = brain.generate(request, cancel).finish().await?;
    Ok(Some(done.usage))
}

/// The first request `engine` sends for `conversation`, in `session`, cut
/// to computing its prompt: it generates one token, which is not kept.
async fn prompt_only(
    brain: &Arc<dyn Brain>,
    engine: Arc<dyn Engine>,
    conversation: Vec<Message>,
    tools: Arc<Toolset>,
    options: &GenerateOptions,
    session: &str,
) -> Option<ChatRequest> {
    let mut request =
        first_call(engine, conversation, tools, options.clone(), brain.info()).await?;
    request.options.max_tokens = 1;
    request.session = Some(session.to_string());
    Some(request)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;
    use loopd_brain::ScriptedBrain;
    use loopd_tools::{Tool, ToolError, ToolSpec};
    use serde_json::{json, Value};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A tool that reads the user's words and sets an alarm from them, or
    /// only tells the time from them; counts its calls.
    struct Alarm {
        spec: ToolSpec,
        calls: Arc<AtomicUsize>,
        changes: bool,
    }

    impl Tool for Alarm {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }

        fn call(&self, _: Value) -> Result<Value, ToolError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Ok(json!({"alarm": "07:00"}))
        }

        fn changes_things(&self, _: &Value) -> bool {
            self.changes
        }
    }

    async fn first_with_alarm(changes: bool) -> (Option<ChatRequest>, usize) {
        let calls = Arc::new(AtomicUsize::new(0));
        let mut tools = Toolset::empty();
        tools
            .add(Arc::new(Alarm {
                spec: ToolSpec {
                    name: "alarm".into(),
                    description: "Sets an alarm".into(),
                    argument_schema: json!({
                        "type": "object",
                        "properties": {"request": {"type": "string", "x-question": true}},
                        "required": ["request"],
                    }),
                    output_schema: json!({}),
                },
                calls: calls.clone(),
                changes,
            }))
            .unwrap();
        let first = first_call(
            crate::build("react", &Settings::new()).unwrap(),
            vec![Message::user("Wake me at seven")],
            Arc::new(tools),
            GenerateOptions::default(),
            ScriptedBrain::new([""; 0]).info(),
        )
        .await;
        (first, calls.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn finding_the_first_prompt_changes_nothing() {
        let (first, calls) = first_with_alarm(true).await;
        assert_eq!(calls, 0, "no alarm is set for a question not yet asked");
        assert!(first.is_none(), "{first:?}");

        let (first, calls) = first_with_alarm(false).await;
        assert_eq!(calls, 1, "a tool that only reads runs");
        let prompt = format!("{:?}", first.expect("the model is asked next").messages);
        assert!(prompt.contains("07:00"), "{prompt}");
    }
}

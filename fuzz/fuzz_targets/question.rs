//! What a user says, on any text: every tool that reads questions in words
//! (the calculator, the clock and calendar, the timers, the speller, the
//! limits), the follow-up reader, and the ReAct engine's first read of the
//! question (with a scripted brain) must not panic. A voice front end asks
//! these of every half-heard question too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::brain::{GenerateOptions, Message, ScriptedBrain};
use loopd::engine::{self, Budget, LoopRequest, Settings};
use loopd::tools::{ToolConfig, Toolset};
use serde_json::json;
use std::sync::{Arc, LazyLock};
use tokio_util::sync::CancellationToken;

/// The default persona's toolboxes.
static TOOLS: LazyLock<Arc<Toolset>> = LazyLock::new(|| {
    let names = ["timers", "math", "clock", "words", "limits"];
    Arc::new(Toolset::named(&names, &ToolConfig::default()).expect("the default toolboxes"))
});

fuzz_target!(|text: &str| {
    if text.len() > 4096 {
        return;
    }
    let tools = TOOLS.clone();
    for spec in tools.specs() {
        if let Some(argument) = spec.question_argument() {
            let _ = tools.call(&spec.name, json!({ argument: text }));
        }
    }
    let _ = engine::follow_up::in_context(&[
        Message::user("What is 15% of 80 dollars in Tokyo?"),
        Message::assistant("It's 12 dollars."),
        Message::user(text),
    ]);
    let react = engine::build("react", &Settings::new()).expect("react builds");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(engine::run_loop(LoopRequest {
        engine: react,
        conversation: vec![Message::user(text)],
        brain: Arc::new(ScriptedBrain::new(["Final Answer: fine."])),
        tools,
        budget: Budget::default(),
        options: GenerateOptions::default(),
        cancel: CancellationToken::new(),
        events: None,
        session: None,
        hold: None,
    }));
});

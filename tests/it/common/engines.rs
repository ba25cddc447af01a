//! Running engines against the scripted brain, with tools made for tests.

use loopd::brain::{GenerateOptions, ScriptedBrain};
use loopd::engine::{self, Budget, LoopEvent, LoopOutcome, LoopRequest, Settings};
use loopd::tools::{Tool, ToolError, ToolSpec, Toolset};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A tool defined by a closure.
pub struct FnTool {
    spec: ToolSpec,
    f: Box<dyn Fn(Value) -> Result<Value, ToolError> + Send + Sync>,
}

impl FnTool {
    #[allow(clippy::new_ret_no_self)]
    pub fn new(
        name: &str,
        description: &str,
        argument_schema: Value,
        f: impl Fn(Value) -> Result<Value, ToolError> + Send + Sync + 'static,
    ) -> Arc<dyn Tool> {
        Arc::new(FnTool {
            spec: ToolSpec {
                name: name.into(),
                description: description.into(),
                argument_schema,
                output_schema: json!({}),
            },
            f: Box::new(f),
        })
    }
}

impl Tool for FnTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn call(&self, arguments: Value) -> Result<Value, ToolError> {
        (self.f)(arguments)
    }
}

/// `add {a, b}` → `{"sum": a+b}`; `lookup {query}` → `{"result": "answer to <query>"}`;
/// `broken {}` → always fails; `cancel {}` cancels `cancel` and returns `{}`.
pub fn test_tools(cancel: &CancellationToken) -> Toolset {
    let mut set = Toolset::empty();
    set.add(FnTool::new(
        "add",
        "Adds two numbers.",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"], "additionalProperties": false}),
        |args| Ok(json!({"sum": args["a"].as_f64().unwrap() + args["b"].as_f64().unwrap()})),
    ))
    .unwrap();
    set.add(FnTool::new(
        "lookup",
        "Looks a fact up.",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
        |args| Ok(json!({"result": format!("answer to {}", args["query"].as_str().unwrap())})),
    ))
    .unwrap();
    set.add(FnTool::new(
        "broken",
        "Always fails.",
        json!({"type": "object"}),
        |_| Err(ToolError::Failed("the service is down".into())),
    ))
    .unwrap();
    let token = cancel.clone();
    set.add(FnTool::new(
        "cancel",
        "Cancels the request (to test cancellation mid-loop).",
        json!({"type": "object"}),
        move |_| {
            token.cancel();
            Ok(json!({}))
        },
    ))
    .unwrap();
    set
}

/// What a scripted run produced.
pub struct Scripted {
    pub outcome: LoopOutcome,
    pub events: Vec<LoopEvent>,
    pub brain: Arc<ScriptedBrain>,
}

impl Scripted {
    /// Everything sent on the answer channel.
    pub fn spoken(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                LoopEvent::AnswerToken { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Everything sent on the thought channel.
    pub fn thoughts(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                LoopEvent::ThoughtToken { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Tool calls made (name, arguments), from the stats.
    pub fn tool_calls(&self) -> Vec<(String, Value)> {
        self.outcome
            .stats
            .tool_calls
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()))
            .collect()
    }

    /// What each LLM call was for, in order.
    pub fn purposes(&self) -> Vec<String> {
        self.outcome
            .stats
            .calls
            .iter()
            .map(|c| c.purpose.clone())
            .collect()
    }

    /// The last message the brain received in LLM call `call` (0-based).
    pub fn last_message(&self, call: usize) -> String {
        let requests = self.brain.requests();
        let message = requests[call].messages.last().expect("a message");
        message.content.clone()
    }

    /// LLM calls made.
    pub fn llm_calls(&self) -> usize {
        self.outcome.stats.llm_calls()
    }

    /// How it ended, as in JSON.
    pub fn termination(&self) -> &'static str {
        self.outcome.termination.as_str()
    }
}

/// Settings from pairs.
pub fn settings(pairs: &[(&str, Value)]) -> Settings {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// Runs an engine on one question with scripted replies and the test tools.
pub fn run(engine_id: &str, pairs: &[(&str, Value)], replies: &[&str]) -> Scripted {
    let cancel = CancellationToken::new();
    let tools = test_tools(&cancel);
    let brain = ScriptedBrain::new(replies.iter().copied());
    run_with(engine_id, pairs, tools, Budget::default(), cancel, brain)
}

/// Runs a request to its end on a fresh runtime; returns the outcome and
/// every event it sent.
pub fn drive(mut request: LoopRequest) -> (LoopOutcome, Vec<LoopEvent>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    request.events = Some(tx);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let outcome = runtime.block_on(engine::run_loop(request));
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    (outcome, events)
}

/// Runs an engine with the test tools under a budget.
pub fn with_budget(engine_id: &str, budget: Budget, replies: &[&str]) -> Scripted {
    let cancel = CancellationToken::new();
    let brain = ScriptedBrain::new(replies.iter().copied());
    run_with(engine_id, &[], test_tools(&cancel), budget, cancel, brain)
}

/// Runs an engine with everything chosen by the test.
pub fn run_with(
    engine_id: &str,
    pairs: &[(&str, Value)],
    tools: Toolset,
    budget: Budget,
    cancel: CancellationToken,
    brain: ScriptedBrain,
) -> Scripted {
    let engine = engine::build(engine_id, &settings(pairs)).expect("engine builds");
    let brain = Arc::new(brain);
    let (outcome, events) = drive(LoopRequest {
        engine,
        conversation: vec![loopd::brain::Message::user("What is the question?")],
        brain: brain.clone(),
        tools: Arc::new(tools),
        budget,
        options: GenerateOptions::default(),
        cancel,
        events: None,
        session: None,
        hold: None,
    });
    assert!(
        matches!(events.last(), Some(LoopEvent::Final { .. })),
        "the last event is Final"
    );
    Scripted {
        outcome,
        events,
        brain,
    }
}

/// Runs `engine` on `question` with the default persona's toolboxes (math,
/// clock, limits) and scripted replies; returns the outcome and the brain,
/// whose requests show what each call was given.
pub fn ask_everyday(
    engine: &str,
    question: &str,
    replies: &[&str],
) -> (LoopOutcome, Arc<ScriptedBrain>) {
    let config = loopd::tools::ToolConfig::default();
    ask_with(
        engine,
        question,
        replies,
        &["math", "clock", "limits"],
        &config,
    )
}

/// Runs `engine` on `question` with the named toolboxes, made with
/// `config`, and scripted replies; returns the outcome and the brain.
pub fn ask_with(
    engine: &str,
    question: &str,
    replies: &[&str],
    toolboxes: &[&str],
    config: &loopd::tools::ToolConfig,
) -> (LoopOutcome, Arc<ScriptedBrain>) {
    let brain = Arc::new(ScriptedBrain::new(replies.iter().copied()));
    let tools = Toolset::named(toolboxes, config).unwrap();
    let (outcome, _) = drive(LoopRequest {
        engine: engine::build(engine, &Settings::new()).unwrap(),
        conversation: vec![loopd::brain::Message::user(question)],
        brain: brain.clone(),
        tools: Arc::new(tools),
        budget: Budget::default(),
        options: GenerateOptions::default(),
        cancel: CancellationToken::new(),
        events: None,
        session: None,
        hold: None,
    });
    (outcome, brain)
}

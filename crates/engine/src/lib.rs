//! Agent loops: one protocol, one file per engine.
//!
//! An [`Engine`] takes the conversation and runs its loop against a [`Run`]:
//! the run holds the brain, the toolset, the [`Budget`] and the cancellation
//! token, streams [`LoopEvent`]s out, and keeps the [`LoopStats`]. Every LLM
//! call goes through [`Run::generate`] and every tool call through
//! [`Run::call_tool`], so limits, cancellation and accounting live in one
//! place and engines read like their pseudo-code. Engines compose through the
//! same protocol: Reflexion runs the ReAct engine on the same run.
//!
//! [`run_loop`] drives one request from start to a [`LoopOutcome`].

#![deny(missing_docs)]

mod compound;
pub mod events;
mod fact;
mod first_call;
pub mod follow_up;
pub mod grounding;
mod heard;
pub mod hold;
mod id;
pub mod parse;
pub mod protocol;
mod route;
mod run;
pub mod sentences;
pub mod speakable;
mod stats;
mod worked;

pub mod auto;
pub mod chain_of_thought;
pub mod client_turn;
pub mod critic;
pub mod hybrid;
pub mod native_tools;
pub mod plain;
pub mod plan_execute;
pub mod react;
pub mod reflexion;
pub mod self_ask;
pub mod tree_of_thoughts;

pub use events::{LoopEvent, Trace};
pub use first_call::{first_call, prefill, warm};
pub use id::{EngineId, UnknownEngine, ENGINES};
pub use route::{Route, Router};
pub use run::{Budget, CallOptions, FirstRead, Observed, Run, ToolRead};
pub use stats::{round1, CallRecord, LoopStats, ToolCallRecord};

use stats::ms;

use loopd_brain::{Brain, GenerateOptions, Message, Role};
use loopd_tools::Toolset;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Most tool calls taken from one model reply (CRITIC blocks, native calls);
/// the rest are format errors, so a runaway reply cannot run tools forever.
pub const MAX_CALLS_PER_REPLY: usize = 5;

/// Engine configuration as given (`--set key=value`, persona TOML): each
/// engine reads the keys it knows into its typed config and rejects others.
pub type Settings = serde_json::Map<String, Value>;

/// A setting every engine takes: whether its LLM calls are constrained to
/// their protocol's grammar (default `true`).
pub const CONSTRAIN: &str = "constrain";

/// A setting every engine takes: whether a number in an answer must come
/// from the conversation or a tool's result ([`grounding`]; default `true`).
pub const GROUND: &str = "ground";

/// A setting every engine takes: whether answers are rewritten as a voice
/// says them ([`speakable`]; default `true`). Off for clients that show
/// text, not speak it.
pub const SPEAK: &str = "speak";

/// The settings every engine takes, each on by default.
pub const RUN_SETTINGS: [&str; 3] = [CONSTRAIN, GROUND, SPEAK];

/// Builds an engine by id with its settings.
pub fn build(id: &str, settings: &Settings) -> Result<Arc<dyn Engine>, String> {
    let mut settings = settings.clone();
    let mut flags = RunFlags::default();
    for key in RUN_SETTINGS {
        let on = match settings.remove(key) {
            None => continue,
            Some(Value::Bool(on)) => on,
            Some(other) => {
                return Err(format!(
                    "invalid setting for loop `{id}`: {key} = {other}: expected true or false"
                ))
            }
        };
        match key {
            CONSTRAIN => flags.constrain = on,
            GROUND => flags.ground = on,
            _ => flags.speak = on,
        }
    }
    let engine = build_engine(id, &settings)?;
    Ok(if flags == RunFlags::default() {
        engine
    } else {
        Arc::new(Flagged { engine, flags })
    })
}

/// The engine of one turn with the client's own tools: constrained, but
/// neither grounded nor rewritten to be spoken (the client reads it).
pub fn client_turn(turn: client_turn::ClientTurn) -> Arc<dyn Engine> {
    Arc::new(Flagged {
        engine: Arc::new(turn),
        flags: RunFlags {
            constrain: true,
            ground: false,
            speak: false,
        },
    })
}

/// The run settings of [`RUN_SETTINGS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RunFlags {
    constrain: bool,
    ground: bool,
    speak: bool,
}

impl Default for RunFlags {
    fn default() -> Self {
        RunFlags {
            constrain: true,
            ground: true,
            speak: true,
        }
    }
}

/// An engine run with some of [`RUN_SETTINGS`] off (`constrain = false`
/// measures what grammars change, `ground = false` what grounding does).
struct Flagged {
    engine: Arc<dyn Engine>,
    flags: RunFlags,
}

impl Engine for Flagged {
    fn id(&self) -> &'static str {
        self.engine.id()
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        run.constrain = self.flags.constrain;
        run.ground = self.flags.ground;
        run.speak = self.flags.speak;
        self.engine.run(run, conversation)
    }
}

fn build_engine(id: &str, settings: &Settings) -> Result<Arc<dyn Engine>, String> {
    let engine: EngineId = id.parse().map_err(|e: UnknownEngine| e.to_string())?;
    Ok(match engine {
        EngineId::React => Arc::new(react::React::new(config(id, settings)?)?),
        EngineId::PlanExecute => Arc::new(plan_execute::PlanExecute::new(config(id, settings)?)?),
        EngineId::Hybrid => Arc::new(hybrid::Hybrid::new(config(id, settings)?)?),
        EngineId::None => Arc::new(plain::Plain::new(config(id, settings)?)?),
        EngineId::Reflexion => Arc::new(reflexion::Reflexion::new(config(id, settings)?)?),
        EngineId::Critic => Arc::new(critic::Critic::new(config(id, settings)?)?),
        EngineId::SelfAsk => Arc::new(self_ask::SelfAsk::new(config(id, settings)?)?),
        EngineId::ChainOfThought => Arc::new(chain_of_thought::ChainOfThought::new(config(
            id, settings,
        )?)?),
        EngineId::TreeOfThoughts => Arc::new(tree_of_thoughts::TreeOfThoughts::new(config(
            id, settings,
        )?)?),
        EngineId::NativeTools => Arc::new(native_tools::NativeTools::new(config(id, settings)?)?),
        EngineId::Auto => Arc::new(auto::Auto::new(settings)?),
    })
}

/// The setting keys an engine accepts (empty for an unknown id or an
/// engine without settings).
pub fn accepted_keys(id: &str) -> Vec<String> {
    let Ok(engine) = id.parse::<EngineId>() else {
        return Vec::new();
    };
    let mut keys = match engine {
        EngineId::React => config_keys::<react::ReactConfig>(),
        EngineId::None => config_keys::<plain::PlainConfig>(),
        EngineId::PlanExecute => config_keys::<plan_execute::PlanExecuteConfig>(),
        EngineId::Hybrid => config_keys::<hybrid::HybridConfig>(),
        EngineId::Reflexion => config_keys::<reflexion::ReflexionConfig>(),
        EngineId::Critic => config_keys::<critic::CriticConfig>(),
        EngineId::SelfAsk => config_keys::<self_ask::SelfAskConfig>(),
        EngineId::ChainOfThought => config_keys::<chain_of_thought::ChainOfThoughtConfig>(),
        EngineId::TreeOfThoughts => config_keys::<tree_of_thoughts::TreeOfThoughtsConfig>(),
        EngineId::NativeTools => config_keys::<native_tools::NativeToolsConfig>(),
        EngineId::Auto => Vec::new(),
    };
    keys.extend(RUN_SETTINGS.map(String::from));
    keys
}

/// Reads an engine's typed config from settings. Config types use
/// `#[serde(default, deny_unknown_fields)]`, so a wrong key or value type is
/// one clear error naming the engine.
pub fn config<T: DeserializeOwned>(engine: &str, settings: &Settings) -> Result<T, String> {
    serde_json::from_value(Value::Object(settings.clone())).map_err(|e| {
        let culprit = settings.iter().find(|(key, value)| {
            let alone = Settings::from_iter([((*key).clone(), (*value).clone())]);
            serde_json::from_value::<T>(Value::Object(alone)).is_err()
        });
        match culprit {
            Some((key, value)) => {
                format!("invalid setting for loop `{engine}`: {key} = {value}: {e}")
            }
            None => format!("invalid setting for loop `{engine}`: {e}"),
        }
    })
}

/// The keys a config type accepts (its fields, from its default value).
pub fn config_keys<T: Serialize + Default>() -> Vec<String> {
    match serde_json::to_value(T::default()) {
        Ok(Value::Object(map)) => map.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Parses `key=value`; the value is JSON when it parses as JSON (`3`,
/// `true`, `["a"]`), a string otherwise.
pub fn parse_setting(text: &str) -> Result<(String, Value), String> {
    let (key, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` is not key=value"))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("`{text}` has an empty key"));
    }
    let value = serde_json::from_str(value.trim())
        .unwrap_or_else(|_| Value::String(value.trim().to_string()));
    Ok((key.to_string(), value))
}

/// What an engine's `run` returns.
pub type EngineFuture<'a> = Pin<Box<dyn Future<Output = Result<Finish, Halt>> + Send + 'a>>;

/// An agent loop (seed 003's ExecutionLoop).
pub trait Engine: Send + Sync {
    /// The engine's id (`react`, …).
    fn id(&self) -> &'static str;

    /// Runs the loop on `conversation` (oldest first, the request last).
    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a>;
}

/// How a loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The engine produced its answer.
    Answered,
    /// The engine ran out of iterations (the answer is its best effort).
    MaxTurns,
    /// The token budget, the deadline or the context window ran out.
    BudgetExhausted,
    /// The caller cancelled.
    Cancelled,
    /// The loop could not make progress (e.g. the same tool call repeated).
    Blocked,
    /// The brain failed.
    Error,
}

impl Termination {
    /// The name used in JSON and on the bus.
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Answered => "answered",
            Termination::MaxTurns => "max_turns",
            Termination::BudgetExhausted => "budget_exhausted",
            Termination::Cancelled => "cancelled",
            Termination::Blocked => "blocked",
            Termination::Error => "error",
        }
    }
}

/// An engine's result: the answer and how it was reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    /// What to tell the user.
    pub answer: String,
    /// `Answered`, or how the engine gave up (`MaxTurns`, `Blocked`).
    pub termination: Termination,
}

impl Finish {
    /// A normal answer.
    pub fn answered(answer: impl Into<String>) -> Self {
        Finish {
            answer: answer.into(),
            termination: Termination::Answered,
        }
    }
}

/// Why a loop stopped early: cancelled, out of budget, or the brain failed.
/// Engines propagate it with `?`.
#[derive(Debug, Clone, PartialEq)]
pub struct Halt {
    /// `Cancelled`, `BudgetExhausted`, `MaxTurns` or `Error`.
    pub termination: Termination,
    /// What happened, for the user.
    pub reason: String,
}

impl Halt {
    fn new(termination: Termination, reason: impl Into<String>) -> Self {
        Halt {
            termination,
            reason: reason.into(),
        }
    }
}

/// Everything one request needs.
pub struct LoopRequest {
    /// The engine to run.
    pub engine: Arc<dyn Engine>,
    /// The conversation, the request last.
    pub conversation: Vec<Message>,
    /// The model.
    pub brain: Arc<dyn Brain>,
    /// The tools.
    pub tools: Arc<Toolset>,
    /// Limits.
    pub budget: Budget,
    /// Sampling options for every LLM call.
    pub options: GenerateOptions,
    /// Cancels the run between any two tokens.
    pub cancel: CancellationToken,
    /// Where events go while it runs.
    pub events: Option<UnboundedSender<LoopEvent>>,
    /// The session it belongs to: its LLM calls share the session's prefix cache.
    pub session: Option<String>,
    /// Started before the request is certain: no tool runs until released.
    pub hold: Option<hold::Hold>,
}

/// How one request ended.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopOutcome {
    /// The engine that actually ran (what `auto` chose).
    pub engine: String,
    /// The answer (empty when the run stopped before having one).
    pub answer: String,
    /// How it ended.
    pub termination: Termination,
    /// What went wrong, when it did not end with an answer.
    pub error: Option<String>,
    /// What it cost.
    pub stats: LoopStats,
    /// Calls of the client's own tools that the model made, for the client
    /// to run (a [`client_turn`] run); empty otherwise.
    pub tool_calls: Vec<parse::ToolCall>,
}

/// Runs a request to its end. Always returns an outcome; the last event sent
/// is [`LoopEvent::Final`].
///
/// A ReAct loop on the scripted brain: its first reply calls the `math`
/// toolbox's calculator, its second answers with what the tool returned.
///
/// ```
/// use loopd_brain::{GenerateOptions, Message, ScriptedBrain};
/// use loopd_engine::{Budget, LoopRequest, Settings, Termination};
/// use loopd_tools::{ToolConfig, Toolset};
/// use std::sync::Arc;
/// use tokio_util::sync::CancellationToken;
///
/// let brain = ScriptedBrain::new([
///     "Thought: I multiply.\nAction: calculate\nAction Input: {\"expression\": \"17 * 23\"}",
///     "Thought: The tool said 391.\nFINAL_ANSWER: 17 times 23 is 391.",
/// ]);
/// let tools = Toolset::named(&["math".to_string()], &ToolConfig::default()).unwrap();
/// let request = LoopRequest {
///     engine: loopd_engine::build("react", &Settings::new()).unwrap(),
///     conversation: vec![Message::user("What is 17 times 23?")],
///     brain: Arc::new(brain),
///     tools: Arc::new(tools),
///     budget: Budget::default(),
///     options: GenerateOptions::default(),
///     cancel: CancellationToken::new(),
///     events: None,
///     session: None,
///     hold: None,
/// };
/// let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// let outcome = runtime.block_on(loopd_engine::run_loop(request));
/// assert_eq!(outcome.termination, Termination::Answered);
/// assert_eq!(outcome.answer, "17 times 23 is 391.");
/// assert_eq!(outcome.stats.tool_calls[0].name, "calculate");
/// assert!(outcome.stats.tool_calls[0].result.contains("391"));
/// ```
pub async fn run_loop(request: LoopRequest) -> LoopOutcome {
    let mut run = Run::new(
        request.brain,
        request.tools,
        request.budget,
        request.cancel,
        request.options,
        request.events,
    );
    run.engine = request.engine.id().to_string();
    run.session = request.session;
    run.hold = request.hold;
    let conversation = as_read(request.conversation);
    let result = request.engine.run(&mut run, &conversation).await;
    let (answer, termination, error) = match result {
        Ok(finish) if run.speak => (
            speakable::rewrite(&speakable::without_echo(
                finish.answer.trim(),
                question(&conversation),
            ))
            .trim()
            .to_string(),
            finish.termination,
            None,
        ),
        Ok(finish) => (finish.answer.trim().to_string(), finish.termination, None),
        Err(halt) => (String::new(), halt.termination, Some(halt.reason)),
    };
    run.stats.wall_ms = ms(run.started.elapsed());
    run.emit(LoopEvent::Final {
        answer: answer.clone(),
        termination: termination.as_str().to_string(),
    });
    LoopOutcome {
        engine: run.engine,
        answer,
        termination,
        error,
        stats: run.stats,
        tool_calls: run.handed_back,
    }
}

/// The conversation with `instructions` added to its system message (or as
/// a new first system message), so a persona's prompt stays first.
pub fn with_system(conversation: &[Message], instructions: &str) -> Vec<Message> {
    let mut messages = conversation.to_vec();
    match messages.first_mut() {
        Some(first) if first.role == Role::System => {
            first.content = format!("{}\n\n{}", first.content.trim_end(), instructions);
        }
        _ => messages.insert(0, Message::system(instructions)),
    }
    messages
}

/// The conversation as the engines read it: in its last user message, a
/// price read out in words with no word between its parts (`eighty nine
/// ninety nine a month`) is written in digits, and an amount signed by
/// letters (`R3,795`) as the amount and its currency's name (`3,795
/// rand`), so that the model and the tools both take it as one amount.
fn as_read(mut conversation: Vec<Message>) -> Vec<Message> {
    if let Some(last) = conversation.iter_mut().rev().find(|m| m.role == Role::User) {
        let named = loopd_tools::numbers::letter_signs_named(&last.content);
        last.content = loopd_tools::numbers::prices_in_digits(&named);
    }
    conversation
}

/// The request: the last user message of the conversation.
pub fn question(conversation: &[Message]) -> &str {
    conversation
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
        .unwrap_or("")
}

/// Fills `{name}` placeholders of a prompt text.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{name}}}"), value);
    }
    text
}

/// The tools as the prompts list them, one per line: the call shape and
/// the description (`- calculate {"expression": string}: Computes …`).
/// Full JSON schemas would cost a tiny model hundreds of prompt tokens for
/// no better calls; arguments are still validated against them.
pub fn tool_list(tools: &Toolset) -> String {
    tools
        .specs()
        .iter()
        .map(|spec| format!("- {}: {}", spec.signature(), spec.description))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_price_read_out_is_read_as_one_amount() {
        let conversation = as_read(vec![
            Message::user("what is sixty four fifty plus ten"),
            Message::assistant("It's 74.50."),
            Message::user("okay our internet is eighty nine ninety nine a month split three ways"),
        ]);
        assert_eq!(conversation[0].content, "what is sixty four fifty plus ten");
        assert_eq!(
            question(&conversation),
            "okay our internet is 89.99 a month split three ways"
        );
        let asked = as_read(vec![Message::user("What is  nineteen  fifty?\n")]);
        assert_eq!(question(&asked), "What is  nineteen  fifty?\n");
    }
}

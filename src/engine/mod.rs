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

pub mod events;
pub mod parse;

pub mod auto;
pub mod chain_of_thought;
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

use crate::brain::{
    Brain, ChatRequest, Completion, EndReason, GenerateOptions, GenerationEvent, Message, Role,
};
use crate::tools::{ToolError, Toolset};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Engine ids, as used on the CLI, in personas and on the bus.
pub const ENGINES: &[&str] = &[
    "react",
    "plan-execute",
    "reflexion",
    "self-ask",
    "chain-of-thought",
    "critic",
    "tree-of-thoughts",
    "hybrid",
    "auto",
    "native-tools",
    "none",
];

/// Engine configuration as given (`--set key=value`, persona TOML): each
/// engine reads the keys it knows into its typed config and rejects others.
pub type Settings = serde_json::Map<String, Value>;

/// Builds an engine by id with its settings.
pub fn build(id: &str, settings: &Settings) -> Result<Arc<dyn Engine>, String> {
    Ok(match id {
        "react" => Arc::new(react::React::new(config(id, settings)?)?),
        "plan-execute" => Arc::new(plan_execute::PlanExecute::new(config(id, settings)?)?),
        "hybrid" => Arc::new(hybrid::Hybrid::new(config(id, settings)?)?),
        "none" => Arc::new(plain::Plain::new(config(id, settings)?)?),
        "reflexion" => Arc::new(reflexion::Reflexion::new(config(id, settings)?)?),
        "critic" => Arc::new(critic::Critic::new(config(id, settings)?)?),
        "self-ask" => Arc::new(self_ask::SelfAsk::new(config(id, settings)?)?),
        "chain-of-thought" => Arc::new(chain_of_thought::ChainOfThought::new(config(
            id, settings,
        )?)?),
        "tree-of-thoughts" => Arc::new(tree_of_thoughts::TreeOfThoughts::new(config(
            id, settings,
        )?)?),
        "native-tools" => Arc::new(native_tools::NativeTools::new(config(id, settings)?)?),
        "auto" => Arc::new(auto::Auto::new(settings)?),
        _ => {
            return Err(format!(
                "unknown loop `{id}` (available: {})",
                ENGINES.join(", ")
            ))
        }
    })
}

/// The setting keys an engine accepts (empty for an unknown id or an
/// engine without settings).
pub fn accepted_keys(id: &str) -> Vec<String> {
    match id {
        "react" => config_keys::<react::ReactConfig>(),
        "none" => config_keys::<plain::PlainConfig>(),
        "plan-execute" => config_keys::<plan_execute::PlanExecuteConfig>(),
        "hybrid" => config_keys::<hybrid::HybridConfig>(),
        "reflexion" => config_keys::<reflexion::ReflexionConfig>(),
        "critic" => config_keys::<critic::CriticConfig>(),
        "self-ask" => config_keys::<self_ask::SelfAskConfig>(),
        "chain-of-thought" => config_keys::<chain_of_thought::ChainOfThoughtConfig>(),
        "tree-of-thoughts" => config_keys::<tree_of_thoughts::TreeOfThoughtsConfig>(),
        "native-tools" => config_keys::<native_tools::NativeToolsConfig>(),
        _ => Vec::new(),
    }
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

/// Limits on one run, whatever the engine.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    /// Most turns (loop iterations counted by the engines).
    pub max_turns: Option<usize>,
    /// Most tokens, prompt plus completion, over all LLM calls.
    pub max_total_tokens: Option<usize>,
    /// When to stop, wherever the loop is.
    pub deadline: Option<Instant>,
}

/// Where the text of an LLM call goes as it streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// All of it is reasoning.
    Thought,
    /// All of it is the answer.
    Answer,
    /// Reasoning until one of these markers (any case), the answer after it.
    AnswerAfter(&'static [&'static str]),
    /// The answer, unless the text starts with one of these (then reasoning:
    /// a tool call, not words to speak).
    AnswerUnlessStarts(&'static [&'static str]),
}

/// Per-call settings that differ from the run's sampling options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallOptions {
    /// Stop strings.
    pub stop: Vec<String>,
    /// Most tokens for this call (default: the run's).
    pub max_tokens: Option<usize>,
    /// Tool definitions for the chat template (native tool calling).
    pub tools: Vec<Value>,
    /// Text the reply starts with, written for the model (`Thought:`); it
    /// is part of the returned text and routed like generated text.
    pub prefix: &'static str,
    /// Sampling temperature for this call (default: the run's).
    pub temperature: Option<f32>,
}

/// One LLM call, for the stats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    /// What the call was for (`react`, `planner`, `evaluator`, …).
    pub purpose: String,
    /// Tokens in the rendered prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens actually computed.
    pub prefill_tokens: usize,
    /// Prompt tokens reused from the KV cache.
    pub cached_tokens: usize,
    /// Tokens generated.
    pub completion_tokens: usize,
    /// Time to first token of this call.
    pub ttft_ms: f64,
    /// Prefill time.
    pub prefill_ms: f64,
    /// Decode time.
    pub decode_ms: f64,
    /// Why generation ended.
    pub end: String,
}

/// One tool call, for the stats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallRecord {
    /// Tool name.
    pub name: String,
    /// Arguments as given.
    pub arguments: Value,
    /// What the model was shown.
    pub result: String,
    /// Whether it failed.
    pub is_error: bool,
    /// How long it ran.
    pub duration_ms: f64,
}

/// What a run cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoopStats {
    /// Loop iterations (as counted by the engines).
    pub turns: usize,
    /// Every LLM call.
    pub calls: Vec<CallRecord>,
    /// Every tool call.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model outputs that matched no protocol.
    pub format_errors: usize,
    /// From the start of the run to the first generated token.
    pub ttft_ms: Option<f64>,
    /// From the start of the run to the first token on the answer channel.
    pub first_answer_token_ms: Option<f64>,
    /// Whole run.
    pub wall_ms: f64,
}

impl LoopStats {
    /// Number of LLM calls.
    pub fn llm_calls(&self) -> usize {
        self.calls.len()
    }

    /// Prompt tokens sent, over all calls.
    pub fn prompt_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.prompt_tokens).sum()
    }

    /// Prompt tokens computed, over all calls.
    pub fn prefill_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.prefill_tokens).sum()
    }

    /// Prompt tokens reused from the KV cache, over all calls.
    pub fn cached_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.cached_tokens).sum()
    }

    /// Tokens generated, over all calls.
    pub fn completion_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.completion_tokens).sum()
    }

    /// Time spent in prefill, over all calls.
    pub fn prefill_ms(&self) -> f64 {
        self.calls.iter().fold(0.0, |sum, c| sum + c.prefill_ms)
    }

    /// Time spent decoding, over all calls.
    pub fn decode_ms(&self) -> f64 {
        self.calls.iter().fold(0.0, |sum, c| sum + c.decode_ms)
    }

    /// Time spent in tools.
    pub fn tool_ms(&self) -> f64 {
        self.tool_calls
            .iter()
            .fold(0.0, |sum, c| sum + c.duration_ms)
    }

    /// The stats object of the JSON contract (DESIGN.md, CLI), plus detail.
    pub fn to_json(&self) -> Value {
        let per_second = |tokens: usize, ms: f64| {
            if tokens == 0 || ms <= 0.0 {
                0.0
            } else {
                round1(tokens as f64 * 1000.0 / ms)
            }
        };
        let decoded: usize = self
            .calls
            .iter()
            .map(|c| c.completion_tokens.saturating_sub(1))
            .sum();
        serde_json::json!({
            "turns": self.turns,
            "llm_calls": self.llm_calls(),
            "tool_calls": self.tool_calls.len(),
            "prompt_tokens": self.prompt_tokens(),
            "prefill_tokens": self.prefill_tokens(),
            "cached_tokens": self.cached_tokens(),
            "completion_tokens": self.completion_tokens(),
            "format_errors": self.format_errors,
            "ttft_ms": self.ttft_ms.map(round1),
            "first_answer_token_ms": self.first_answer_token_ms.map(round1),
            "prefill_tok_s": per_second(self.prefill_tokens(), self.prefill_ms()),
            "decode_tok_s": per_second(decoded, self.decode_ms()),
            "prefill_ms": round1(self.prefill_ms()),
            "decode_ms": round1(self.decode_ms()),
            "tool_ms": round1(self.tool_ms()),
            "wall_ms": round1(self.wall_ms),
            "calls": self.calls,
            "tools": self.tool_calls,
        })
    }
}

/// Rounds to one decimal, for readable JSON.
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// What a tool call showed the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// The result as JSON text, or the error as `Error: …`.
    pub text: String,
    /// Whether the call failed.
    pub is_error: bool,
}

/// The state of one request while an engine runs it: brain, tools, limits,
/// the event stream and the stats.
pub struct Run {
    brain: Arc<dyn Brain>,
    tools: Arc<Toolset>,
    budget: Budget,
    cancel: CancellationToken,
    events: Option<UnboundedSender<LoopEvent>>,
    options: GenerateOptions,
    speaking: bool,
    engine: String,
    started: Instant,
    stats: LoopStats,
}

impl Run {
    /// A run of one request.
    pub fn new(
        brain: Arc<dyn Brain>,
        tools: Arc<Toolset>,
        budget: Budget,
        cancel: CancellationToken,
        options: GenerateOptions,
        events: Option<UnboundedSender<LoopEvent>>,
    ) -> Self {
        Run {
            brain,
            tools,
            budget,
            cancel,
            events,
            options,
            speaking: true,
            engine: String::new(),
            started: Instant::now(),
            stats: LoopStats::default(),
        }
    }

    /// The tools of this run.
    pub fn tools(&self) -> &Toolset {
        &self.tools
    }

    /// Whether the model's chat template renders tool definitions.
    pub fn template_supports_tools(&self) -> bool {
        self.brain.info().template_supports_tools
    }

    /// The stats so far.
    pub fn stats(&self) -> &LoopStats {
        &self.stats
    }

    /// The id of the engine running the request (set by [`Run::chose`]).
    pub fn engine(&self) -> &str {
        &self.engine
    }

    /// Records which engine actually runs the request and why (`auto`, fallbacks).
    pub fn chose(&mut self, engine: &str, reason: &str) {
        self.engine = engine.to_string();
        self.emit(LoopEvent::EngineChosen {
            engine: engine.to_string(),
            reason: reason.to_string(),
        });
    }

    /// Whether answer text goes to the answer channel. An engine that runs
    /// another as a sub-loop turns this off while the result is not final
    /// (Reflexion before evaluation), so only what will be spoken is spoken.
    pub fn set_speaking(&mut self, speaking: bool) -> bool {
        std::mem::replace(&mut self.speaking, speaking)
    }

    /// Sends an event to whoever listens.
    pub fn emit(&mut self, event: LoopEvent) {
        if let LoopEvent::AnswerToken { text } = &event {
            if !text.is_empty() && self.stats.first_answer_token_ms.is_none() {
                self.stats.first_answer_token_ms = Some(ms(self.started.elapsed()));
            }
        }
        if let Some(events) = &self.events {
            let _ = events.send(event);
        }
    }

    /// Speaks a whole answer at once (one that was not streamed live).
    pub fn say(&mut self, text: &str) {
        self.answer_text(text.to_string());
    }

    fn answer_text(&mut self, text: String) {
        if text.is_empty() {
            return;
        }
        let event = if self.speaking {
            LoopEvent::AnswerToken { text }
        } else {
            LoopEvent::ThoughtToken { text }
        };
        self.emit(event);
    }

    fn thought_text(&mut self, text: String) {
        if !text.is_empty() {
            self.emit(LoopEvent::ThoughtToken { text });
        }
    }

    /// Counts one model output that matched no protocol.
    pub fn format_error(&mut self, detail: impl Into<String>) {
        self.stats.format_errors += 1;
        self.emit(LoopEvent::FormatError {
            detail: detail.into(),
        });
    }

    /// Starts a loop iteration; stops the run when the budget's turns are spent.
    pub fn turn(&mut self) -> Result<(), Halt> {
        self.check()?;
        if let Some(max) = self.budget.max_turns {
            if self.stats.turns >= max {
                return Err(Halt::new(
                    Termination::MaxTurns,
                    format!("the budget of {max} turns is spent"),
                ));
            }
        }
        self.stats.turns += 1;
        Ok(())
    }

    /// Fails when the run is cancelled or out of budget.
    pub fn check(&self) -> Result<(), Halt> {
        if self.cancel.is_cancelled() {
            return Err(Halt::new(Termination::Cancelled, "cancelled"));
        }
        if let Some(deadline) = self.budget.deadline {
            if Instant::now() >= deadline {
                return Err(Halt::new(
                    Termination::BudgetExhausted,
                    "the deadline has passed",
                ));
            }
        }
        if let Some(max) = self.budget.max_total_tokens {
            let used = self.stats.prompt_tokens() + self.stats.completion_tokens();
            if used >= max {
                return Err(Halt::new(
                    Termination::BudgetExhausted,
                    format!("the budget of {max} tokens is spent ({used} used)"),
                ));
            }
        }
        Ok(())
    }

    /// One LLM call: streams its text out along `route`, records its cost,
    /// and returns the completion. Stops with a [`Halt`] when the run is
    /// cancelled, out of budget, or the brain fails.
    pub async fn generate(
        &mut self,
        purpose: &str,
        messages: Vec<Message>,
        call: CallOptions,
        route: Route,
    ) -> Result<Completion, Halt> {
        self.check()?;
        let mut options = self.options.clone();
        options.stop.extend(call.stop);
        if let Some(max_tokens) = call.max_tokens {
            options.max_tokens = max_tokens;
        }
        if let Some(temperature) = call.temperature {
            options.temperature = temperature;
        }
        let request = ChatRequest {
            messages,
            tools: call.tools,
            options,
            assistant_prefix: call.prefix.to_string(),
        };
        let call_cancel = self.cancel.child_token();
        let mut generation = self.brain.generate(request, call_cancel.clone());
        let mut router = parse::Router::new(route);
        let (thought, answer) = router.push(call.prefix);
        self.thought_text(thought);
        self.answer_text(answer);
        let deadline = self.budget.deadline;
        let mut past_deadline = false;
        let completion = loop {
            let event = match deadline {
                Some(deadline) if !past_deadline => {
                    let sleep = tokio::time::sleep_until(deadline.into());
                    tokio::select! {
                        event = generation.next() => event,
                        _ = sleep => {
                            past_deadline = true;
                            call_cancel.cancel();
                            continue;
                        }
                    }
                }
                _ => generation.next().await,
            };
            match event {
                Some(GenerationEvent::Piece(piece)) => {
                    if self.stats.ttft_ms.is_none() {
                        self.stats.ttft_ms = Some(ms(self.started.elapsed()));
                    }
                    let (thought, answer) = router.push(&piece.text);
                    self.thought_text(thought);
                    self.answer_text(answer);
                }
                Some(GenerationEvent::Finished(done)) => break done,
                Some(GenerationEvent::Failed(e)) => {
                    return Err(Halt::new(Termination::Error, e.to_string()))
                }
                None => return Err(Halt::new(Termination::Error, "the model worker stopped")),
            }
        };
        let (thought, answer) = router.finish();
        self.thought_text(thought);
        self.answer_text(answer);
        let mut completion = completion;
        completion.text.insert_str(0, call.prefix);
        self.record(purpose, &completion);
        match completion.end {
            EndReason::Cancelled if past_deadline => Err(Halt::new(
                Termination::BudgetExhausted,
                "the deadline has passed",
            )),
            EndReason::Cancelled => Err(Halt::new(Termination::Cancelled, "cancelled")),
            EndReason::ContextFull => Err(Halt::new(
                Termination::BudgetExhausted,
                "the context window is full",
            )),
            _ => Ok(completion),
        }
    }

    fn record(&mut self, purpose: &str, completion: &Completion) {
        let usage = &completion.usage;
        let end = match &completion.end {
            EndReason::EndOfTurn => "end_of_turn".to_string(),
            EndReason::Stop(s) => format!("stop:{s}"),
            EndReason::MaxTokens => "max_tokens".to_string(),
            EndReason::ContextFull => "context_full".to_string(),
            EndReason::Cancelled => "cancelled".to_string(),
        };
        self.stats.calls.push(CallRecord {
            purpose: purpose.to_string(),
            prompt_tokens: usage.prompt_tokens,
            prefill_tokens: usage.prefill_tokens,
            cached_tokens: usage.cached_tokens(),
            completion_tokens: usage.completion_tokens,
            ttft_ms: round1(ms(usage.time_to_first_token)),
            prefill_ms: round1(ms(usage.prefill_time)),
            decode_ms: round1(ms(usage.decode_time)),
            end,
        });
    }

    /// Calls a tool: validates the arguments, runs it off the async threads,
    /// records it, and returns what the model should see. Unknown tools, bad
    /// arguments and tool failures come back as `Error: …` observations.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Observed, Halt> {
        self.check()?;
        self.emit(LoopEvent::ToolCall {
            name: name.to_string(),
            arguments: arguments.clone(),
        });
        let started = Instant::now();
        let result = match self.tools.prepare(name, &arguments) {
            Ok(tool) => {
                let args = arguments.clone();
                match tokio::task::spawn_blocking(move || tool.call(args)).await {
                    Ok(result) => result,
                    Err(e) => Err(ToolError::Failed(format!("the tool crashed: {e}"))),
                }
            }
            Err(e) => Err(e),
        };
        let observed = match result {
            Ok(value) => Observed {
                text: serde_json::to_string(&value).unwrap_or_else(|e| format!("Error: {e}")),
                is_error: false,
            },
            Err(e) => Observed {
                text: format!("Error: {e}"),
                is_error: true,
            },
        };
        self.stats.tool_calls.push(ToolCallRecord {
            name: name.to_string(),
            arguments,
            result: observed.text.clone(),
            is_error: observed.is_error,
            duration_ms: round1(ms(started.elapsed())),
        });
        self.emit(LoopEvent::Observation {
            name: name.to_string(),
            result: observed.text.clone(),
            is_error: observed.is_error,
        });
        Ok(observed)
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
}

/// Runs a request to its end. Always returns an outcome; the last event sent
/// is [`LoopEvent::Final`].
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
    let result = request.engine.run(&mut run, &request.conversation).await;
    let (answer, termination, error) = match result {
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

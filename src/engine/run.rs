//! The state of one request while an engine runs it: every LLM call goes
//! through [`Run::generate`] and every tool call through [`Run::call_tool`],
//! so budgets, cancellation, streaming and accounting live here.

use super::route::{Route, Router};
use super::stats::{ms, round1, CallRecord, LoopStats, ToolCallRecord};
use super::{Halt, LoopEvent, Termination};
use crate::brain::{
    Brain, ChatRequest, Completion, EndReason, GenerateOptions, GenerationEvent, Grammar, Message,
};
use crate::tools::{ToolError, Toolset};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

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
    /// The grammar of the reply's protocol (after `prefix`); sent to the
    /// brain unless the run is unconstrained.
    pub grammar: Option<Grammar>,
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
    spoke: bool,
    pub(super) constrain: bool,
    pub(super) engine: String,
    pub(super) session: Option<String>,
    call_answered_at: Option<Instant>,
    pub(super) started: Instant,
    pub(super) stats: LoopStats,
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
            spoke: false,
            constrain: true,
            engine: String::new(),
            session: None,
            call_answered_at: None,
            started: Instant::now(),
            stats: LoopStats::default(),
        }
    }

    /// The tools of this run.
    pub fn tools(&self) -> &Toolset {
        &self.tools
    }

    /// Whether LLM calls send their protocol's grammar to the brain: the
    /// `constrain` setting (on by default), when the brain can follow one.
    pub fn constrained(&self) -> bool {
        self.constrain && self.brain.info().unconstrained.is_none()
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

    /// Whether the last LLM call put text on the answer channel (an engine
    /// that accepts text its route held back speaks it with [`Run::say`]).
    pub fn last_call_spoke(&self) -> bool {
        self.spoke
    }

    /// Sends an event to whoever listens.
    pub fn emit(&mut self, event: LoopEvent) {
        if let LoopEvent::AnswerToken { text } = &event {
            if !text.is_empty() && self.stats.first_answer_token_ms.is_none() {
                self.stats.first_answer_token_ms = Some(ms(self.started.elapsed()));
            }
            if !text.is_empty() && self.call_answered_at.is_none() {
                self.call_answered_at = Some(Instant::now());
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
            self.spoke = true;
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
        self.spoke = false;
        self.call_answered_at = None;
        let call_started = Instant::now();
        let mut options = self.options.clone();
        options.stop.extend(call.stop);
        if let Some(max_tokens) = call.max_tokens {
            options.max_tokens = max_tokens;
        }
        if let Some(temperature) = call.temperature {
            options.temperature = temperature;
        }
        let call_had_grammar = call.grammar.is_some();
        let request = ChatRequest {
            messages,
            tools: call.tools,
            options,
            assistant_prefix: call.prefix.to_string(),
            session: self.session.clone(),
            grammar: call.grammar.filter(|_| self.constrained()),
        };
        let constrained = request.grammar.is_some();
        if call_had_grammar && self.constrain && !constrained {
            self.stats.unconstrained = self.brain.info().unconstrained.clone();
        }
        let call_cancel = self.cancel.child_token();
        let mut generation = self.brain.generate(request, call_cancel.clone());
        let mut router = Router::new(route);
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
        self.record(purpose, &completion, call_started, constrained);
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

    fn record(
        &mut self,
        purpose: &str,
        completion: &Completion,
        started: Instant,
        constrained: bool,
    ) {
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
            turn: self.stats.turns,
            prompt_tokens: usage.prompt_tokens,
            prefill_tokens: usage.prefill_tokens,
            cached_tokens: usage.cached_tokens(),
            completion_tokens: usage.completion_tokens,
            ttft_ms: round1(ms(usage.time_to_first_token)),
            first_answer_token_ms: self
                .call_answered_at
                .map(|at| round1(ms(at.duration_since(started)))),
            prefill_ms: round1(ms(usage.prefill_time)),
            decode_ms: round1(ms(usage.decode_time)),
            prefill_tok_s: round1(usage.prefill_tok_s()),
            decode_tok_s: round1(usage.decode_tok_s()),
            wall_ms: round1(ms(started.elapsed())),
            end,
            constrained,
        });
    }

    /// Calls a tool: validates the arguments, runs it off the async threads,
    /// records it, and returns what the model should see. Cancellation and
    /// the deadline interrupt a slow tool (the call is recorded as failed). Unknown tools, bad
    /// arguments and tool failures come back as `Error: …` observations.
    pub async fn call_tool(&mut self, name: &str, arguments: Value) -> Result<Observed, Halt> {
        self.check()?;
        self.emit(LoopEvent::ToolCall {
            name: name.to_string(),
            arguments: arguments.clone(),
        });
        let started = Instant::now();
        let mut interrupted = None;
        let prepared = self.tools.prepare(name, &arguments);
        let invalid = prepared.is_err();
        let result = match prepared {
            Ok(tool) => {
                let args = arguments.clone();
                let task = tokio::task::spawn_blocking(move || tool.call(args));
                let stop = |termination, reason: &str| {
                    (
                        Halt::new(termination, reason),
                        ToolError::Failed(reason.to_string()),
                    )
                };
                let (halt, error) = tokio::select! {
                    biased;
                    joined = task => (None, match joined {
                        Ok(result) => result,
                        Err(e) => Err(ToolError::Failed(format!("the tool crashed: {e}"))),
                    }),
                    _ = self.cancel.cancelled() => {
                        let (halt, error) = stop(Termination::Cancelled, "cancelled");
                        (Some(halt), Err(error))
                    }
                    _ = until(self.budget.deadline) => {
                        let (halt, error) = stop(Termination::BudgetExhausted, "the deadline has passed");
                        (Some(halt), Err(error))
                    }
                };
                interrupted = halt;
                error
            }
            Err(e) => Err(e),
        };
        let observed = match result {
            Ok(value) => Observed {
                text: capped(
                    serde_json::to_string(&value).unwrap_or_else(|e| format!("Error: {e}")),
                ),
                is_error: false,
            },
            Err(e) => Observed {
                text: capped(format!("Error: {e}")),
                is_error: true,
            },
        };
        self.stats.tool_calls.push(ToolCallRecord {
            name: name.to_string(),
            arguments,
            result: observed.text.clone(),
            is_error: observed.is_error,
            invalid,
            duration_ms: round1(ms(started.elapsed())),
        });
        self.emit(LoopEvent::Observation {
            name: name.to_string(),
            result: observed.text.clone(),
            is_error: observed.is_error,
        });
        match interrupted {
            Some(halt) => Err(halt),
            None => Ok(observed),
        }
    }
}

/// Most characters of a tool result the model sees; a longer one is cut
/// there, with a marker saying so.
pub const MAX_OBSERVATION_CHARS: usize = 4000;

/// `text`, cut at [`MAX_OBSERVATION_CHARS`] with a marker if it is longer.
fn capped(text: String) -> String {
    let total = text.chars().count();
    if total <= MAX_OBSERVATION_CHARS {
        return text;
    }
    let mut kept: String = text.chars().take(MAX_OBSERVATION_CHARS).collect();
    kept.push_str(&format!(
        " … [cut: the result has {total} characters, only the first {MAX_OBSERVATION_CHARS} are shown]"
    ));
    kept
}

/// Waits until the deadline, or forever without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tool_results_are_cut_with_a_marker() {
        assert_eq!(capped("short".into()), "short");
        let long = "é".repeat(MAX_OBSERVATION_CHARS + 500);
        let cut = capped(long);
        assert!(cut.starts_with(&"é".repeat(MAX_OBSERVATION_CHARS)));
        assert!(cut.ends_with(&format!(
            "[cut: the result has {} characters, only the first {MAX_OBSERVATION_CHARS} are shown]",
            MAX_OBSERVATION_CHARS + 500
        )));
    }
}

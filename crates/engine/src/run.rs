//! The state of one request while an engine runs it: every LLM call goes
//! through [`Run::generate`] and every tool call through [`Run::call_tool`],
//! so budgets, cancellation, streaming and accounting live here.

use super::grounding::{Gate, Sources};
use super::route::{Route, Router};
use super::speakable::{self, Speaker};
use super::stats::{ms, round1, CallRecord, LoopStats, ToolCallRecord};
use super::{Halt, LoopEvent, Termination};
use loopd_brain::{
    Brain, ChatRequest, Completion, EndReason, GenerateOptions, GenerationEvent, Grammar, Message,
};
use loopd_tools::{ToolError, Toolset};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// What the model is told when a tool call's arguments hold numbers from
/// nowhere (the call is not made).
const GUESSED_INPUT: &str = include_str!("prompts/grounding_input.txt");
const UNASKED_CHANGE: &str = include_str!("prompts/unasked_change.txt");

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
    pub prefix: Cow<'static, str>,
    /// Whether an earlier call already streamed `prefix` (a reply carried
    /// on a line at a time): then it is not streamed again.
    pub prefix_streamed: bool,
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

/// A tool's answer to the question as the user asked it
/// ([`Run::read_first`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRead {
    /// The tool that read it.
    pub tool: String,
    /// The question as the tool read it (a follow-up rewritten).
    pub question: String,
    /// The arguments it was called with (the question).
    pub arguments: Value,
    /// What it answered.
    pub observed: Observed,
}

/// What reading the question first found, before an engine's own method.
#[derive(Debug, Clone, PartialEq)]
pub enum FirstRead {
    /// A tool read the question and answered it in words, said already:
    /// the run's answer.
    Answered(String),
    /// Tools read the question (one for each question of a compound one);
    /// their results are for the model to put into words.
    Read(Vec<ToolRead>),
    /// No tool can help: every tool reads questions in words, none read
    /// this one and it holds no number; it is answered from knowledge.
    NoToolHelps,
    /// The engine works it out its own way (it may still have been routed
    /// to the knowledge model).
    Open,
}

/// The sentence a question-reading tool answered with: the string
/// `answer` of its result.
fn spoken_answer(observed: &Observed) -> Option<String> {
    if observed.is_error {
        return None;
    }
    let result: Value = serde_json::from_str(&observed.text).ok()?;
    let answer = result.get("answer")?.as_str()?.trim();
    (!answer.is_empty()).then(|| answer.to_string())
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
    pub(super) ground: bool,
    pub(super) speak: bool,
    grounding: Option<Sources>,
    from_knowledge: bool,
    /// The question was read as one of remembered fact (no tool read it,
    /// nothing in it is worked out): [`Run::remembered`].
    asks_a_fact: bool,
    /// The question of fact is the conversation's first, and the numbers
    /// it says (if any) name what it asks about: none is to compute with.
    nothing_to_compute_with: bool,
    /// What [`Run::read_first`] found, kept for engines run inside others.
    first_read: Option<FirstRead>,
    speaker: Speaker,
    gate: Gate,
    pub(super) engine: String,
    pub(super) session: Option<String>,
    /// Tools wait for its release ([`crate::hold`]).
    pub(super) hold: Option<crate::hold::Hold>,
    call_answered_at: Option<Instant>,
    pub(super) started: Instant,
    pub(super) stats: LoopStats,
    /// Calls the model made of tools the client runs itself.
    pub(super) handed_back: Vec<crate::parse::ToolCall>,
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
            ground: true,
            speak: true,
            grounding: None,
            from_knowledge: false,
            asks_a_fact: false,
            nothing_to_compute_with: false,
            first_read: None,
            speaker: Speaker::default(),
            gate: Gate::default(),
            engine: String::new(),
            session: None,
            hold: None,
            call_answered_at: None,
            started: Instant::now(),
            stats: LoopStats::default(),
            handed_back: Vec::new(),
        }
    }

    /// Ends the run with calls for the client to make: they are not run
    /// here, and come back in [`LoopOutcome::tool_calls`](crate::LoopOutcome).
    pub fn hand_back(&mut self, calls: Vec<crate::parse::ToolCall>) {
        self.handed_back = calls;
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
        let text = if self.speak {
            speakable::rewrite(text)
        } else {
            text.to_string()
        };
        self.send_answer(text);
    }

    /// Checks answers' numbers against the conversation and the tools'
    /// results from now on (when the run's `ground` setting allows):
    /// streamed answer text is held back a sentence at a time until its
    /// numbers are grounded, and [`Run::ungrounded`] names the others.
    /// The first call decides: an engine run as another's sub-loop keeps
    /// the sources of the request's own conversation.
    pub fn ground_in(&mut self, conversation: &[Message]) {
        if self.ground && self.grounding.is_none() {
            self.grounding = Some(Sources::of_conversation(conversation));
        }
    }

    /// Sends this run's calls from now on to the brain's knowledge model
    /// ([`loopd_brain::KnowledgeBrain`]), if it has one: for work that
    /// needs the larger model's reasoning.
    pub fn use_knowledge_model(&mut self) {
        self.from_knowledge = true;
    }

    /// Counts an answer sent back for its ungrounded numbers.
    pub fn ungrounded_answer(&mut self, numbers: &[String]) {
        self.stats.ungrounded_answers += 1;
        self.emit(LoopEvent::Ungrounded {
            numbers: numbers.to_vec(),
        });
    }

    /// Whether the `ungrounded` numbers of `answer` are remembered facts
    /// that no tool here could give ("There are 7 continents"): the
    /// question asks nothing worked out, every tool reads questions in
    /// words and none read this one, the conversation gives no number to
    /// compute with, no tool has run, no day or month name is among them
    /// and the answer tells no clock time or amount of money. Such an
    /// answer is said at once instead of being sent back to the tools.
    pub fn remembered(&self, answer: &str, ungrounded: &[String]) -> bool {
        let only_numbers = ungrounded
            .iter()
            .all(|n| n.starts_with(|c: char| c.is_ascii_digit() || c == '-'));
        self.asks_a_fact
            && only_numbers
            && !super::fact::tells_time_or_money(answer)
            && self.stats.tool_calls.is_empty()
            && (self.nothing_to_compute_with
                || self
                    .grounding
                    .as_ref()
                    .is_some_and(Sources::gives_no_numbers))
    }

    /// The numbers of `answer` that neither the conversation nor a tool's
    /// result gives (none when grounding is off).
    pub fn ungrounded(&self, answer: &str) -> Vec<String> {
        self.grounding
            .as_ref()
            .map(|sources| sources.ungrounded(answer))
            .unwrap_or_default()
    }

    /// The tool's own sentence when `answer` misquotes only the half of
    /// the day of the time it told ([`Sources::misquoted_time`]).
    pub fn misquoted_time(&self, answer: &str) -> Option<String> {
        self.grounding.as_ref()?.misquoted_time(answer)
    }

    /// The latest tool result's numbers when `answer` has numbers but not
    /// the result's (none when grounding is off); see
    /// [`Sources::leaves_out_result`].
    pub fn leaves_out_result(&self, answer: &str) -> Option<Vec<String>> {
        self.grounding
            .as_ref()
            .and_then(|sources| sources.leaves_out_result(answer))
    }

    /// The latest tool result's numbers as an answer would say them
    /// ([`Sources::latest_result`]; none when grounding is off).
    pub fn latest_result(&self) -> Vec<String> {
        self.grounding
            .as_ref()
            .map(Sources::latest_result)
            .unwrap_or_default()
    }

    /// Delivers the answer the engine settled on: what the gate held back
    /// of it is said now, or the whole of it when the last call did not
    /// speak it.
    pub fn deliver(&mut self, answer: &str) {
        self.release();
        if !self.last_call_spoke() {
            self.say(answer);
        }
    }

    /// The numbers a tool's input may hold, when grounding is on
    /// ([`Sources::allowed_numbers`]).
    pub fn allowed_numbers(&self) -> Option<Vec<String>> {
        self.grounding.as_ref().map(Sources::allowed_numbers)
    }

    /// Whether any tool call failed in this run.
    pub fn a_tool_failed(&self) -> bool {
        self.stats.tool_calls.iter().any(|call| call.is_error)
    }

    /// Whether a tool call on numbers failed in this run: a computation
    /// the answer needed, so a number the model gives after it is invented.
    pub fn computation_failed(&self) -> bool {
        self.stats.tool_calls.iter().any(|call| {
            call.is_error
                && call
                    .arguments
                    .to_string()
                    .bytes()
                    .any(|b| b.is_ascii_digit())
        })
    }

    /// Holds all answer text until the engine delivers its answer, so that
    /// nothing of an answer that [`super::grounding::settle`] then replaces
    /// is spoken.
    pub fn hold_answers(&mut self) {
        self.gate.hold_all();
    }

    /// Says the answer text the last call's gate held back (the engine
    /// accepts it after all).
    pub fn release(&mut self) {
        let held = self.gate.release();
        self.send_answer(held);
    }

    fn answer_text(&mut self, text: String) {
        let text = if self.speak {
            self.speaker.push(&text)
        } else {
            text
        };
        let text = match &self.grounding {
            Some(sources) if self.speaking => self.gate.push(&text, sources),
            _ => text,
        };
        self.send_answer(text);
    }

    /// The end of a call's answer text: what the speaker and the gate held.
    fn answer_end(&mut self) {
        let mut text = self.speaker.finish();
        if let Some(sources) = &self.grounding {
            if self.speaking {
                text = self.gate.push(&text, sources);
                text.push_str(&self.gate.finish(sources));
            }
        }
        self.send_answer(text);
    }

    fn send_answer(&mut self, text: String) {
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
        self.speaker = Speaker::default();
        self.gate.clear();
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
            from_knowledge: self.from_knowledge,
        };
        let constrained = request.grammar.is_some();
        if call_had_grammar && self.constrain && !constrained {
            self.stats.unconstrained = self.brain.info().unconstrained.clone();
        }
        let call_cancel = self.cancel.child_token();
        let mut generation = self.brain.generate(request, call_cancel.clone());
        let mut router = Router::new(route);
        if !call.prefix_streamed {
            let (thought, answer) = router.push(&call.prefix);
            self.thought_text(thought);
            self.answer_text(answer);
        }
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
        self.answer_end();
        let mut completion = completion;
        completion.text.insert_str(0, &call.prefix);
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
            draft_tokens: usage.draft_tokens,
            draft_tokens_taken: usage.draft_tokens_taken,
            wall_ms: round1(ms(started.elapsed())),
            end,
            constrained,
            from_knowledge: self.from_knowledge,
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
        let attempt = self.attempt(name, &arguments).await;
        let observed = self.record_tool(name, arguments, &attempt);
        match attempt.interrupted {
            Some(halt) => Err(halt),
            None => Ok(observed),
        }
    }

    /// Before an engine's own method: offers each question of a compound
    /// one ([`super::compound`]), or else the question (then without what
    /// was said around the request, [`super::heard`], and, for a short
    /// follow-up, the question it continues, [`super::follow_up`]), word
    /// for word to the tools that read questions in words
    /// ([`Run::read_question`]). A tool whose result holds the answer in
    /// words (a string `answer`: the clock, the limits) has answered it,
    /// and the answer is said at once, with no model call, as a voice
    /// assistant's local intents answer before its language model. A
    /// question that none of them reads and that holds no number, or only
    /// one it asks about ([`super::fact`]), is answered from what the
    /// model knows: the run's calls go to the
    /// brain's knowledge model ([`loopd_brain::KnowledgeBrain`]), if it
    /// has one. The question is
    /// read once a run: an engine run inside another (Reflexion's ReAct,
    /// the ReAct that settles an ungrounded answer) finds what the first
    /// reading found.
    pub async fn read_first(&mut self, conversation: &[Message]) -> Result<FirstRead, Halt> {
        if let Some(first) = &self.first_read {
            return Ok(first.clone());
        }
        let first = self.read_first_now(conversation).await?;
        self.first_read = Some(first.clone());
        Ok(first)
    }

    async fn read_first_now(&mut self, conversation: &[Message]) -> Result<FirstRead, Halt> {
        let parts = super::compound::parts(super::question(conversation));
        if parts.len() > 1 {
            let mut reads = Vec::new();
            for part in &parts {
                match self.read_as_asked(part).await? {
                    Some(read) => reads.push(read),
                    None => break,
                }
            }
            if reads.len() == parts.len() {
                return Ok(self.first_of(reads));
            }
        }
        let mut asked = vec![super::question(conversation).trim().to_string()];
        asked.extend(super::heard::request(super::question(conversation)));
        if let Some(sentence) = super::heard::asked_sentence(super::question(conversation)) {
            asked.extend(super::heard::request(&sentence));
            asked.push(sentence);
        }
        let rewritten = super::follow_up::in_context(conversation);
        if let Some(rewritten) = &rewritten {
            if let Some(sources) = self.grounding.as_mut() {
                sources.add(rewritten);
            }
            asked.push(rewritten.clone());
        }
        let plain: Vec<String> = asked
            .iter()
            .filter_map(|question| super::heard::in_plain_words(question))
            .collect();
        asked.extend(plain);
        for question in asked {
            if let Some(read) = self.read_as_asked(&question).await? {
                return Ok(self.first_of(vec![read]));
            }
        }
        let said = rewritten
            .as_deref()
            .unwrap_or_else(|| super::question(conversation));
        let claimless = super::heard::without_a_claim(said);
        let question = claimless.as_deref().unwrap_or(said);
        let request = super::heard::request(question);
        let numbered = super::fact::gives_a_number(request.as_deref().unwrap_or(question));
        let plain = request.as_deref().unwrap_or(question);
        let named = super::fact::asks_about_a_number(question)
            || super::fact::asks_about_a_number(plain)
            || super::fact::asks_a_fact_apart(question);
        if self.tools.is_empty() || (numbered && !named) {
            return Ok(FirstRead::Open);
        }
        self.from_knowledge = true;
        let all_read = self
            .tools
            .specs()
            .iter()
            .all(|spec| spec.question_argument().is_some());
        self.asks_a_fact = all_read
            && super::fact::asks_nothing_worked_out(super::fact::the_question(question), question);
        self.nothing_to_compute_with = conversation
            .iter()
            .filter(|m| m.role == loopd_brain::Role::User)
            .count()
            == 1;
        if self.asks_a_fact {
            self.gate.let_first_clause_out();
        }
        Ok(match all_read {
            true => FirstRead::NoToolHelps,
            false => FirstRead::Open,
        })
    }

    /// [`Run::read_question`] as a [`ToolRead`].
    async fn read_as_asked(&mut self, question: &str) -> Result<Option<ToolRead>, Halt> {
        let read = self.read_question(question).await?;
        Ok(read.map(|(tool, arguments, observed)| ToolRead {
            tool,
            question: question.to_string(),
            arguments,
            observed,
        }))
    }

    /// What the tools' readings of the question (or of each question of a
    /// compound one) come to: the answers said at once when every tool
    /// answered in words, the results for the model otherwise.
    fn first_of(&mut self, reads: Vec<ToolRead>) -> FirstRead {
        let spoken: Option<Vec<String>> = reads
            .iter()
            .map(|read| spoken_answer(&read.observed))
            .collect();
        let Some(answers) = spoken else {
            return FirstRead::Read(reads);
        };
        let answer = match answers.as_slice() {
            [one] => one.clone(),
            many => many
                .iter()
                .map(|a| match a.ends_with(['.', '!', '?']) {
                    true => a.clone(),
                    false => format!("{a}."),
                })
                .collect::<Vec<_>>()
                .join(" "),
        };
        self.deliver(&answer);
        FirstRead::Answered(answer)
    }

    /// Offers the user's `question`, word for word, to each tool that
    /// reads questions in words (an argument marked `x-question`: the
    /// calculator, the clock), in toolset order, and keeps the first answer:
    /// the tool call, its arguments and what the model is shown. Tools that
    /// cannot read it are passed over without a trace.
    pub async fn read_question(
        &mut self,
        question: &str,
    ) -> Result<Option<(String, Value, Observed)>, Halt> {
        let readers: Vec<(String, String)> = self
            .tools
            .specs()
            .iter()
            .filter_map(|spec| {
                let argument = spec.question_argument()?;
                Some((spec.name.clone(), argument.to_string()))
            })
            .collect();
        for (name, argument) in readers {
            self.check()?;
            let arguments = serde_json::json!({ argument: question.trim() });
            let attempt = self.attempt(&name, &arguments).await;
            if let Some(halt) = attempt.interrupted {
                return Err(halt);
            }
            if attempt.result.is_ok() {
                self.emit(LoopEvent::ToolCall {
                    name: name.clone(),
                    arguments: arguments.clone(),
                });
                let observed = self.record_tool(&name, arguments.clone(), &attempt);
                return Ok(Some((name, arguments, observed)));
            }
        }
        Ok(None)
    }

    /// Runs a tool call: its numbers' provenance checked (with grounding
    /// on; for a request in words that would change something, such as a
    /// timer, without the numbers everyone knows, and only when the user's
    /// own words asked for such a change), its arguments validated, the
    /// tool run off the async threads,
    /// cancellation and the deadline interrupting it.
    async fn attempt(&mut self, name: &str, arguments: &Value) -> Attempt {
        let started = Instant::now();
        let prepared = self.tools.prepare(name, arguments);
        let invalid = prepared.is_err();
        let changes_things = prepared
            .as_ref()
            .is_ok_and(|tool| tool.changes_things(arguments));
        let sets_what_was_said = changes_things
            && prepared
                .as_ref()
                .is_ok_and(|tool| tool.spec().question_argument().is_some());
        let guessed = self
            .grounding
            .as_ref()
            .map(|sources| match sets_what_was_said {
                true => sources.ungrounded_change(&arguments.to_string()),
                false => sources.ungrounded_input(&arguments.to_string()),
            })
            .unwrap_or_default();
        let unasked = sets_what_was_said
            && self.grounding.as_ref().is_some_and(|sources| {
                prepared
                    .as_ref()
                    .is_ok_and(|tool| !sources.requests().iter().any(|said| tool.asked_for(said)))
            });
        let prepared = match prepared {
            Ok(_) if unasked => Err(ToolError::Failed(UNASKED_CHANGE.trim_end().to_string())),
            Ok(_) if !guessed.is_empty() => Err(ToolError::Failed(
                super::fill(GUESSED_INPUT, &[("numbers", &guessed.join(", "))])
                    .trim_end()
                    .to_string(),
            )),
            prepared => prepared,
        };
        if let Some(halt) = self.until_released(changes_things).await {
            return Attempt {
                result: Err(ToolError::Failed(halt.reason.clone())),
                invalid,
                interrupted: Some(halt),
                started,
            };
        }
        let mut interrupted = None;
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
        Attempt {
            result,
            invalid,
            interrupted,
            started,
        }
    }

    /// Waits, when the run is held and the tool `changes_things`, until it
    /// is released; the halt when it is cancelled, runs out of time, or is
    /// never released.
    async fn until_released(&mut self, changes_things: bool) -> Option<Halt> {
        let hold = self
            .hold
            .as_mut()
            .filter(|h| changes_things && !h.is_released())?;
        tokio::select! {
            released = hold.released() => match released {
                true => None,
                false => Some(Halt::new(Termination::Cancelled, "the request was withdrawn")),
            },
            _ = self.cancel.cancelled() => Some(Halt::new(Termination::Cancelled, "cancelled")),
            _ = until(self.budget.deadline) => {
                Some(Halt::new(Termination::BudgetExhausted, "the deadline has passed"))
            }
        }
    }

    /// Records a tool call's attempt: the stats, the grounding sources,
    /// the observation event; returns what the model is shown.
    fn record_tool(&mut self, name: &str, arguments: Value, attempt: &Attempt) -> Observed {
        if let (Ok(value), Some(sources)) = (&attempt.result, &mut self.grounding) {
            sources.add_result(&value.to_string());
        }
        let observed = match &attempt.result {
            Ok(value) => Observed {
                text: capped(
                    serde_json::to_string(value).unwrap_or_else(|e| format!("Error: {e}")),
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
            invalid: attempt.invalid,
            duration_ms: round1(ms(attempt.started.elapsed())),
        });
        self.emit(LoopEvent::Observation {
            name: name.to_string(),
            result: observed.text.clone(),
            is_error: observed.is_error,
        });
        observed
    }
}

/// A tool call as run, before it is recorded.
struct Attempt {
    result: Result<Value, ToolError>,
    /// Refused before running for its form (unknown tool, arguments
    /// against the schema); numbers from nowhere are a failed call.
    invalid: bool,
    /// Why the run must stop, when cancellation or the deadline cut it.
    interrupted: Option<Halt>,
    started: Instant,
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

//! The daemon: one queue of requests in front of one brain, shared by every
//! front end.
//!
//! A front end turns what it received into an [`Ask`] and calls
//! [`Daemon::submit`]. It gets a [`Ticket`] at once (or a [`AskError::Busy`]
//! when the queue is full): the ticket streams the loop's events and ends in
//! exactly one [`Reply`]. Requests run one at a time, in order, because the
//! brain has one worker; a request cancelled while it waits never starts.
//! Each session keeps its last few turns ([`Memory`]) so follow-up
//! questions work.

pub mod config;
mod memory;
pub mod notify;
mod prefill;
mod request;

use crate::brain::prefix_cache::SHARED_PREFIX;
use crate::brain::{Brain, BrainInfo, GenerateOptions, Grammar, Message};
use crate::engine::{self, Budget, LoopRequest, Termination};
use crate::persona::{Overrides, Persona, SetupError};
use crate::tools::{ToolConfig, Toolset, TOOLBOXES};
pub use config::Config;
pub use memory::Memory;
pub use prefill::Prefilling;
pub use request::{Answer, Ask, AskError, Caller, ClientTools, Limits, Ran, Reply, Ticket};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Session id used when a request names none.
pub const DEFAULT_SESSION: &str = "default";

/// Longest a held run's answer waits to be released before it is dropped
/// ([`Ask::held`]): it holds the model's queue meanwhile.
const HELD_LIMIT: Duration = Duration::from_secs(5);

/// What the daemon is doing, as the D-Bus `State` property shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Loading the model.
    Loading,
    /// Computing each persona's first prompt into the prefix cache.
    Warming,
    /// Waiting for requests.
    Ready,
    /// Running a request.
    Busy,
    /// Shutting down: new requests are refused.
    Stopping,
}

impl State {
    /// The lowercase name (`ready`, `busy`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            State::Loading => "loading",
            State::Warming => "warming",
            State::Ready => "ready",
            State::Busy => "busy",
            State::Stopping => "stopping",
        }
    }
}

/// What warming one persona's prompt cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Warmed {
    /// The persona.
    pub persona: String,
    /// Tokens in its first prompt.
    pub prompt_tokens: usize,
    /// Tokens computed (fewer when another persona shares a prefix).
    pub prefill_tokens: usize,
    /// How long it took.
    pub elapsed: Duration,
}

/// Settings of the daemon core (the front ends have their own).
#[derive(Debug, Clone)]
pub struct DaemonSettings {
    /// The personas it serves; the first is the default.
    pub personas: Vec<Persona>,
    /// Toolboxes a request may ask for.
    pub toolboxes: Vec<String>,
    /// How the toolboxes are set up.
    pub tool_config: ToolConfig,
    /// Requests that may wait behind the running one.
    pub queue_limit: usize,
    /// Turns (question and answer) each session remembers.
    pub memory_turns: usize,
    /// Sessions remembered at once (least recently used go first).
    pub memory_sessions: usize,
    /// How long one request may run.
    pub request_timeout: Option<Duration>,
    /// Sampling defaults for every LLM call.
    pub generate: GenerateOptions,
}

impl Default for DaemonSettings {
    fn default() -> Self {
        DaemonSettings {
            personas: vec![Persona::builtin()],
            toolboxes: TOOLBOXES.iter().map(|s| s.to_string()).collect(),
            tool_config: ToolConfig::default(),
            queue_limit: 8,
            memory_turns: 4,
            memory_sessions: 64,
            request_timeout: Some(Duration::from_secs(120)),
            generate: GenerateOptions::default(),
        }
    }
}

/// A client's schema that the grammar cannot follow, as the client's error.
fn unfollowable(e: crate::brain::GrammarError) -> AskError {
    AskError::InvalidArgs(e.to_string())
}

/// Runs `work` on this thread, handing the runtime's other tasks to
/// another (on a multi-threaded runtime), so that a task just queued
/// starts at once instead of waiting for `work` to end.
fn beside_the_runtime<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// A request checked against the settings, ready to queue.
struct Prepared {
    persona: String,
    session: String,
    prompt: String,
    setup: crate::persona::Setup,
    history: Option<Vec<Message>>,
    /// `history` is the whole conversation: the prompt is not added to it.
    whole: bool,
    options: GenerateOptions,
    limits: Limits,
    /// The grammar a client-tools turn decodes under, to check before the
    /// request is queued.
    grammar: Option<Grammar>,
}

impl DaemonSettings {
    /// Checks a request as [`Daemon::submit`] would, without a model: the
    /// CLI calls it before it loads one.
    pub fn check(&self, ask: &Ask) -> Result<(), AskError> {
        let prepared = self.prepare(ask.clone())?;
        match prepared.grammar {
            Some(grammar) => grammar.check().map_err(unfollowable),
            None => Ok(()),
        }
    }

    fn prepare(&self, ask: Ask) -> Result<Prepared, AskError> {
        let persona = self.persona(ask.persona.as_deref())?;
        let tools = ToolConfig {
            caller: Some(ask.caller.to_string()),
            ..self.tool_config.clone()
        };
        let mut overrides = self.overrides(&ask)?;
        if ask.client_tools.is_some() {
            // The client's own tools replace the persona's: not built.
            overrides.toolboxes = Some(Vec::new());
        }
        let mut setup = persona.setup(overrides, &tools).map_err(|e| match e {
            SetupError::UnknownLoop(_) => AskError::UnknownLoop(e.to_string()),
            SetupError::Invalid(m) => AskError::InvalidArgs(m),
        })?;
        let whole = ask.client_tools.is_some();
        let mut grammar = None;
        if let Some(client) = ask.client_tools {
            if ask.history.as_ref().is_none_or(Vec::is_empty) {
                return Err(AskError::InvalidArgs("the conversation is empty".into()));
            }
            let mut tools = Toolset::empty();
            for spec in client.tools {
                tools
                    .add(Arc::new(crate::tools::Declared(spec)))
                    .map_err(|e| AskError::InvalidArgs(e.to_string()))?;
            }
            grammar = client.turn.grammar(&tools);
            setup.engine = engine::client_turn(client.turn);
            setup.tools = tools;
        }
        let prompt = ask.prompt.trim().to_string();
        if prompt.is_empty() && !whole {
            return Err(AskError::InvalidArgs("the prompt is empty".into()));
        }
        let session = format!(
            "{}/{}",
            ask.caller,
            ask.session
                .as_deref()
                .filter(|s| !s.is_empty())
                .unwrap_or(DEFAULT_SESSION)
        );
        let mut options = self.generate.clone();
        if let Some(n) = ask.max_tokens {
            options.max_tokens = n;
        }
        if let Some(t) = ask.temperature {
            options.temperature = t as f32;
        }
        if let Some(p) = ask.top_p {
            options.top_p = p;
        }
        if let Some(seed) = ask.seed {
            options.seed = seed;
        }
        options.stop.extend(ask.stop);
        options
            .check()
            .map_err(|e| AskError::InvalidArgs(e.to_string()))?;
        Ok(Prepared {
            persona: persona.name.clone(),
            session,
            prompt,
            setup,
            history: ask.history,
            whole,
            options,
            limits: ask.limits,
            grammar,
        })
    }

    fn persona(&self, name: Option<&str>) -> Result<&Persona, AskError> {
        match name.filter(|n| !n.is_empty()) {
            None => Ok(&self.personas[0]),
            Some(name) => self
                .personas
                .iter()
                .find(|p| p.name == name)
                .ok_or_else(|| AskError::UnknownPersona(name.to_string())),
        }
    }

    fn overrides(&self, ask: &Ask) -> Result<Overrides, AskError> {
        if let Some(tools) = &ask.tools {
            if let Some(bad) = tools.iter().find(|t| {
                *t != "none"
                    && !self.toolboxes.iter().any(|a| a == *t)
                    && !self.tool_config.external.contains(t)
            }) {
                let mut available = self.toolboxes.clone();
                available.extend(self.tool_config.external.names());
                return Err(AskError::InvalidArgs(format!(
                    "unknown toolbox `{bad}` (available: {})",
                    available.join(", ")
                )));
            }
        }
        Ok(Overrides {
            engine: ask.loop_id.clone(),
            settings: ask.settings.clone(),
            toolboxes: ask.tools.clone(),
            system_prompt: ask.system_prompt.clone(),
        })
    }
}

/// A request waiting in the queue.
struct Job {
    id: u64,
    persona: String,
    session: String,
    prompt: String,
    request: LoopRequest,
    timeout: Option<Duration>,
    reply: oneshot::Sender<request::Ended>,
}

struct Shared {
    brain: Arc<dyn Brain>,
    /// Brains of personas that name their own (`brain = { url, … }`).
    persona_brains: HashMap<String, Arc<dyn Brain>>,
    settings: DaemonSettings,
    memory: Mutex<Memory>,
    spoken: Mutex<HashMap<String, (u64, CancellationToken)>>,
    /// Cancels the prompts being computed ahead of their questions
    /// ([`Daemon::prefill`]) that have not started: a request that starts
    /// replaces it, so none of them runs before it.
    prefills: Mutex<CancellationToken>,
    next_id: AtomicU64,
    state: watch::Sender<State>,
    queue: mpsc::Sender<Job>,
    stopping: CancellationToken,
    tickets: TaskTracker,
    answered: AtomicUsize,
    failed: AtomicUsize,
}

/// The daemon core: cheap to clone, shared by every front end.
#[derive(Clone)]
pub struct Daemon {
    shared: Arc<Shared>,
}

impl Daemon {
    /// Starts the daemon core on the current tokio runtime.
    pub fn start(brain: Arc<dyn Brain>, settings: DaemonSettings) -> Daemon {
        Daemon::start_with(brain, HashMap::new(), settings)
    }

    /// Starts the daemon core with `persona_brains` for the personas that
    /// think elsewhere (by persona name); the others use `brain`.
    pub fn start_with(
        brain: Arc<dyn Brain>,
        persona_brains: HashMap<String, Arc<dyn Brain>>,
        settings: DaemonSettings,
    ) -> Daemon {
        let (queue, waiting) = mpsc::channel(settings.queue_limit.max(1));
        let memory = Memory::new(settings.memory_turns, settings.memory_sessions);
        let daemon = Daemon {
            shared: Arc::new(Shared {
                brain,
                persona_brains,
                memory: Mutex::new(memory),
                spoken: Mutex::default(),
                prefills: Mutex::default(),
                next_id: AtomicU64::new(0),
                settings,
                state: watch::Sender::new(State::Warming),
                queue,
                stopping: CancellationToken::new(),
                tickets: TaskTracker::new(),
                answered: AtomicUsize::new(0),
                failed: AtomicUsize::new(0),
            }),
        };
        tokio::spawn(daemon.clone().serve(waiting));
        daemon
    }

    /// The model behind it.
    pub fn brain_info(&self) -> &BrainInfo {
        self.shared.brain.info()
    }

    /// The brain `persona` thinks with.
    fn brain_for(&self, persona: &str) -> &Arc<dyn Brain> {
        let shared = &self.shared;
        shared.persona_brains.get(persona).unwrap_or(&shared.brain)
    }

    /// The toolboxes from outside (MCP, bus, D-Bus) its requests may name;
    /// front ends that find toolboxes put them here.
    pub fn external_toolboxes(&self) -> &crate::tools::ExternalToolboxes {
        &self.shared.settings.tool_config.external
    }

    /// How its toolboxes are found and set up.
    pub fn tool_config(&self) -> &ToolConfig {
        &self.shared.settings.tool_config
    }

    /// The personas it serves, the default first.
    pub fn personas(&self) -> &[Persona] {
        &self.shared.settings.personas
    }

    /// Every tool a request may use, in the OVOS `tool_json_list` shape
    /// with each tool's `toolbox` and `source` added.
    pub fn tools_json(&self) -> Value {
        let settings = &self.shared.settings;
        let config = &settings.tool_config;
        let builtin = settings
            .toolboxes
            .iter()
            .filter_map(|name| crate::tools::toolbox(name, config).ok())
            .map(|toolbox| {
                let specs = toolbox.tools.iter().map(|t| t.spec().clone()).collect();
                (toolbox.name, crate::tools::Source::Builtin, specs)
            });
        let specs: Vec<Value> = builtin
            .chain(config.external.list())
            .flat_map(|(toolbox, source, specs)| {
                specs.into_iter().map(move |spec| {
                    let mut value = serde_json::to_value(spec).unwrap_or(Value::Null);
                    if let Some(object) = value.as_object_mut() {
                        object.insert("toolbox".into(), Value::from(toolbox.clone()));
                        object.insert("source".into(), Value::from(source.to_string()));
                    }
                    value
                })
            })
            .collect();
        Value::Array(specs)
    }

    /// Watches the daemon's state.
    pub fn state(&self) -> watch::Receiver<State> {
        self.shared.state.subscribe()
    }

    /// Computes each persona's first prompt (its system prompt and tool
    /// descriptions, as its engine sends them) into the brain's prefix
    /// cache, under the session `warm:<persona>`, so a first question only
    /// costs its own tokens; this also proves the model answers. Then
    /// reports [`State::Ready`]. Returns what each persona's warm-up cost.
    pub async fn warm(&self) -> Result<Vec<Warmed>, String> {
        let shared = &self.shared;
        let mut warmed = Vec::new();
        for persona in &shared.settings.personas {
            let started = Instant::now();
            let setup = persona
                .setup(Overrides::default(), &shared.settings.tool_config)
                .map_err(|e| format!("persona `{}`: {e}", persona.name))?;
            let brain = self.brain_for(&persona.name);
            let remote = !Arc::ptr_eq(brain, &shared.brain);
            let usage = engine::warm(
                brain,
                setup.engine,
                setup.system_prompt.as_deref(),
                Arc::new(setup.tools),
                &shared.settings.generate,
                &format!("{SHARED_PREFIX}{}", persona.name),
                shared.stopping.child_token(),
            )
            .await;
            let usage = match usage {
                Ok(usage) => usage,
                Err(e) if remote => {
                    tracing::warn!(
                        "persona `{}`: its brain does not answer yet: {e}",
                        persona.name
                    );
                    continue;
                }
                Err(e) => return Err(format!("the model does not answer: {e}")),
            };
            if let Some(usage) = usage {
                warmed.push(Warmed {
                    persona: persona.name.clone(),
                    prompt_tokens: usage.prompt_tokens,
                    prefill_tokens: usage.prefill_tokens,
                    elapsed: started.elapsed(),
                });
            }
        }
        if warmed.is_empty() {
            return Err("the model does not answer: no persona made an LLM call".into());
        }
        shared.state.send_if_modified(|s| {
            let changed = *s == State::Warming;
            if changed {
                *s = State::Ready;
            }
            changed
        });
        Ok(warmed)
    }

    /// Queues a request. Fails at once on a bad option, a full queue or
    /// when the daemon is stopping; otherwise the ticket ends in one reply.
    pub fn submit(&self, ask: Ask) -> Result<Ticket, AskError> {
        let shared = &self.shared;
        if shared.stopping.is_cancelled() {
            return Err(AskError::ShuttingDown);
        }
        let barge_in = ask.barge_in;
        let held = ask.held.clone();
        let Prepared {
            persona,
            session,
            prompt,
            setup,
            history,
            whole,
            options,
            limits,
            grammar,
        } = shared.settings.prepare(ask)?;
        let brain = self.brain_for(&persona).clone();
        let conversation =
            self.conversation(setup.system_prompt, history, &session, &prompt, whole);

        let cancel = shared.stopping.child_token();
        let (events, events_rx) = mpsc::unbounded_channel();
        let (reply, reply_rx) = oneshot::channel();
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        let job = Job {
            id,
            persona,
            session: session.clone(),
            prompt,
            request: LoopRequest {
                engine: setup.engine,
                conversation,
                brain: brain.clone(),
                tools: Arc::new(setup.tools),
                budget: Budget {
                    max_turns: limits.max_turns,
                    max_total_tokens: limits.max_total_tokens,
                    deadline: None,
                },
                options,
                cancel: cancel.clone(),
                events: Some(events),
                session: Some(session.clone()),
                hold: held,
            },
            timeout: limits.timeout,
            reply,
        };
        shared.queue.try_send(job).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => AskError::Busy(shared.settings.queue_limit),
            mpsc::error::TrySendError::Closed(_) => AskError::ShuttingDown,
        })?;
        // Checked once queued, so that the model thread renders the prompt
        // while the grammar compiles here; the model waits for it before
        // computing the prompt, and a grammar that cannot be followed
        // cancels the request before any of it is computed.
        if let Some(grammar) = grammar {
            if let Err(e) = beside_the_runtime(|| brain.check_grammar(&grammar)) {
                cancel.cancel();
                return Err(unfollowable(e));
            }
        }
        if barge_in {
            self.barge_in(&session, id, cancel.clone());
        }
        Ok(Ticket {
            events: events_rx,
            reply: reply_rx,
            ran: None,
            cancel,
            _open: shared.tickets.token(),
        })
    }

    /// Stops: refuses new requests, cancels the waiting and running ones,
    /// and waits (up to `grace`) until every ticket has been answered and
    /// dropped by its front end.
    pub async fn shutdown(&self, grace: Duration) {
        self.shared.state.send_replace(State::Stopping);
        self.shared.stopping.cancel();
        std::mem::take(&mut *lock(&self.shared.prefills)).cancel();
        self.shared.tickets.close();
        if tokio::time::timeout(grace, self.shared.tickets.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                "{} request(s) still open after {:.1} s",
                self.shared.tickets.len(),
                grace.as_secs_f64()
            );
        }
    }

    /// Requests not yet answered (waiting, running, or being delivered).
    pub fn open_requests(&self) -> usize {
        self.shared.tickets.len()
    }

    /// Makes `id` the session's spoken turn, cancelling the one before it.
    fn barge_in(&self, session: &str, id: u64, cancel: CancellationToken) {
        let mut spoken = lock(&self.shared.spoken);
        if let Some((earlier, token)) = spoken.insert(session.to_string(), (id, cancel)) {
            if !token.is_cancelled() {
                tracing::info!("session `{session}`: request {earlier} interrupted by a new turn");
                token.cancel();
            }
        }
    }

    /// Forgets `id` as its session's spoken turn once it has ended.
    fn spoken_turn_ended(&self, session: &str, id: u64) {
        let mut spoken = lock(&self.shared.spoken);
        if spoken
            .get(session)
            .is_some_and(|(current, _)| *current == id)
        {
            spoken.remove(session);
        }
    }

    /// The conversation a request's loop starts from: the system prompt,
    /// the turns before (the request's own, else the session's memory) and
    /// the prompt, unless `whole` says the turns already end with it.
    fn conversation(
        &self,
        system: Option<String>,
        history: Option<Vec<Message>>,
        session: &str,
        prompt: &str,
        whole: bool,
    ) -> Vec<Message> {
        let mut conversation = Vec::new();
        if let Some(system) = system.filter(|s| !s.is_empty()) {
            conversation.push(Message::system(system));
        }
        match history {
            Some(turns) => conversation.extend(turns),
            None => conversation.extend(self.memory().recall(session)),
        }
        if !whole {
            conversation.push(Message::user(prompt));
        }
        conversation
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        lock(&self.shared.memory)
    }

    /// Runs queued requests one at a time until the daemon stops.
    async fn serve(self, mut waiting: mpsc::Receiver<Job>) {
        loop {
            let job = tokio::select! {
                job = waiting.recv() => job,
                _ = self.shared.stopping.cancelled() => None,
            };
            let Some(job) = job else { break };
            self.run(job).await;
        }
        waiting.close();
        while let Some(job) = waiting.recv().await {
            let cancelled = AskError::Cancelled("loopd is shutting down".into());
            let _ = job.reply.send((Err(cancelled), None));
        }
    }

    async fn run(&self, job: Job) {
        let Job {
            id,
            persona,
            session,
            prompt,
            mut request,
            timeout,
            reply,
        } = job;
        if request.cancel.is_cancelled() {
            self.spoken_turn_ended(&session, id);
            let cancelled = AskError::Cancelled("cancelled before it started".into());
            let _ = reply.send((Err(cancelled), None));
            return;
        }
        self.shared.state.send_replace(State::Busy);
        std::mem::take(&mut *lock(&self.shared.prefills)).cancel();
        let started = Instant::now();
        let timeout = match (timeout, self.shared.settings.request_timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        request.budget.deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let held = request.hold.clone();
        let cancel = request.cancel.clone();
        let mut outcome = engine::run_loop(request).await;
        if let Some(held) = held {
            if !released(held, &cancel).await {
                outcome.termination = Termination::Cancelled;
                outcome.error = Some("withdrawn: the question went on".into());
            }
        }
        self.spoken_turn_ended(&session, id);
        let ran = Ran {
            loop_id: outcome.engine.clone(),
            termination: outcome.termination,
            stats: outcome.stats.to_json(),
        };
        let answer = match (outcome.termination, outcome.error) {
            (Termination::Cancelled, error) => Err(AskError::Cancelled(
                error.unwrap_or_else(|| "cancelled".into()),
            )),
            (Termination::BudgetExhausted, Some(error)) => Err(AskError::BudgetExhausted(error)),
            (Termination::Error, error) => Err(AskError::ModelError(
                error.unwrap_or_else(|| "the loop failed".into()),
            )),
            (termination, note) => Ok(Answer {
                loop_id: outcome.engine,
                persona,
                answer: outcome.answer,
                termination,
                stats: ran.stats.clone(),
                note,
                tool_calls: outcome.tool_calls,
            }),
        };
        if let Ok(done) = &answer {
            if !done.answer.is_empty() {
                self.memory().remember(&session, &prompt, &done.answer);
            }
        }
        let counter = match &answer {
            Ok(_) => &self.shared.answered,
            Err(_) => &self.shared.failed,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        notify::status(&format!(
            "serving: {} answered, {} failed; the last took {:.1} s",
            self.shared.answered.load(Ordering::Relaxed),
            self.shared.failed.load(Ordering::Relaxed),
            started.elapsed().as_secs_f64()
        ));
        let _ = reply.send((answer, Some(ran)));
        self.shared.state.send_if_modified(|s| {
            let changed = *s == State::Busy;
            if changed {
                *s = State::Ready;
            }
            changed
        });
    }
}

/// Whether a held run is released before it is cancelled or has waited
/// [`HELD_LIMIT`].
async fn released(mut held: engine::hold::Hold, cancel: &CancellationToken) -> bool {
    tokio::select! {
        released = held.released() => released,
        _ = cancel.cancelled() => false,
        _ = tokio::time::sleep(HELD_LIMIT) => false,
    }
}

/// Locks `mutex`, also after a panic elsewhere poisoned it (what it
/// guards stays consistent: every update is a single insert or remove).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A tool set check, for configs: every toolbox named can be built.
pub fn check_toolboxes(names: &[String], tools: &ToolConfig) -> Result<(), String> {
    Toolset::named(names, tools)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

//! The local brain: a GGUF model run by candle on a worker thread it owns.
//!
//! Requests are queued to the worker; each one is rendered with the chat
//! template, tokenized, prefilled (reusing whatever prefix the KV cache
//! already holds) and decoded token by token, with every piece sent back
//! over the request's channel as soon as it is whole text.

use super::device::{self, DeviceChoice};
use super::draft::{self, DraftLength, DraftOdds};
use super::fit;
use super::gguf::GgufFile;
use super::grammar::{Constraint, GrammarCompiler, GrammarError};
use super::kv_cache::KvCache;
use super::model::{Logits, Model};
use super::prefix_cache::{CacheUsage, PrefixCaches};
use super::prompt_store::PromptStore;
use super::sampler::Sampler;
use super::stop::{Scanned, StopScanner};
use super::template::ChatTemplate;
use super::tokenizer::{Tokenizer, Utf8Stream};
use super::{
    Brain, BrainError, BrainInfo, ChatRequest, Completion, EndReason, GenerateOptions, Generation,
    GenerationEvent, Grammar, Message, Piece, Usage,
};
use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// How to load a local model.
#[derive(Debug, Clone)]
pub struct LocalBrainConfig {
    /// The GGUF file.
    pub model: PathBuf,
    /// Where to run it.
    pub device: DeviceChoice,
    /// The context window is the file's, capped at this many tokens.
    pub max_context: usize,
    /// Whether calls reuse the prompt prefixes already computed; off, every
    /// call computes its whole prompt (to measure what reuse saves).
    pub prefix_cache: bool,
    /// Most memory the kept KV caches may hold, in bytes (`None`: sized to
    /// the device, see [`default_cache_budget`]).
    pub cache_budget: Option<usize>,
    /// Whether greedy decoding drafts tokens by prompt lookup and checks
    /// them in one pass ([`super::draft`]); `None`: on. Checking two
    /// tokens costs 1.3-1.5× one on two CPU cores and eight 1.4× one on a
    /// GPU, so the brain learns what passes cost and how often drafts are
    /// kept, and drafts only what pays (benches/SPEED.md). On a CPU the
    /// text is the plain one; on a GPU it may differ where the batched
    /// kernels' rounding tips a near-tie, and since what is drafted follows
    /// the passes' timings and earlier calls, the same request may then
    /// differ from run to run.
    pub speculate: Option<bool>,
    /// Where warmed (shared) prompts are kept between runs
    /// ([`PromptStore`]); `None`: nowhere.
    pub prompt_store: Option<PathBuf>,
}

impl LocalBrainConfig {
    /// Defaults for a model file: automatic device, 8192-token context,
    /// prefix caching within a budget sized to the device, warmed prompts
    /// kept in the user's cache directory.
    pub fn new(model: impl Into<PathBuf>) -> Self {
        LocalBrainConfig {
            model: model.into(),
            device: DeviceChoice::Auto,
            max_context: 8192,
            prefix_cache: true,
            cache_budget: None,
            speculate: None,
            prompt_store: PromptStore::default_dir(),
        }
    }
}

/// The KV cache budget when none is configured: a quarter of the memory
/// available at start-up, between 128 MiB and 1 GiB (1 GiB on a GPU, where
/// the caches live in device memory).
pub fn default_cache_budget(device: &candle_core::Device) -> usize {
    const MIB: usize = 1 << 20;
    if !device.is_cpu() {
        return 1024 * MIB;
    }
    available_memory()
        .map(|bytes| (bytes / 4).clamp(128 * MIB, 1024 * MIB))
        .unwrap_or(512 * MIB)
}

/// `MemAvailable` from `/proc/meminfo`, in bytes (Linux only).
fn available_memory() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// How many of the highest logits greedy decoding tries, one by one,
/// against a grammar before it computes the whole mask.
const GREEDY_TRIES: usize = 16;

struct Job {
    request: ChatRequest,
    cancel: CancellationToken,
    events: UnboundedSender<GenerationEvent>,
    received: Instant,
}

/// A brain backed by a local GGUF model.
pub struct LocalBrain {
    info: BrainInfo,
    jobs: mpsc::Sender<Job>,
    controls: Arc<Controls>,
    grammars: SharedCompiler,
}

/// The model's grammar compiler, built by the worker on the first request
/// that carries a grammar and shared with the handle, which checks a
/// request's grammar before it is queued (the worker then finds it
/// compiled).
type SharedCompiler = Arc<OnceLock<Result<GrammarCompiler, GrammarError>>>;

/// What the brain and its worker share: switches read at each call, and what
/// the prefix caches held after the last one.
#[derive(Default)]
struct Controls {
    prefix_cache: AtomicBool,
    /// Speculative decoding on or off; `None`: the device's default.
    speculate: Mutex<Option<bool>>,
    /// A fixed cost of each drafted token; `None`: learned.
    draft_cost: Mutex<Option<f64>>,
    usage: Mutex<CacheUsage>,
}

impl LocalBrain {
    /// Loads the model on a new worker thread and waits until it is ready.
    pub fn load(config: LocalBrainConfig) -> Result<Self, BrainError> {
        let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<BrainInfo, BrainError>>();
        let controls = Arc::new(Controls::default());
        controls
            .prefix_cache
            .store(config.prefix_cache, Ordering::Relaxed);
        if let Ok(mut speculate) = controls.speculate.lock() {
            *speculate = config.speculate;
        }
        let shared = controls.clone();
        let grammars = SharedCompiler::default();
        let worker_grammars = grammars.clone();
        std::thread::Builder::new()
            .name("loopd-model".into())
            .spawn(move || {
                let loaded =
                    catch_unwind(AssertUnwindSafe(|| Worker::load(&config, worker_grammars)))
                        .unwrap_or_else(|panic| {
                            Err(BrainError::Load(format!(
                                "{}: {}",
                                config.model.display(),
                                panic_message(&panic)
                            )))
                        });
                loopd_alloc::release_kept();
                let mut worker = match loaded {
                    Ok(worker) => {
                        let _ = ready_tx.send(Ok(worker.info.clone()));
                        worker
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = jobs_rx.recv() {
                    worker
                        .caches
                        .set_enabled(shared.prefix_cache.load(Ordering::Relaxed));
                    let chosen = shared.speculate.lock().ok().and_then(|s| *s);
                    worker.speculate = chosen.unwrap_or(worker.speculate_by_default);
                    let draft_cost = shared.draft_cost.lock().ok().and_then(|c| *c);
                    worker.draft_odds.fix_per_token(draft_cost);
                    worker.serve(job);
                    if let Ok(mut usage) = shared.usage.lock() {
                        *usage = worker.caches.usage();
                    }
                }
            })
            .map_err(|e| BrainError::Load(format!("cannot start the model thread: {e}")))?;
        let info = ready_rx.recv().map_err(|_| BrainError::WorkerGone)??;
        Ok(LocalBrain {
            info,
            jobs: jobs_tx,
            controls,
            grammars,
        })
    }

    /// Turns prefix reuse on or off from the next call on (off also drops
    /// the kept caches), e.g. to measure what reuse saves side by side.
    pub fn set_prefix_cache(&self, enabled: bool) {
        self.controls.prefix_cache.store(enabled, Ordering::Relaxed);
    }

    /// Turns speculative decoding on or off from the next call on, or back
    /// to the device's default with `None` (to measure what it saves side by
    /// side).
    pub fn set_speculate(&self, enabled: Option<bool>) {
        if let Ok(mut speculate) = self.controls.speculate.lock() {
            *speculate = enabled;
        }
    }

    /// Fixes what each drafted token is taken to add to a check pass,
    /// against one token (0: every proposal is drafted in full), from the
    /// next call on, or lets the brain learn it from the passes' timings
    /// again with `None`: for drafts that must not follow timing (a GPU's
    /// text at near-ties, a test of the drafts themselves).
    pub fn set_draft_cost(&self, per_token: Option<f64>) {
        if let Ok(mut cost) = self.controls.draft_cost.lock() {
            *cost = per_token;
        }
    }

    /// What the kept KV caches held after the last call.
    pub fn cache_usage(&self) -> CacheUsage {
        self.controls.usage.lock().map(|u| *u).unwrap_or_default()
    }
}

impl Brain for LocalBrain {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        let (events, generation) = Generation::channel();
        let job = Job {
            request,
            cancel,
            events,
            received: Instant::now(),
        };
        if let Err(mpsc::SendError(job)) = self.jobs.send(job) {
            let _ = job
                .events
                .send(GenerationEvent::Failed(BrainError::WorkerGone));
        }
        generation
    }

    fn check_grammar(&self, grammar: &Grammar) -> Result<(), GrammarError> {
        match self.grammars.get() {
            Some(Ok(compiler)) => compiler.start(grammar).map(drop),
            _ => grammar.check(),
        }
    }
}

/// Everything the model thread owns.
struct Worker {
    model: Model,
    tokenizer: Tokenizer,
    template: ChatTemplate,
    caches: PrefixCaches,
    info: BrainInfo,
    /// Built on the first request that carries a grammar.
    grammars: SharedCompiler,
    /// Whether this call decodes speculatively.
    speculate: bool,
    speculate_by_default: bool,
    /// What drafting has cost and earned on this model so far.
    draft_odds: DraftOdds,
}

impl Worker {
    fn load(config: &LocalBrainConfig, grammars: SharedCompiler) -> Result<Self, BrainError> {
        let mut gguf = GgufFile::open(&config.model)?;
        let device = device::open(config.device).map_err(|e| BrainError::Load(e.to_string()))?;
        let tokenizer = Tokenizer::from_gguf(&gguf)?;
        let model = Model::load(&mut gguf, &device, config.max_context)?;
        if tokenizer.vocab_size() > model.vocab_size() {
            return Err(gguf
                .error(format!(
                    "the tokenizer has {} tokens but the embedding table only {} rows: token ids would be out of range",
                    tokenizer.vocab_size(),
                    model.vocab_size()
                ))
                .into());
        }
        let special_text = |key: &str| {
            gguf.opt_usize_in(key, 0..=tokenizer.vocab_size() - 1)
                .ok()
                .flatten()
                .map(|id| tokenizer.token_text(id as u32))
                .unwrap_or_default()
        };
        let bos = special_text("tokenizer.ggml.bos_token_id");
        let eos = special_text("tokenizer.ggml.eos_token_id");
        let template_source = gguf.opt_string("tokenizer.chat_template");
        let template = ChatTemplate::new(template_source.as_deref(), &bos, &eos)
            .map_err(|e| gguf.error(e.to_string()))?;
        let name = gguf
            .opt_string("general.name")
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                config
                    .model
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            });
        let info = BrainInfo {
            model: name,
            arch: model.hparams().arch.name().to_string(),
            device: device::name(&device),
            threads: device::threads(),
            context_length: model.max_positions(),
            template_supports_tools: template.supports_tools(),
            unconstrained: None,
            knowledge_model: None,
        };
        let budget = config
            .cache_budget
            .unwrap_or_else(|| default_cache_budget(&device));
        let shape = model.new_cache().shape().clone();
        let mut caches = PrefixCaches::new(shape.clone(), budget, config.prefix_cache);
        if let Some(dir) = &config.prompt_store {
            let key = PromptStore::key_for(&config.model, &info.device, shape.dtype);
            caches = caches.with_store(PromptStore::open(dir.clone(), key));
        }
        Ok(Worker {
            model,
            tokenizer,
            template,
            caches,
            info,
            grammars,
            speculate: false,
            speculate_by_default: config.speculate.unwrap_or(true),
            draft_odds: DraftOdds::new(match device.is_cpu() {
                true => 0.3,
                false => 0.05,
            }),
        })
    }

    /// A constraint for the request's grammar, if it has one.
    fn constraint(&mut self, request: &ChatRequest) -> Result<Option<Constraint>, BrainError> {
        let Some(grammar) = &request.grammar else {
            return Ok(None);
        };
        let compiler = self
            .grammars
            .get_or_init(|| GrammarCompiler::new(&self.tokenizer, self.model.vocab_size()));
        let compiler = compiler
            .as_ref()
            .map_err(|e| BrainError::Grammar(e.to_string()))?;
        compiler
            .start(grammar)
            .map(Some)
            .map_err(|e| BrainError::Grammar(e.to_string()))
    }

    fn serve(&mut self, job: Job) {
        let events = job.events.clone();
        let outcome = catch_unwind(AssertUnwindSafe(|| self.generate(job)));
        let failure = match outcome {
            Ok(Ok(done)) => GenerationEvent::Finished(done),
            Ok(Err(e)) => GenerationEvent::Failed(e),
            Err(panic) => {
                self.caches.clear();
                GenerationEvent::Failed(BrainError::Generation(format!(
                    "internal error: {}",
                    panic_message(&panic)
                )))
            }
        };
        let _ = events.send(failure);
        self.caches.free_released();
    }

    fn generate(&mut self, job: Job) -> Result<Completion, BrainError> {
        let Job {
            request,
            cancel,
            events,
            received,
        } = job;
        let mut usage = Usage::default();
        if cancel.is_cancelled() || events.is_closed() {
            return Ok(Completion {
                text: String::new(),
                end: EndReason::Cancelled,
                usage,
                tool_calls: Vec::new(),
            });
        }

        let prompt = self.fitted_prompt(&request)?;
        usage.prompt_tokens = prompt.len();
        let constraint = self.constraint(&request)?;

        let prefill_started = Instant::now();
        let session = request.session.as_deref().unwrap_or_default();
        let gen_err = |e: candle_core::Error| BrainError::Generation(e.to_string());
        let mut checkout = self.caches.checkout(session, &prompt).map_err(gen_err)?;
        let started = Started {
            prompt: &prompt,
            reused: checkout.reused,
            prefill_started,
            received,
            constraint,
        };
        let result = self.complete(
            &request.options,
            started,
            &mut checkout.cache,
            &cancel,
            &events,
            usage,
        );
        self.caches.checkin(session, checkout.cache);
        result
    }

    /// The request's prompt in tokens, its conversation fitted into the
    /// context window by [`fit`]'s policy, leaving room for the answer
    /// (its `max_tokens`, or a quarter of the window if that is less).
    fn fitted_prompt(&self, request: &ChatRequest) -> Result<Vec<u32>, BrainError> {
        let encode = |messages: &[Message]| -> Result<Vec<u32>, BrainError> {
            let mut text = self
                .template
                .render(messages, &request.tools, true)
                .map_err(|e| BrainError::Template(e.to_string()))?;
            text.push_str(&request.assistant_prefix);
            self.tokenizer
                .encode_prompt(&text)
                .map_err(|e| BrainError::Generation(e.to_string()))
        };
        let context = self.model.max_positions();
        let budget = context - request.options.max_tokens.clamp(1, context / 4);
        let whole = encode(&request.messages)?;
        if whole.is_empty() {
            return Err(BrainError::Generation("the prompt is empty".into()));
        }
        if whole.len() <= budget {
            return Ok(whole);
        }
        let fitted = fit::fit(&request.messages, budget, |m| encode(m).map(|t| t.len()))?;
        let Some(fitted) = fitted else {
            return Err(BrainError::ContextOverflow {
                prompt: whole.len(),
                context,
            });
        };
        let prompt = encode(&fitted.messages)?;
        tracing::warn!(
            "a prompt of {} tokens was fitted into {} of the {context}-token window: \
             {} earlier message(s) dropped, {} characters cut",
            whole.len(),
            prompt.len(),
            fitted.dropped,
            fitted.cut_chars
        );
        Ok(prompt)
    }

    /// Computes the rest of the prompt after `reused` cached tokens, then
    /// decodes until an end, streaming the text out.
    fn complete(
        &mut self,
        options: &GenerateOptions,
        started: Started,
        cache: &mut KvCache,
        cancel: &CancellationToken,
        events: &UnboundedSender<GenerationEvent>,
        mut usage: Usage,
    ) -> Result<Completion, BrainError> {
        let Started {
            prompt,
            reused,
            prefill_started,
            received,
            mut constraint,
        } = started;
        let stopped = || cancel.is_cancelled() || events.is_closed();
        let cancelled = |text: String, usage: Usage| Completion {
            text,
            end: EndReason::Cancelled,
            usage,
            tool_calls: Vec::new(),
        };
        usage.prefill_tokens = prompt.len() - reused;
        let gen_err = |e: candle_core::Error| BrainError::Generation(e.to_string());
        let logits = self
            .model
            .prefill_logits(&prompt[reused..], cache, || !stopped())
            .map_err(gen_err)?;
        let Some(mut logits) = logits else {
            if stopped() {
                return Ok(cancelled(String::new(), usage));
            }
            return Err(BrainError::Generation("empty prefill".into()));
        };
        usage.prefill_time = prefill_started.elapsed();

        let mut sampler = Sampler::new(options);
        let mut history = prompt.to_vec();
        let mut utf8 = Utf8Stream::default();
        let mut stops = StopScanner::new(&options.stop);
        let mut text = String::new();
        let mut decode_started = None;
        let emit = |text: &mut String, piece: String, token: u32| {
            text.push_str(&piece);
            let _ = events.send(GenerationEvent::Piece(Piece { text: piece, token }));
        };

        // Speculation: logits already computed after each drafted token that
        // the cache holds beyond what was output, in order.
        let greedy = options.temperature <= 0.0;
        // Greedy picks with no penalty compare only the largest logits
        // ([`Logits`]); anything else weighs them all.
        let every_logit = !greedy || options.repetition_penalty != 1.0;
        let complete = |logits: Logits| self.model.complete(logits).map_err(gen_err);
        let speculate = self.speculate && greedy;
        let mut draft_length = DraftLength::new();
        let mut ahead: VecDeque<(u32, Logits)> = VecDeque::new();
        let (mut drafted, mut matched) = (0, 0);
        // The pass under way: when it began, over how many tokens.
        let mut pass: Option<(Instant, usize)> = None;
        let end = loop {
            if usage.completion_tokens >= options.max_tokens {
                break EndReason::MaxTokens;
            }
            if stopped() {
                break EndReason::Cancelled;
            }
            if constraint.as_ref().is_some_and(Constraint::is_finished) {
                break EndReason::EndOfTurn;
            }
            if let Some((started, rows)) = pass.take() {
                self.draft_odds
                    .passed(rows, started.elapsed().as_secs_f64());
            }
            if every_logit {
                logits = complete(logits)?;
            }
            let mut values = logits.values().to_vec();
            let mut token = sampler.sample(&mut values, &history);
            if !logits.is_sure(token) {
                logits = complete(logits)?;
                values = logits.values().to_vec();
                token = sampler.sample(&mut values, &history);
            }
            if let Some(constraint) = constraint.as_mut() {
                if !constraint.allows(token) {
                    let mut best = match greedy {
                        true => constraint.best_allowed(&values, GREEDY_TRIES),
                        false => None,
                    };
                    if best.is_some_and(|best| !logits.is_sure(best)) {
                        logits = complete(logits)?;
                        best = constraint.best_allowed(logits.values(), GREEDY_TRIES);
                    }
                    token = match best {
                        Some(best) => best,
                        None => {
                            logits = complete(logits)?;
                            let mut values = logits.values().to_vec();
                            constraint
                                .mask(&mut values)
                                .map_err(|e| BrainError::Grammar(e.to_string()))?;
                            sampler.sample(&mut values, &history)
                        }
                    };
                }
                constraint
                    .accept(token)
                    .map_err(|e| BrainError::Grammar(e.to_string()))?;
            }
            if decode_started.is_none() {
                usage.time_to_first_token = received.elapsed();
                usage.prefill_time = prefill_started.elapsed();
                decode_started = Some(Instant::now());
            }
            if self.tokenizer.is_end_of_turn(token) {
                break EndReason::EndOfTurn;
            }
            usage.completion_tokens += 1;
            history.push(token);
            let whole = utf8.push(self.tokenizer.token_bytes(token));
            match stops.push(&whole) {
                Scanned::Emit(piece) => emit(&mut text, piece, token),
                Scanned::Stopped { before, stop } => {
                    emit(&mut text, before, token);
                    break EndReason::Stop(stop);
                }
            }
            match ahead.pop_front() {
                Some((draft, next)) if draft == token => {
                    usage.draft_tokens_taken += 1;
                    logits = next;
                    if ahead.is_empty() {
                        draft_length.update(drafted, drafted);
                        self.draft_odds.checked(matched, drafted, drafted);
                    }
                    continue;
                }
                Some(_) => {
                    let unused = ahead.len() + 1;
                    draft_length.update(drafted, drafted - unused);
                    self.draft_odds.checked(matched, drafted, drafted - unused);
                    cache.truncate(cache.len() - unused);
                    ahead.clear();
                }
                None => {}
            }
            if cache.remaining() == 0 {
                break EndReason::ContextFull;
            }
            let left = options.max_tokens - usage.completion_tokens;
            if left == 0 {
                continue;
            }
            let cap = draft_length.get().min(left - 1).min(cache.remaining() - 1);
            let mut guess = speculate
                .then(|| draft::propose(&history, cap))
                .flatten()
                .unwrap_or_default();
            guess.tokens.truncate(self.draft_odds.length(&guess, cap));
            pass = Some((Instant::now(), 1 + guess.tokens.len()));
            let fed: Vec<u32> = std::iter::once(token)
                .chain(guess.tokens.iter().copied())
                .collect();
            let mut rows = self
                .model
                .forward_logits(&fed, cache, fed.len())
                .map_err(gen_err)?
                .into_iter();
            logits = rows
                .next()
                .ok_or_else(|| BrainError::Generation("a pass gave no logits".into()))?;
            ahead.extend(guess.tokens.iter().copied().zip(rows));
            (drafted, matched) = (guess.tokens.len(), guess.matched);
            usage.draft_tokens += drafted;
        };
        if !ahead.is_empty() {
            cache.truncate(cache.len() - ahead.len());
        }
        if !matches!(end, EndReason::Stop(_)) {
            let tail = stops.push(&utf8.finish());
            let rest = match tail {
                Scanned::Emit(piece) => piece + &stops.finish(),
                Scanned::Stopped { before, .. } => before,
            };
            if !rest.is_empty() {
                emit(&mut text, rest, history.last().copied().unwrap_or_default());
            }
        }
        if let Some(started) = decode_started {
            usage.decode_time = started.elapsed();
        }
        if usage.draft_tokens > 0 {
            tracing::debug!("drafting so far: {:?}", self.draft_odds);
        }
        Ok(Completion {
            text,
            end,
            usage,
            tool_calls: Vec::new(),
        })
    }
}

/// Where a call's prompt stands when its decoding starts.
struct Started<'a> {
    prompt: &'a [u32],
    reused: usize,
    prefill_started: Instant,
    received: Instant,
    /// The grammar the reply must follow, if any.
    constraint: Option<Constraint>,
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

//! Runs every task through every chosen engine on one loaded model, each
//! (engine, task) in its own session, after warming the engine's first
//! prompt, and keeps what each run cost.

use super::tasks::Task;
use crate::brain::device::DeviceChoice;
use crate::brain::prefix_cache::{CacheUsage, SHARED_PREFIX};
use crate::brain::{
    Brain, BrainInfo, GenerateOptions, KnowledgeBrain, LocalBrain, LocalBrainConfig, Message,
    RemoteBrain, RemoteBrainSettings,
};
use crate::engine::{self, Budget, LoopOutcome, LoopRequest, Settings};
use crate::engine::{speakable, Engine};
use crate::persona::{Overrides, Persona};
use crate::tools::{ToolConfig, Toolset};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// One engine as the benchmark runs it.
pub struct LoopVariant {
    /// The engine id.
    pub id: String,
    /// How the report names it (`react`, `react/free`).
    pub label: String,
    /// Its settings.
    pub settings: Settings,
    /// Whether the local model decodes speculatively
    /// ([`crate::brain::draft`]); `None`: the device's default.
    pub speculate: Option<bool>,
}

/// What to run.
pub struct Plan {
    /// Engines with their settings, in order.
    pub loops: Vec<LoopVariant>,
    /// The tasks, in order.
    pub tasks: Vec<Task>,
    /// Prefix reuse for each run of a task: `[true]`, `[false]`, or
    /// `[true, false]` to compare back to back.
    pub modes: Vec<bool>,
    /// Sampling options for every LLM call (greedy).
    pub options: GenerateOptions,
    /// Most time one question may take.
    pub timeout: Option<Duration>,
    /// The model.
    pub model: BenchModel,
    /// Where to run it.
    pub device: DeviceChoice,
    /// Largest context window.
    pub max_context: usize,
}

/// What the loops run on.
#[derive(Debug, Clone, PartialEq)]
pub enum BenchModel {
    /// A GGUF file, loaded here, and the knowledge model beside it, if any
    /// ([`crate::brain::KnowledgeBrain`]).
    Local(PathBuf, Option<PathBuf>),
    /// A remote OpenAI-compatible server and its model (default: the first
    /// it lists).
    Remote {
        /// The server's base URL.
        url: String,
        /// The server's model.
        model: Option<String>,
    },
}

/// One question answered by one engine.
pub struct RunRecord {
    /// The task's id.
    pub task: String,
    /// Whether this was the task's follow-up question.
    pub follow_up: bool,
    /// Whether prefix reuse was on.
    pub prefix_cache: bool,
    /// How it went.
    pub outcome: LoopOutcome,
    /// Whether the answer is right, when the task says what is.
    pub correct: Option<bool>,
    /// What in the answer a voice could not say well (empty: speakable).
    pub unspeakable: Vec<String>,
    /// The task's category.
    pub category: Option<String>,
}

/// What warming an engine's first prompt cost, over all warms.
#[derive(Debug, Clone, Default)]
pub struct WarmCost {
    /// Times the prompt was computed (again after reuse was off).
    pub warms: usize,
    /// Prompt tokens.
    pub prompt_tokens: usize,
    /// Prompt tokens computed.
    pub prefill_tokens: usize,
    /// Wall time.
    pub ms: f64,
}

/// Everything one engine did.
pub struct LoopResult {
    /// The engine as the report names it (its label).
    pub id: String,
    /// Its runs, in order.
    pub runs: Vec<RunRecord>,
    /// What warming cost (not in the runs).
    pub warm: WarmCost,
    /// Highest resident memory while it ran (Linux only).
    pub peak_rss_bytes: Option<u64>,
}

/// A whole benchmark.
pub struct Results {
    /// The model as loaded.
    pub info: BrainInfo,
    /// Size of the model file.
    pub model_bytes: u64,
    /// How long loading took.
    pub load_ms: f64,
    /// Per engine, in order.
    pub loops: Vec<LoopResult>,
    /// The model file's name.
    pub model_file: String,
    /// The most the prefix caches held after a run, with their budget.
    pub cache: CacheUsage,
    /// Whether the user stopped it early (the results are partial).
    pub interrupted: bool,
}

/// Loads the model and runs the plan; progress goes to stderr.
pub fn run(plan: &Plan) -> Result<Results, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let started = Instant::now();
    let (brain, local, model_bytes, model_file, knowing): (Arc<dyn Brain>, _, _, _, _) =
        match &plan.model {
            BenchModel::Local(path, knowledge) => {
                let bytes = std::fs::metadata(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                    .len();
                let load = |model: &PathBuf| {
                    LocalBrain::load(LocalBrainConfig {
                        model: model.clone(),
                        device: plan.device,
                        max_context: plan.max_context,
                        prefix_cache: plan.modes.contains(&true),
                        cache_budget: None,
                        speculate: None,
                        prompt_store: crate::brain::prompt_store::PromptStore::default_dir(),
                    })
                    .map_err(|e| e.to_string())
                };
                let local = Arc::new(load(path)?);
                let file = path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                match knowledge {
                    None => (
                        local.clone() as Arc<dyn Brain>,
                        Some(local),
                        bytes,
                        file,
                        None,
                    ),
                    Some(knowledge) => {
                        let knowing = Arc::new(load(knowledge)?);
                        let knowing_bytes = std::fs::metadata(knowledge)
                            .map_err(|e| format!("cannot read {}: {e}", knowledge.display()))?
                            .len();
                        let file = format!(
                            "{file} + {}",
                            knowledge
                                .file_name()
                                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                        );
                        let brain = Arc::new(KnowledgeBrain::new(local.clone(), knowing.clone()));
                        (
                            brain as Arc<dyn Brain>,
                            Some(local),
                            bytes + knowing_bytes,
                            file,
                            Some(knowing),
                        )
                    }
                }
            }
            BenchModel::Remote { url, model } => {
                let settings = RemoteBrainSettings {
                    url: url.clone(),
                    model: model.clone(),
                    ..RemoteBrainSettings::default()
                };
                let remote = runtime
                    .block_on(RemoteBrain::connect(settings.config()?))
                    .map_err(|e| e.to_string())?;
                let name = remote.info().model.clone();
                (Arc::new(remote), None, 0, name, None)
            }
        };
    let load_ms = engine::round1(started.elapsed().as_secs_f64() * 1000.0);
    let info = brain.info().clone();
    eprintln!(
        "loopd bench: {} on {} ({} threads), {} tasks × {} loops",
        info.model,
        info.device,
        info.threads,
        plan.tasks.len(),
        plan.loops.len()
    );
    let cancel = CancellationToken::new();
    let on_interrupt = cancel.clone();
    let (loops, cache) = runtime.block_on(async {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        let mut bench = Bench {
            plan,
            brain: brain.clone(),
            local: local.clone(),
            knowing: knowing.clone(),
            cancel: cancel.clone(),
            warmed: HashSet::new(),
            done: 0,
            cache: CacheUsage::default(),
        };
        let mut loops = Vec::new();
        for variant in &plan.loops {
            loops.push(bench.engine(variant).await?);
            if cancel.is_cancelled() {
                break;
            }
        }
        let cache = bench.cache;
        Ok::<_, String>((loops, cache))
    })?;
    Ok(Results {
        info,
        model_bytes,
        load_ms,
        loops,
        model_file,
        cache: CacheUsage {
            budget: [local, knowing]
                .iter()
                .flatten()
                .map(|brain| brain.cache_usage().budget)
                .sum(),
            ..cache
        },
        interrupted: cancel.is_cancelled(),
    })
}

/// The state of a benchmark while it runs.
struct Bench<'a> {
    plan: &'a Plan,
    brain: Arc<dyn Brain>,
    /// The same brain when it is the local model, whose caches the
    /// benchmark switches and reads.
    local: Option<Arc<LocalBrain>>,
    /// The knowledge model, when there is one beside the local model.
    knowing: Option<Arc<LocalBrain>>,
    cancel: CancellationToken,
    /// (engine, toolboxes) whose first prompt the caches hold.
    warmed: HashSet<(String, String)>,
    done: usize,
    /// The most the caches held after a run.
    cache: CacheUsage,
}

impl Bench<'_> {
    async fn engine(&mut self, variant: &LoopVariant) -> Result<LoopResult, String> {
        reset_peak_rss();
        for model in self.local.iter().chain(&self.knowing) {
            model.set_speculate(variant.speculate);
        }
        let id = variant.label.as_str();
        let mut result = LoopResult {
            id: id.to_string(),
            runs: Vec::new(),
            warm: WarmCost::default(),
            peak_rss_bytes: None,
        };
        'tasks: for task in &self.plan.tasks {
            let setup = prepare(variant, task)?;
            for &cached in &self.plan.modes {
                if let Some(local) = &self.local {
                    local.set_prefix_cache(cached);
                }
                if cached {
                    let warmed = self.warm(id, &setup, &mut result.warm).await;
                    if self.cancel.is_cancelled() {
                        break 'tasks;
                    }
                    warmed?;
                } else {
                    self.warmed.clear();
                }
                let session = format!("bench:{id}:{}", task.id);
                let mut conversation: Vec<Message> =
                    setup.system.iter().map(Message::system).collect();
                conversation.push(Message::user(&task.question));
                let first = self.ask(&setup, &conversation, &session).await;
                let correct = task.expected.as_ref().map(|e| e.grade(&first.answer));
                self.progress(id, &task.id, false, cached, &first, correct);
                conversation.push(Message::assistant(&first.answer));
                result.runs.push(RunRecord {
                    task: task.id.clone(),
                    follow_up: false,
                    prefix_cache: cached,
                    unspeakable: speakable::problems(&first.answer),
                    outcome: first,
                    correct,
                    category: task.category.clone(),
                });
                if self.cancel.is_cancelled() {
                    break 'tasks;
                }
                let Some(follow_up) = &task.follow_up else {
                    continue;
                };
                conversation.push(Message::user(follow_up));
                let second = self.ask(&setup, &conversation, &session).await;
                let correct = task
                    .follow_up_expected
                    .as_ref()
                    .map(|e| e.grade(&second.answer));
                self.progress(id, &task.id, true, cached, &second, correct);
                result.runs.push(RunRecord {
                    task: task.id.clone(),
                    follow_up: true,
                    prefix_cache: cached,
                    unspeakable: speakable::problems(&second.answer),
                    outcome: second,
                    correct,
                    category: task.category.clone(),
                });
                if self.cancel.is_cancelled() {
                    break 'tasks;
                }
            }
        }
        result.peak_rss_bytes = peak_rss();
        Ok(result)
    }

    /// Computes the engine's first prompt for the task's tools into the
    /// caches, unless they hold it already.
    async fn warm(
        &mut self,
        id: &str,
        setup: &Prepared,
        cost: &mut WarmCost,
    ) -> Result<(), String> {
        let tools = setup.tools.names().join(",");
        if !self.warmed.insert((id.to_string(), tools.clone())) {
            return Ok(());
        }
        let started = Instant::now();
        let usage = engine::warm(
            &self.brain,
            setup.engine.clone(),
            setup.system.as_deref(),
            setup.tools.clone(),
            &self.plan.options,
            &format!("{SHARED_PREFIX}bench:{id}:{tools}"),
            self.cancel.clone(),
        )
        .await
        .map_err(|e| format!("warming loop `{id}` failed: {e}"))?;
        if let Some(usage) = usage {
            cost.warms += 1;
            cost.prompt_tokens += usage.prompt_tokens;
            cost.prefill_tokens += usage.prefill_tokens;
            cost.ms += started.elapsed().as_secs_f64() * 1000.0;
        }
        Ok(())
    }

    async fn ask(&self, setup: &Prepared, conversation: &[Message], session: &str) -> LoopOutcome {
        engine::run_loop(LoopRequest {
            engine: setup.engine.clone(),
            conversation: conversation.to_vec(),
            brain: self.brain.clone(),
            tools: setup.tools.clone(),
            budget: Budget {
                max_turns: None,
                max_total_tokens: None,
                deadline: self
                    .plan
                    .timeout
                    .and_then(|t| Instant::now().checked_add(t)),
            },
            options: self.plan.options.clone(),
            cancel: self.cancel.child_token(),
            events: None,
            session: Some(session.to_string()),
            hold: None,
        })
        .await
    }

    fn progress(
        &mut self,
        id: &str,
        task: &str,
        follow_up: bool,
        cached: bool,
        outcome: &LoopOutcome,
        correct: Option<bool>,
    ) {
        self.done += 1;
        let usage = self
            .local
            .as_ref()
            .map(|l| l.cache_usage())
            .unwrap_or_default();
        if usage.bytes >= self.cache.bytes {
            self.cache = usage;
        }
        let stats = &outcome.stats;
        let total = self.plan.loops.len()
            * self.plan.modes.len()
            * self
                .plan
                .tasks
                .iter()
                .map(|t| 1 + usize::from(t.follow_up.is_some()))
                .sum::<usize>();
        let grade = match correct {
            Some(true) => " ✓",
            Some(false) => " ✗",
            None => "",
        };
        eprintln!(
            "[{}/{total}] {id} {task}{} (cache {}): {}{grade}, {} calls, prefill {}/{} tokens, {:.1} s: {}",
            self.done,
            if follow_up { " follow-up" } else { "" },
            if cached { "on" } else { "off" },
            outcome.termination.as_str(),
            stats.llm_calls(),
            stats.prefill_tokens(),
            stats.prompt_tokens(),
            stats.wall_ms / 1000.0,
            clipped(&outcome.answer, 100)
        );
    }
}

/// `text` on one line, cut to `max_chars` with an ellipsis.
fn clipped(text: &str, max_chars: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// What one task runs on one engine.
pub struct Prepared {
    engine: Arc<dyn Engine>,
    tools: Arc<Toolset>,
    system: Option<String>,
}

/// The default persona set up for the loop with the task's tools.
pub fn prepare(variant: &LoopVariant, task: &Task) -> Result<Prepared, String> {
    let setup = Persona::builtin()
        .setup(
            Overrides {
                engine: Some(variant.id.clone()),
                settings: variant.settings.clone(),
                toolboxes: task.tools.clone(),
                ..Overrides::default()
            },
            &ToolConfig::default(),
        )
        .map_err(|e| format!("task `{}`: {e}", task.id))?;
    Ok(Prepared {
        engine: setup.engine,
        tools: Arc::new(setup.tools),
        system: setup.system_prompt,
    })
}

/// Makes the kernel's high-water mark of resident memory the current size.
pub(super) fn reset_peak_rss() {
    #[cfg(target_os = "linux")]
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Highest resident memory since the last reset (`VmHWM`), in bytes.
pub(super) fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

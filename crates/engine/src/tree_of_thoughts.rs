//! Tree-of-Thoughts (seed 000): beam search over reasoning steps.
//!
//! At each depth every branch in the beam asks the model for `n_branches`
//! candidate next steps (each after the first is asked to differ from those
//! before it, and sampled warmer), and each candidate is scored 0–10 by a
//! separate grading call. A candidate whose arithmetic is wrong (`2 * 5 =
//! 12`) or that repeats a step scores 0 without one, and the next sibling
//! is told the mistake. The `beam_width` best branches go on to the next
//! depth. A step that contains `ANSWER:` and no wrong arithmetic ends the
//! search at once. At `max_depth` the best branch is asked for the answer. Calls: depth × branches in the beam × n_branches × 2, plus one.
//!
//! The calls that expand one branch form one conversation: the problem and
//! the branch's steps, the first candidate, then "a different next step" and
//! the next candidate, and so on; each candidate's grading is that
//! conversation up to the candidate plus "grade the step you just wrote".
//! So every call extends an earlier one and the KV cache computes only what
//! is new.

use super::events::LoopEvent;
use super::parse;
use super::protocol;
use super::{fill, question, with_system, CallOptions, Engine, EngineFuture, Finish, Halt};
use super::{Route, Run};
use loopd_brain::{Message, Role};
use serde::{Deserialize, Serialize};

const THINK_SYSTEM: &str = include_str!("prompts/tot_think.txt");
const STEP: &str = include_str!("prompts/tot_step.txt");
const OTHER: &str = include_str!("prompts/tot_other.txt");
const SCORE: &str = include_str!("prompts/tot_score.txt");
const ANSWER_PROMPT: &str = include_str!("prompts/tot_answer.txt");

/// The marker of a step that answers the problem.
const ANSWER: &[&str] = &["answer:"];
/// Sampling temperature of the 2nd, 3rd, … candidate of a branch, so a
/// greedy model still gives different thoughts.
const SIBLING_TEMPERATURE: f32 = 0.7;
/// A step is one or two sentences.
const THOUGHT_MAX_TOKENS: usize = 128;
/// A score is one number.
const SCORE_MAX_TOKENS: usize = 8;
/// Highest score.
const MAX_SCORE: f64 = 10.0;

/// Tree-of-Thoughts settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TreeOfThoughtsConfig {
    /// Candidate next steps generated per branch at each depth.
    pub n_branches: usize,
    /// Branches kept after each depth.
    pub beam_width: usize,
    /// Depths searched before the best branch is asked for the answer.
    pub max_depth: usize,
}

impl Default for TreeOfThoughtsConfig {
    fn default() -> Self {
        TreeOfThoughtsConfig {
            n_branches: 3,
            beam_width: 2,
            max_depth: 4,
        }
    }
}

/// The Tree-of-Thoughts engine.
#[derive(Debug, Clone)]
pub struct TreeOfThoughts {
    config: TreeOfThoughtsConfig,
}

impl TreeOfThoughts {
    /// A Tree-of-Thoughts engine; every setting must be at least 1.
    pub fn new(config: TreeOfThoughtsConfig) -> Result<Self, String> {
        for (name, value) in [
            ("n_branches", config.n_branches),
            ("beam_width", config.beam_width),
            ("max_depth", config.max_depth),
        ] {
            if value == 0 {
                return Err(format!("tree-of-thoughts: {name} must be at least 1"));
            }
        }
        Ok(TreeOfThoughts { config })
    }
}

impl Engine for TreeOfThoughts {
    fn id(&self) -> &'static str {
        "tree-of-thoughts"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.search(run, conversation))
    }
}

/// A path of reasoning steps from the root.
#[derive(Debug, Clone, Default)]
struct Branch {
    steps: Vec<String>,
}

impl Branch {
    fn extended(&self, thought: &str) -> Branch {
        let mut steps = self.steps.clone();
        steps.push(thought.to_string());
        Branch { steps }
    }

    /// The steps as the prompts show them.
    fn listed(&self) -> String {
        if self.steps.is_empty() {
            return "(none yet)".to_string();
        }
        numbered(&self.steps)
    }
}

/// A branch with its newest step scored.
struct Scored {
    branch: Branch,
    score: f64,
}

/// What one generator call produced.
enum Thought {
    /// A next step.
    Step(String),
    /// The step answered the problem.
    Answer(String),
    /// A step or answer with an equation that does not hold: it scores 0
    /// without a grading call, and the next sibling is told why.
    Miscalculated { thought: String, error: String },
}

impl TreeOfThoughts {
    async fn search(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        let mut beam = vec![Branch::default()];
        for depth in 1..=self.config.max_depth {
            run.turn()?;
            run.emit(LoopEvent::StepStarted {
                index: depth,
                description: format!("depth {depth}: {} branch(es)", beam.len()),
            });
            let mut candidates = Vec::new();
            for branch in &beam {
                let mut thread = asking(
                    conversation,
                    THINK_SYSTEM,
                    self.step_prompt(conversation, branch),
                );
                let mut mistake: Option<String> = None;
                for sibling in 0..self.config.n_branches {
                    if sibling > 0 {
                        thread.push(Message::user(asking_another(mistake.take())));
                    }
                    let (thought, problem) = match think(run, &thread, sibling > 0).await? {
                        Thought::Answer(answer) => {
                            run.say(&answer);
                            return Ok(Finish::answered(answer));
                        }
                        Thought::Step(thought) if repeats(&thought, branch, &candidates) => (
                            thought,
                            Some("That step repeats an earlier one.".to_string()),
                        ),
                        Thought::Step(thought) => (thought, None),
                        Thought::Miscalculated { thought, error } => {
                            (thought, Some(format!("Your arithmetic is wrong: {error}.")))
                        }
                    };
                    thread.push(Message::assistant(thought.clone()));
                    let score = match problem {
                        None => score(run, &thread, &thought).await?,
                        Some(problem) => {
                            run.emit(LoopEvent::Score {
                                candidate: thought.clone(),
                                score: 0.0,
                            });
                            mistake = Some(problem);
                            0.0
                        }
                    };
                    candidates.push(Scored {
                        branch: branch.extended(&thought),
                        score,
                    });
                }
            }
            beam = best(candidates, self.config.beam_width);
            run.emit(LoopEvent::StepFinished {
                index: depth,
                result: beam[0].steps.last().cloned().unwrap_or_default(),
            });
        }
        self.force_answer(run, conversation, &beam[0]).await
    }

    /// The request that opens the expansion of `branch`.
    fn step_prompt(&self, conversation: &[Message], branch: &Branch) -> String {
        fill(
            STEP,
            &[
                ("problem", question(conversation)),
                ("steps", &branch.listed()),
            ],
        )
    }

    /// Out of depth: the best branch is asked for the answer.
    async fn force_answer(
        &self,
        run: &mut Run,
        conversation: &[Message],
        best: &Branch,
    ) -> Result<Finish, Halt> {
        let prompt = fill(
            ANSWER_PROMPT,
            &[
                ("problem", question(conversation)),
                ("steps", &best.listed()),
            ],
        );
        let reply = run
            .generate(
                "answer",
                asking(conversation, THINK_SYSTEM, prompt),
                CallOptions {
                    grammar: Some(protocol::score::grammar_for_answer()),
                    ..CallOptions::default()
                },
                Route::AnswerAfter(ANSWER),
            )
            .await?;
        let answer = match parse::after_marker(&reply.text, ANSWER) {
            Some(answer) if !answer.is_empty() => answer,
            _ => {
                run.format_error("the final answer has no ANSWER: line");
                let answer = reply.text.trim().to_string();
                run.say(&answer);
                answer
            }
        };
        Ok(Finish::answered(answer))
    }
}

/// Asks for the next step at the end of `thread`; a `sibling` (a second,
/// third, … candidate) is sampled warmer so a greedy model still differs.
/// Its text is reasoning: an answer is spoken only once its arithmetic
/// checks out.
async fn think(run: &mut Run, thread: &[Message], sibling: bool) -> Result<Thought, Halt> {
    let call = CallOptions {
        max_tokens: Some(THOUGHT_MAX_TOKENS),
        temperature: sibling.then_some(SIBLING_TEMPERATURE),
        grammar: Some(protocol::score::grammar_for_thought()),
        ..CallOptions::default()
    };
    let reply = run
        .generate("thought", thread.to_vec(), call, Route::Thought)
        .await?;
    let text = reply.text.trim().to_string();
    if let Some(error) = parse::false_equation(&text) {
        return Ok(Thought::Miscalculated {
            thought: text,
            error,
        });
    }
    match parse::after_marker(&text, ANSWER) {
        Some(answer) if !answer.is_empty() => Ok(Thought::Answer(answer)),
        Some(_) => {
            run.format_error("ANSWER: with nothing after it");
            Ok(Thought::Step(text))
        }
        None => Ok(Thought::Step(text)),
    }
}

/// The request for another candidate, saying first what was wrong with the
/// last one when something was.
fn asking_another(mistake: Option<String>) -> String {
    match mistake {
        Some(mistake) => format!("{mistake} {}", OTHER.trim_end()),
        None => OTHER.trim_end().to_string(),
    }
}

/// Whether `thought` is already a step of `branch` or a candidate of this
/// depth: it adds nothing, so it is not graded.
fn repeats(thought: &str, branch: &Branch, candidates: &[Scored]) -> bool {
    let same = |step: &String| step.trim().eq_ignore_ascii_case(thought.trim());
    branch.steps.iter().any(same)
        || candidates
            .iter()
            .filter_map(|c| c.branch.steps.last())
            .any(same)
}

/// Scores `thought`, the last reply of `thread`, 0–10; an unreadable score
/// is a format error and scores 0.
async fn score(run: &mut Run, thread: &[Message], thought: &str) -> Result<f64, Halt> {
    let mut messages = thread.to_vec();
    messages.push(Message::user(SCORE.trim_end()));
    let call = CallOptions {
        max_tokens: Some(SCORE_MAX_TOKENS),
        grammar: Some(protocol::score::grammar_for_score()),
        ..CallOptions::default()
    };
    let reply = run
        .generate("score", messages, call, Route::Thought)
        .await?;
    let score = match parse::first_number(&reply.text) {
        Some(score) => score.clamp(0.0, MAX_SCORE),
        None => {
            run.format_error(format!("no score in `{}`", reply.text.trim()));
            0.0
        }
    };
    run.emit(LoopEvent::Score {
        candidate: thought.to_string(),
        score,
    });
    Ok(score)
}

/// The `width` best candidates, highest score first; ties keep their order.
fn best(mut candidates: Vec<Scored>, width: usize) -> Vec<Branch> {
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    candidates
        .into_iter()
        .take(width)
        .map(|c| c.branch)
        .collect()
}

/// The conversation with `system` added and the request replaced by `prompt`
/// (which restates it), so earlier turns stay in context.
fn asking(conversation: &[Message], system: &str, prompt: String) -> Vec<Message> {
    let mut messages = with_system(conversation, system.trim_end());
    let prompt = prompt.trim_end().to_string();
    match messages.last_mut() {
        Some(last) if last.role == Role::User => last.content = prompt,
        _ => messages.push(Message::user(prompt)),
    }
    messages
}

fn numbered(items: &[String]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| format!("{}. {}", i + 1, item.replace('\n', " ")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(step: &str, score: f64) -> Scored {
        Scored {
            branch: Branch::default().extended(step),
            score,
        }
    }

    #[test]
    fn best_keeps_the_highest_and_the_first_of_ties() {
        let kept = best(
            vec![
                scored("a", 4.0),
                scored("b", 9.0),
                scored("c", 9.0),
                scored("d", 1.0),
            ],
            2,
        );
        let steps: Vec<_> = kept.iter().map(|b| b.steps[0].as_str()).collect();
        assert_eq!(steps, vec!["b", "c"]);
        assert_eq!(best(vec![scored("a", 1.0)], 3).len(), 1);
    }

    #[test]
    fn the_request_is_replaced_by_the_prompt() {
        let conversation = vec![
            Message::user("old"),
            Message::assistant("hi"),
            Message::user("q"),
        ];
        let messages = asking(&conversation, "sys\n", "prompt\n".into());
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[0].content, "sys");
        assert_eq!(messages[1].content, "old");
        assert_eq!(messages[3].content, "prompt");
        assert_eq!(asking(&[], "sys", "p".into()).len(), 2);
    }

    #[test]
    fn branches_list_their_steps() {
        assert_eq!(Branch::default().listed(), "(none yet)");
        let branch = Branch::default().extended("one\ntwo").extended("three");
        assert_eq!(branch.listed(), "1. one two\n2. three");
    }
    #[test]
    fn a_step_already_taken_or_offered_is_a_repeat() {
        let branch = Branch::default().extended("4 * 6 = 24");
        let candidates = vec![scored("1 + 1 = 2", 5.0)];
        assert!(repeats(" 4 * 6 = 24 ", &branch, &candidates));
        assert!(repeats("1 + 1 = 2", &branch, &candidates));
        assert!(!repeats("24 / 1 = 24", &branch, &candidates));
    }

    #[test]
    fn another_candidate_is_told_the_last_ones_mistake() {
        assert_eq!(asking_another(None), OTHER.trim_end());
        let asked = asking_another(Some("That step repeats an earlier one.".into()));
        assert!(asked.starts_with("That step repeats an earlier one. "));
        assert!(asked.ends_with(OTHER.trim_end()));
    }
}

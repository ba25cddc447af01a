//! ReAct (seeds 000, 001): Thought → Action → Observation, until FINAL_ANSWER.
//!
//! Before the first step the question is offered word for word to the tools
//! that read questions (a short follow-up also as the question before it
//! would have asked it: [`super::follow_up`]); a question none of them reads and
//! that holds no number is answered from knowledge (by the brain's larger
//! model, if it has one): at once when every tool of the run was offered
//! it, and with the tools only if that answer is not grounded. A word
//! problem none of them reads is worked out a step a line, the calculator
//! doing each step's arithmetic ([`super::worked`]).
//!
//! Each iteration the model writes a thought and either one tool call or
//! the final answer. Generation stops at `Observation:`, so the model
//! cannot invent a tool's result; the loop runs the tool and feeds the result back
//! as a user message `Observation: …`. Unknown tools, bad arguments and tool
//! failures are observations too, so the model can recover. A reply with
//! neither an action nor a final answer gets one reminder of the format;
//! the second such reply is taken as the answer; an empty FINAL_ANSWER, one
//! that repeats the loop's own error message or the question, or one that
//! copies the prompt's example gets an error observation (the example, if
//! it is still the best answer, is never said), and answer text is held
//! until it is settled after any error. The same call repeated (seed 002)
//! first gets a nudge instead of a second run, then ends the loop as
//! `blocked`. Out of iterations or blocked, the model is asked once more
//! for its best answer, its reply forced to start with `FINAL_ANSWER:`;
//! when that too only repeats an error, the knowledge model is asked the
//! question afresh, without the rounds. A final answer whose
//! numbers neither the conversation nor a tool's result gives is sent back
//! once with an error observation naming them ([`super::grounding`]), and
//! so is one that has numbers but not the latest tool result's; the
//! second such answer stands, unless a tool failed (then the user hears
//! that it could not be worked out). Without tools it is a
//! plain turn (seed 001), streamed as it comes. With `validate_every` set,
//! every so many rounds the model checks its progress (seed 002) and may
//! name a new approach, which the next round sees.

use super::grounding;
use super::parse::{self, FINAL_ANSWER};
use super::protocol::react::{self as protocol, react_step, ReactStep};
use super::worked;
use super::{
    fill, question, tool_list, with_system, CallOptions, Engine, EngineFuture, Finish, Halt,
};
use super::{FirstRead, LoopEvent, Route, Run, Termination};
use loopd_brain::{Message, Role};
use loopd_tools::ToolSpec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const SYSTEM: &str = include_str!("prompts/react_system.txt");
const REPEAT: &str = include_str!("prompts/react_repeat.txt");
const FALLBACK: &str = include_str!("prompts/react_fallback.txt");
const REMIND: &str = include_str!("prompts/react_remind.txt");
const VALIDATE: &str = include_str!("prompts/react_validate.txt");
const UNGROUNDED: &str = include_str!("prompts/react_ungrounded.txt");
const UNUSED: &str = include_str!("prompts/react_unused.txt");
const EXAMPLE_COPIED: &str = include_str!("prompts/react_example_copied.txt");

/// The thought a repair step starts with: the model was just told that
/// its answer's numbers came from nowhere, and now calls a tool.
const RECHECK: &str = "Thought: I will get the answer from a tool.\n";

/// The step that [`Run::read_question`] took for the model, as if it had
/// written it.
const READ: &str =
    "Thought: {tool} can read this question.\nAction: {tool}\nAction Input: {arguments}";

/// ReAct settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReactConfig {
    /// Most Thought/Action rounds before the fallback answer.
    pub max_iterations: usize,
    /// Every this many rounds, ask the model whether its approach is working
    /// and let it change course (seed 002's periodic validation; 0 = never).
    pub validate_every: usize,
    /// Before the first step, offer the question word for word to the tools
    /// that read questions in words, and start from the first answer
    /// ([`Run::read_first`]).
    pub read_first: bool,
}

impl Default for ReactConfig {
    fn default() -> Self {
        ReactConfig {
            max_iterations: 10,
            validate_every: 0,
            read_first: true,
        }
    }
}

/// The ReAct engine.
#[derive(Debug, Clone)]
pub struct React {
    config: ReactConfig,
}

impl React {
    /// A ReAct engine; `max_iterations` must be at least 1.
    pub fn new(config: ReactConfig) -> Result<Self, String> {
        if config.max_iterations == 0 {
            return Err("react: max_iterations must be at least 1".into());
        }
        Ok(React { config })
    }
}

impl Engine for React {
    fn id(&self) -> &'static str {
        "react"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.react(run, conversation))
    }
}

/// An answer sent back for its ungrounded numbers.
struct SentBack {
    /// The answer as the model gave it.
    answer: String,
    /// Whether a tool had failed before it: then an ungrounded answer is
    /// an invented one, not general knowledge.
    tool_failed: bool,
}

/// How the step after a sent-back answer is steered.
#[derive(Debug, Default, PartialEq)]
enum Repair {
    /// An ordinary step.
    #[default]
    None,
    /// The answer's numbers came from nowhere: a tool call now.
    CallTool,
    /// The answer left out the latest result (its first number): the
    /// answer now, starting with the result.
    UseResult(String),
    /// The answer repeated a tool's error: the answer now, from what the
    /// model knows.
    AnswerNow,
}

/// The last tool call, to notice the model repeating itself.
#[derive(Default)]
struct Repeats {
    last: Option<(String, Value)>,
    count: usize,
}

impl Repeats {
    /// How many times in a row this exact call has now been made.
    fn see(&mut self, tool: &str, args: &Value) -> usize {
        let same = self
            .last
            .as_ref()
            .is_some_and(|(t, a)| t == tool && a == args);
        self.count = if same { self.count + 1 } else { 1 };
        self.last = Some((tool.to_string(), args.clone()));
        self.count
    }
}

/// For every tool engine before its own method: reads the question first
/// ([`Run::read_first`]) and answers it when the reading settles it, which
/// leaves an engine's method nothing to add: a tool's answer in words,
/// said already; ReAct's answer from a tool's result for the question as
/// asked; ReAct's answer from knowledge when no tool can help (its numbers
/// still checked). `None` leaves the question to the engine.
pub(crate) async fn answer_first(
    run: &mut Run,
    conversation: &[Message],
) -> Result<Option<Finish>, Halt> {
    let first = match run.read_first(conversation).await? {
        FirstRead::Open => return Ok(None),
        FirstRead::Answered(answer) => return Ok(Some(Finish::answered(answer))),
        first => first,
    };
    let react = React {
        config: ReactConfig::default(),
    };
    react.react_from(run, conversation, first).await.map(Some)
}

impl React {
    async fn react(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        if run.tools().is_empty() {
            run.turn()?;
            let reply = run
                .generate(
                    "react",
                    conversation.to_vec(),
                    CallOptions::default(),
                    Route::Answer,
                )
                .await?;
            return Ok(Finish::answered(reply.text));
        }

        run.ground_in(conversation);
        let first = match self.config.read_first {
            true => run.read_first(conversation).await?,
            false => FirstRead::Open,
        };
        self.react_from(run, conversation, first).await
    }

    /// The loop, after the question was read first ([`Run::read_first`]).
    async fn react_from(
        &self,
        run: &mut Run,
        conversation: &[Message],
        first: FirstRead,
    ) -> Result<Finish, Halt> {
        let names = run.tools().names().join(", ");
        let system = fill(
            SYSTEM,
            &[("tools", &tool_list(run.tools())), ("names", &names)],
        );
        let mut messages = with_system(conversation, &system);
        let mut repair = Repair::None;
        let mut repeats = Repeats::default();
        let mut reminded = false;
        let mut sent_back: Option<SentBack> = None;
        let mut termination = Termination::MaxTurns;
        let mut answer_at_once = false;
        let mut told_an_error = false;
        let mut first_result = None;
        match first {
            FirstRead::Answered(answer) => return Ok(Finish::answered(answer)),
            FirstRead::Read(reads) => {
                if let [read] = reads.as_slice() {
                    first_result = whole_result(&read.observed);
                }
                for read in reads {
                    repeats.see(&read.tool, &read.arguments);
                    messages.push(Message::assistant(fill(
                        READ,
                        &[
                            ("tool", &read.tool),
                            ("arguments", &read.arguments.to_string()),
                        ],
                    )));
                    messages.push(Message::user(format!(
                        "Observation: {}",
                        read.observed.text
                    )));
                }
            }
            FirstRead::NoToolHelps => {
                answer_at_once = true;
                if let Some(asked) = super::heard::without_a_claim(question(conversation)) {
                    if let Some(last) = messages.iter_mut().rev().find(|m| m.role == Role::User) {
                        last.content = asked;
                    }
                }
            }
            FirstRead::Open if worked::can_work(run) => {
                if let Some(asked) = word_problem_asked(conversation) {
                    return worked::solve(run, &asked).await;
                }
            }
            FirstRead::Open => {}
        }

        for round in 1..=self.config.max_iterations {
            run.turn()?;
            let allowed = run.allowed_numbers();
            let repairing = std::mem::take(&mut repair);
            let checking_now = repairing == Repair::CallTool;
            let inputs = super::protocol::Inputs {
                numbers: allowed.as_deref(),
                question: (checking_now && !self.config.read_first).then(|| question(conversation)),
            };
            let call = match &repairing {
                Repair::CallTool => call_now(&run.tools().specs(), inputs),
                Repair::UseResult(result) => answer_with(result),
                Repair::AnswerNow => final_answer_now(),
                Repair::None if round == 1 && answer_at_once => final_answer_now(),
                Repair::None => stop_at_observation(&run.tools().specs(), inputs),
            };
            let reply = run
                .generate("react", messages.clone(), call, answer_route())
                .await?;
            let step = react_step(&reply.text);
            let called_a_tool = matches!(&step, ReactStep::Action { input: Ok(_), .. });
            let observation = match step {
                ReactStep::Final(answer)
                    if told_an_error && answer.trim_start().starts_with("Error:") =>
                {
                    run.format_error("FINAL_ANSWER repeating the loop's error message");
                    "Error: that is an error message, not an answer. Write the answer to the \
                     user's question after FINAL_ANSWER:"
                        .into()
                }
                ReactStep::Final(answer) if repeats_a_tool_error(&answer, &messages) => {
                    run.format_error("FINAL_ANSWER repeating a tool's error");
                    repair = Repair::AnswerNow;
                    "Error: that repeats the tool's error, not an answer. Answer the user's \
                     question from what you know after FINAL_ANSWER:"
                        .into()
                }
                ReactStep::Final(answer) if copies_the_example(&answer, conversation) => {
                    run.format_error("FINAL_ANSWER copying the prompt's example");
                    if let Some(result) = run.latest_result().first() {
                        repair = Repair::UseResult(result.clone());
                    }
                    fill(
                        EXAMPLE_COPIED,
                        &[("question", question(conversation).trim())],
                    )
                    .trim_end()
                    .to_string()
                }
                ReactStep::Final(answer)
                    if super::speakable::echoes(&answer, question(conversation)) =>
                {
                    run.format_error("FINAL_ANSWER repeating the question");
                    repair = Repair::AnswerNow;
                    "Error: that repeats the question, not an answer. Answer the question from \
                     what you know after FINAL_ANSWER:"
                        .into()
                }
                ReactStep::Final(answer) if !answer.is_empty() => {
                    if let Some(told) = run.misquoted_time(&answer) {
                        run.say(&told);
                        return Ok(Finish::answered(told));
                    }
                    let numbers = run.ungrounded(&answer);
                    let unused = run.leaves_out_result(&answer);
                    let grounded = numbers.is_empty() || run.remembered(&answer, &numbers);
                    if grounded && (unused.is_none() || sent_back.is_some()) {
                        run.deliver(&answer);
                        return Ok(Finish::answered(answer));
                    }
                    if let Some(earlier) = &sent_back {
                        // A clock time or an amount of money no source gives,
                        // after a tool failed to find it, is made up.
                        let made_up =
                            run.a_tool_failed() && super::fact::tells_time_or_money(&answer);
                        let failed = earlier.tool_failed || made_up;
                        return Ok(Finish::answered(grounding::accept(run, answer, failed)));
                    }
                    sent_back = Some(SentBack {
                        answer: answer.clone(),
                        tool_failed: run.computation_failed(),
                    });
                    match unused {
                        Some(result) if numbers.is_empty() => {
                            repair = Repair::UseResult(result.first().cloned().unwrap_or_default());
                            fill(UNUSED, &[("numbers", &result.join(", "))])
                        }
                        _ => {
                            repair = Repair::CallTool;
                            run.ungrounded_answer(&numbers);
                            fill(UNGROUNDED, &[("numbers", &numbers.join(", "))])
                        }
                    }
                    .trim_end()
                    .to_string()
                }
                ReactStep::Final(_) => {
                    run.format_error("FINAL_ANSWER with nothing after it");
                    "Error: FINAL_ANSWER was empty. Write the answer after FINAL_ANSWER:".into()
                }
                ReactStep::Action {
                    tool,
                    input: Err(reason),
                } => {
                    run.format_error(format!("Action Input for `{tool}`: {reason}"));
                    if let Some(value) = first_result.filter(|_| round == 1) {
                        let answer =
                            loopd_tools::math::spoken::result(question(conversation), value);
                        run.deliver(&answer);
                        return Ok(Finish::answered(answer));
                    }
                    format!("Error: the Action Input must be one JSON object ({reason}).")
                }
                ReactStep::Action {
                    tool,
                    input: Ok(args),
                } => match repeats.see(&tool, &args) {
                    1 => {
                        let observed = run.call_tool(&tool, args).await?;
                        if observed.is_error && loopd_tools::sends_to_knowledge(&observed.text) {
                            repair = Repair::AnswerNow;
                        }
                        match &sent_back {
                            Some(earlier)
                                if checking_now && observed.is_error && !earlier.tool_failed =>
                            {
                                run.say(&earlier.answer);
                                return Ok(Finish::answered(earlier.answer.clone()));
                            }
                            _ => observed.text,
                        }
                    }
                    2 => fill(REPEAT, &[("tool", &tool)]),
                    _ => {
                        termination = Termination::Blocked;
                        break;
                    }
                },
                ReactStep::Text if !reminded => {
                    run.format_error("neither an Action nor a FINAL_ANSWER");
                    reminded = true;
                    REMIND.trim_end().to_string()
                }
                ReactStep::Text => {
                    run.format_error("neither an Action nor a FINAL_ANSWER, again");
                    let text = reply.text.trim();
                    let answer = text
                        .strip_prefix("Thought:")
                        .unwrap_or(text)
                        .trim()
                        .to_string();
                    run.say(&answer);
                    return Ok(Finish::answered(answer));
                }
            };
            told_an_error = !called_a_tool && observation.starts_with("Error:");
            if observation.starts_with("Error:") {
                run.hold_answers();
            }
            messages.push(Message::assistant(reply.text.trim_end()));
            messages.push(Message::user(format!("Observation: {observation}")));
            let due = self.config.validate_every > 0 && round % self.config.validate_every == 0;
            if due && round < self.config.max_iterations {
                validate(run, &mut messages).await?;
            }
        }

        messages.push(Message::user(FALLBACK.trim_end()));
        let reply = run
            .generate(
                "react-fallback",
                messages.clone(),
                final_answer_now(),
                answer_route(),
            )
            .await?;
        let answer = match parse::after_marker(&reply.text, FINAL_ANSWER) {
            Some(answer) if says_no_answer(&answer, question(conversation), &messages) => {
                run.format_error("fallback answer repeating the loop's errors");
                answer_afresh(run, with_system(conversation, &system), &messages).await?
            }
            Some(answer) if copies_the_example(&answer, conversation) => {
                grounding::accept(run, answer, true)
            }
            Some(answer) if run.ungrounded(&answer).is_empty() => {
                run.deliver(&answer);
                answer
            }
            Some(answer) => {
                let failed = run.computation_failed();
                grounding::accept(run, answer, failed)
            }
            None => {
                run.format_error("fallback answer without FINAL_ANSWER");
                let answer = reply.text.trim().to_string();
                run.say(&answer);
                answer
            }
        };
        Ok(Finish {
            answer,
            termination,
        })
    }
}

/// The conversation to work out a step a line when its question is a
/// word problem ([`worked::is_word_problem`]): as it is, or as the
/// follow-up's rewriting of the question before asks it ("And if I bump
/// it up to 100 kg a hectare?" after "I'm putting out 85 kg of MAP a
/// hectare over 240 hectares. How many tonnes of fertiliser is that?"),
/// without the turns before.
fn word_problem_asked(conversation: &[Message]) -> Option<Vec<Message>> {
    if worked::is_word_problem(question(conversation)) {
        return Some(conversation.to_vec());
    }
    let rewritten = super::follow_up::in_context(conversation)?;
    worked::is_word_problem(&rewritten).then(|| {
        conversation
            .iter()
            .filter(|m| m.role == Role::System)
            .cloned()
            .chain(std::iter::once(Message::user(rewritten)))
            .collect()
    })
}

/// Whether `answer` is no answer but the loop's own words or the user's:
/// a tool's error repeated, the format's marker, or the question `asked`
/// said back.
fn says_no_answer(answer: &str, asked: &str, messages: &[Message]) -> bool {
    let marked = parse::find_marker(answer, FINAL_ANSWER).is_some();
    answer.trim().is_empty()
        || marked
        || repeats_a_tool_error(answer, messages)
        || super::speakable::echoes(answer, asked)
}

/// The answer asked afresh of the knowledge model, from the question
/// alone (`fresh`), when the loop's rounds gave only errors; a reply that
/// still repeats them (`rounds`) is not said, and the user hears that it
/// could not be answered.
async fn answer_afresh(
    run: &mut Run,
    fresh: Vec<Message>,
    rounds: &[Message],
) -> Result<String, Halt> {
    run.use_knowledge_model();
    let asked = question(&fresh).to_string();
    let reply = run
        .generate("react-afresh", fresh, final_answer_now(), answer_route())
        .await?;
    match parse::after_marker(&reply.text, FINAL_ANSWER) {
        Some(answer) if !says_no_answer(&answer, &asked, rounds) => {
            run.deliver(&answer);
            Ok(answer)
        }
        _ => {
            run.say(NO_ANSWER);
            Ok(NO_ANSWER.to_string())
        }
    }
}

/// What the user hears when no round gave an answer.
const NO_ANSWER: &str = "Sorry, I couldn't work that out.";

/// Whether `answer` names the system prompt's example
/// ([`grounding::names_the_example`]) and the conversation does not.
fn copies_the_example(answer: &str, conversation: &[Message]) -> bool {
    grounding::names_the_example(answer)
        && !conversation
            .iter()
            .filter(|m| m.role != loopd_brain::Role::System)
            .any(|m| grounding::names_the_example(&m.content))
}

/// Seed 002's periodic check: the model judges its progress; a new approach
/// it names is added to the conversation for the next round.
async fn validate(run: &mut Run, messages: &mut [Message]) -> Result<(), Halt> {
    let mut asked = messages.to_vec();
    asked.push(Message::user(VALIDATE.trim_end()));
    let reply = run
        .generate("validate", asked, CallOptions::default(), Route::Thought)
        .await?;
    match parse::after_marker(&reply.text, &["replan:"]) {
        Some(approach) if !approach.is_empty() => {
            run.emit(LoopEvent::Reflection {
                text: approach.clone(),
            });
            if let Some(last) = messages.last_mut() {
                last.content = format!("{}\nNew approach: {approach}", last.content);
            }
        }
        _ if parse::has_word(&reply.text, "on_track") => {}
        _ => run.format_error("a progress check with neither ON_TRACK nor REPLAN:"),
    }
    Ok(())
}

/// ReAct calls stop before `Observation:` (the loop writes those) and start
/// the reply with `Thought:`, which keeps small models in the format; the
/// step's grammar allows only the run's tools with valid arguments, whose
/// numbers come from the question and earlier results when grounding is
/// on (`allowed`).
fn stop_at_observation(tools: &[&ToolSpec], inputs: super::protocol::Inputs) -> CallOptions {
    CallOptions {
        stop: vec!["Observation:".into()],
        prefix: "Thought:".into(),
        grammar: Some(protocol::step_grammar(tools, inputs)),
        ..CallOptions::default()
    }
}

/// The step after an ungrounded answer: a tool call, its thought written
/// for the model.
fn call_now(tools: &[&ToolSpec], inputs: super::protocol::Inputs) -> CallOptions {
    CallOptions {
        stop: vec!["Observation:".into()],
        prefix: RECHECK.into(),
        grammar: Some(protocol::call_grammar(tools, inputs)),
        ..CallOptions::default()
    }
}

/// The result of a tool that read the whole question and computed it
/// (`{"result": 696.0}`): the answer when the model's very next step is a
/// call with a broken input (a small model then quotes the error back in
/// every later call).
fn whole_result(observed: &super::Observed) -> Option<f64> {
    if observed.is_error {
        return None;
    }
    let value: Value = serde_json::from_str(&observed.text).ok()?;
    value.get("result")?.as_f64()
}

/// The step after an answer that left out the latest result: the answer
/// again, started for the model with the result, and ended before an
/// aside (the model copies the error it was last shown into one).
fn answer_with(result: &str) -> CallOptions {
    let mut call = final_answer_now();
    call.stop.extend(["(".to_string(), "\n".to_string()]);
    CallOptions {
        prefix: format!("Thought: The result is {result}.\nFINAL_ANSWER: The answer is {result}")
            .into(),
        ..call
    }
}

/// The fallback call starts the reply with the marker, so even a model
/// stuck in a tool-calling rut gives an answer.
fn final_answer_now() -> CallOptions {
    CallOptions {
        stop: vec![
            "Observation:".into(),
            "\nThought:".into(),
            "\nAction:".into(),
        ],
        prefix: "FINAL_ANSWER:".into(),
        grammar: Some(protocol::answer_grammar()),
        ..CallOptions::default()
    }
}

/// Words in a row an answer may share with a tool's error before it is
/// taken as repeating it.
const ERROR_WORDS_REPEATED: usize = 6;

/// Whether `answer` repeats the last tool error observed in `messages`
/// ("… is not about the time or the calendar"): six of its words in a
/// row, not counting what the error quotes (between backticks: the
/// question, which an answer may echo).
fn repeats_a_tool_error(answer: &str, messages: &[Message]) -> bool {
    let Some(error) = messages
        .iter()
        .rev()
        .filter(|m| m.role == Role::User)
        .find_map(|m| m.content.strip_prefix("Observation: Error:"))
    else {
        return false;
    };
    let words = |text: &str| -> Vec<String> {
        text.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let unquoted: String = error.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let (error, answer) = (words(&unquoted), words(answer));
    error.len().min(answer.len()) >= ERROR_WORDS_REPEATED
        && error
            .windows(ERROR_WORDS_REPEATED)
            .any(|run| answer.windows(ERROR_WORDS_REPEATED).any(|said| said == run))
}

fn answer_route() -> Route {
    Route::AnswerAfter(FINAL_ANSWER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_repeating_a_tools_error_is_noticed() {
        let messages = [
            Message::user("Which fruit is the king of fruits?"),
            Message::assistant("Action: clock"),
            Message::user(
                "Observation: Error: `Which fruit is the king of fruits?` is not about the \
                 time or the calendar: answer it from what you know, or use another tool",
            ),
        ];
        assert!(repeats_a_tool_error(
            "The king of fruits? is not about the time or the calendar.",
            &messages
        ));
        assert!(!repeats_a_tool_error(
            "Which fruit is the king of fruits? The durian.",
            &messages
        ));
        assert!(!repeats_a_tool_error(
            "The durian is the king of fruits.",
            &messages[..1]
        ));
    }
}

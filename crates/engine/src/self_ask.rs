//! Self-Ask (seed 000): Follow up → Intermediate answer → … → So the final
//! answer is.
//!
//! With tools, each reply is one step: `So the final answer is: …` ends the
//! loop (the text after it streams live); `Tool: X` with `Tool Input: …`
//! calls X (plain text fills its single required string argument, or a JSON
//! object gives the arguments); `Follow up: Q` goes to the first tool that
//! takes one required string (a lookup). With no such tool the model answers
//! the follow-up itself in a short extra call, so every intermediate answer
//! in the transcript still comes from the engine. Generation stops at
//! `Intermediate answer:`, so the model cannot invent results; the result
//! comes back as a user message `Intermediate answer: …`. A reply with no
//! marker is a format error and its text is the answer.
//!
//! Without tools it is a pure decomposer: the model writes its own
//! intermediate answers in one reply (no stop string). A chain that ends
//! without a final answer gets one request for it.
//!
//! Out of follow-ups, the model is asked once for its best final answer
//! (termination `max_turns`); so is a model that asks a follow-up or calls
//! a tool it already did (termination `blocked`).
//!
//! A question that a tool reads as asked, or that no tool can help with,
//! is answered before the first follow-up ([`super::react::answer_first`]).

use super::grounding;
use super::parse;
use super::protocol;
use super::react::answer_first;
use super::{fill, tool_list, with_system, CallOptions, Engine, EngineFuture, Finish, Halt};
use super::{Route, Run, Termination};
use loopd_brain::Message;
use loopd_tools::Toolset;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

const WITH_TOOLS: &str = include_str!("prompts/self_ask_tools.txt");
const DECOMPOSER: &str = include_str!("prompts/self_ask_plain.txt");
const NO_LOOKUP: &str = include_str!("prompts/self_ask_no_lookup.txt");
const FINAL: &str = include_str!("prompts/self_ask_final.txt");

/// The final-answer marker of Self-Ask.
const FINAL_ANSWER: &[&str] = &["so the final answer is:"];
const INTERMEDIATE: &str = "Intermediate answer:";

/// Self-Ask settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfAskConfig {
    /// Most follow-up steps before the model is asked for its final answer.
    pub max_follow_ups: usize,
}

impl Default for SelfAskConfig {
    fn default() -> Self {
        SelfAskConfig { max_follow_ups: 8 }
    }
}

/// The Self-Ask engine.
#[derive(Debug, Clone)]
pub struct SelfAsk {
    config: SelfAskConfig,
}

impl SelfAsk {
    /// A Self-Ask engine; `max_follow_ups` must be at least 1.
    pub fn new(config: SelfAskConfig) -> Result<Self, String> {
        if config.max_follow_ups == 0 {
            return Err("self-ask: max_follow_ups must be at least 1".into());
        }
        Ok(SelfAsk { config })
    }
}

impl Engine for SelfAsk {
    fn id(&self) -> &'static str {
        "self-ask"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.self_ask(run, conversation))
    }
}

/// What one Self-Ask reply asks for.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// `So the final answer is: …` (takes priority over everything else).
    Final(String),
    /// `Tool: name` with the text after `Tool Input:` (empty when missing).
    Tool { name: String, input: String },
    /// `Follow up: question`.
    FollowUp(String),
    /// None of these.
    Text,
}

impl SelfAsk {
    async fn self_ask(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        let decomposer = run.tools().is_empty();
        let (system, mut call) = if decomposer {
            (DECOMPOSER.to_string(), CallOptions::default())
        } else {
            let system = fill(WITH_TOOLS, &[("tools", &tool_list(run.tools()))]);
            (system, stop_at_intermediate())
        };
        call.grammar = Some(protocol::self_ask::grammar_for_step(&run.tools().specs()));
        let mut messages = with_system(conversation, system.trim_end());
        let lookup = lookup_tool(run.tools());
        let mut termination = Termination::MaxTurns;
        run.ground_in(conversation);
        if let Some(finish) = answer_first(run, conversation).await? {
            return Ok(finish);
        }
        run.hold_answers();

        let mut asked: Vec<Step> = Vec::new();
        for _ in 0..self.config.max_follow_ups {
            run.turn()?;
            let reply = run
                .generate("self-ask", messages.clone(), call.clone(), answer_route())
                .await?;
            let step = parse_step(&reply.text);
            let lookup_step = matches!(step, Step::Tool { .. } | Step::FollowUp(_));
            if lookup_step && asked.contains(&step) {
                termination = Termination::Blocked;
                break;
            }
            asked.push(step.clone());
            let result = match step {
                Step::Final(answer) if !answer.is_empty() => {
                    return grounding::settle(run, conversation, answer).await
                }
                Step::Text if !reply.text.trim().is_empty() => {
                    run.format_error("no Follow up, Tool or final answer");
                    let answer = reply.text.trim().to_string();
                    run.say(&answer);
                    return Ok(Finish::answered(answer));
                }
                Step::Final(_) | Step::Text => {
                    run.format_error("an empty reply or final answer");
                    messages.push(Message::assistant(reply.text.trim_end()));
                    termination = Termination::Answered;
                    break;
                }
                _ if decomposer => {
                    messages.push(Message::assistant(reply.text.trim_end()));
                    termination = Termination::Answered;
                    break;
                }
                Step::Tool { name, input } => named_tool(run, &name, &input).await?,
                Step::FollowUp(question) => match &lookup {
                    Some((tool, argument)) => {
                        run.call_tool(tool, json!({ argument.as_str(): question }))
                            .await?
                            .text
                    }
                    None => own_answer(run, &messages, &reply.text).await?,
                },
            };
            messages.push(Message::assistant(reply.text.trim_end()));
            messages.push(Message::user(format!("{INTERMEDIATE} {result}")));
        }

        messages.push(Message::user(FINAL.trim_end()));
        call.grammar = Some(protocol::self_ask::grammar_for_final());
        let reply = run
            .generate("self-ask-final", messages, call, answer_route())
            .await?;
        let answer = match parse::after_marker(&reply.text, FINAL_ANSWER) {
            Some(answer) if !answer.is_empty() => {
                let settled = grounding::settle(run, conversation, answer).await?;
                return Ok(Finish {
                    termination,
                    ..settled
                });
            }
            _ => {
                run.format_error("the last answer has no `So the final answer is:`");
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

fn stop_at_intermediate() -> CallOptions {
    CallOptions {
        stop: vec![INTERMEDIATE.into()],
        ..CallOptions::default()
    }
}

fn answer_route() -> Route {
    Route::AnswerAfter(FINAL_ANSWER)
}

/// Reads one reply: final answer, then a named tool, then a follow-up.
fn parse_step(text: &str) -> Step {
    if let Some(answer) = parse::after_marker(text, FINAL_ANSWER) {
        return Step::Final(answer);
    }
    if let Some(name) = parse::field(text, "tool").map(|n| tool_name(&n)) {
        if !name.is_empty() {
            let input = parse::find_marker(text, &["tool input:", "tool_input:"])
                .map_or("", |(_, end)| parse::json_or_line(&text[end..]));
            return Step::Tool {
                name,
                input: input.to_string(),
            };
        }
    }
    match parse::field(text, "follow up").or_else(|| parse::field(text, "follow-up")) {
        Some(question) if !question.is_empty() => Step::FollowUp(question),
        _ => Step::Text,
    }
}

fn tool_name(value: &str) -> String {
    value
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c.is_whitespace())
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_string()
}

/// The first tool taking exactly one required string argument, with that
/// argument's name: where follow-up questions go.
fn lookup_tool(tools: &Toolset) -> Option<(String, String)> {
    tools.specs().into_iter().find_map(|spec| {
        parse::single_string_argument(&spec.argument_schema)
            .map(|argument| (spec.name.clone(), argument.to_string()))
    })
}

/// Calls the tool the model named. An unknown tool is still called (with the
/// input as a JSON object, or `{}`), so the result names the tools there are.
async fn named_tool(run: &mut Run, name: &str, input: &str) -> Result<String, Halt> {
    let arguments = match run.tools().get(name) {
        Some(tool) => parse::tool_arguments(input, &tool.spec().argument_schema),
        None => Ok(parse::json_object(input).unwrap_or_else(|_| Value::Object(Default::default()))),
    };
    match arguments {
        Ok(arguments) => Ok(run.call_tool(name, arguments).await?.text),
        Err(reason) => {
            run.format_error(format!("Tool Input for `{name}`: {reason}"));
            Ok(format!("Error: {reason}"))
        }
    }
}

/// The model's own answer to a follow-up no tool can look up: one line.
async fn own_answer(run: &mut Run, messages: &[Message], reply: &str) -> Result<String, Halt> {
    let mut messages = messages.to_vec();
    messages.push(Message::assistant(reply.trim_end()));
    messages.push(Message::user(NO_LOOKUP.trim_end()));
    let call = CallOptions {
        stop: vec!["Follow up:".into(), "So the final answer".into()],
        grammar: Some(protocol::self_ask::grammar_for_own_answer()),
        ..CallOptions::default()
    };
    let own = run
        .generate("self-ask-own", messages, call, Route::Thought)
        .await?;
    let line = own
        .text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    let answer = match parse::find_marker(line, &[INTERMEDIATE]) {
        Some((0, end)) => line[end..].trim(),
        _ => line,
    };
    Ok(if answer.is_empty() {
        "unknown".to_string()
    } else {
        answer.to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_answer_wins() {
        assert_eq!(
            parse_step("Follow up: x\nSo the final answer is: Paris."),
            Step::Final("Paris.".into())
        );
        assert_eq!(
            parse_step("so the final answer is:"),
            Step::Final(String::new())
        );
    }

    #[test]
    fn named_tool_with_text_or_json_input() {
        assert_eq!(
            parse_step("Follow up: how much?\nTool: `add`\nTool Input: {\"a\": 1,\n\"b\": 2}"),
            Step::Tool {
                name: "add".into(),
                input: "{\"a\": 1,\n\"b\": 2}".into()
            }
        );
        assert_eq!(
            parse_step("Tool: lookup\nTool Input: capital of France\nmore"),
            Step::Tool {
                name: "lookup".into(),
                input: "capital of France".into()
            }
        );
        assert_eq!(
            parse_step("Tool: lookup"),
            Step::Tool {
                name: "lookup".into(),
                input: String::new()
            }
        );
    }

    #[test]
    fn follow_ups_and_text() {
        assert_eq!(
            parse_step("Are follow up questions needed here: Yes.\nFollow up: Who won?"),
            Step::FollowUp("Who won?".into())
        );
        assert_eq!(
            parse_step("Follow-up: Who won?"),
            Step::FollowUp("Who won?".into())
        );
        assert_eq!(parse_step("Follow up:"), Step::Text);
        assert_eq!(parse_step("Tool:  \nno input"), Step::Text);
        assert_eq!(parse_step("Tool Input: x"), Step::Text);
        assert_eq!(parse_step("Paris."), Step::Text);
        assert_eq!(parse_step(""), Step::Text);
    }

    #[test]
    fn config_is_validated() {
        assert!(SelfAsk::new(SelfAskConfig::default()).is_ok());
        assert!(SelfAsk::new(SelfAskConfig { max_follow_ups: 0 }).is_err());
    }
}

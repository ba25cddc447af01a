//! Native tool calling: the tools go through the model's own chat template
//! and the model answers in its trained tool-call format.
//!
//! Each iteration the model either answers in plain words (streamed live) or
//! writes one or more tool calls — `<tool_call>{"name":…,"arguments":{…}}</tool_call>`
//! blocks or a bare JSON object. The calls go back into the conversation as
//! the assistant message's `tool_calls` and each result as a `tool` message.
//! A call that cannot be read is a format error, answered with an error tool
//! message so the model can write it again. A call already made is not run
//! again: the model is reminded of the result; a reply with nothing but
//! repeats means the model has what it will get, and the answer comes from
//! the results; so does a reply that calls the same one tool as the
//! [`MAX_SAME_TOOL_REPLIES`] replies before it. A model whose template has no
//! tool support runs ReAct instead; without tools this is a plain turn.
//! Out of iterations, the model is asked for an answer from the results,
//! without tools. Constrained, each reply is one call whose arguments fit
//! the tool's schema, or an answer. An empty reply is a format error, and
//! the answer is then asked for from the results, without tools. An answer
//! with numbers no source gives is sent back once, and the reply after it
//! must be a tool call; the next answer stands (or, after a tool error,
//! the user hears that it could not be worked out). A question that a tool
//! reads as asked, or that no tool can help with, is answered before the
//! first call ([`super::react::answer_first`]).

use super::grounding;
use super::parse::{self, ToolCall};
use super::plain::Plain;
use super::protocol;
use super::react::{answer_first, React, ReactConfig};
use super::{
    fill, question, CallOptions, Engine, EngineFuture, Finish, Halt, Route, Run, Termination,
    MAX_CALLS_PER_REPLY,
};
use loopd_brain::{FunctionCall, Message, Role, ToolCallMessage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

const INVALID: &str = include_str!("prompts/native_invalid.txt");
const FINAL: &str = include_str!("prompts/native_final.txt");
const REPEAT: &str = include_str!("prompts/native_repeat.txt");
const UNGROUNDED: &str = include_str!("prompts/native_ungrounded.txt");

/// How a reply that is a tool call starts (a tag, a bare JSON object or a
/// JSON code fence); anything else is spoken.
const CALL_PREFIXES: &[&str] = &["<tool_call>", "{", "```"];
/// Most replies in a row that call the same one tool. A small model may feed
/// each result back into the tool (95 °F → 35 °C, then 35 °F → 1.7 °C, …);
/// the reply after that many is not run and the answer comes from the
/// results.
const MAX_SAME_TOOL_REPLIES: usize = 2;
/// Where a model that goes on to invent the tool's result is stopped.
const TOOL_RESPONSE: &str = "<tool_response>";

/// Native tool-calling settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NativeToolsConfig {
    /// Most model replies with tool calls before the answer is forced.
    pub max_iterations: usize,
}

impl Default for NativeToolsConfig {
    fn default() -> Self {
        NativeToolsConfig { max_iterations: 10 }
    }
}

/// The native tool-calling engine.
#[derive(Debug, Clone)]
pub struct NativeTools {
    config: NativeToolsConfig,
    fallback: React,
}

impl NativeTools {
    /// A native tool-calling engine; `max_iterations` must be at least 1.
    pub fn new(config: NativeToolsConfig) -> Result<Self, String> {
        if config.max_iterations == 0 {
            return Err("native-tools: max_iterations must be at least 1".into());
        }
        let fallback = React::new(ReactConfig {
            max_iterations: config.max_iterations,
            ..ReactConfig::default()
        })?;
        Ok(NativeTools { config, fallback })
    }
}

impl Engine for NativeTools {
    fn id(&self) -> &'static str {
        "native-tools"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(async move {
            if run.tools().is_empty() {
                return Plain.run(run, conversation).await;
            }
            if !run.template_supports_tools() {
                run.chose("react", "the chat template has no tool support");
                return self.fallback.run(run, conversation).await;
            }
            self.call_tools(run, conversation).await
        })
    }
}

impl NativeTools {
    async fn call_tools(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        let tools: Vec<Value> = run
            .tools()
            .specs()
            .iter()
            .map(|s| s.as_function())
            .collect();
        let grammar = protocol::native::grammar_for_reply(&run.tools().specs());
        let must_call = protocol::native::grammar_for_call(&run.tools().specs());
        run.ground_in(conversation);
        if let Some(finish) = answer_first(run, conversation).await? {
            return Ok(finish);
        }
        let mut messages = conversation.to_vec();
        let mut made = Made::default();
        let mut sent_back = false;
        let mut call_now = false;
        let mut termination = Termination::MaxTurns;
        let mut streak = Streak::default();
        for _ in 0..self.config.max_iterations {
            run.turn()?;
            let repairing = std::mem::take(&mut call_now);
            let call = CallOptions {
                stop: vec![TOOL_RESPONSE.into()],
                tools: tools.clone(),
                grammar: Some(match repairing {
                    true => must_call.clone(),
                    false => grammar.clone(),
                }),
                ..CallOptions::default()
            };
            let reply = run
                .generate(
                    "native-tools",
                    messages.clone(),
                    call,
                    Route::AnswerUnlessStarts(CALL_PREFIXES),
                )
                .await?;
            let calls = match reply.tool_calls.as_slice() {
                [] => parse::tool_calls(&reply.text),
                returned => parse::returned_tool_calls(returned),
            };
            if calls.is_empty() {
                let answer = reply.text.trim();
                if answer.is_empty() {
                    run.format_error("an empty reply");
                    termination = Termination::Answered;
                    break;
                }
                let numbers = run.ungrounded(answer);
                if numbers.is_empty() {
                    run.deliver(answer);
                    return Ok(Finish::answered(answer));
                }
                if sent_back {
                    let failed = run.computation_failed();
                    return Ok(Finish::answered(grounding::accept(
                        run,
                        answer.to_string(),
                        failed,
                    )));
                }
                sent_back = true;
                call_now = true;
                run.ungrounded_answer(&numbers);
                messages.push(Message::assistant(answer));
                messages.push(Message::user(
                    fill(UNGROUNDED, &[("numbers", &numbers.join(", "))]).trim_end(),
                ));
                continue;
            }
            if calls.len() > MAX_CALLS_PER_REPLY {
                run.format_error(format!(
                    "{} tool calls in one reply; only the first {MAX_CALLS_PER_REPLY} were run",
                    calls.len()
                ));
            }
            let calls: Vec<_> = calls.into_iter().take(MAX_CALLS_PER_REPLY).collect();
            if streak.extend(&calls) > MAX_SAME_TOOL_REPLIES {
                termination = Termination::Answered;
                break;
            }
            messages.push(assistant_message(&reply.text, &calls));
            let mut only_repeats = true;
            for call in calls {
                let result = match call {
                    Ok(ToolCall { name, arguments }) if made.contains(&name, &arguments) => {
                        let nudge = fill(REPEAT, &[("tool", &name)]);
                        tool_message(Some(name), nudge)
                    }
                    Ok(ToolCall { name, arguments }) => {
                        only_repeats = false;
                        let observed = run.call_tool(&name, arguments.clone()).await?;
                        made.add(&name, arguments, &observed.text);
                        tool_message(Some(name), observed.text)
                    }
                    Err(reason) => {
                        only_repeats = false;
                        run.format_error(format!("tool call: {reason}"));
                        tool_message(None, fill(INVALID, &[("reason", &reason)]))
                    }
                };
                messages.push(result);
            }
            if only_repeats {
                termination = Termination::Answered;
                break;
            }
        }
        self.answer_without_tools(run, conversation, &made, termination)
            .await
    }

    /// The last call: the results so far in a plain prompt, no tools offered
    /// (a model that saw its own tool calls tends to write more). A reply
    /// that is still a tool call has nothing to speak: a format error and an
    /// empty answer.
    async fn answer_without_tools(
        &self,
        run: &mut Run,
        conversation: &[Message],
        made: &Made,
        termination: Termination,
    ) -> Result<Finish, Halt> {
        let prompt = fill(
            FINAL,
            &[
                ("question", question(conversation)),
                ("results", &made.results()),
            ],
        );
        let reply = run
            .generate(
                "native-final",
                replace_request(conversation, prompt),
                CallOptions {
                    grammar: Some(protocol::native::grammar_for_answer()),
                    ..CallOptions::default()
                },
                Route::AnswerUnlessStarts(CALL_PREFIXES),
            )
            .await?;
        let answer = if parse::tool_calls(&reply.text).is_empty() && reply.tool_calls.is_empty() {
            let answer = reply.text.trim().to_string();
            if run.ungrounded(&answer).is_empty() {
                run.deliver(&answer);
                answer
            } else {
                let failed = run.computation_failed();
                grounding::accept(run, answer, failed)
            }
        } else {
            run.format_error("a tool call where an answer was asked for");
            String::new()
        };
        Ok(Finish {
            answer,
            termination,
        })
    }
}

/// The conversation with its last user message (the request) replaced.
fn replace_request(conversation: &[Message], prompt: String) -> Vec<Message> {
    let mut messages = conversation.to_vec();
    let prompt = prompt.trim_end().to_string();
    match messages.iter_mut().rev().find(|m| m.role == Role::User) {
        Some(request) => request.content = prompt,
        None => messages.push(Message::user(prompt)),
    }
    messages
}

/// The one tool that the latest replies called, and how many replies in a
/// row called only it.
#[derive(Default)]
struct Streak {
    tool: Option<String>,
    replies: usize,
}

impl Streak {
    /// Counts a reply with `calls`; returns the length of the streak.
    fn extend(&mut self, calls: &[Result<ToolCall, String>]) -> usize {
        let mut names = calls.iter().map(|c| c.as_ref().ok().map(|c| &c.name));
        let first = names.next().flatten();
        let one_tool = first.is_some() && names.all(|n| n == first);
        match first {
            Some(name) if one_tool && self.tool.as_ref() == Some(name) => self.replies += 1,
            Some(name) if one_tool => {
                self.tool = Some(name.clone());
                self.replies = 1;
            }
            _ => *self = Streak::default(),
        }
        self.replies
    }
}

/// The tool calls made so far, to notice the model repeating itself.
#[derive(Default)]
struct Made {
    calls: Vec<(String, Value, String)>,
}

impl Made {
    fn contains(&self, name: &str, arguments: &Value) -> bool {
        self.calls
            .iter()
            .any(|(n, a, _)| n == name && a == arguments)
    }

    fn add(&mut self, name: &str, arguments: Value, result: &str) {
        self.calls
            .push((name.to_string(), arguments, result.to_string()));
    }

    /// One line per call: `name {arguments} → result`.
    fn results(&self) -> String {
        if self.calls.is_empty() {
            return "(none)".to_string();
        }
        self.calls
            .iter()
            .map(|(name, arguments, result)| format!("{name} {arguments} → {result}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The assistant's turn as the chat template expects it: the words before
/// the calls as content and the readable calls as `tool_calls`. When no call
/// could be read, the raw reply stays as content so the model sees its error.
fn assistant_message(text: &str, calls: &[Result<ToolCall, String>]) -> Message {
    let tool_calls: Vec<ToolCallMessage> = calls
        .iter()
        .flatten()
        .map(|call| ToolCallMessage {
            kind: "function".into(),
            function: FunctionCall {
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        })
        .collect();
    let content = if tool_calls.is_empty() {
        text.trim()
    } else {
        words_before_calls(text)
    };
    let mut message = Message::assistant(content);
    message.tool_calls = tool_calls;
    message
}

fn words_before_calls(text: &str) -> &str {
    let lower = text.to_ascii_lowercase();
    match lower.find(CALL_PREFIXES[0]) {
        Some(at) => text[..at].trim(),
        None => "",
    }
}

fn tool_message(name: Option<String>, content: String) -> Message {
    let mut message = Message::new(Role::Tool, content.trim_end());
    message.name = name;
    message
}

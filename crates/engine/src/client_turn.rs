//! One model turn with tools the client defines and runs itself (the
//! OpenAI and Ollama APIs' `tools`): the model either answers or calls
//! some of them, in its own chat template's format, under a grammar that
//! admits only calls of those tools whose arguments fit their schemas.
//! The calls are handed back ([`Run::hand_back`]), not run: the client runs
//! them and sends the results in its next request. A model whose chat
//! template cannot list tools is shown them in the system message. A small
//! model sometimes writes its call inside its answer ("call it with
//! ```json {…}```") instead of as a call: a call of one of the offered
//! tools whose arguments fit its schema, found in an answer, is taken as
//! the call it meant. Whole numbers in a call's arguments are written as
//! decimals where the tool's schema declares a `number`. An optional
//! argument whose value nothing in the conversation says is left out, so
//! the tool's own default stands: a small model fills optional arguments
//! with values of its own (a constant from the description, a unit never
//! asked for). A value picked from the schema's own choices (an `enum`)
//! stands.

use super::grounding::Sources;
use super::parse;
use super::protocol::native;
use super::{
    fill, with_system, CallOptions, Engine, EngineFuture, Finish, Halt, Route, Run, Termination,
};
use loopd_brain::{Completion, Grammar, Message};
use loopd_tools::Toolset;
use serde_json::Value;

const LISTED: &str = include_str!("prompts/client_tools.txt");

/// Where a model that goes on to invent the tool's result is stopped.
const TOOL_RESPONSE: &str = "<tool_response>";
/// Most calls in one reply when the client allows several.
pub const MAX_PARALLEL_CALLS: usize = 4;

/// Which tools the model may or must call (OpenAI's `tool_choice`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// An answer or calls, as the model sees fit.
    #[default]
    Auto,
    /// An answer; the tools are not offered.
    None,
    /// At least one call.
    Required,
    /// A call of this one tool.
    Function(String),
}

/// How the turn may reply.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClientTurn {
    /// Which tools may or must be called.
    pub choice: ToolChoice,
    /// Several calls in one reply (`parallel_tool_calls`).
    pub parallel: bool,
    /// A JSON schema an answer must follow (`response_format`).
    pub format: Option<Value>,
}

impl Engine for ClientTurn {
    fn id(&self) -> &'static str {
        "client-tools"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(async move { self.turn(run, conversation).await })
    }
}

impl ClientTurn {
    /// Whether the turn offers the model tools to call.
    fn offers(&self, tools: &Toolset) -> bool {
        !tools.is_empty() && self.choice != ToolChoice::None
    }

    /// The grammar the reply follows: calls of the callable tools (and an
    /// answer where the choice allows one), else the answer's schema. The
    /// daemon checks it before the turn is queued: a tool's parameters or a
    /// `response_format` schema that cannot be followed is the client's
    /// error.
    pub fn grammar(&self, tools: &Toolset) -> Option<Grammar> {
        if self.offers(tools) {
            let specs = tools.specs();
            let callable: Vec<_> = match &self.choice {
                ToolChoice::Function(name) => {
                    specs.into_iter().filter(|s| &s.name == name).collect()
                }
                _ => specs,
            };
            let answer = self.choice == ToolChoice::Auto;
            Some(native::grammar_for_calls(&callable, self.most(), answer))
        } else {
            self.format.as_ref().map(native::grammar_for_json)
        }
    }

    async fn turn(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        run.turn()?;
        let offered = self.offers(run.tools());
        let mut call = CallOptions {
            grammar: self.grammar(run.tools()),
            ..CallOptions::default()
        };
        let mut messages = conversation.to_vec();
        if offered {
            call.tools = run
                .tools()
                .specs()
                .iter()
                .map(|s| s.as_function())
                .collect();
            call.stop = vec![TOOL_RESPONSE.into()];
            if !run.template_supports_tools() {
                let listed: Vec<String> = call.tools.iter().map(Value::to_string).collect();
                let text = fill(LISTED, &[("tools", &listed.join("\n"))]);
                messages = with_system(&messages, text.trim_end());
                call.tools.clear();
            }
        }
        // With tools offered, an answer may turn out to hold a call: it is
        // given whole once the turn is read, not streamed as it comes.
        let route = match offered {
            true => Route::Thought,
            false => Route::Answer,
        };
        let reply = run.generate("client-tools", messages, call, route).await?;
        let calls = calls_in(run, &reply, offered, &self.choice);
        if calls.is_empty() {
            let answer = reply.text.trim();
            run.deliver(answer);
            return Ok(Finish::answered(answer));
        }
        let said = Said::of(conversation);
        let calls = calls
            .into_iter()
            .map(|call| as_declared(call, run.tools(), &said))
            .collect();
        run.hand_back(calls);
        Ok(Finish {
            answer: String::new(),
            termination: Termination::Answered,
        })
    }

    /// Most calls in one reply.
    fn most(&self) -> usize {
        match self.parallel {
            true => MAX_PARALLEL_CALLS,
            false => 1,
        }
    }
}

/// The calls a reply makes: returned by the template's parser, written in
/// its text, or written as JSON inside an answer.
fn calls_in(
    run: &mut Run,
    reply: &Completion,
    offered: bool,
    choice: &ToolChoice,
) -> Vec<parse::ToolCall> {
    let calls: Vec<parse::ToolCall> = match (offered, reply.tool_calls.as_slice()) {
        (false, _) => Vec::new(),
        (true, []) => parse::tool_calls(&reply.text),
        (true, returned) => parse::returned_tool_calls(returned),
    }
    .into_iter()
    .filter_map(|call| match call {
        Ok(call) => Some(call),
        Err(why) => {
            run.format_error(format!("a tool call that cannot be read: {why}"));
            None
        }
    })
    .collect();
    match (calls.is_empty(), offered) {
        (true, true) => embedded_calls(&reply.text, run.tools(), choice),
        _ => calls,
    }
}

/// `call` with its numbers as its tool's schema declares them, and without
/// the optional arguments whose values were not said.
fn as_declared(call: parse::ToolCall, tools: &Toolset, said: &Said) -> parse::ToolCall {
    let Some(spec) = tools.specs().into_iter().find(|s| s.name == call.name) else {
        return call;
    };
    let mut arguments = spec.numbers_as_declared(call.arguments);
    let required = &spec.argument_schema["required"];
    let is_required = |key: &str| {
        required
            .as_array()
            .is_some_and(|names| names.iter().any(|n| n == key))
    };
    let properties = &spec.argument_schema["properties"];
    let chosen = |key: &str| {
        let property = &properties[key];
        property.get("enum").is_some() || property["items"].get("enum").is_some()
    };
    if let Value::Object(fields) = &mut arguments {
        fields.retain(|key, value| is_required(key) || chosen(key) || said.says(value));
    }
    parse::ToolCall {
        arguments,
        name: call.name,
    }
}

/// What the conversation says: its numbers (in digits or words) and its
/// words, every turn's, the client's system message (which lists a home's
/// devices) and tool results included.
struct Said {
    numbers: Sources,
    words: std::collections::HashSet<String>,
}

impl Said {
    fn of(conversation: &[Message]) -> Said {
        let mut numbers = Sources::default();
        let mut words = std::collections::HashSet::new();
        for message in conversation {
            numbers.add(&message.content);
            words.extend(words_of(&message.content));
            words.extend(words_of(&loopd_tools::numbers::in_digits(&message.content)));
        }
        Said { numbers, words }
    }

    /// Whether an argument's value was said: each of its numbers and words
    /// (of every item of a list) is the conversation's, a word also when
    /// one of the two starts the other (`ticket` and `tickets`, `detail`
    /// and `detailed`). A yes or no, an object or nothing cannot be
    /// checked, and stands.
    fn says(&self, value: &Value) -> bool {
        match value {
            Value::Number(n) => self.numbers.ungrounded_change(&n.to_string()).is_empty(),
            Value::String(text) => words_of(text).all(|w| self.has_word(&w)),
            Value::Array(items) => items.iter().all(|item| self.says(item)),
            Value::Bool(_) | Value::Object(_) | Value::Null => true,
        }
    }

    fn has_word(&self, word: &str) -> bool {
        const STEM: usize = 4;
        self.words.contains(word)
            || self.words.iter().any(|said| {
                let (short, long) = match said.len() <= word.len() {
                    true => (said.as_str(), word),
                    false => (word, said.as_str()),
                };
                short.len() >= STEM && long.starts_with(short)
            })
    }
}

/// The lowercase words and numbers of `text`.
fn words_of(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The calls of `tools` written as JSON objects (`{"name": …, "arguments":
/// {…}}`) inside an answer's text, whose arguments fit their schemas.
fn embedded_calls(text: &str, tools: &Toolset, choice: &ToolChoice) -> Vec<parse::ToolCall> {
    let mut calls = Vec::new();
    let mut at = 0;
    while let Some(found) = text[at..].find('{') {
        let start = at + found;
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        let call = match values.next() {
            Some(Ok(value)) => {
                at = start + values.byte_offset();
                call_in(&value, tools, choice)
            }
            _ => {
                at = start + 1;
                None
            }
        };
        calls.extend(call);
        if calls.len() == MAX_PARALLEL_CALLS {
            break;
        }
    }
    calls
}

/// `value` as a call of one of `tools` that `choice` allows, when it is one
/// and its arguments fit.
fn call_in(value: &Value, tools: &Toolset, choice: &ToolChoice) -> Option<parse::ToolCall> {
    let name = value.get("name")?.as_str()?;
    let arguments = value.get("arguments").or_else(|| value.get("parameters"))?;
    let allowed = match choice {
        ToolChoice::None => false,
        ToolChoice::Function(only) => only == name,
        ToolChoice::Auto | ToolChoice::Required => true,
    };
    (allowed && tools.prepare(name, arguments).is_ok()).then(|| parse::ToolCall {
        name: name.to_string(),
        arguments: arguments.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use loopd_tools::{Declared, ToolSpec};
    use serde_json::json;
    use std::sync::Arc;

    fn one_tool(name: &str, argument_schema: Value) -> Toolset {
        let mut tools = Toolset::empty();
        tools
            .add(Arc::new(Declared(ToolSpec {
                name: name.into(),
                description: "Does a thing".into(),
                argument_schema,
                output_schema: json!({}),
            })))
            .unwrap();
        tools
    }

    fn lights() -> Toolset {
        one_tool(
            "HassTurnOn",
            json!({"type": "object",
                "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        )
    }

    #[test]
    fn a_schema_the_grammar_cannot_follow_is_found_before_the_turn() {
        let turn = ClientTurn::default();
        let check = |turn: &ClientTurn, tools: &Toolset| match turn.grammar(tools) {
            Some(grammar) => grammar.check().map_err(|e| e.to_string()),
            None => Ok(()),
        };
        assert_eq!(check(&turn, &lights()), Ok(()));
        let unsatisfiable = one_tool(
            "f",
            json!({"type": "object", "required": ["x"],
                "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 1}}}),
        );
        let why = check(&turn, &unsatisfiable).unwrap_err();
        assert!(why.contains("grammar"), "{why}");
        let unique = one_tool(
            "tag",
            json!({"type": "object", "required": ["tags"], "properties": {"tags":
                {"type": "array", "items": {"type": "string"}, "uniqueItems": true}}}),
        );
        assert_eq!(check(&turn, &unique), Ok(()), "approximated, not refused");
        let format = ClientTurn {
            format: Some(json!({"type": "string", "enum": []})),
            ..ClientTurn::default()
        };
        assert!(check(&format, &Toolset::empty()).is_err());
    }

    #[tokio::test]
    async fn a_call_s_numbers_are_as_its_schema_declares() {
        use loopd_brain::{GenerateOptions, ScriptedBrain};
        let tools = one_tool(
            "set_temperature",
            json!({"type": "object", "required": ["degrees"],
                "properties": {"degrees": {"type": "number"}}}),
        );
        let brain = ScriptedBrain::new([
            "<tool_call>\n{\"name\": \"set_temperature\", \"arguments\": {\"degrees\": 21}}\n</tool_call>",
        ]);
        let request = crate::LoopRequest {
            engine: crate::client_turn(ClientTurn::default()),
            conversation: vec![Message::user("Set the thermostat to 21 degrees.")],
            brain: Arc::new(brain),
            tools: Arc::new(tools),
            budget: crate::Budget::default(),
            options: GenerateOptions::default(),
            cancel: tokio_util::sync::CancellationToken::new(),
            events: None,
            session: None,
            hold: None,
        };
        let outcome = crate::run_loop(request).await;
        assert_eq!(outcome.tool_calls.len(), 1, "{outcome:?}");
        assert_eq!(outcome.tool_calls[0].name, "set_temperature");
        let arguments = serde_json::to_string(&outcome.tool_calls[0].arguments).unwrap();
        assert_eq!(arguments, r#"{"degrees":21.0}"#);
    }

    #[test]
    fn an_optional_argument_nobody_said_is_left_to_the_tool_s_default() {
        let tools = one_tool(
            "electric_field",
            json!({"type": "object", "required": ["charge", "distance"], "properties": {
                "charge": {"type": "number"}, "distance": {"type": "number"},
                "permittivity": {"type": "number"}, "unit": {"type": "string"},
                "medium": {"type": "string"}, "exact": {"type": "boolean"},
                "detail": {"type": "string", "enum": ["brief", "full"]},
                "sources": {"type": "array", "items": {"type": "string"}}}}),
        );
        let said = Said::of(&[
            Message::system("Answer in SI units."),
            Message::user(
                "The field of a five coulomb charge 3 metres away, in a vacuum? \
                 Check it in the textbooks.",
            ),
        ]);
        let call = parse::ToolCall {
            name: "electric_field".into(),
            arguments: json!({"charge": 5, "distance": 7, "permittivity": 8.854,
                "unit": "SI units", "medium": "Vacuum", "exact": true, "detail": "full",
                "sources": ["textbook"]}),
        };
        let kept = as_declared(call, &tools, &said).arguments;
        assert_eq!(
            kept,
            json!({"charge": 5.0, "distance": 7.0, "unit": "SI units", "medium": "Vacuum",
                "exact": true, "detail": "full", "sources": ["textbook"]}),
            "required arguments stay even when unsaid; an unsaid optional number goes"
        );
        let call = parse::ToolCall {
            name: "electric_field".into(),
            arguments: json!({"charge": 5, "distance": 3, "medium": "air"}),
        };
        assert_eq!(
            as_declared(call, &tools, &said).arguments,
            json!({"charge": 5.0, "distance": 3.0})
        );
    }

    #[test]
    fn a_call_written_inside_an_answer_is_the_call() {
        let text = "To turn it on, call `HassTurnOn`:\n```json\n{\"name\": \"HassTurnOn\", \"arguments\": {\"name\": \"Kitchen Light\"}}\n```";
        let calls = embedded_calls(text, &lights(), &ToolChoice::Auto);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].arguments, json!({"name": "Kitchen Light"}));
        for text in [
            "{\"name\": \"HassTurnOn\", \"arguments\": {}}",
            "{\"name\": \"Unlock\", \"arguments\": {\"name\": \"Door\"}}",
            "The set {1, 2} has two members.",
        ] {
            assert!(
                embedded_calls(text, &lights(), &ToolChoice::Auto).is_empty(),
                "{text}"
            );
        }
        assert!(embedded_calls(text, &lights(), &ToolChoice::None).is_empty());
    }
}

//! Native tool calls in the Hermes / Qwen shape the chat templates teach:
//! `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` (or the bare
//! JSON object, as some fine-tunes write it), read by
//! [`tool_calls`](crate::parse::tool_calls); or a plain answer.

use super::{arguments_schema, compact, grammar, json_text};
use loopd_brain::Grammar;
use loopd_tools::ToolSpec;
use serde_json::{json, Value};

/// A plain-text answer: it does not start like a tool call, a tag or a
/// code block.
const ANSWER: &str = "ANSWER: /[^{<>\\[`\\s](?s:.){0,2000}/\n";

/// One reply: exactly one call of one of `tools` (the name one of theirs,
/// the arguments valid against its schema), tagged or bare, or an answer.
pub fn grammar_for_reply(tools: &[&ToolSpec]) -> Grammar {
    let call = call_schema(tools);
    grammar(&format!(
        "start: ANSWER | call | \"<tool_call>\\n\" call \"\\n</tool_call>\"\n\
         call: %json {call}\n{ANSWER}"
    ))
}

/// One reply that must be a call of one of `tools`, tagged: the answer
/// was sent back for numbers no source gives.
pub fn grammar_for_call(tools: &[&ToolSpec]) -> Grammar {
    let call = call_schema(tools);
    grammar(&format!(
        "start: \"<tool_call>\\n\" call \"\\n</tool_call>\"\ncall: %json {call}\n"
    ))
}

/// A reply of one to `most` tagged calls of `tools`, one after another,
/// or (when `answer` allows it) a plain answer: what a client that runs its
/// own tools may get back in one turn.
pub fn grammar_for_calls(tools: &[&ToolSpec], most: usize, answer: bool) -> Grammar {
    let call = call_schema(tools);
    let calls = match most.saturating_sub(1) {
        0 => "tagged".to_string(),
        more => format!("tagged (\"\\n\" tagged){{0,{more}}}"),
    };
    let start = if answer {
        format!("ANSWER | {calls}")
    } else {
        calls
    };
    grammar(&format!(
        "start: {start}\ntagged: \"<tool_call>\\n\" call \"\\n</tool_call>\"\n\
         call: %json {call}\n{ANSWER}"
    ))
}

/// A reply that is one JSON value valid against `schema`.
pub fn grammar_for_json(schema: &Value) -> Grammar {
    grammar(&format!(
        "start: value\nvalue: %json {}\n",
        json_text(&compact(schema.clone()))
    ))
}

/// The JSON schema of one call of one of `tools`.
fn call_schema(tools: &[&ToolSpec]) -> String {
    let calls: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"const": tool.name},
                    "arguments": arguments_schema(&tool.argument_schema),
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    json_text(&compact(json!({ "anyOf": calls })))
}

/// An answer that is not a tool call.
pub fn grammar_for_answer() -> Grammar {
    grammar(&format!("start: ANSWER\n{ANSWER}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::tool_calls;
    use crate::protocol::testing::{accepts, calculator};

    #[test]
    fn a_forced_call_admits_no_answer() {
        let calc = calculator();
        let g = grammar_for_call(&[&calc]);
        let tagged = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2*3\"}}\n</tool_call>";
        assert!(accepts(&g, tagged));
        assert!(!accepts(&g, "It is 6."));
    }

    #[test]
    fn a_client_turn_is_up_to_so_many_calls_or_an_answer() {
        let calc = calculator();
        let one = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2*3\"}}\n</tool_call>";
        let two = format!("{one}\n{one}");
        let three = format!("{two}\n{one}");
        let g = grammar_for_calls(&[&calc], 2, true);
        assert!(accepts(&g, one) && accepts(&g, &two) && accepts(&g, "It is 6."));
        assert!(!accepts(&g, &three));
        let required = grammar_for_calls(&[&calc], 1, false);
        assert!(accepts(&required, one));
        assert!(!accepts(&required, "It is 6.") && !accepts(&required, &two));
        let json = grammar_for_json(&serde_json::json!({"type": "object",
            "properties": {"n": {"type": "integer"}}, "required": ["n"]}));
        assert!(accepts(&json, "{\"n\": 3}"));
        assert!(!accepts(&json, "{\"n\": \"x\"}"));
    }

    #[test]
    fn a_call_s_numbers_run_to_fifteen_digits_and_an_answer_s_as_far_as_it_likes() {
        let wait = ToolSpec {
            name: "wait".into(),
            description: "waits".into(),
            argument_schema: json!({"type": "object",
                "properties": {"seconds": {"type": "integer"}}, "required": ["seconds"]}),
            output_schema: json!({}),
        };
        let g = grammar_for_calls(&[&wait], 1, true);
        let call = |n: &str| {
            format!("<tool_call>\n{{\"name\": \"wait\", \"arguments\": {{\"seconds\": {n}}}}}\n</tool_call>")
        };
        assert!(accepts(&g, &call(&"9".repeat(15))));
        assert!(!accepts(&g, &call(&"9".repeat(16))));
        assert!(accepts(&g, "2 to the 64th is 18446744073709551616."));
    }

    #[test]
    fn one_valid_call_or_an_answer() {
        let calc = calculator();
        let g = grammar_for_reply(&[&calc]);
        let tagged = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2*3\"}}\n</tool_call>";
        assert!(accepts(&g, tagged));
        assert_eq!(tool_calls(tagged).len(), 1);
        assert!(accepts(
            &g,
            "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2*3\"}}"
        ));
        assert!(accepts(&g, "It is 6."));
        for bad in [
            "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2\", \"type\": \"string\"}}",
            "{\"name\": \"search\", \"arguments\": {}}",
            "{\"name\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"1\"}}",
        ] {
            assert!(!accepts(&g, bad), "{bad}");
        }
        assert!(!accepts(&grammar_for_answer(), "{\"name\": \"calculate\"}"));
        assert!(!accepts(
            &grammar_for_answer(),
            ">{\"name\": \"calculate\"}"
        ));
        assert!(accepts(&grammar_for_answer(), "6, since 2 * 3 = 6."));
    }
}

//! ReAct steps (seed 001): `Thought:` then either `Action:` with
//! `Action Input:` or `FINAL_ANSWER:`.
//!
//! The grammar allows one thought line, then either one call of a tool the
//! run has (its name one of theirs, its input JSON valid against that tool's
//! argument schema) or the final answer on one line. The parser reads the
//! same shape, and the looser ones small models write unconstrained.

use super::{grammar, grounded_calls_rule, literal, Inputs};
use crate::parse::{after_marker, field, find_marker, json_object, FINAL_ANSWER};
use loopd_brain::Grammar;
use loopd_tools::ToolSpec;
use serde_json::Value;

/// The grammar of one step after the `Thought:` prefix: a thought line,
/// then a tool call or the final answer, its arguments held to `inputs`.
pub fn step_grammar(tools: &[&ToolSpec], inputs: Inputs) -> Grammar {
    let mut rules = String::from(
        "start: THOUGHT \"\\n\" (call | answer)\n\
         answer: \"FINAL_ANSWER: \" LINE\n\
         THOUGHT: /[ ]?[^\\n]{0,200}/\n",
    );
    if !tools.is_empty() {
        rules.push_str(&action_rule(tools, inputs));
    } else {
        rules = rules.replace("(call | answer)", "answer");
    }
    grammar(&rules)
}

/// The grammar of a step that must call a tool (its thought written
/// already): `Action:` and `Action Input:` for one of `tools`, its
/// arguments held to `inputs`.
pub fn call_grammar(tools: &[&ToolSpec], inputs: Inputs) -> Grammar {
    grammar(&format!("start: call\n{}", action_rule(tools, inputs)))
}

/// The `call` rule: `Action:` naming one of `tools`, then `Action Input:`
/// with its arguments held to `inputs`.
fn action_rule(tools: &[&ToolSpec], inputs: Inputs) -> String {
    grounded_calls_rule("call", tools, "Action: ", "\nAction Input: ", inputs)
}

/// The grammar of the answer after a `FINAL_ANSWER:` prefix: one line.
pub fn answer_grammar() -> Grammar {
    grammar(&format!("start: {} LINE", literal(" ")))
}

/// What a ReAct-style step asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ReactStep {
    /// `FINAL_ANSWER: …` (takes priority over an action in the same text).
    Final(String),
    /// `Action: name` with `Action Input: {…}`; the input is `Err` with the
    /// reason when it is missing or not a JSON object.
    Action {
        /// The tool name.
        tool: String,
        /// The parsed arguments, or why they could not be read.
        input: Result<Value, String>,
    },
    /// Neither: plain text.
    Text,
}

/// Reads a ReAct step (seed 001): final answer first, then action.
pub fn react_step(text: &str) -> ReactStep {
    if let Some(answer) = after_marker(text, FINAL_ANSWER) {
        return ReactStep::Final(answer);
    }
    let Some(tool) = field(text, "action") else {
        return ReactStep::Text;
    };
    let (name, inline) = match tool.find(['(', '{']) {
        Some(at) => (&tool[..at], Some(&tool[at..])),
        None => (tool.as_str(), None),
    };
    let name = name
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c.is_whitespace())
        .to_string();
    if name.is_empty() {
        return ReactStep::Text;
    }
    let input = match (
        find_marker(text, &["action input:", "action_input:"]),
        inline,
    ) {
        (Some((_, end)), _) => json_object(&text[end..]),
        (None, Some(inline)) if inline.contains('{') => json_object(inline),
        (None, _) => Err("missing `Action Input:`".to_string()),
    };
    let tool = name;
    ReactStep::Action { tool, input }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::testing::{accepts, calculator};
    use serde_json::json;

    fn tools() -> Vec<ToolSpec> {
        vec![
            calculator(),
            ToolSpec {
                name: "convert".into(),
                description: "units".into(),
                argument_schema: json!({"type": "object", "properties": {"value": {"type": "number"}, "unit": {"enum": ["km", "mi"]}}, "required": ["value", "unit"]}),
                output_schema: json!({}),
            },
        ]
    }

    #[test]
    fn the_grammar_takes_well_formed_steps() {
        let specs = tools();
        let g = step_grammar(&specs.iter().collect::<Vec<_>>(), Inputs::default());
        for text in [
            " I need to multiply.\nAction: calculate\nAction Input: {\"expression\": \"2*3\"}",
            " Convert it.\nAction: convert\nAction Input: {\"value\": 5, \"unit\": \"km\"}",
            " I know the answer now.\nFINAL_ANSWER: It is 6.",
            "\nFINAL_ANSWER: 6",
        ] {
            assert!(accepts(&g, text), "{text}");
            assert!(!matches!(
                react_step(&format!("Thought:{text}")),
                ReactStep::Text
            ));
        }
    }

    #[test]
    fn the_grammar_rejects_what_the_loop_cannot_use() {
        let specs = tools();
        let g = step_grammar(&specs.iter().collect::<Vec<_>>(), Inputs::default());
        for (text, why) in [
            (" hmm", "neither an action nor an answer"),
            (
                " x\nAction: search\nAction Input: {}",
                "a tool the run does not have",
            ),
            (
                " x\nAction: calculate\nAction Input: {\"expr\": \"1\"}",
                "a required field missing",
            ),
            (
                " x\nAction: convert\nAction Input: {\"value\": 5, \"unit\": \"yd\"}",
                "a value outside the enum",
            ),
            (
                " x\nAction: calculate\nAction Input: {expression: 1}",
                "not JSON",
            ),
            (" x\nFINAL_ANSWER: ", "an empty answer"),
            (" x\nThought: y\nFINAL_ANSWER: 2", "two thought lines"),
        ] {
            assert!(!accepts(&g, text), "{why}: {text}");
        }
    }

    #[test]
    fn numbers_in_arguments_are_bounded() {
        let specs = tools();
        let g = step_grammar(&specs.iter().collect::<Vec<_>>(), Inputs::default());
        let call = |value: &str| {
            format!(" x\nAction: convert\nAction Input: {{\"value\": {value}, \"unit\": \"km\"}}")
        };
        for value in ["5", "-2.5", "0.125", "3.141593", "1000000"] {
            assert!(accepts(&g, &call(value)), "{value}");
        }
        for value in ["3.14159265358979", "12345678901234567", "0.0000001"] {
            assert!(!accepts(&g, &call(value)), "{value}");
        }
    }

    #[test]
    fn digit_runs_in_string_arguments_are_bounded() {
        let specs = tools();
        let g = step_grammar(&specs.iter().collect::<Vec<_>>(), Inputs::default());
        let call = |expression: &str| {
            format!(" x\nAction: calculate\nAction Input: {{\"expression\": \"{expression}\"}}")
        };
        for fine in [
            "17*23",
            "128/16000",
            "mean(4, 8, 15)",
            "123456789012345 + 1",
            "sqrt(x)",
        ] {
            assert!(accepts(&g, &call(fine)), "{fine}");
        }
        let runaway = format!("128/16{}", "0".repeat(90));
        assert!(!accepts(&g, &call(&runaway)));
        assert!(!accepts(&g, &call("1234567890123456")));
    }

    #[test]
    fn the_answer_grammar_is_one_line() {
        assert!(accepts(&answer_grammar(), " Paris."));
        assert!(!accepts(&answer_grammar(), " "));
        assert!(!accepts(&answer_grammar(), " a\nb"));
    }

    #[test]
    fn react_steps() {
        assert_eq!(
            react_step("Thought: t\nAction: calc\nAction Input: {\"expression\": \"2+2\"}"),
            ReactStep::Action {
                tool: "calc".into(),
                input: Ok(json!({"expression": "2+2"}))
            }
        );
        assert_eq!(
            react_step("Action: `calc`\nAction Input:\n```json\n{\"x\": [1,\n2]}\n```"),
            ReactStep::Action {
                tool: "calc".into(),
                input: Ok(json!({"x": [1, 2]}))
            }
        );
        assert!(matches!(
            react_step("Action: calc\nAction Input: {oops}"),
            ReactStep::Action { input: Err(_), .. }
        ));
        assert!(matches!(
            react_step("Action: calc"),
            ReactStep::Action { input: Err(e), .. } if e.contains("missing")
        ));
        assert_eq!(
            react_step("Action: calc\nAction Input: {}\nFINAL_ANSWER: 4"),
            ReactStep::Final("4".into())
        );
        assert!(matches!(
            react_step("Action: 17 * 6\nAction Input: {}"),
            ReactStep::Action { tool, .. } if tool == "17 * 6"
        ));
        assert!(matches!(
            react_step("Action: calculate(\"2+2\")\nAction Input: {}"),
            ReactStep::Action { tool, .. } if tool == "calculate"
        ));
        assert_eq!(
            react_step("Action: convert {\"value\": 5}"),
            ReactStep::Action {
                tool: "convert".into(),
                input: Ok(json!({"value": 5}))
            }
        );
        assert_eq!(react_step("just words"), ReactStep::Text);
        assert_eq!(react_step("Action:   \n"), ReactStep::Text);
        assert_eq!(react_step("Action:"), ReactStep::Text);
    }
}

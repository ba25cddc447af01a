//! Self-Ask replies: `Follow up:` and a question, `Tool:` with `Tool Input:`
//! (JSON valid against the tool's schema), or `So the final answer is:`.

use super::{grammar, tool_calls_rule};
use loopd_brain::Grammar;
use loopd_tools::ToolSpec;

/// One step: a follow-up question, a call of one of `tools` (none: only
/// follow-ups and the answer), or the final answer.
pub fn grammar_for_step(tools: &[&ToolSpec]) -> Grammar {
    let mut rules = String::from(
        "start: follow | final | call\n\
         follow: \"Follow up: \" LINE\n\
         final: \"So the final answer is: \" LINE\n",
    );
    if tools.is_empty() {
        rules = rules.replace(" | call", "");
    } else {
        rules.push_str(&tool_calls_rule("call", tools, "Tool: ", "\nTool Input: "));
    }
    grammar(&rules)
}

/// The last call: only the final answer.
pub fn grammar_for_final() -> Grammar {
    grammar("start: \"So the final answer is: \" LINE\n")
}

/// The model's own answer to a follow-up: one line.
pub fn grammar_for_own_answer() -> Grammar {
    grammar("start: LINE\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::testing::accepts;
    use serde_json::json;

    #[test]
    fn follow_ups_tool_calls_and_answers() {
        let lookup = ToolSpec {
            name: "lookup".into(),
            description: "facts".into(),
            argument_schema: json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
            output_schema: json!({}),
        };
        let g = grammar_for_step(&[&lookup]);
        assert!(accepts(&g, "Follow up: Who wrote Hamlet?"));
        assert!(accepts(
            &g,
            "Tool: lookup\nTool Input: {\"query\": \"Hamlet\"}"
        ));
        assert!(accepts(&g, "So the final answer is: Shakespeare"));
        assert!(!accepts(&g, "Tool: search\nTool Input: {\"query\": \"x\"}"));
        assert!(
            !accepts(&g, "Tool: lookup\nTool Input: {}"),
            "the required query"
        );
        assert!(!accepts(&g, "Shakespeare wrote it."));
        let no_tools = grammar_for_step(&[]);
        assert!(!accepts(
            &no_tools,
            "Tool: lookup\nTool Input: {\"query\": \"x\"}"
        ));
        assert!(accepts(&grammar_for_final(), "So the final answer is: 3"));
    }
}

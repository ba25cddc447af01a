//! CRITIC's critique: `VERIFIED`, or blocks of `CLAIM:`, `TOOL:` and
//! `TOOL INPUT:` (JSON valid against the tool's schema).

use super::{grammar, tool_calls_rule};
use crate::brain::Grammar;
use crate::engine::MAX_CALLS_PER_REPLY;
use crate::tools::ToolSpec;

/// `VERIFIED`, or 1 to [`MAX_CALLS_PER_REPLY`] claim blocks, each checked
/// with one call of one of `tools`.
pub fn grammar_for_critique(tools: &[&ToolSpec]) -> Grammar {
    let mut rules = format!(
        "start: \"VERIFIED\" | block (\"\\n\" block){{0,{}}}\n\
         block: \"CLAIM: \" LINE \"\\n\" call\n",
        MAX_CALLS_PER_REPLY - 1
    );
    rules.push_str(&tool_calls_rule("call", tools, "TOOL: ", "\nTOOL INPUT: "));
    grammar(&rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::protocol::testing::{accepts, calculator};

    #[test]
    fn verified_or_claim_blocks() {
        let calc = calculator();
        let g = grammar_for_critique(&[&calc]);
        assert!(accepts(&g, "VERIFIED"));
        let block =
            "CLAIM: 12 * 12 = 144\nTOOL: calculate\nTOOL INPUT: {\"expression\": \"12*12\"}";
        assert!(accepts(&g, block));
        assert!(accepts(&g, &format!("{block}\n{block}")));
        assert!(
            !accepts(&g, "CLAIM: 12 * 12 = 144"),
            "a claim without a tool"
        );
        assert!(!accepts(&g, "CLAIM: x\nTOOL: search\nTOOL INPUT: {}"));
        assert!(!accepts(&g, "It looks fine."));
    }
}

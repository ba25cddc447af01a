//! CRITIC's critique: `VERIFIED`, or blocks of `CLAIM:`, `TOOL:` and
//! `TOOL INPUT:` (JSON valid against the tool's schema).

use super::{grammar, tool_calls_rule};
use loopd_brain::Grammar;
use loopd_tools::ToolSpec;

/// Most claim blocks in one critique.
pub const MAX_CLAIMS: usize = 2;
/// Longest claim line, in characters.
pub const MAX_CLAIM: usize = 120;
/// Token limit of a critique call: room for [`MAX_CLAIMS`] blocks of the
/// longest claim and a tool call with a bounded argument (a token is at
/// least one character), so the grammar always finishes before the limit.
/// The default limit of 256 cut SmolLM2's two 100-character expressions.
pub const MAX_CRITIQUE_TOKENS: usize = 640;

/// `VERIFIED`, or 1 to [`MAX_CLAIMS`] claim blocks, each checked with one
/// call of one of `tools`.
pub fn grammar_for_critique(tools: &[&ToolSpec]) -> Grammar {
    let mut rules = format!(
        "start: \"VERIFIED\" | block (\"\\n\" block){{0,{}}}\n\
         block: \"CLAIM: \" CLAIM \"\\n\" call\n\
         CLAIM: /[^\\s][^\\n]{{0,{}}}/\n",
        MAX_CLAIMS - 1,
        MAX_CLAIM - 1
    );
    rules.push_str(&tool_calls_rule("call", tools, "TOOL: ", "\nTOOL INPUT: "));
    grammar(&rules)
}

/// Most lines of a revised answer.
pub const MAX_REVISION_LINES: usize = 6;

/// A revised answer: one to [`MAX_REVISION_LINES`] lines, never empty.
pub fn grammar_for_revision() -> Grammar {
    super::some_text(MAX_REVISION_LINES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::testing::{accepts, calculator};

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
            !accepts(&g, &format!("{block}\n{block}\n{block}")),
            "at most {MAX_CLAIMS} claims"
        );
        let long = format!(
            "CLAIM: {}\nTOOL: calculate\nTOOL INPUT: {{\"expression\": \"1\"}}",
            "x".repeat(MAX_CLAIM + 1)
        );
        assert!(
            !accepts(&g, &long),
            "a claim of at most {MAX_CLAIM} characters"
        );
        assert!(
            !accepts(&g, "CLAIM: 12 * 12 = 144"),
            "a claim without a tool"
        );
        assert!(!accepts(&g, "CLAIM: x\nTOOL: search\nTOOL INPUT: {}"));
        assert!(!accepts(&g, "It looks fine."));
    }

    #[test]
    fn a_revision_is_never_empty() {
        let g = grammar_for_revision();
        assert!(accepts(&g, "It is 102."));
        assert!(accepts(&g, "It is 102.\nThat is 17 times 6."));
        assert!(!accepts(&g, ""));
        assert!(!accepts(&g, "\n"));
    }
}

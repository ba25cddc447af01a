//! Hybrid's checkpoint: `Summary:` on one line, then `Decision:` with
//! CONTINUE, DONE, or REPLAN followed by the new numbered list.

use super::grammar;
use super::plan::plan_rule;
use loopd_brain::Grammar;

/// A summary line and a decision; REPLAN carries a plan of 1 to `max_steps`.
pub fn grammar_for_checkpoint(max_steps: usize) -> Grammar {
    let rules = plan_rule(1, max_steps);
    grammar(&format!(
        "start: \"Summary: \" LINE \"\\nDecision: \" decision\n\
         decision: \"CONTINUE\" | \"DONE\" | \"REPLAN\\n\" plan\n{rules}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::testing::accepts;

    #[test]
    fn a_summary_and_a_decision() {
        let g = grammar_for_checkpoint(3);
        assert!(accepts(&g, "Summary: it is 3 pm in Tokyo\nDecision: DONE"));
        assert!(accepts(&g, "Summary: x\nDecision: CONTINUE"));
        assert!(accepts(&g, "Summary: x\nDecision: REPLAN\n1. look again"));
        assert!(
            !accepts(&g, "Summary: x\nDecision: REPLAN"),
            "a replan without a plan"
        );
        assert!(!accepts(&g, "Decision: DONE"), "no summary");
        assert!(!accepts(&g, "Summary: x\nDecision: maybe"));
    }
}

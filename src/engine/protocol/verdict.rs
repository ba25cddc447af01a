//! Reflexion's evaluator: `SATISFACTORY` or `UNSATISFACTORY`, then the
//! reason on the same line.

use super::grammar;
use crate::brain::Grammar;

/// The verdict word first, then an optional reason on the same line.
pub fn grammar_for_verdict() -> Grammar {
    grammar("start: (\"SATISFACTORY\" | \"UNSATISFACTORY\") REASON\nREASON: /[^\\n]{0,300}/\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::protocol::testing::accepts;

    #[test]
    fn a_verdict_word_then_a_reason() {
        let g = grammar_for_verdict();
        assert!(accepts(&g, "SATISFACTORY"));
        assert!(accepts(&g, "UNSATISFACTORY: 12 * 12 is 144, not 124."));
        assert!(!accepts(&g, "The answer looks right."));
        assert!(!accepts(&g, "SATISFACTORY\nmore"));
    }
}

//! Chain-of-Thought replies: step lines, then `FINAL ANSWER:` and the
//! answer on one line. The final-answer marker is read by
//! [`after_marker`](crate::engine::parse::after_marker) with
//! [`FINAL_ANSWER`](crate::engine::parse::FINAL_ANSWER).

use super::{any_case, grammar, line_not_starting_with};
use crate::brain::Grammar;

/// Most step lines before the final answer.
pub const MAX_STEP_LINES: usize = 24;

/// Up to [`MAX_STEP_LINES`] lines of reasoning (none may start with the marker),
/// then `FINAL ANSWER: ` (in any letter case) and a one-line answer.
pub fn grammar_for_reply() -> Grammar {
    grammar(&format!(
        "start: step{{0,{MAX_STEP_LINES}}} MARKER LINE\n\
         step: STEP \"\\n\"\n\
         STEP: /{}/\n\
         MARKER: /{}: /\n",
        line_not_starting_with("FINAL ANSWER"),
        any_case("FINAL ANSWER"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::parse::{after_marker, FINAL_ANSWER};
    use crate::engine::protocol::testing::accepts;

    #[test]
    fn steps_then_one_final_answer() {
        let g = grammar_for_reply();
        let good = "Step 1: 16 - 3 - 4 = 9\nStep 2: 9 * 2 = 18\nFINAL ANSWER: 18 dollars";
        assert!(accepts(
            &g,
            "Step 1: 16 - 3 - 4 = 9\nStep 2: 9 * 2 = 18\nFINAL ANSWER: 18"
        ));
        assert!(accepts(&g, good));
        assert_eq!(
            after_marker(good, FINAL_ANSWER).as_deref(),
            Some("18 dollars")
        );
        assert!(accepts(&g, "FINAL ANSWER: 3"));
        assert!(accepts(&g, "Step 1: 9\nFINAL ANSWER: 3"));
        assert!(accepts(&g, "Step 1: 16 - 3 - 4 = 9\nFINAL ANSWER: 3"));
        assert!(!accepts(&g, "Step 1: 9 * 2 = 18"), "no final answer");
        assert!(!accepts(&g, "FINAL ANSWER: "), "an empty answer");
        assert!(accepts(&g, "First, 3\nFINE\nFINAL ANSWER: 3"));
        assert!(accepts(&g, "Step 1: 9\nFinal Answer: 3"));
        assert!(
            !accepts(&g, "Final answer: 3\nStep 2: 4\nFINAL ANSWER: 4"),
            "a step line may not start with the marker in any case"
        );
        assert!(
            !accepts(&g, "FINAL ANSWER: 3\nFINAL ANSWER: 3"),
            "two answers"
        );
    }
}

//! Chain-of-Thought replies: step lines, then `FINAL ANSWER:` and the
//! answer on one line. The final-answer marker is read by
//! [`after_marker`](crate::parse::after_marker) with
//! [`FINAL_ANSWER`](crate::parse::FINAL_ANSWER).

use super::{any_case, grammar};
use loopd_brain::Grammar;

/// Most step lines before the final answer.
pub const MAX_STEP_LINES: usize = 24;

/// Longest step, in characters after `Step N: `: one step works out one number.
pub const MAX_STEP_CHARS: usize = 200;

/// Up to [`MAX_STEP_LINES`] numbered lines (`Step 1: …`), then
/// `FINAL ANSWER: ` (in any letter case) and a one-line answer.
pub fn grammar_for_reply() -> Grammar {
    grammar(&format!(
        "start: step{{0,{MAX_STEP_LINES}}} MARKER LINE\n\
         step: STEP \"\\n\"\n\
         STEP: /Step [1-9][0-9]?: [^\\s][^\\n]{{0,{}}}/\n\
         MARKER: /{}: /\n",
        MAX_STEP_CHARS - 1,
        any_case("FINAL ANSWER"),
    ))
}

/// One line of a reply written a line at a time: step `n`
/// (`Step n: …`, ending at the newline, without the word "final", so the
/// answer never starts inside a step) or `FINAL ANSWER: ` and the answer.
/// The step's length is left to the call's token limit: a bounded
/// repetition beside the negation is more than the lexer will build.
pub fn grammar_for_line(n: usize) -> Grammar {
    grammar(&format!(
        "start: STEP \"\\n\" | MARKER LINE\n\
         STEP: /Step {n}: [^\\s][^\\n]*/ & ~/.*{}.*/\n\
         MARKER: /{}: /\n",
        any_case("FINAL"),
        any_case("FINAL ANSWER"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{after_marker, FINAL_ANSWER};
    use crate::protocol::testing::accepts;

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
        assert!(
            !accepts(&g, "First, 3\nFINAL ANSWER: 3"),
            "an unnumbered step"
        );
        assert!(accepts(&g, "Step 1: 9\nFinal Answer: 3"));
        assert!(
            !accepts(&g, "Final answer: 3\nStep 2: 4\nFINAL ANSWER: 4"),
            "a step line may not be the marker in any case"
        );
        let long = format!(
            "Step 1: {}\nFINAL ANSWER: 3",
            "9".repeat(MAX_STEP_CHARS + 1)
        );
        assert!(!accepts(&g, &long), "a step longer than {MAX_STEP_CHARS}");
        assert!(
            !accepts(&g, "FINAL ANSWER: 3\nFINAL ANSWER: 3"),
            "two answers"
        );
    }

    #[test]
    fn a_line_is_the_next_step_or_the_answer() {
        let g = grammar_for_line(3);
        assert!(accepts(&g, "Step 3: 60 - 8 = 52 rolls.\n"));
        assert!(accepts(&g, "FINAL ANSWER: She makes $104."));
        assert!(!accepts(&g, "Step 4: 60 - 8 = 52\n"), "the wrong number");
        assert!(
            !accepts(&g, "Step 3: 60 - 8 = 52\nStep 4: 52 * 2 = 104\n"),
            "two lines"
        );
        assert!(!accepts(&g, "Step 3: \n"), "an empty step");
        assert!(
            !accepts(&g, "Step 3: 5 + 5 = 10. FINAL ANSWER: 10\n"),
            "an answer inside a step"
        );
    }
}

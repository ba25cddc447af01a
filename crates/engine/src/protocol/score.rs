//! Tree-of-Thoughts: scores (a whole number from 0 to 10, read by
//! [`first_number`](crate::parse::first_number)), candidate steps
//! (one line, or `ANSWER:` and the answer) and the forced answer.

use super::{grammar, line_not_starting_with};
use loopd_brain::Grammar;

/// A score: a whole number from 0 to 10, alone.
pub fn grammar_for_score() -> Grammar {
    grammar("start: SCORE\nSCORE: /10|[0-9]/\n")
}

/// A candidate step: one line of reasoning not starting with the answer marker, or
/// `ANSWER: ` and a one-line answer.
pub fn grammar_for_thought() -> Grammar {
    grammar(&format!(
        "start: STEP | \"ANSWER: \" LINE\n\
         STEP: /{}/\n",
        line_not_starting_with("ANSWER")
    ))
}

/// The answer when the search runs out of depth: `ANSWER: ` and one line.
pub fn grammar_for_answer() -> Grammar {
    grammar("start: \"ANSWER: \" LINE\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::first_number;
    use crate::protocol::testing::accepts;

    #[test]
    fn scores_are_whole_numbers_up_to_ten() {
        let g = grammar_for_score();
        for good in ["0", "7", "10"] {
            assert!(accepts(&g, good), "{good}");
            assert!(first_number(good).is_some());
        }
        for bad in ["11", "7/10", "seven", "", "-1"] {
            assert!(!accepts(&g, bad), "{bad}");
        }
    }

    #[test]
    fn thoughts_are_a_step_or_an_answer() {
        let g = grammar_for_thought();
        assert!(accepts(&g, "(6 - 4) * (8 + 4) = 24"));
        assert!(accepts(&g, "ANSWER: (6 - 4) * (8 + 4) = 24"));
        assert!(!accepts(&g, "ANSWER: "));
        assert!(
            accepts(&g, "so the answer: 24"),
            "words before a marker are a step"
        );
        assert!(accepts(&grammar_for_answer(), "ANSWER: 24"));
        assert!(!accepts(&grammar_for_answer(), "24"));
    }
}

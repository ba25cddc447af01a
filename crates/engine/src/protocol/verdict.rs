//! Reflexion's evaluator: `SATISFACTORY` or `UNSATISFACTORY`, then the
//! reason on the same line.

use super::grammar;
use crate::parse;
use loopd_brain::Grammar;

/// What the evaluator said about an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The answer stands.
    Satisfactory,
    /// The answer needs another episode.
    Unsatisfactory,
    /// Neither word, or both with neither first: a format error.
    Unclear,
}

/// The verdict word first, then an optional reason on the same line.
pub fn grammar_for_verdict() -> Grammar {
    grammar("start: (\"SATISFACTORY\" | \"UNSATISFACTORY\") REASON\nREASON: /[^\\n]{0,300}/\n")
}

/// Reads a verdict: the word the reply starts with (markdown aside), as the
/// grammar writes it; otherwise the one verdict word the reply holds.
pub fn verdict(text: &str) -> Verdict {
    let first: String = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    match first.as_str() {
        "satisfactory" => return Verdict::Satisfactory,
        "unsatisfactory" => return Verdict::Unsatisfactory,
        _ => {}
    }
    let satisfactory = parse::has_word(text, "satisfactory");
    let unsatisfactory = parse::has_word(text, "unsatisfactory");
    match (satisfactory, unsatisfactory) {
        (true, false) => Verdict::Satisfactory,
        (false, true) => Verdict::Unsatisfactory,
        _ => Verdict::Unclear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::testing::accepts;

    #[test]
    fn a_verdict_word_then_a_reason() {
        let g = grammar_for_verdict();
        assert!(accepts(&g, "SATISFACTORY"));
        assert!(accepts(&g, "UNSATISFACTORY: 12 * 12 is 144, not 124."));
        assert!(!accepts(&g, "The answer looks right."));
        assert!(!accepts(&g, "SATISFACTORY\nmore"));
    }

    #[test]
    fn the_first_word_decides_as_the_grammar_writes_it() {
        assert_eq!(verdict("SATISFACTORY: correct."), Verdict::Satisfactory);
        assert_eq!(verdict("Satisfactory"), Verdict::Satisfactory);
        assert_eq!(
            verdict("SATISFACTORY, not UNSATISFACTORY."),
            Verdict::Satisfactory
        );
        assert_eq!(
            verdict("UNSATISFACTORY - no tool was used"),
            Verdict::Unsatisfactory
        );
        assert_eq!(verdict("**unsatisfactory**"), Verdict::Unsatisfactory);
        assert_eq!(
            verdict("The answer is UNSATISFACTORY."),
            Verdict::Unsatisfactory
        );
        assert_eq!(verdict("The answer looks fine."), Verdict::Unclear);
        assert_eq!(
            verdict("Either SATISFACTORY or UNSATISFACTORY; hard to say."),
            Verdict::Unclear
        );
        assert_eq!(verdict(""), Verdict::Unclear);
    }
}

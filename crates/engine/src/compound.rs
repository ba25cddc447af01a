//! A compound question split into the questions it asks: "What time is it
//! in Tokyo and what is 5 plus 5?" asks "What time is it in Tokyo" and
//! "what is 5 plus 5?", each of which a tool that reads questions in words
//! may read on its own.

use regex::Regex;
use std::sync::LazyLock;

/// Most questions one compound question is split into.
const MAX_PARTS: usize = 4;

/// Where a new question starts: after "and" (or a question mark) comes a
/// question word.
static NEXT_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\?\s+|,?\s+and\s+(?:also\s+)?)(what|what's|how|when|which|who|where|is|are|do|does|can|will)\b",
    )
    .expect("a valid regex")
});

/// The questions `question` asks, in order; more than one only when each
/// has at least two words and there are at most [`MAX_PARTS`].
pub fn parts(question: &str) -> Vec<&str> {
    let mut starts: Vec<(usize, usize)> = NEXT_QUESTION
        .captures_iter(question)
        .filter_map(|found| Some((found.get(0)?.start(), found.get(1)?.start())))
        .collect();
    starts.push((question.len(), question.len()));
    let mut parts = Vec::new();
    let mut from = 0;
    for (end, next) in starts {
        parts.push(question[from..end].trim_matches(|c: char| c == ',' || c.is_whitespace()));
        from = next;
    }
    let whole = parts
        .iter()
        .all(|part| part.split_whitespace().count() >= 2);
    if parts.len() > 1 && parts.len() <= MAX_PARTS && whole {
        parts
    } else {
        vec![question]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_word_after_and_starts_a_new_question() {
        assert_eq!(
            parts("What time is it in Tokyo and what is 5 plus 5?"),
            ["What time is it in Tokyo", "what is 5 plus 5?"]
        );
        assert_eq!(
            parts("What's the date today, and how many days until Christmas?"),
            ["What's the date today", "how many days until Christmas?"]
        );
        assert_eq!(
            parts("What time is it? What's 12 times 12?"),
            ["What time is it", "What's 12 times 12?"]
        );
    }

    #[test]
    fn one_question_stays_whole() {
        for question in [
            "What is 5 plus 5 and 3 times 2?",
            "How many cups are in a gallon?",
            "Salt and pepper, what are they?",
            "What is 2 and what",
        ] {
            assert_eq!(parts(question), [question], "{question}");
        }
    }
}

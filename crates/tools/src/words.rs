//! The `words` toolbox: spelling a word out, the question a voice
//! assistant hears where a small model most often gets a letter wrong. The
//! word is in the question itself (as the user typed it, or as speech
//! recognition wrote it), so the answer is read off it.

use super::{typed_tool, Tool, ToolError};
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, LazyLock};

/// The tools of the `words` toolbox: `spell`.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![typed_tool(
        "spell",
        "Spells a word out letter by letter (how do you spell necessary).",
        spell,
    )]
}

/// Arguments of `spell`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpellArgs {
    /// The question, e.g. "How do you spell necessary?".
    #[schemars(extend("x-question" = true))]
    pub question: String,
}

/// Result of `spell`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SpellOutput {
    /// The answer to say.
    pub answer: String,
}

/// A word asked about: one to three words of letters, maybe quoted.
const WORD: &str = r#"["'“]?([a-z][a-z'’-]*(?:\s+[a-z][a-z'’-]*){0,2})["'”]?"#;

/// `how do you spell X`, `spell X`, `what's the spelling of X`, `how is X
/// spelled`.
static ASKED: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        format!(
            r"(?i)^(?:how\s+(?:do\s+(?:you|i|we)|to|would\s+you|does\s+one)\s+spell|(?:can\s+you\s+)?spell|what(?:'s|\s+is)\s+the\s+spelling\s+of)\s+(?:the\s+word\s+)?{WORD}$"
        ),
        format!(r"(?i)^how\s+(?:is|do\s+you\s+spell)\s+(?:the\s+word\s+)?{WORD}\s+(?:spelled|spelt)$"),
    ]
    .map(|pattern| Regex::new(&pattern).expect("a valid regex"))
});

/// First words after "spell" that are no word to spell: `spell it for
/// me`, `spell check this`, `spell out the answer`.
const NOT_A_WORD: &[&str] = &[
    "it",
    "that",
    "this",
    "these",
    "those",
    "out",
    "check",
    "checker",
    "me",
    "my",
    "your",
    "them",
    "something",
    "anything",
    "words",
];

/// Politeness and punctuation around a request: `please`, `?`.
fn bare(question: &str) -> &str {
    let mut text = question.trim();
    loop {
        let before = text;
        text = text.trim_end_matches(['?', '.', '!', ',', ' ']);
        for polite in ["please", "Please"] {
            text = text.strip_suffix(polite).unwrap_or(text);
            text = text.strip_prefix(polite).unwrap_or(text).trim_start();
        }
        if text == before {
            return text;
        }
    }
}

/// The word of a spelling question, spelled out.
pub fn spell(args: SpellArgs) -> Result<SpellOutput, ToolError> {
    let question = args.question.trim();
    let word = ASKED
        .iter()
        .find_map(|asked| asked.captures(bare(question)))
        .map(|found| found[1].trim_matches(['\'', '’', '"']).to_string())
        .filter(|word| {
            let first = word.split_whitespace().next().unwrap_or_default();
            !NOT_A_WORD.contains(&first.to_lowercase().as_str())
        })
        .filter(|word| word.chars().filter(|c| c.is_alphabetic()).count() <= 40)
        .ok_or_else(|| {
            ToolError::Failed(format!(
                "`{question}` asks for no word to be spelled: answer it from what you know, or \
                 use another tool"
            ))
        })?;
    let letters: Vec<String> = word
        .chars()
        .filter(|c| c.is_alphabetic())
        .map(|c| c.to_uppercase().to_string())
        .collect();
    Ok(SpellOutput {
        answer: format!("{word} is spelled {}.", letters.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(question: &str) -> Result<String, ToolError> {
        spell(SpellArgs {
            question: question.into(),
        })
        .map(|o| o.answer)
    }

    #[test]
    fn the_word_asked_about_is_spelled_out() {
        assert_eq!(
            ask("How do you spell necessary?").unwrap(),
            "necessary is spelled N, E, C, E, S, S, A, R, Y."
        );
        assert_eq!(
            ask("spell Mississippi please").unwrap(),
            "Mississippi is spelled M, I, S, S, I, S, S, I, P, P, I."
        );
        assert_eq!(
            ask("What's the spelling of the word 'rhythm'?").unwrap(),
            "rhythm is spelled R, H, Y, T, H, M."
        );
        assert_eq!(
            ask("How is definitely spelled?").unwrap(),
            "definitely is spelled D, E, F, I, N, I, T, E, L, Y."
        );
    }

    #[test]
    fn other_questions_are_not_spelling() {
        for question in [
            "What is the capital of France?",
            "How is the weather?",
            "How do you spell the word for a group of crows in Latin and why is it so hard?",
            "Spell 1234",
            "Can you spell check this?",
            "Spell it for me.",
            "spell out the answer",
        ] {
            assert!(ask(question).is_err(), "{question}");
        }
    }
}

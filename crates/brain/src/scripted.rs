//! A brain that answers from a script, for deterministic engine tests.
//!
//! Each call to [`Brain::generate`] takes the next reply from the list (a
//! whole assistant message; with a forced reply prefix, what follows it) and
//! streams it word by word (one word counts as one token), honouring stop
//! strings, `max_tokens` and cancellation like the real brain. Every request
//! is recorded so tests can check what an engine sent.

use super::stop::{Scanned, StopScanner};
use super::{
    Brain, BrainError, BrainInfo, ChatRequest, Completion, EndReason, Generation, GenerationEvent,
    Piece, Usage,
};
use std::collections::VecDeque;
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// Replays canned replies.
pub struct ScriptedBrain {
    info: BrainInfo,
    replies: Mutex<VecDeque<String>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl ScriptedBrain {
    /// A brain that will give these replies, in order.
    pub fn new<S: Into<String>>(replies: impl IntoIterator<Item = S>) -> Self {
        ScriptedBrain {
            info: BrainInfo {
                model: "scripted".into(),
                arch: "scripted".into(),
                device: "none".into(),
                threads: 0,
                context_length: 1 << 20,
                template_supports_tools: true,
                unconstrained: None,
                knowledge_model: None,
            },
            replies: Mutex::new(replies.into_iter().map(Into::into).collect()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Whether the brain claims a chat template that renders tools (default
    /// yes), to test engines that depend on it.
    pub fn with_tool_template(mut self, supported: bool) -> Self {
        self.info.template_supports_tools = supported;
        self
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.requests).clone()
    }

    /// Replies not yet used.
    pub fn remaining(&self) -> usize {
        lock(&self.replies).len()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the model generates after a forced reply prefix, when the scripted
/// reply is the whole assistant message: the rest after the prefix, or the
/// whole reply on a new line when it does not start with the prefix.
fn after_prefix(reply: &str, prefix: &str) -> String {
    if prefix.is_empty() {
        reply.to_string()
    } else if let Some(rest) = reply.strip_prefix(prefix) {
        rest.to_string()
    } else {
        format!("\n{reply}")
    }
}

/// Splits text into words, each keeping the whitespace before it.
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() && in_word {
            out.push(&text[start..i]);
            start = i;
            in_word = false;
        } else if !c.is_whitespace() {
            in_word = true;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

impl Brain for ScriptedBrain {
    fn info(&self) -> &BrainInfo {
        &self.info
    }

    fn generate(&self, request: ChatRequest, cancel: CancellationToken) -> Generation {
        let (events, generation) = Generation::channel();
        let prompt_tokens: usize = request
            .messages
            .iter()
            .map(|m| words(&m.content).len() + 4)
            .sum();
        let options = request.options.clone();
        let prefix = request.assistant_prefix.clone();
        lock(&self.requests).push(request);
        let Some(reply) = lock(&self.replies).pop_front() else {
            let _ = events.send(GenerationEvent::Failed(BrainError::ScriptExhausted));
            return generation;
        };
        let reply = after_prefix(&reply, &prefix);
        let mut usage = Usage {
            prompt_tokens,
            prefill_tokens: prompt_tokens,
            ..Usage::default()
        };
        let mut stops = StopScanner::new(&options.stop);
        let mut text = String::new();
        let mut end = EndReason::EndOfTurn;
        for (token, word) in words(&reply).into_iter().enumerate() {
            if cancel.is_cancelled() {
                end = EndReason::Cancelled;
                break;
            }
            if usage.completion_tokens >= options.max_tokens {
                end = EndReason::MaxTokens;
                break;
            }
            usage.completion_tokens += 1;
            let (piece, stop) = match stops.push(word) {
                Scanned::Emit(piece) => (piece, None),
                Scanned::Stopped { before, stop } => (before, Some(stop)),
            };
            text.push_str(&piece);
            let _ = events.send(GenerationEvent::Piece(Piece {
                text: piece,
                token: token as u32,
            }));
            if let Some(stop) = stop {
                end = EndReason::Stop(stop);
                break;
            }
        }
        if !matches!(end, EndReason::Stop(_)) {
            let rest = stops.finish();
            if !rest.is_empty() {
                text.push_str(&rest);
                let _ = events.send(GenerationEvent::Piece(Piece {
                    text: rest,
                    token: 0,
                }));
            }
        }
        let _ = events.send(GenerationEvent::Finished(Completion {
            text,
            end,
            usage,
            tool_calls: Vec::new(),
        }));
        generation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GenerateOptions, Message};

    fn request(stop: &[&str], max_tokens: usize) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::user("hello there")],
            tools: Vec::new(),
            options: GenerateOptions {
                stop: stop.iter().map(|s| s.to_string()).collect(),
                max_tokens,
                ..Default::default()
            },
            assistant_prefix: String::new(),
            session: None,
            grammar: None,
            from_knowledge: false,
        }
    }

    #[tokio::test]
    async fn replays_in_order_and_records_requests() {
        let brain = ScriptedBrain::new(["one two", "three"]);
        let first = brain
            .generate(request(&[], 100), CancellationToken::new())
            .finish()
            .await
            .unwrap();
        assert_eq!(first.text, "one two");
        assert_eq!(first.usage.completion_tokens, 2);
        let second = brain
            .generate(request(&[], 100), CancellationToken::new())
            .finish()
            .await
            .unwrap();
        assert_eq!(second.text, "three");
        assert_eq!(brain.requests().len(), 2);
        let third = brain
            .generate(request(&[], 100), CancellationToken::new())
            .finish()
            .await;
        assert_eq!(third.unwrap_err(), BrainError::ScriptExhausted);
    }

    #[tokio::test]
    async fn honours_stop_strings_and_max_tokens() {
        let brain = ScriptedBrain::new(["Action: x\nObservation: made up", "a b c d"]);
        let done = brain
            .generate(request(&["Observation:"], 100), CancellationToken::new())
            .finish()
            .await
            .unwrap();
        assert_eq!(done.text, "Action: x\n");
        assert_eq!(done.end, EndReason::Stop("Observation:".into()));
        let done = brain
            .generate(request(&[], 2), CancellationToken::new())
            .finish()
            .await
            .unwrap();
        assert_eq!(done.text, "a b");
        assert_eq!(done.end, EndReason::MaxTokens);
    }

    #[test]
    fn words_keep_their_leading_space() {
        assert_eq!(words("a  b\nc"), vec!["a", "  b", "\nc"]);
        assert_eq!(words(""), Vec::<&str>::new());
    }
}

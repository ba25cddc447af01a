//! The one translation of a run's [`LoopEvent`]s into what front ends send:
//! text on its channel, every other event as typed JSON ([`Outgoing`]), and
//! the answer as sentences to speak ([`SpokenAnswer`]).

use crate::engine::sentences::Sentences;
use crate::engine::LoopEvent;
use serde_json::Value;

/// Which text a token belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The answer the user hears or reads.
    Answer,
    /// The loop's reasoning, shown only to callers who want it.
    Thought,
}

impl Channel {
    /// The channel's name on the wire: `answer` or `thought`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Answer => "answer",
            Channel::Thought => "thought",
        }
    }
}

/// What a front end sends for one loop event.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    /// Streamed text.
    Token {
        /// Answer or reasoning.
        channel: Channel,
        /// The text as generated.
        text: String,
    },
    /// Any other event (a tool call, an observation, a plan, …).
    Event {
        /// Its `type`, as in the JSON.
        kind: String,
        /// The whole event as JSON.
        json: Value,
    },
}

impl From<LoopEvent> for Outgoing {
    fn from(event: LoopEvent) -> Outgoing {
        match event {
            LoopEvent::AnswerToken { text } => Outgoing::Token {
                channel: Channel::Answer,
                text,
            },
            LoopEvent::ThoughtToken { text } => Outgoing::Token {
                channel: Channel::Thought,
                text,
            },
            other => {
                let json = serde_json::to_value(&other).unwrap_or(Value::Null);
                let kind = json["type"].as_str().unwrap_or("event").to_string();
                Outgoing::Event { kind, json }
            }
        }
    }
}

impl Outgoing {
    /// The answer's text, if this is answer text.
    pub fn answer_text(event: LoopEvent) -> Option<String> {
        match Outgoing::from(event) {
            Outgoing::Token {
                channel: Channel::Answer,
                text,
            } => Some(text),
            _ => None,
        }
    }
}

/// A run's answer as sentences to speak: hear every event, say what comes
/// back, then say what [`SpokenAnswer::finish`] leaves. The first piece
/// may be a long first clause, so the voice starts sooner.
#[derive(Debug)]
pub struct SpokenAnswer {
    sentences: Sentences,
}

impl Default for SpokenAnswer {
    fn default() -> Self {
        SpokenAnswer {
            sentences: Sentences::clause_first(),
        }
    }
}

impl SpokenAnswer {
    /// Nothing heard yet.
    pub fn new() -> SpokenAnswer {
        SpokenAnswer::default()
    }

    /// The sentences `event` completes: only answer text is spoken.
    pub fn hear(&mut self, event: &LoopEvent) -> Vec<String> {
        match event {
            LoopEvent::AnswerToken { text } => self.sentences.push(text),
            _ => Vec::new(),
        }
    }

    /// What is left to say once the run has ended.
    pub fn finish(mut self) -> Option<String> {
        self.sentences.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_their_channel_and_events_their_type() {
        let answer = Outgoing::from(LoopEvent::AnswerToken { text: "Hi".into() });
        assert_eq!(
            answer,
            Outgoing::Token {
                channel: Channel::Answer,
                text: "Hi".into()
            }
        );
        let thought = Outgoing::from(LoopEvent::ThoughtToken { text: "hm".into() });
        assert!(matches!(
            thought,
            Outgoing::Token {
                channel: Channel::Thought,
                ..
            }
        ));
        let call = LoopEvent::ToolCall {
            name: "clock".into(),
            arguments: serde_json::json!({}),
        };
        let Outgoing::Event { kind, json } = Outgoing::from(call) else {
            panic!("a tool call is an event");
        };
        assert_eq!(kind, "tool_call");
        assert_eq!(json["name"], "clock");
    }

    #[test]
    fn only_the_answer_is_spoken_a_sentence_at_a_time() {
        let mut spoken = SpokenAnswer::new();
        let thought = LoopEvent::ThoughtToken {
            text: "I think. ".into(),
        };
        assert!(spoken.hear(&thought).is_empty());
        let first = LoopEvent::AnswerToken {
            text: "It is noon. It".into(),
        };
        assert_eq!(spoken.hear(&first), vec!["It is noon.".to_string()]);
        let rest = LoopEvent::AnswerToken {
            text: " rains".into(),
        };
        assert!(spoken.hear(&rest).is_empty());
        assert_eq!(spoken.finish().as_deref(), Some("It rains"));
    }
}

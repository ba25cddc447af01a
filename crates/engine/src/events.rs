//! What an engine reports while it runs, and the trace it leaves.

use serde::Serialize;
use serde_json::Value;

/// Something that happened during a loop, streamed to whoever asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LoopEvent {
    /// Text a voice should speak: part of the answer.
    AnswerToken {
        /// The new text.
        text: String,
    },
    /// Reasoning text, not to be spoken.
    ThoughtToken {
        /// The new text.
        text: String,
    },
    /// The engine that runs this request (what `auto` chose, or a fallback).
    EngineChosen {
        /// Engine id.
        engine: String,
        /// Why, in a few words.
        reason: String,
    },
    /// A plan was made (or remade).
    Plan {
        /// The steps, in order.
        steps: Vec<String>,
    },
    /// A step of a plan (or a search level) started.
    StepStarted {
        /// 1-based step number.
        index: usize,
        /// What the step is.
        description: String,
    },
    /// A step finished.
    StepFinished {
        /// 1-based step number.
        index: usize,
        /// What it produced.
        result: String,
    },
    /// A tool is being called.
    ToolCall {
        /// Tool name.
        name: String,
        /// Arguments as the model gave them.
        arguments: Value,
    },
    /// What a tool call returned (or why it failed), as shown to the model.
    Observation {
        /// Tool name.
        name: String,
        /// The text the model sees.
        result: String,
        /// Whether the call failed.
        is_error: bool,
    },
    /// A verbal reflection on a failed attempt (Reflexion) or a critique.
    Reflection {
        /// The reflection.
        text: String,
    },
    /// A candidate was scored (Tree-of-Thoughts, evaluators).
    Score {
        /// What was scored.
        candidate: String,
        /// Its score.
        score: f64,
    },
    /// Model output that matched no protocol.
    FormatError {
        /// What was wrong.
        detail: String,
    },
    /// An answer held numbers that neither the conversation nor a tool's
    /// result gives, and the engine sent it back.
    Ungrounded {
        /// The numbers, as written in the answer.
        numbers: Vec<String>,
    },
    /// The loop ended.
    Final {
        /// The answer.
        answer: String,
        /// How it ended (`answered`, `max_turns`, …).
        termination: String,
    },
}

/// The events of a run, with consecutive tokens of one channel merged into
/// one entry (`{"type":"thought","text":"…"}`) so the trace stays readable.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(transparent)]
pub struct Trace {
    entries: Vec<Value>,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Trace::default()
    }

    /// Adds an event.
    pub fn push(&mut self, event: &LoopEvent) {
        let (kind, text) = match event {
            LoopEvent::AnswerToken { text } => ("answer", text),
            LoopEvent::ThoughtToken { text } => ("thought", text),
            other => {
                if let Ok(value) = serde_json::to_value(other) {
                    self.entries.push(value);
                }
                return;
            }
        };
        if let Some(last) = self.entries.last_mut() {
            if last["type"] == kind {
                if let Some(Value::String(merged)) = last.get_mut("text") {
                    merged.push_str(text);
                    return;
                }
            }
        }
        self.entries
            .push(serde_json::json!({ "type": kind, "text": text }));
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[Value] {
        &self.entries
    }
}

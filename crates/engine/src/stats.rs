//! What a run cost: every LLM call and tool call, and the totals the JSON
//! contract reports.

use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// One LLM call, for the stats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    /// What the call was for (`react`, `planner`, `evaluator`, …).
    pub purpose: String,
    /// The loop turn it belongs to (0: before the first turn, e.g. a planner).
    pub turn: usize,
    /// Tokens in the rendered prompt.
    pub prompt_tokens: usize,
    /// Prompt tokens actually computed.
    pub prefill_tokens: usize,
    /// Prompt tokens reused from the KV cache.
    pub cached_tokens: usize,
    /// Tokens generated.
    pub completion_tokens: usize,
    /// Time to first token of this call.
    pub ttft_ms: f64,
    /// Time from the start of this call to its first answer-channel token,
    /// if it spoke.
    pub first_answer_token_ms: Option<f64>,
    /// Prefill time.
    pub prefill_ms: f64,
    /// Decode time.
    pub decode_ms: f64,
    /// Prompt tokens computed per second.
    pub prefill_tok_s: f64,
    /// Tokens generated per second after the first.
    pub decode_tok_s: f64,
    /// Drafted tokens checked by speculative decoding.
    #[serde(skip_serializing_if = "is_zero")]
    pub draft_tokens: usize,
    /// Of those, the ones kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub draft_tokens_taken: usize,
    /// The whole call, from sending it to the brain to its last token.
    pub wall_ms: f64,
    /// Why generation ended.
    pub end: String,
    /// Whether the reply was held to its protocol's grammar: false when
    /// the loop runs unconstrained or the brain cannot follow grammars.
    pub constrained: bool,
    /// Whether the call answered from knowledge (the knowledge model's,
    /// when the brain has one).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub from_knowledge: bool,
}

/// One tool call, for the stats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallRecord {
    /// Tool name.
    pub name: String,
    /// Arguments as given.
    pub arguments: Value,
    /// What the model was shown.
    pub result: String,
    /// Whether it failed.
    pub is_error: bool,
    /// Whether it was refused before running: an unknown tool, or arguments
    /// that do not fit the tool's schema.
    pub invalid: bool,
    /// How long it ran.
    pub duration_ms: f64,
}

/// What a run cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoopStats {
    /// Loop iterations (as counted by the engines).
    pub turns: usize,
    /// Every LLM call.
    pub calls: Vec<CallRecord>,
    /// Every tool call.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model outputs that matched no protocol.
    pub format_errors: usize,
    /// Answers sent back because a number in them came from no source
    /// (the question, the conversation or a tool's result).
    pub ungrounded_answers: usize,
    /// From the start of the run to the first generated token.
    pub ttft_ms: Option<f64>,
    /// From the start of the run to the first token on the answer channel.
    pub first_answer_token_ms: Option<f64>,
    /// Whole run.
    pub wall_ms: f64,
    /// Why calls that have a grammar went without it: the brain cannot
    /// follow grammars (a remote server set up without them).
    pub unconstrained: Option<String>,
}

impl LoopStats {
    /// Number of LLM calls.
    pub fn llm_calls(&self) -> usize {
        self.calls.len()
    }

    /// Prompt tokens sent, over all calls.
    pub fn prompt_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.prompt_tokens).sum()
    }

    /// Prompt tokens computed, over all calls.
    pub fn prefill_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.prefill_tokens).sum()
    }

    /// Prompt tokens reused from the KV cache, over all calls.
    pub fn cached_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.cached_tokens).sum()
    }

    /// Tokens generated, over all calls.
    pub fn completion_tokens(&self) -> usize {
        self.calls.iter().map(|c| c.completion_tokens).sum()
    }

    /// Time spent in prefill, over all calls.
    pub fn prefill_ms(&self) -> f64 {
        self.calls.iter().fold(0.0, |sum, c| sum + c.prefill_ms)
    }

    /// Time spent decoding, over all calls.
    pub fn decode_ms(&self) -> f64 {
        self.calls.iter().fold(0.0, |sum, c| sum + c.decode_ms)
    }

    /// Tool calls refused before running (unknown tool, arguments against
    /// the schema).
    pub fn invalid_tool_calls(&self) -> usize {
        self.tool_calls.iter().filter(|c| c.invalid).count()
    }

    /// Time spent in tools.
    pub fn tool_ms(&self) -> f64 {
        self.tool_calls
            .iter()
            .fold(0.0, |sum, c| sum + c.duration_ms)
    }

    /// The stats object of the JSON contract (DESIGN.md, CLI), plus detail.
    pub fn to_json(&self) -> Value {
        let per_second = |tokens: usize, ms: f64| {
            if tokens == 0 || ms <= 0.0 {
                0.0
            } else {
                round1(tokens as f64 * 1000.0 / ms)
            }
        };
        let decoded: usize = self
            .calls
            .iter()
            .map(|c| c.completion_tokens.saturating_sub(1))
            .sum();
        let mut stats = serde_json::json!({
            "turns": self.turns,
            "llm_calls": self.llm_calls(),
            "tool_calls": self.tool_calls.len(),
            "prompt_tokens": self.prompt_tokens(),
            "prefill_tokens": self.prefill_tokens(),
            "cached_tokens": self.cached_tokens(),
            "completion_tokens": self.completion_tokens(),
            "format_errors": self.format_errors,
            "invalid_tool_calls": self.invalid_tool_calls(),
            "ttft_ms": self.ttft_ms.map(round1),
            "first_answer_token_ms": self.first_answer_token_ms.map(round1),
            "prefill_tok_s": per_second(self.prefill_tokens(), self.prefill_ms()),
            "decode_tok_s": per_second(decoded, self.decode_ms()),
            "prefill_ms": round1(self.prefill_ms()),
            "decode_ms": round1(self.decode_ms()),
            "tool_ms": round1(self.tool_ms()),
            "wall_ms": round1(self.wall_ms),
            "calls": self.calls,
            "tools": self.tool_calls,
        });
        if let Some(why) = &self.unconstrained {
            stats["unconstrained"] = Value::from(why.as_str());
        }
        stats
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Rounds to one decimal, for readable JSON.
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

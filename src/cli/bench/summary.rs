//! Totals over runs: per engine and cache mode, what the report and the
//! plot show.

use super::runner::RunRecord;
use crate::engine::{round1, Termination};
use serde_json::{json, Value};

/// Prompt tokens sent and computed over some runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Share {
    /// Runs counted.
    pub runs: usize,
    /// Prompt tokens sent.
    pub prompt: usize,
    /// Prompt tokens computed.
    pub prefill: usize,
}

impl Share {
    fn add(&mut self, prompt: usize, prefill: usize) {
        self.runs += 1;
        self.prompt += prompt;
        self.prefill += prefill;
    }

    /// Prefill over prompt tokens (`None` without prompt tokens).
    pub fn ratio(&self) -> Option<f64> {
        (self.prompt > 0).then(|| self.prefill as f64 / self.prompt as f64)
    }
}

/// What some runs cost and achieved, together.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Runs, follow-ups included.
    pub runs: usize,
    /// Runs that ended with an answer.
    pub answered: usize,
    /// Runs whose answer was graded.
    pub graded: usize,
    /// Graded runs with a right answer.
    pub correct: usize,
    /// Graded runs whose answer is right and speakable.
    pub correct_speakable: usize,
    /// Runs whose answer a voice can say well.
    pub speakable: usize,
    /// Answers sent back for numbers from no source.
    pub ungrounded_answers: usize,
    /// Wall time of each run.
    walls_ms: Vec<f64>,
    /// LLM calls.
    pub llm_calls: usize,
    /// Replies that fit no protocol.
    pub format_errors: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Tool calls refused before running (unknown tool, bad arguments).
    pub invalid_tool_calls: usize,
    /// Runs with at least one tool call.
    pub runs_with_tool_calls: usize,
    /// Prompt tokens sent.
    pub prompt_tokens: usize,
    /// Prompt tokens computed.
    pub prefill_tokens: usize,
    /// Prompt tokens reused.
    pub cached_tokens: usize,
    /// Tokens generated.
    pub completion_tokens: usize,
    /// Tokens generated after each call's first (what decode time covers).
    decoded_tokens: usize,
    /// Over all runs.
    pub all: Share,
    /// Over runs that made at least three LLM calls.
    pub multi_call: Share,
    /// Over follow-up questions.
    pub follow_up: Share,
    /// Time to first answer token of each run that had one.
    first_answer_ms: Vec<f64>,
    /// Time to first token of each run that had one.
    first_token_ms: Vec<f64>,
    /// Prefill time.
    pub prefill_ms: f64,
    /// Decode time.
    pub decode_ms: f64,
    /// Tool time.
    pub tool_ms: f64,
    /// Wall time.
    pub wall_ms: f64,
}

impl Summary {
    /// Totals over `runs`.
    pub fn of<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Summary {
        let mut s = Summary::default();
        for run in runs {
            let stats = &run.outcome.stats;
            s.runs += 1;
            s.answered += usize::from(run.outcome.termination == Termination::Answered);
            s.graded += usize::from(run.correct.is_some());
            s.correct += usize::from(run.correct == Some(true));
            let speakable = run.unspeakable.is_empty();
            s.speakable += usize::from(speakable);
            s.correct_speakable += usize::from(run.correct == Some(true) && speakable);
            s.ungrounded_answers += stats.ungrounded_answers;
            s.walls_ms.push(stats.wall_ms);
            s.llm_calls += stats.llm_calls();
            s.format_errors += stats.format_errors;
            s.tool_calls += stats.tool_calls.len();
            s.invalid_tool_calls += stats.invalid_tool_calls();
            s.runs_with_tool_calls += usize::from(!stats.tool_calls.is_empty());
            s.prompt_tokens += stats.prompt_tokens();
            s.prefill_tokens += stats.prefill_tokens();
            s.cached_tokens += stats.cached_tokens();
            s.completion_tokens += stats.completion_tokens();
            s.decoded_tokens += stats
                .calls
                .iter()
                .map(|c| c.completion_tokens.saturating_sub(1))
                .sum::<usize>();
            let (prompt, prefill) = (stats.prompt_tokens(), stats.prefill_tokens());
            s.all.add(prompt, prefill);
            if stats.llm_calls() >= 3 {
                s.multi_call.add(prompt, prefill);
            }
            if run.follow_up {
                s.follow_up.add(prompt, prefill);
            }
            s.first_answer_ms.extend(stats.first_answer_token_ms);
            s.first_token_ms.extend(stats.ttft_ms);
            s.prefill_ms += stats.prefill_ms();
            s.decode_ms += stats.decode_ms();
            s.tool_ms += stats.tool_ms();
            s.wall_ms += stats.wall_ms;
        }
        s
    }

    /// Right answers over graded runs.
    pub fn accuracy(&self) -> Option<f64> {
        (self.graded > 0).then(|| self.correct as f64 / self.graded as f64)
    }

    /// Right and speakable answers over graded runs.
    pub fn spoken_accuracy(&self) -> Option<f64> {
        (self.graded > 0).then(|| self.correct_speakable as f64 / self.graded as f64)
    }

    /// Median wall time of a run.
    pub fn median_wall_ms(&self) -> Option<f64> {
        median(&self.walls_ms)
    }

    /// The share of runs that called a tool.
    pub fn tool_call_rate(&self) -> Option<f64> {
        (self.runs > 0).then(|| self.runs_with_tool_calls as f64 / self.runs as f64)
    }

    /// Median time to the first answer token.
    pub fn median_first_answer_ms(&self) -> Option<f64> {
        median(&self.first_answer_ms)
    }

    /// Prompt tokens computed per second of prefill.
    pub fn prefill_tok_s(&self) -> f64 {
        per_second(self.prefill_tokens, self.prefill_ms)
    }

    /// Tokens decoded per second of decoding.
    pub fn decode_tok_s(&self) -> f64 {
        per_second(self.decoded_tokens, self.decode_ms)
    }

    /// Wall time in neither prefill, decode nor tools: tokenizing, the
    /// template, the engine's own work, waiting.
    pub fn other_ms(&self) -> f64 {
        (self.wall_ms - self.prefill_ms - self.decode_ms - self.tool_ms).max(0.0)
    }

    /// A total per run.
    pub fn mean(&self, total: f64) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            total / self.runs as f64
        }
    }

    /// The summary object of the JSON report.
    pub fn to_json(&self) -> Value {
        let ratio = |share: &Share| share.ratio().map(round3);
        json!({
            "runs": self.runs,
            "answered": self.answered,
            "graded": self.graded,
            "correct": self.correct,
            "accuracy": self.accuracy().map(round3),
            "correct_speakable": self.correct_speakable,
            "spoken_accuracy": self.spoken_accuracy().map(round3),
            "speakable": self.speakable,
            "ungrounded_answers": self.ungrounded_answers,
            "wall_ms_median": self.median_wall_ms().map(round1),
            "llm_calls": self.llm_calls,
            "format_errors": self.format_errors,
            "tool_calls": self.tool_calls,
            "invalid_tool_calls": self.invalid_tool_calls,
            "tool_call_rate": self.tool_call_rate().map(round3),
            "prompt_tokens": self.prompt_tokens,
            "prefill_tokens": self.prefill_tokens,
            "cached_tokens": self.cached_tokens,
            "completion_tokens": self.completion_tokens,
            "prefill_ratio": ratio(&self.all),
            "multi_call_runs": self.multi_call.runs,
            "multi_call_prefill_ratio": ratio(&self.multi_call),
            "follow_up_runs": self.follow_up.runs,
            "follow_up_prefill_ratio": ratio(&self.follow_up),
            "first_answer_token_ms_median": self.median_first_answer_ms().map(round1),
            "ttft_ms_median": median(&self.first_token_ms).map(round1),
            "prefill_tok_s": round1(self.prefill_tok_s()),
            "decode_tok_s": round1(self.decode_tok_s()),
            "wall_ms_mean": round1(self.mean(self.wall_ms)),
            "wall_ms_total": round1(self.wall_ms),
            "prefill_ms": round1(self.prefill_ms),
            "decode_ms": round1(self.decode_ms),
            "tool_ms": round1(self.tool_ms),
            "other_ms": round1(self.other_ms()),
        })
    }
}

/// The middle value (the mean of the two middle ones for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

fn per_second(tokens: usize, ms: f64) -> f64 {
    if tokens == 0 || ms <= 0.0 {
        0.0
    } else {
        tokens as f64 * 1000.0 / ms
    }
}

/// Rounds to three decimals, for ratios.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        let mut share = Share::default();
        assert_eq!(share.ratio(), None);
        share.add(200, 20);
        share.add(300, 30);
        assert_eq!((share.runs, share.ratio()), (2, Some(0.1)));
    }
}

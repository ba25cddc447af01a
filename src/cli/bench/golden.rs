//! `loopd bench --raw --golden FILE`: how closely this build, on this device,
//! follows llama.cpp's greedy continuations (tests/golden/llamacpp.jsonl).
//!
//! Each continuation is fed token by token (teacher forcing); a step agrees
//! when our top token is llama.cpp's, and is a near-tie when the two tokens'
//! logits are closer than [`NEAR_TIE`] (quantized kernels round differently).

use crate::brain::model::Model;
use crate::brain::sampler::argmax;
use crate::brain::tokenizer::Tokenizer;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;

/// Two candidates whose logits are this close may swap places between two
/// correct implementations.
pub const NEAR_TIE: f32 = 0.25;

/// How a model followed the golden continuations.
#[derive(Debug, Default, Serialize)]
pub struct Agreement {
    /// Continuations checked.
    pub cases: usize,
    /// Tokens checked, over all continuations.
    pub steps: usize,
    /// Steps where our top token was llama.cpp's.
    pub exact: usize,
    /// The widest logit gap at a step that disagreed (0 when none did).
    pub worst_gap: f32,
    /// Steps that disagreed by [`NEAR_TIE`] or more, as "case/step".
    pub beyond_tie: Vec<String>,
}

impl Agreement {
    /// True when every step agreed or was a near-tie, and nine in ten agreed.
    pub fn holds(&self) -> bool {
        self.steps > 0 && self.beyond_tie.is_empty() && self.exact * 10 >= self.steps * 9
    }
}

/// The greedy continuations for `model` (its name in the manifest) in a
/// golden JSON-lines file.
pub fn cases(file: &Path, model: &str) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut cases = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let case: Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", file.display(), n + 1))?;
        if case["model"] == model && case["kind"] == "greedy" {
            cases.push(case);
        }
    }
    if cases.is_empty() {
        return Err(format!(
            "{} has no greedy continuations for {model}",
            file.display()
        ));
    }
    Ok(cases)
}

/// Feeds each case's continuation through `model` and counts agreement.
pub fn agreement(
    model: &Model,
    tokenizer: &Tokenizer,
    cases: &[Value],
) -> Result<Agreement, String> {
    let err = |e: candle_core::Error| e.to_string();
    let mut out = Agreement::default();
    for (n, case) in cases.iter().enumerate() {
        let text = case["prompt"].as_str().ok_or("a case without a prompt")?;
        let prompt = tokenizer.encode(text).map_err(|e| e.to_string())?;
        if prompt != ids(&case["prompt_ids"])? {
            return Err(format!("case {n}: our prompt ids differ from llama.cpp's"));
        }
        let mut cache = model.new_cache();
        let mut logits = model.forward(&prompt, &mut cache).map_err(err)?;
        for (step, expected) in ids(&case["next_ids"])?.into_iter().enumerate() {
            let values = logits.to_vec1::<f32>().map_err(err)?;
            let ours = argmax(&values);
            let gap =
                values[ours as usize] - values.get(expected as usize).copied().unwrap_or(f32::MIN);
            out.steps += 1;
            if ours == expected {
                out.exact += 1;
            } else {
                out.worst_gap = out.worst_gap.max(gap);
                if gap >= NEAR_TIE {
                    out.beyond_tie.push(format!("{n}/{step}"));
                }
            }
            logits = model.forward(&[expected], &mut cache).map_err(err)?;
        }
        out.cases += 1;
    }
    Ok(out)
}

fn ids(value: &Value) -> Result<Vec<u32>, String> {
    value
        .as_array()
        .ok_or("token ids are not an array")?
        .iter()
        .map(|x| {
            x.as_u64()
                .map(|id| id as u32)
                .ok_or_else(|| "a token id is not a number".to_string())
        })
        .collect()
}

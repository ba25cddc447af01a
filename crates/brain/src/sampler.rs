//! Picking the next token from the model's logits.
//!
//! Greedy when the temperature is 0; otherwise repetition penalty, then
//! temperature, top-k and top-p, then a draw from a seeded generator so that
//! the same seed gives the same text.

use super::GenerateOptions;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A token chooser configured from [`GenerateOptions`].
pub struct Sampler {
    temperature: f32,
    top_k: usize,
    top_p: f32,
    repetition_penalty: f32,
    repeat_last_n: usize,
    rng: StdRng,
    candidates: Vec<(u32, f32)>,
}

impl Sampler {
    /// A sampler for one generation.
    pub fn new(options: &GenerateOptions) -> Self {
        Sampler {
            temperature: options.temperature,
            top_k: options.top_k,
            top_p: options.top_p,
            repetition_penalty: options.repetition_penalty,
            repeat_last_n: options.repeat_last_n,
            rng: StdRng::seed_from_u64(options.seed),
            candidates: Vec::new(),
        }
    }

    /// Chooses a token. `recent` are the tokens so far (prompt and output),
    /// for the repetition penalty. Non-finite logits are never chosen; if all
    /// are, token 0 is returned.
    pub fn sample(&mut self, logits: &mut [f32], recent: &[u32]) -> u32 {
        if self.repetition_penalty != 1.0 && self.repeat_last_n > 0 {
            let start = recent.len().saturating_sub(self.repeat_last_n);
            let mut seen = recent[start..].to_vec();
            seen.sort_unstable();
            seen.dedup();
            for id in seen {
                if let Some(l) = logits.get_mut(id as usize) {
                    *l = if *l > 0.0 {
                        *l / self.repetition_penalty
                    } else {
                        *l * self.repetition_penalty
                    };
                }
            }
        }
        if self.temperature <= 0.0 {
            return argmax(logits);
        }
        self.candidates.clear();
        self.candidates.extend(
            logits
                .iter()
                .enumerate()
                .filter(|(_, l)| l.is_finite())
                .map(|(i, &l)| (i as u32, l / self.temperature)),
        );
        if self.candidates.is_empty() {
            return 0;
        }
        let by_logit_desc = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1);
        if self.top_k > 0 && self.top_k < self.candidates.len() {
            self.candidates
                .select_nth_unstable_by(self.top_k - 1, by_logit_desc);
            self.candidates.truncate(self.top_k);
        }
        self.candidates.sort_unstable_by(by_logit_desc);
        let max = self.candidates[0].1;
        let mut total = 0.0f32;
        for c in self.candidates.iter_mut() {
            c.1 = (c.1 - max).exp();
            total += c.1;
        }
        if self.top_p < 1.0 {
            let mut cumulative = 0.0;
            let mut keep = self.candidates.len();
            for (i, c) in self.candidates.iter().enumerate() {
                cumulative += c.1 / total;
                if cumulative >= self.top_p {
                    keep = i + 1;
                    break;
                }
            }
            self.candidates.truncate(keep);
            total = self.candidates.iter().map(|c| c.1).sum();
        }
        let mut draw = self.rng.random::<f32>() * total;
        for &(id, weight) in &self.candidates {
            draw -= weight;
            if draw <= 0.0 {
                return id;
            }
        }
        self.candidates.last().map(|c| c.0).unwrap_or(0)
    }
}

/// Index of the largest finite logit (the first on ties).
pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0usize;
    let mut best_value = f32::NEG_INFINITY;
    for (i, &l) in logits.iter().enumerate() {
        if l > best_value {
            best = i;
            best_value = l;
        }
    }
    best as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(temperature: f32, seed: u64) -> GenerateOptions {
        GenerateOptions {
            temperature,
            seed,
            ..Default::default()
        }
    }

    #[test]
    fn greedy_takes_the_largest() {
        let mut s = Sampler::new(&options(0.0, 1));
        assert_eq!(s.sample(&mut [0.1, 3.0, -1.0, 2.9], &[]), 1);
    }

    #[test]
    fn nan_and_infinity_are_never_chosen() {
        let mut s = Sampler::new(&options(0.8, 1));
        for _ in 0..50 {
            let t = s.sample(&mut [f32::NAN, 1.0, f32::NEG_INFINITY, 0.5], &[]);
            assert!(t == 1 || t == 3, "{t}");
        }
        assert_eq!(
            Sampler::new(&options(0.0, 1)).sample(&mut [f32::NAN, 1.0], &[]),
            1
        );
    }

    #[test]
    fn same_seed_same_choices() {
        let logits: Vec<f32> = (0..100).map(|i| (i as f32 * 0.37).sin()).collect();
        let run = |seed| {
            let mut s = Sampler::new(&GenerateOptions {
                top_k: 0,
                top_p: 1.0,
                ..options(1.0, seed)
            });
            (0..20)
                .map(|_| s.sample(&mut logits.clone(), &[]))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn top_k_one_is_greedy() {
        let mut s = Sampler::new(&GenerateOptions {
            top_k: 1,
            ..options(1.5, 3)
        });
        for _ in 0..20 {
            assert_eq!(s.sample(&mut [0.0, 0.2, 0.1], &[]), 1);
        }
    }

    #[test]
    fn repetition_penalty_lowers_seen_tokens() {
        let mut s = Sampler::new(&GenerateOptions {
            repetition_penalty: 2.0,
            ..options(0.0, 1)
        });
        assert_eq!(s.sample(&mut [1.0, 1.5, 0.0], &[1]), 0);
    }
}

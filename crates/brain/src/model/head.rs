//! The output head for greedy decoding, read in two passes.
//!
//! A GGUF file of a model with tied embeddings may hold the one matrix
//! twice: as `output.weight` and, more coarsely quantized, as
//! `token_embd.weight` (Qwen2.5-Coder-1.5B: Q6_K and Q4_K, 191 and 131 MB;
//! the 0.5B: Q8_0 and Q5_0, 145 and 94 MB). Every token's logit is first
//! taken from the coarse copy. How far that can be from the output
//! matrix's is bounded: the two rows' distance times the activation's
//! length (Cauchy–Schwarz), with a margin for rounding. Only the tokens
//! whose bound reaches the best lower bound can be the largest, and only
//! their logits are then computed from the output matrix, bit for bit as
//! the whole product computes them. The token greedy decoding picks is the
//! one the output matrix alone would give, for fewer bytes read a token.

use super::quant::{self, Kernel, Q8Rows, QMatrix, CHUNK_COLUMNS};
use candle_core::Result;
use std::sync::Arc;

/// Above this share of the vocabulary's chunks to compute exactly, the
/// whole output matrix is read instead.
const MOST_REFINED: f64 = 0.25;

/// Products of each matrix timed, and the share of the output matrix's
/// time the table's must stay under, for [`CoarseHead::pays`].
const PAYS_TRIES: usize = 4;
const PAYS_BELOW: f64 = 0.9;

/// Relative margin on the bound, and an absolute one on each logit, for the
/// rounding of the two products and of the distances.
const BOUND_MARGIN: f32 = 1e-3;
const LOGIT_MARGIN: f32 = 1e-3;

/// The coarse copy of the output matrix and each row's distance to it.
pub(super) struct CoarseHead {
    table: QMatrix,
    distances: Vec<f32>,
}

impl CoarseHead {
    /// The coarse `table` of `output`, when both are one matrix's rows.
    pub(super) fn new(table: QMatrix, output: &QMatrix) -> Result<Self> {
        let distances = output.row_distances(&table)?;
        Ok(CoarseHead { table, distances })
    }

    /// Whether a product with the table takes this CPU clearly less time
    /// than one with `output`: fewer bytes are not always faster, where a
    /// format's unpacking costs more than its reads or the whole matrix
    /// fits the caches. The best of a few alternating products of each.
    pub(super) fn pays(&self, output: &QMatrix) -> Result<bool> {
        let cols = output.cols();
        let x: Vec<f32> = (0..cols)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let x = Q8Rows::quantize(&x, cols)?;
        let time = |w: &QMatrix| -> Result<f64> {
            let started = std::time::Instant::now();
            quant::matmul(Kernel::best(), &[w], &x)?;
            Ok(started.elapsed().as_secs_f64())
        };
        let (mut coarse, mut exact) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..PAYS_TRIES {
            coarse = coarse.min(time(&self.table)?);
            exact = exact.min(time(output)?);
        }
        Ok(coarse < PAYS_BELOW * exact)
    }

    /// The coarse table (also the token embeddings).
    pub(super) fn table(&self) -> &QMatrix {
        &self.table
    }

    /// The logits of each row of `x` against `output`, exact where greedy
    /// decoding needs them.
    pub(super) fn logits(&self, output: &QMatrix, x: Q8Rows) -> Result<Vec<Logits>> {
        let kernel = Kernel::best();
        let x = Arc::new(x);
        let coarse = quant::matmul(kernel, &[&self.table], &x)?
            .pop()
            .unwrap_or_default();
        let vocab = self.table.rows();
        let chunks = vocab.div_ceil(CHUNK_COLUMNS);
        let mut out = Vec::with_capacity(x.rows());
        for (r, values) in coarse.chunks_exact(vocab).enumerate() {
            let mut values = values.to_vec();
            let length = x.row_length(r) * (1.0 + BOUND_MARGIN);
            let bound =
                |i: usize, v: f32| self.distances[i] * length + LOGIT_MARGIN * (1.0 + v.abs());
            let floor = values
                .iter()
                .enumerate()
                .map(|(i, &v)| v - bound(i, v))
                .fold(f32::NEG_INFINITY, f32::max);
            let mut refined: Vec<usize> = values
                .iter()
                .enumerate()
                .filter(|&(i, &v)| v.is_nan() || v + bound(i, v) >= floor)
                .map(|(i, _)| i / CHUNK_COLUMNS)
                .collect();
            refined.dedup();
            let whole = !floor.is_finite() || refined.len() as f64 > MOST_REFINED * chunks as f64;
            let exact_from = match whole {
                true => {
                    values = whole_row(output, &x, r)?;
                    f32::NEG_INFINITY
                }
                false => {
                    quant::chunks_of_row(kernel, output, &x, r, &refined, &mut values);
                    floor
                }
            };
            let rest = (!whole).then(|| (x.clone(), r));
            out.push(Logits {
                values,
                exact_from,
                rest,
            });
        }
        Ok(out)
    }
}

/// The logits for the token after one position, as greedy decoding needs
/// them: every value at or above [`Logits::exact_from`] is the output
/// matrix's own, and every token whose logit reaches it has its value here;
/// the others are estimates below it.
#[derive(Debug, Clone)]
pub struct Logits {
    values: Vec<f32>,
    exact_from: f32,
    /// The activation rows and which one, while some values are estimates.
    rest: Option<(Arc<Q8Rows>, usize)>,
}

impl Logits {
    /// Logits that are all exact.
    pub fn exact(values: Vec<f32>) -> Self {
        Logits {
            values,
            exact_from: f32::NEG_INFINITY,
            rest: None,
        }
    }

    /// These logits with every value exact: the rest of `output`'s product.
    pub(super) fn completed(self, output: &QMatrix) -> Result<Logits> {
        match self.rest {
            Some((x, r)) => Ok(Logits::exact(whole_row(output, &x, r)?)),
            None => Ok(self),
        }
    }

    /// The values, one a token.
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Whether `token`'s value is exact and no estimate can be above it:
    /// it may be compared with any other token's.
    pub fn is_sure(&self, token: u32) -> bool {
        self.values
            .get(token as usize)
            .is_some_and(|&v| v >= self.exact_from)
    }
}

/// Row `r` of `x` against the whole of `output`, as a one-row product.
fn whole_row(output: &QMatrix, x: &Q8Rows, r: usize) -> Result<Vec<f32>> {
    Ok(quant::matmul(Kernel::best(), &[output], &x.only_row(r))?
        .pop()
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::quantized::{GgmlDType, QTensor};
    use candle_core::{Device, Tensor};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// One random matrix quantized twice, finely and coarsely.
    fn twice(rng: &mut StdRng, rows: usize, cols: usize) -> (QMatrix, QMatrix) {
        let w: Vec<f32> = (0..rows * cols)
            .map(|_| rng.random_range(-1f32..1.0))
            .collect();
        let w = Tensor::from_vec(w, (rows, cols), &Device::Cpu).unwrap();
        let pack = |dtype| QMatrix::from_qtensor(&QTensor::quantize(&w, dtype).unwrap()).unwrap();
        (pack(GgmlDType::Q8_0), pack(GgmlDType::Q4_0))
    }

    #[test]
    fn the_greedy_token_is_the_whole_matrixs_even_in_near_ties() {
        let mut rng = StdRng::seed_from_u64(7);
        let (rows, cols) = (1000, 128);
        let (output, table) = twice(&mut rng, rows, cols);
        let head = CoarseHead::new(table, &output).unwrap();
        let mut settled = 0;
        for trial in 0..200 {
            let x: Vec<f32> = match trial % 2 {
                // Near a row: one clear winner.
                0 => {
                    let mut row = vec![0f32; cols];
                    let id = rng.random_range(0..rows as u32);
                    row.copy_from_slice(&output.rows_of(&[id]).unwrap());
                    row.iter()
                        .map(|v| v + rng.random_range(-0.3f32..0.3))
                        .collect()
                }
                // Anywhere: many close logits.
                _ => (0..cols).map(|_| rng.random_range(-1f32..1.0)).collect(),
            };
            let x = Q8Rows::quantize(&x, cols).unwrap();
            let whole = whole_row(&output, &x, 0).unwrap();
            let logits = head.logits(&output, x).unwrap().remove(0);
            let token = crate::sampler::argmax(logits.values());
            settled += usize::from(logits.is_sure(token));
            let picked = match logits.is_sure(token) {
                true => token,
                false => crate::sampler::argmax(logits.completed(&output).unwrap().values()),
            };
            assert_eq!(picked, crate::sampler::argmax(&whole), "trial {trial}");
        }
        assert!(
            settled >= 100,
            "the coarse pass settled only {settled} of 200"
        );
    }

    #[test]
    fn completed_logits_are_the_whole_product() {
        let mut rng = StdRng::seed_from_u64(8);
        let (output, table) = twice(&mut rng, 300, 64);
        let head = CoarseHead::new(table, &output).unwrap();
        let x: Vec<f32> = (0..64).map(|_| rng.random_range(-1f32..1.0)).collect();
        let x = Q8Rows::quantize(&x, 64).unwrap();
        let whole = whole_row(&output, &x, 0).unwrap();
        let logits = head.logits(&output, x).unwrap().remove(0);
        assert_eq!(logits.completed(&output).unwrap().values(), &whole[..]);
    }
}

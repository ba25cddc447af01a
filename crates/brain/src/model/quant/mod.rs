//! loopd's own quantized matrix products for the CPU, for every GGML type
//! the models it ships use: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K and Q6_K.
//!
//! candle 0.11 multiplies these with kernels that reread each weight block
//! once per token. Here every type is packed at load time into one layout
//! ([`formats`]): 8 weight rows interleaved, so that 32 bytes hold 4
//! consecutive quants of each row, with the per-row scales beside them. Each
//! activation row is quantized once to 8-bit blocks of 32 ([`Q8Rows`]), and
//! one kernel ([`kernel`]), written once over a small set of vector
//! operations ([`kernel::Simd`]), multiplies `R` activation rows by 8 weight
//! rows for every format: scalar Rust everywhere, AVX2 and AVX-512 VNNI on
//! x86-64 (the latter also on 512-bit vectors that span two groups of rows,
//! for prefill), NEON with or without `sdot` on aarch64, chosen at run time
//! ([`Kernel`]). [`matmul`] spreads the work over one rayon pool, or, for
//! the few rows of a decode step, over a team of helper threads (`team`) that
//! stay awake from one product to the next.

mod activations;
mod formats;
mod kernel;
mod matmul;
mod team;
#[cfg(test)]
mod tests;

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use activations::{BlockQ8, Q8Rows, QK};
pub use kernel::Kernel;
pub use matmul::{chunks_of_row, install, matmul, CHUNK_COLUMNS};
pub use team::spread;

use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::Result;
use formats::Format;

/// A weight matrix of `rows` rows of `cols` weights, packed for the kernels:
/// groups of 8 rows, each group a run of [`Format`] blocks along the row.
#[derive(Debug, Clone)]
pub struct Packed<F> {
    rows: usize,
    cols: usize,
    groups: Vec<F>,
}

impl<F: Format> Packed<F> {
    /// Packs `rows × cols` weights from their GGUF bytes, checking the
    /// shape and byte length.
    fn from_bytes(bytes: &[u8], rows: usize, cols: usize) -> Result<Self> {
        if cols == 0 || !cols.is_multiple_of(F::WEIGHTS) {
            candle_core::bail!(
                "{:?} rows of {cols} weights are not whole blocks of {}",
                F::DTYPE,
                F::WEIGHTS
            );
        }
        let per_row = cols / F::WEIGHTS;
        let row_bytes = per_row * F::FILE_BYTES;
        if rows.checked_mul(row_bytes) != Some(bytes.len()) {
            candle_core::bail!(
                "a {rows}×{cols} {:?} matrix needs {} bytes, got {}",
                F::DTYPE,
                rows.checked_mul(row_bytes)
                    .map_or("too many".to_string(), |n| n.to_string()),
                bytes.len()
            );
        }
        let zero = vec![0u8; F::FILE_BYTES];
        let mut groups = Vec::with_capacity(rows.div_ceil(8) * per_row);
        for first in (0..rows).step_by(8) {
            for b in 0..per_row {
                let run = std::array::from_fn(|c| {
                    let row = first + c;
                    if row < rows {
                        let start = row * row_bytes + b * F::FILE_BYTES;
                        &bytes[start..start + F::FILE_BYTES]
                    } else {
                        &zero[..]
                    }
                });
                groups.push(F::pack(run));
            }
        }
        Ok(Packed { rows, cols, groups })
    }

    fn dtype(&self) -> GgmlDType {
        F::DTYPE
    }

    /// Writes the values of row `i` to `out` (`cols` long).
    fn dequantize_row(&self, i: usize, out: &mut [f32]) {
        self.dequantize_rows_of_group(i / 8, i % 8..i % 8 + 1, out);
    }

    /// Writes the values of rows `8g + c` for each `c` in `rows` (within
    /// `0..8`) to `out`, one row of `cols` after another.
    fn dequantize_rows_of_group(&self, g: usize, rows: std::ops::Range<usize>, out: &mut [f32]) {
        use scalar::Scalar;
        let per_row = self.cols / F::WEIGHTS;
        for (b, group) in self.group_row(g).iter().enumerate() {
            for sub in 0..F::SUBS {
                // SAFETY: plain Rust runs everywhere.
                let scales = unsafe { group.scales::<Scalar>(sub) };
                for k in 0..4 {
                    // SAFETY: as above.
                    let (low, high) = unsafe { group.unpack::<Scalar>(sub, k) };
                    for (n, c) in rows.clone().enumerate() {
                        let row = &mut out[n * self.cols..(n + 1) * self.cols];
                        let block = &mut row[(b * F::SUBS + sub) * QK..][..QK];
                        for j in 0..4 {
                            let value = |q: u8| {
                                let q = if F::SIGNED { q as i8 as i32 } else { q as i32 };
                                (q - F::ZERO) as f32
                            };
                            let at = 4 * c + j;
                            block[4 * k + j] = value(low[at]) * scales.low[c] + scales.min[c];
                            block[QK / 2 + 4 * k + j] =
                                value(high[at]) * scales.high[c] + scales.min[c];
                        }
                    }
                }
            }
        }
        debug_assert_eq!(out.len(), rows.len() * per_row * F::WEIGHTS);
    }

    /// The blocks of rows `8g..8g + 8`.
    fn group_row(&self, g: usize) -> &[F] {
        let per_row = self.cols / F::WEIGHTS;
        &self.groups[g * per_row..(g + 1) * per_row]
    }
}

/// A quantized weight matrix in the layout of its type.
#[derive(Debug, Clone)]
pub enum QMatrix {
    /// GGML Q4_0 weights.
    Q4_0(Packed<formats::Q4_0x8>),
    /// GGML Q4_1 weights.
    Q4_1(Packed<formats::Q4_1x8>),
    /// GGML Q5_0 weights.
    Q5_0(Packed<formats::Q5_0x8>),
    /// GGML Q5_1 weights.
    Q5_1(Packed<formats::Q5_1x8>),
    /// GGML Q8_0 weights.
    Q8_0(Packed<formats::Q8_0x8>),
    /// GGML Q4_K weights.
    Q4K(Packed<formats::Q4Kx8>),
    /// GGML Q5_K weights.
    Q5K(Packed<formats::Q5Kx8>),
    /// GGML Q6_K weights.
    Q6K(Packed<formats::Q6Kx8>),
}

/// Evaluates `$body` with `$p` bound to the [`Packed`] matrix inside the
/// [`QMatrix`] `$m`, whatever its format.
macro_rules! with_packed {
    ($m:expr, $p:ident => $body:expr) => {
        match $m {
            QMatrix::Q4_0($p) => $body,
            QMatrix::Q4_1($p) => $body,
            QMatrix::Q5_0($p) => $body,
            QMatrix::Q5_1($p) => $body,
            QMatrix::Q8_0($p) => $body,
            QMatrix::Q4K($p) => $body,
            QMatrix::Q5K($p) => $body,
            QMatrix::Q6K($p) => $body,
        }
    };
}
pub(crate) use with_packed;

impl QMatrix {
    /// Whether loopd has kernels for weights of type `dtype`.
    pub fn supports(dtype: GgmlDType) -> bool {
        use GgmlDType::*;
        matches!(dtype, Q4_0 | Q4_1 | Q5_0 | Q5_1 | Q8_0 | Q4K | Q5K | Q6K)
    }

    /// Packs `rows × cols` weights of type `dtype` from their GGUF bytes.
    pub fn from_bytes(dtype: GgmlDType, bytes: &[u8], rows: usize, cols: usize) -> Result<Self> {
        Ok(match dtype {
            GgmlDType::Q4_0 => QMatrix::Q4_0(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q4_1 => QMatrix::Q4_1(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q5_0 => QMatrix::Q5_0(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q5_1 => QMatrix::Q5_1(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q8_0 => QMatrix::Q8_0(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q4K => QMatrix::Q4K(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q5K => QMatrix::Q5K(Packed::from_bytes(bytes, rows, cols)?),
            GgmlDType::Q6K => QMatrix::Q6K(Packed::from_bytes(bytes, rows, cols)?),
            other => candle_core::bail!("no loopd kernel for {other:?} weights"),
        })
    }

    /// Output features (rows).
    pub fn rows(&self) -> usize {
        with_packed!(self, p => p.rows)
    }

    /// Input features (weights per row).
    pub fn cols(&self) -> usize {
        with_packed!(self, p => p.cols)
    }

    /// The GGML type of the weights.
    pub fn dtype(&self) -> GgmlDType {
        with_packed!(self, p => p.dtype())
    }

    /// The values of the rows `ids`, one after another (an embedding lookup).
    pub fn rows_of(&self, ids: &[u32]) -> Result<Vec<f32>> {
        let cols = self.cols();
        let mut out = vec![0f32; ids.len() * cols];
        for (&id, row) in ids.iter().zip(out.chunks_exact_mut(cols)) {
            if id as usize >= self.rows() {
                candle_core::bail!("row {id} is outside a matrix of {} rows", self.rows());
            }
            with_packed!(self, p => p.dequantize_row(id as usize, row));
        }
        Ok(out)
    }

    /// Bytes the packed weights take in memory.
    pub fn bytes(&self) -> usize {
        with_packed!(self, p => std::mem::size_of_val(p.groups.as_slice()))
    }
}

impl QMatrix {
    /// The distance (L2) between each row of `self` and the same row of
    /// `other`, of the same shape: how far apart two quantizations of one
    /// matrix are, row by row.
    pub fn row_distances(&self, other: &QMatrix) -> Result<Vec<f32>> {
        if (self.rows(), self.cols()) != (other.rows(), other.cols()) {
            candle_core::bail!(
                "a {}×{} matrix has no row distances to a {}×{} one",
                self.rows(),
                self.cols(),
                other.rows(),
                other.cols()
            );
        }
        let (rows, cols) = (self.rows(), self.cols());
        let distances = |g: usize| {
            let within = 0..(rows - 8 * g).min(8);
            let mut a = vec![0f32; within.len() * cols];
            let mut b = vec![0f32; within.len() * cols];
            with_packed!(self, p => p.dequantize_rows_of_group(g, within.clone(), &mut a));
            with_packed!(other, p => p.dequantize_rows_of_group(g, within, &mut b));
            a.chunks_exact(cols)
                .zip(b.chunks_exact(cols))
                .map(|(a, b)| {
                    let squares: f64 = a.iter().zip(b).map(|(x, y)| f64::from(x - y).powi(2)).sum();
                    squares.sqrt() as f32
                })
                .collect::<Vec<f32>>()
        };
        use rayon::prelude::*;
        Ok(install(|| {
            (0..rows.div_ceil(8))
                .into_par_iter()
                .flat_map_iter(distances)
                .collect()
        }))
    }

    /// Packs a 2-D `QTensor` (`rows × cols`, as stored in GGUF).
    pub fn from_qtensor(t: &QTensor) -> Result<Self> {
        let (rows, cols) = t.shape().dims2()?;
        Self::from_bytes(t.dtype(), &t.data()?, rows, cols)
    }
}

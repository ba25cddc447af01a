//! Activations quantized to 8 bits, 32 to a block, once per row for every
//! matrix that multiplies them.
//!
//! The quants and scale are GGML's Q8_0/Q8_1 ones (`d = max|x| / 127`
//! rounded to f16, `q = round(x / d)`), the ones llama.cpp multiplies the
//! legacy types with. Each block also keeps the exact sums of its quants
//! that the formats with a zero point or a minimum need.

use half::f16;

/// Values per block.
pub const QK: usize = 32;

/// 32 activations as `d * q`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct BlockQ8 {
    /// Scale: `max|x| / 127`, rounded to f16 (held as f32).
    pub d: f32,
    /// `d * (sum of qs)`: the sum of the block's dequantized values.
    pub s: f32,
    /// Sums of the quants `0..16` and `16..32`.
    pub sums: [i32; 2],
    /// Signed 8-bit quants, in `-127..=127`.
    pub qs: [i8; QK],
}

impl BlockQ8 {
    /// Quantizes 32 values as GGML's `quantize_row_q8_0_ref` does, with
    /// SIMD where the CPU has it (bit for bit the same result).
    pub fn quantize(xs: &[f32; QK]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if super::x86::has_avx2() {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { super::x86::quantize(xs) };
        }
        Self::quantize_scalar(xs)
    }

    /// [`BlockQ8::quantize`] in plain Rust.
    pub fn quantize_scalar(xs: &[f32; QK]) -> Self {
        let amax = xs.iter().fold(0f32, |a, x| a.max(x.abs()));
        let id = Self::inverse_scale(amax);
        let mut qs = [0i8; QK];
        for (q, x) in qs.iter_mut().zip(xs) {
            *q = (x * id).round() as i8;
        }
        Self::from_quants(amax, qs)
    }

    /// `1 / d` for the largest magnitude `amax` (0 for an all-zero block).
    pub fn inverse_scale(amax: f32) -> f32 {
        let d = amax / 127.0;
        if d != 0.0 {
            1.0 / d
        } else {
            0.0
        }
    }

    /// The block of quants `qs` of values whose largest magnitude is `amax`.
    pub fn from_quants(amax: f32, qs: [i8; QK]) -> Self {
        let d = f16::from_f32(amax / 127.0).to_f32();
        let half = |h: &[i8]| h.iter().map(|&q| q as i32).sum::<i32>();
        let sums = [half(&qs[..QK / 2]), half(&qs[QK / 2..])];
        BlockQ8 {
            d,
            s: d * (sums[0] + sums[1]) as f32,
            sums,
            qs,
        }
    }

    /// The values the block stands for.
    pub fn dequantize(&self) -> [f32; QK] {
        self.qs.map(|q| self.d * q as f32)
    }
}

/// Activation rows quantized to [`BlockQ8`], each `cols` long.
#[derive(Debug, Clone)]
pub struct Q8Rows {
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) blocks: Vec<BlockQ8>,
}

impl Q8Rows {
    /// Quantizes `xs`, rows of `cols` values one after another.
    pub fn quantize(xs: &[f32], cols: usize) -> candle_core::Result<Self> {
        if cols == 0 || !cols.is_multiple_of(QK) || !xs.len().is_multiple_of(cols) {
            candle_core::bail!(
                "cannot quantize {} values as rows of {cols} in blocks of {QK}",
                xs.len()
            );
        }
        let blocks = xs
            .chunks_exact(QK)
            .filter_map(|chunk| chunk.try_into().ok())
            .map(BlockQ8::quantize)
            .collect();
        Ok(Q8Rows {
            rows: xs.len() / cols,
            cols,
            blocks,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The length (L2) of row `i` as its quants stand for it.
    pub fn row_length(&self, i: usize) -> f32 {
        let squares: f64 = self
            .row(i)
            .iter()
            .flat_map(|block| block.dequantize())
            .map(|v| f64::from(v).powi(2))
            .sum();
        squares.sqrt() as f32
    }

    /// Row `i` alone.
    pub fn only_row(&self, i: usize) -> Q8Rows {
        Q8Rows {
            rows: 1,
            cols: self.cols,
            blocks: self.row(i).to_vec(),
        }
    }

    /// The blocks of row `i`.
    pub(super) fn row(&self, i: usize) -> &[BlockQ8] {
        let per_row = self.cols / QK;
        &self.blocks[i * per_row..(i + 1) * per_row]
    }
}

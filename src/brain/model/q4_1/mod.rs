//! loopd's own Q4_1 × Q8_1 matrix product for the CPU.
//!
//! candle 0.11 multiplies Q4_1 weights with a scalar loop only; this module
//! keeps the weights as GGML Q4_1 blocks ([`Q4_1Matrix`]), quantizes each
//! activation row once to GGML Q8_1 ([`Q8_1Rows`]) and multiplies them with
//! SIMD kernels where the CPU has them (AVX2, AVX-512 VNNI, NEON with or
//! without `sdot`), the scalar reference elsewhere ([`Kernel`]), on a rayon
//! pool of [`crate::brain::device::threads`] threads.

mod blocks;
mod matmul;
#[cfg(test)]
mod tests;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use blocks::{BlockQ4_1, BlockQ8_1, Q4_1x8, QK};
pub use matmul::{install, matmul};

use blocks::Q4_1_BYTES;
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::Result;
use std::sync::OnceLock;

/// A weight matrix of `rows` rows of `cols` weights in Q4_1 blocks, each
/// 8 rows interleaved ([`Q4_1x8`]), group after group.
#[derive(Debug, Clone)]
pub struct Q4_1Matrix {
    rows: usize,
    cols: usize,
    groups: Vec<Q4_1x8>,
}

impl Q4_1Matrix {
    /// Copies the blocks of a 2-D Q4_1 `QTensor` (`rows × cols`, as stored in
    /// GGUF), checking its type, shape and byte length.
    pub fn from_qtensor(t: &QTensor) -> Result<Self> {
        if t.dtype() != GgmlDType::Q4_1 {
            candle_core::bail!("expected a Q4_1 tensor, got {:?}", t.dtype());
        }
        let (rows, cols) = t.shape().dims2()?;
        Self::from_bytes(&t.data()?, rows, cols)
    }

    /// Reads `rows × cols` weights from GGUF Q4_1 bytes.
    pub fn from_bytes(bytes: &[u8], rows: usize, cols: usize) -> Result<Self> {
        if !cols.is_multiple_of(QK) {
            candle_core::bail!("Q4_1 rows of {cols} weights are not whole blocks of {QK}");
        }
        let per_row = cols / QK;
        let expected = rows
            .checked_mul(per_row)
            .and_then(|blocks| blocks.checked_mul(Q4_1_BYTES));
        if expected != Some(bytes.len()) {
            candle_core::bail!(
                "a {rows}×{cols} Q4_1 matrix needs {} bytes, got {}",
                expected.map_or("too many".to_string(), |n| n.to_string()),
                bytes.len()
            );
        }
        let blocks: Vec<BlockQ4_1> = bytes
            .chunks_exact(Q4_1_BYTES)
            .filter_map(|chunk| chunk.try_into().ok())
            .map(BlockQ4_1::from_bytes)
            .collect();
        let zero = BlockQ4_1::from_bytes(&[0; Q4_1_BYTES]);
        let block = |row: usize, b: usize| blocks.get(row * per_row + b).copied();
        let mut groups = Vec::with_capacity(rows.div_ceil(8) * per_row);
        for first in (0..rows).step_by(8) {
            for b in 0..per_row {
                let group = std::array::from_fn(|c| block(first + c, b).unwrap_or(zero));
                groups.push(Q4_1x8::new(&group));
            }
        }
        Ok(Q4_1Matrix { rows, cols, groups })
    }

    /// Output features (rows).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Input features (weights per row).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The blocks of rows `8g..8g + 8`.
    fn group_row(&self, g: usize) -> &[Q4_1x8] {
        let per_row = self.cols / QK;
        &self.groups[g * per_row..(g + 1) * per_row]
    }

    /// The blocks of row `i`, as in the file.
    #[cfg(test)]
    fn row(&self, i: usize) -> Vec<BlockQ4_1> {
        self.group_row(i / 8).iter().map(|g| g.row(i % 8)).collect()
    }
}

/// Activation rows quantized to Q8_1, each `cols` long.
#[derive(Debug, Clone)]
pub struct Q8_1Rows {
    rows: usize,
    cols: usize,
    blocks: Vec<BlockQ8_1>,
}

impl Q8_1Rows {
    /// Quantizes `xs`, rows of `cols` values one after another.
    pub fn quantize(xs: &[f32], cols: usize) -> Result<Self> {
        if cols == 0 || !cols.is_multiple_of(QK) || !xs.len().is_multiple_of(cols) {
            candle_core::bail!(
                "cannot quantize {} values as rows of {cols} in blocks of {QK}",
                xs.len()
            );
        }
        let blocks = xs
            .chunks_exact(QK)
            .filter_map(|chunk| chunk.try_into().ok())
            .map(BlockQ8_1::quantize)
            .collect();
        Ok(Q8_1Rows {
            rows: xs.len() / cols,
            cols,
            blocks,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The blocks of row `i`.
    fn row(&self, i: usize) -> &[BlockQ8_1] {
        let per_row = self.cols / QK;
        &self.blocks[i * per_row..(i + 1) * per_row]
    }
}

/// A dot-product kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust, everywhere.
    Scalar,
    /// x86-64 AVX2 with FMA and F16C.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// x86-64 AVX2 with AVX-512 VNNI byte dot products.
    #[cfg(target_arch = "x86_64")]
    Avx512Vnni,
    /// aarch64 NEON.
    #[cfg(target_arch = "aarch64")]
    Neon,
    /// aarch64 NEON with the `dotprod` extension.
    #[cfg(target_arch = "aarch64")]
    NeonDotprod,
}

impl Kernel {
    /// Every kernel this CPU can run, the scalar one first.
    pub fn available() -> &'static [Kernel] {
        static AVAILABLE: OnceLock<Vec<Kernel>> = OnceLock::new();
        AVAILABLE.get_or_init(|| {
            let mut kernels = vec![Kernel::Scalar];
            #[cfg(target_arch = "x86_64")]
            {
                if x86::has_avx2() {
                    kernels.push(Kernel::Avx2);
                }
                if x86::has_vnni() {
                    kernels.push(Kernel::Avx512Vnni);
                }
            }
            #[cfg(target_arch = "aarch64")]
            {
                kernels.push(Kernel::Neon);
                if aarch64::has_dotprod() {
                    kernels.push(Kernel::NeonDotprod);
                }
            }
            kernels
        })
    }

    /// The fastest kernel this CPU can run.
    pub fn best() -> Kernel {
        Self::available().last().copied().unwrap_or(Kernel::Scalar)
    }

    /// Dot products of `R` activation rows with the 8 weight rows of `w`,
    /// all of the same number of blocks.
    fn tile<const R: usize>(self, w: &[Q4_1x8], a: [&[BlockQ8_1]; R]) -> [[f32; 8]; R] {
        match self {
            Kernel::Scalar => blocks::tile(w, a),
            // SAFETY (all below): `available` lists a kernel only where the
            // CPU has the features it is compiled for.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { x86::tile_avx2(w, a) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vnni => unsafe { x86::tile_vnni(w, a) },
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => unsafe { aarch64::tile_neon(w, a) },
            #[cfg(target_arch = "aarch64")]
            Kernel::NeonDotprod => unsafe { aarch64::tile_dotprod(w, a) },
        }
    }
}

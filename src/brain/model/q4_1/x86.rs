//! AVX2 kernels, and the same with AVX-512 VNNI's `vpdpbusd` for the byte
//! dot products.
//!
//! Per block, the 16 bytes of nibbles are spread to 32 unsigned bytes once
//! and multiplied with each activation row of the tile; the eight i32
//! partial sums are scaled by `d4 * d8` into an f32 accumulator, and
//! `m4 * s8` goes to a scalar one.

use super::blocks::{BlockQ4_1, BlockQ8_1};
use core::arch::x86_64::*;

/// Whether the CPU runs the AVX2 kernel.
pub fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("f16c")
}

/// Whether the CPU runs the VNNI kernel.
pub fn has_vnni() -> bool {
    has_avx2() && is_x86_feature_detected!("avx512vnni") && is_x86_feature_detected!("avx512vl")
}

/// The 32 quants of a block as unsigned bytes, in order.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn nibbles(block: &BlockQ4_1) -> __m256i {
    // SAFETY: `qs` is 16 readable bytes; the load has no alignment needs.
    let low = unsafe { _mm_loadu_si128(block.qs.as_ptr().cast()) };
    let high = _mm_srli_epi16::<4>(low);
    _mm256_and_si256(_mm256_set_m128i(high, low), _mm256_set1_epi8(0x0F))
}

/// `[d, m, 0, 0]` of a block as f32.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn scales(block: &BlockQ4_1) -> __m128 {
    let bits = block.d as u32 | (block.m as u32) << 16;
    _mm_cvtph_ps(_mm_cvtsi32_si128(bits as i32))
}

#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn hsum(x: __m256) -> f32 {
    let x = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps::<1>(x));
    let x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)))
}

/// Eight i32 sums of 4 products each of unsigned `u` and signed `s` bytes.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn dot_avx2(u: __m256i, s: __m256i) -> __m256i {
    _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1))
}

/// As [`dot_avx2`], in one instruction.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512vnni,avx512vl")]
fn dot_vnni(u: __m256i, s: __m256i) -> __m256i {
    _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s)
}

macro_rules! tile_kernel {
    ($(#[$doc:meta])* $name:ident, $features:literal, $dot:ident) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub fn $name<const R: usize, const C: usize>(
            w: [&[BlockQ4_1]; C],
            a: [&[BlockQ8_1]; R],
        ) -> [[f32; C]; R] {
            let blocks = a[0].len();
            let w = w.map(|w| &w[..blocks]);
            let a = a.map(|a| &a[..blocks]);
            let mut acc = [[_mm256_setzero_ps(); C]; R];
            let mut mins = [[0f32; C]; R];
            for b in 0..blocks {
                let q4 = w.map(|w| nibbles(&w[b]));
                let dm = w.map(|w| scales(&w[b]));
                let d4 = dm.map(|dm| _mm256_broadcastss_ps(dm));
                let m4 = dm.map(|dm| _mm_cvtss_f32(_mm_movehdup_ps(dm)));
                for r in 0..R {
                    let block = &a[r][b];
                    // SAFETY: `qs` is 32 readable bytes; the load has no alignment needs.
                    let q8 = unsafe { _mm256_loadu_si256(block.qs.as_ptr().cast()) };
                    let d8 = _mm256_broadcast_ss(&block.d);
                    for c in 0..C {
                        let sum = _mm256_cvtepi32_ps($dot(q4[c], q8));
                        acc[r][c] = _mm256_fmadd_ps(sum, _mm256_mul_ps(d4[c], d8), acc[r][c]);
                        mins[r][c] = m4[c].mul_add(block.s, mins[r][c]);
                    }
                }
            }
            let mut out = [[0f32; C]; R];
            for r in 0..R {
                for c in 0..C {
                    out[r][c] = hsum(acc[r][c]) + mins[r][c];
                }
            }
            out
        }
    };
}

tile_kernel!(
    /// `R` activation rows times `C` weight rows with AVX2.
    tile_avx2,
    "avx2,fma,f16c",
    dot_avx2
);

tile_kernel!(
    /// `R` activation rows times `C` weight rows with AVX-512 VNNI.
    tile_vnni,
    "avx2,fma,f16c,avx512vnni,avx512vl",
    dot_vnni
);

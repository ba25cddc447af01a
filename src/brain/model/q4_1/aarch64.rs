//! NEON kernels: with the `dotprod` extension's `sdot` where the CPU has it
//! (Cortex-A76 and later: Raspberry Pi 5), widening multiplies otherwise
//! (Cortex-A72: Raspberry Pi 4).
//!
//! Per block, the nibbles are split into two 16-byte vectors once and
//! multiplied with each activation row of the tile; the four i32 partial
//! sums are scaled by `d4 * d8` into an f32 accumulator, and `m4 * s8` goes
//! to a scalar one.

use super::blocks::{BlockQ4_1, BlockQ8_1};
use core::arch::aarch64::*;

/// Whether the CPU has the `sdot` instruction.
pub fn has_dotprod() -> bool {
    std::arch::is_aarch64_feature_detected!("dotprod")
}

/// The quants of a block: `q[0..16]` and `q[16..32]`, as signed bytes (all
/// in 0..16).
#[inline]
#[target_feature(enable = "neon")]
fn nibbles(block: &BlockQ4_1) -> (int8x16_t, int8x16_t) {
    // SAFETY: `qs` is 16 readable bytes.
    let raw = unsafe { vld1q_u8(block.qs.as_ptr()) };
    (
        vreinterpretq_s8_u8(vandq_u8(raw, vdupq_n_u8(0x0F))),
        vreinterpretq_s8_u8(vshrq_n_u8::<4>(raw)),
    )
}

/// Four i32 sums of `low · a[0..16] + high · a[16..32]`, with `sdot`.
#[inline]
#[target_feature(enable = "neon,dotprod")]
fn dot_sdot(low: int8x16_t, high: int8x16_t, a0: int8x16_t, a1: int8x16_t) -> int32x4_t {
    let mut acc = vdupq_n_s32(0);
    // SAFETY: `sdot` only reads and writes the named vector registers, and
    // the `dotprod` feature this function requires provides it.
    unsafe {
        core::arch::asm!(
            "sdot {acc:v}.4s, {l:v}.16b, {a0:v}.16b",
            "sdot {acc:v}.4s, {h:v}.16b, {a1:v}.16b",
            acc = inout(vreg) acc,
            l = in(vreg) low,
            h = in(vreg) high,
            a0 = in(vreg) a0,
            a1 = in(vreg) a1,
            options(pure, nomem, nostack),
        );
    }
    acc
}

/// As [`dot_sdot`], with widening multiplies and pairwise adds.
#[inline]
#[target_feature(enable = "neon")]
fn dot_neon(low: int8x16_t, high: int8x16_t, a0: int8x16_t, a1: int8x16_t) -> int32x4_t {
    let mut acc = vdupq_n_s32(0);
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(low), vget_low_s8(a0)));
    acc = vpadalq_s16(acc, vmull_high_s8(low, a0));
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(high), vget_low_s8(a1)));
    vpadalq_s16(acc, vmull_high_s8(high, a1))
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
            let mut acc = [[vdupq_n_f32(0.0); C]; R];
            let mut mins = [[0f32; C]; R];
            for b in 0..blocks {
                let q4 = w.map(|w| nibbles(&w[b]));
                let dm = w.map(|w| w[b].scales());
                for r in 0..R {
                    let block = &a[r][b];
                    // SAFETY: `qs` is 32 readable bytes.
                    let (a0, a1) = unsafe {
                        (vld1q_s8(block.qs.as_ptr()), vld1q_s8(block.qs.as_ptr().add(16)))
                    };
                    for c in 0..C {
                        let sum = vcvtq_f32_s32($dot(q4[c].0, q4[c].1, a0, a1));
                        acc[r][c] = vfmaq_n_f32(acc[r][c], sum, dm[c].0 * block.d);
                        mins[r][c] = dm[c].1.mul_add(block.s, mins[r][c]);
                    }
                }
            }
            let mut out = [[0f32; C]; R];
            for r in 0..R {
                for c in 0..C {
                    out[r][c] = vaddvq_f32(acc[r][c]) + mins[r][c];
                }
            }
            out
        }
    };
}

tile_kernel!(
    /// `R` activation rows times `C` weight rows with NEON `sdot`.
    tile_dotprod,
    "neon,dotprod",
    dot_sdot
);

tile_kernel!(
    /// `R` activation rows times `C` weight rows with plain NEON.
    tile_neon,
    "neon",
    dot_neon
);

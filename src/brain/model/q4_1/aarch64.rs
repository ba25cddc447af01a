//! NEON kernels: with the `dotprod` extension's `sdot` where the CPU has it
//! (Cortex-A76 and later: Raspberry Pi 5), widening multiply-adds otherwise
//! (Cortex-A72: Raspberry Pi 4).
//!
//! A 128-bit vector holds 4 quants of each of 4 interleaved weight rows
//! (half of a [`Q4_1x8`] chunk), so each 32-bit lane accumulates one row's
//! products against 4 activation bytes taken as a lane (`sdot` by element)
//! or broadcast. Per block, the 4 integer sums are scaled by `d4 * d8` and
//! `m4 * s8` is added, 4 rows at a time.

use super::blocks::{BlockQ8_1, Q4_1x8};
use core::arch::aarch64::*;
use core::arch::asm;

/// Whether the CPU has the `sdot` instruction.
pub fn has_dotprod() -> bool {
    std::arch::is_aarch64_feature_detected!("dotprod")
}

/// Four f16 values as f32 (`fcvtl`, base NEON; Rust's f16 vector types are
/// not stable).
#[inline]
#[target_feature(enable = "neon")]
fn widen(halves: &[u16]) -> float32x4_t {
    let halves = &halves[..4];
    // SAFETY: `halves` is 4 readable u16.
    let bits = unsafe { vld1_u16(halves.as_ptr()) };
    let out: float32x4_t;
    // SAFETY: `fcvtl` only reads and writes the named vector registers.
    unsafe {
        asm!(
            "fcvtl {o:v}.4s, {i:v}.4h",
            o = lateout(vreg) out,
            i = in(vreg) bits,
            options(pure, nomem, nostack),
        );
    }
    out
}

/// The low and high nibbles of the 4 chunks of one half (`h`: rows
/// `4h..4h + 4`) of a group, as signed bytes in 0..16.
#[inline]
#[target_feature(enable = "neon")]
fn nibbles(group: &Q4_1x8, h: usize) -> ([int8x16_t; 4], [int8x16_t; 4]) {
    let mask = vdupq_n_u8(0x0F);
    let raw: [uint8x16_t; 4] = std::array::from_fn(|k| {
        let bytes = &group.qs[32 * k + 16 * h..32 * k + 16 * h + 16];
        // SAFETY: `bytes` is 16 readable bytes.
        unsafe { vld1q_u8(bytes.as_ptr()) }
    });
    (
        raw.map(|r| vreinterpretq_s8_u8(vandq_u8(r, mask))),
        raw.map(|r| vreinterpretq_s8_u8(vshrq_n_u8::<4>(r))),
    )
}

/// Activation quants `0..16` and `16..32` of a block.
#[inline]
#[target_feature(enable = "neon")]
fn activations(block: &BlockQ8_1) -> (int8x16_t, int8x16_t) {
    // SAFETY: `qs` is 32 readable bytes.
    unsafe {
        (
            vld1q_s8(block.qs.as_ptr()),
            vld1q_s8(block.qs[16..].as_ptr()),
        )
    }
}

/// Per row, `w[k] · a[4k..4k + 4]` summed over `k`, with `sdot` by element.
#[inline]
#[target_feature(enable = "neon,dotprod")]
fn sums_sdot(w: &[int8x16_t; 4], a: int8x16_t) -> int32x4_t {
    let mut acc = vdupq_n_s32(0);
    // SAFETY: `sdot` only reads and writes the named vector registers, and
    // this function requires the `dotprod` feature that provides it.
    unsafe {
        asm!(
            "sdot {acc:v}.4s, {w0:v}.16b, {a:v}.4b[0]",
            "sdot {acc:v}.4s, {w1:v}.16b, {a:v}.4b[1]",
            "sdot {acc:v}.4s, {w2:v}.16b, {a:v}.4b[2]",
            "sdot {acc:v}.4s, {w3:v}.16b, {a:v}.4b[3]",
            acc = inout(vreg) acc,
            w0 = in(vreg) w[0],
            w1 = in(vreg) w[1],
            w2 = in(vreg) w[2],
            w3 = in(vreg) w[3],
            a = in(vreg) a,
            options(pure, nomem, nostack),
        );
    }
    acc
}

/// As [`sums_sdot`], with widening multiply-adds into 16-bit sums (at most
/// 4 products of 4-bit × 8-bit each) and pairwise adds.
#[inline]
#[target_feature(enable = "neon")]
fn sums_neon(w: &[int8x16_t; 4], a: int8x16_t) -> int32x4_t {
    let a = vreinterpretq_s32_s8(a);
    let lanes = [
        vdupq_laneq_s32::<0>(a),
        vdupq_laneq_s32::<1>(a),
        vdupq_laneq_s32::<2>(a),
        vdupq_laneq_s32::<3>(a),
    ];
    let mut first = vdupq_n_s16(0);
    let mut second = vdupq_n_s16(0);
    for (w, lane) in w.iter().zip(lanes) {
        let pattern = vget_low_s8(vreinterpretq_s8_s32(lane));
        first = vmlal_s8(first, vget_low_s8(*w), pattern);
        second = vmlal_s8(second, vget_high_s8(*w), pattern);
    }
    vpaddq_s32(vpaddlq_s16(first), vpaddlq_s16(second))
}

macro_rules! tile_kernel {
    ($(#[$doc:meta])* $name:ident, $features:literal, $sums:ident) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub fn $name<const R: usize>(w: &[Q4_1x8], a: [&[BlockQ8_1]; R]) -> [[f32; 8]; R] {
            let blocks = w.len();
            let a = a.map(|a| &a[..blocks]);
            let mut acc = [[vdupq_n_f32(0.0); 2]; R];
            for (b, group) in w.iter().enumerate() {
                let act = a.map(|a| activations(&a[b]));
                for h in 0..2 {
                    let (low, high) = nibbles(group, h);
                    let d4 = widen(&group.d[4 * h..]);
                    let m4 = widen(&group.m[4 * h..]);
                    for r in 0..R {
                        let block = &a[r][b];
                        let sum = vaddq_s32($sums(&low, act[r].0), $sums(&high, act[r].1));
                        let scale = vmulq_n_f32(d4, block.d);
                        acc[r][h] = vfmaq_f32(acc[r][h], vcvtq_f32_s32(sum), scale);
                        acc[r][h] = vfmaq_n_f32(acc[r][h], m4, block.s);
                    }
                }
            }
            let mut out = [[0f32; 8]; R];
            for (out, acc) in out.iter_mut().zip(acc) {
                // SAFETY: `out` is 8 writable f32.
                unsafe {
                    vst1q_f32(out.as_mut_ptr(), acc[0]);
                    vst1q_f32(out[4..].as_mut_ptr(), acc[1]);
                }
            }
            out
        }
    };
}

tile_kernel!(
    /// `R` activation rows times the 8 weight rows of `w`, with `sdot`.
    tile_dotprod,
    "neon,dotprod",
    sums_sdot
);

tile_kernel!(
    /// `R` activation rows times the 8 weight rows of `w`, with plain NEON.
    tile_neon,
    "neon",
    sums_neon
);

//! AVX2 kernels, and the same with AVX-512 VNNI's `vpdpbusd` for the byte
//! dot products.
//!
//! Each 32-bit lane belongs to one of the 8 interleaved weight rows: a
//! 32-byte load of a [`Q4_1x8`] gives 4 quants of every row, and the 4
//! matching activation bytes are broadcast to all lanes, so the products
//! accumulate per row with no horizontal sums. Per block, the 8 integer sums
//! are scaled by `d4 * d8` and `m4 * s8` is added, 8 rows at a time.

use super::blocks::{BlockQ8_1, Q4_1x8, QK};
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

/// Quant bytes `4k..4k + 4` (`HIGH`: `16 + 4k..`) of an activation block in
/// every lane.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn broadcast<const HIGH: bool>(block: &BlockQ8_1, k: usize) -> __m256i {
    let start = 4 * k + if HIGH { 16 } else { 0 };
    let mut bytes = [0u8; 4];
    for (b, q) in bytes.iter_mut().zip(&block.qs[start..start + 4]) {
        *b = *q as u8;
    }
    _mm256_set1_epi32(i32::from_le_bytes(bytes))
}

/// Eight f16 values as f32.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn widen(halves: &[u16; 8]) -> __m256 {
    // SAFETY: `halves` is 16 readable bytes; the load has no alignment needs.
    _mm256_cvtph_ps(unsafe { _mm_loadu_si128(halves.as_ptr().cast()) })
}

/// Adds the products of unsigned `u` and signed `s` bytes to `acc`, as 16
/// sums of pairs (they stay below 2^15 for 8 steps of 4-bit × 8-bit).
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn step_avx2(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
    _mm256_add_epi16(acc, _mm256_maddubs_epi16(u, s))
}

/// The 8 per-lane i32 sums of two [`step_avx2`] accumulators.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn finish_avx2(low: __m256i, high: __m256i) -> __m256i {
    _mm256_madd_epi16(_mm256_add_epi16(low, high), _mm256_set1_epi16(1))
}

/// Adds the products of unsigned `u` and signed `s` bytes to `acc`, as 8
/// sums of 4.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512vnni,avx512vl")]
fn step_vnni(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
    _mm256_dpbusd_epi32(acc, u, s)
}

/// The 8 per-lane i32 sums of two [`step_vnni`] accumulators.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512vnni,avx512vl")]
fn finish_vnni(low: __m256i, high: __m256i) -> __m256i {
    _mm256_add_epi32(low, high)
}

/// [`BlockQ8_1::quantize_scalar`] with AVX2, bit for bit: rounding half
/// away from zero, NaN to 0 and saturation at the ends of `i8`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn quantize(xs: &[f32; QK]) -> BlockQ8_1 {
    let v: [__m256; 4] = std::array::from_fn(|i| {
        // SAFETY: `xs[8 * i..]` is at least 8 readable f32.
        unsafe { _mm256_loadu_ps(xs[8 * i..].as_ptr()) }
    });
    let sign = _mm256_set1_ps(-0.0);
    // `max_ps(a, b)` gives `b` when `a` is NaN: NaNs are skipped, as by `f32::max`.
    let amax = v.iter().fold(_mm256_setzero_ps(), |m, &x| {
        _mm256_max_ps(_mm256_andnot_ps(sign, x), m)
    });
    let amax = _mm_max_ps(
        _mm256_castps256_ps128(amax),
        _mm256_extractf128_ps::<1>(amax),
    );
    let amax = _mm_max_ps(amax, _mm_movehl_ps(amax, amax));
    let amax = _mm_cvtss_f32(_mm_max_ss(amax, _mm_movehdup_ps(amax)));
    let id = _mm256_set1_ps(BlockQ8_1::inverse_scale(amax));
    let q = v.map(|x| {
        let x = _mm256_mul_ps(x, id);
        let t = _mm256_round_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(x);
        let half = _mm256_cmp_ps::<_CMP_GE_OQ>(
            _mm256_andnot_ps(sign, _mm256_sub_ps(x, t)),
            _mm256_set1_ps(0.5),
        );
        let away = _mm256_or_ps(_mm256_and_ps(x, sign), _mm256_set1_ps(1.0));
        let r = _mm256_add_ps(t, _mm256_and_ps(half, away));
        let r = _mm256_and_ps(r, _mm256_cmp_ps::<_CMP_ORD_Q>(x, x));
        let r = _mm256_min_ps(
            _mm256_max_ps(r, _mm256_set1_ps(-128.0)),
            _mm256_set1_ps(127.0),
        );
        _mm256_cvttps_epi32(r)
    });
    let sum = _mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3]));
    let sum = _mm_add_epi32(
        _mm256_castsi256_si128(sum),
        _mm256_extracti128_si256::<1>(sum),
    );
    let sum = _mm_add_epi32(sum, _mm_shuffle_epi32::<0b01_00_11_10>(sum));
    let sum = _mm_cvtsi128_si32(_mm_add_epi32(sum, _mm_shuffle_epi32::<0b10_11_00_01>(sum)));
    let packed = _mm256_packs_epi16(
        _mm256_packs_epi32(q[0], q[1]),
        _mm256_packs_epi32(q[2], q[3]),
    );
    let packed = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    let mut qs = [0i8; QK];
    // SAFETY: `qs` is 32 writable bytes; the store has no alignment needs.
    unsafe { _mm256_storeu_si256(qs.as_mut_ptr().cast(), packed) };
    BlockQ8_1::from_quants(amax, qs, sum)
}

macro_rules! tile_kernel {
    ($(#[$doc:meta])* $name:ident, $features:literal, $step:ident, $finish:ident) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub fn $name<const R: usize>(w: &[Q4_1x8], a: [&[BlockQ8_1]; R]) -> [[f32; 8]; R] {
            let blocks = w.len();
            let a = a.map(|a| &a[..blocks]);
            let nibble = _mm256_set1_epi8(0x0F);
            let mut acc = [_mm256_setzero_ps(); R];
            for (b, group) in w.iter().enumerate() {
                let mut low = [_mm256_setzero_si256(); R];
                let mut high = [_mm256_setzero_si256(); R];
                for (k, chunk) in group.qs.chunks_exact(32).enumerate() {
                    // SAFETY: `chunk` is 32 readable bytes; the load has no
                    // alignment needs.
                    let raw = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
                    let wl = _mm256_and_si256(raw, nibble);
                    let wh = _mm256_and_si256(_mm256_srli_epi16::<4>(raw), nibble);
                    for r in 0..R {
                        low[r] = $step(low[r], wl, broadcast::<false>(&a[r][b], k));
                        high[r] = $step(high[r], wh, broadcast::<true>(&a[r][b], k));
                    }
                }
                let d4 = widen(&group.d);
                let m4 = widen(&group.m);
                for r in 0..R {
                    let block = &a[r][b];
                    let sum = _mm256_cvtepi32_ps($finish(low[r], high[r]));
                    let scale = _mm256_mul_ps(d4, _mm256_broadcast_ss(&block.d));
                    acc[r] = _mm256_fmadd_ps(sum, scale, acc[r]);
                    acc[r] = _mm256_fmadd_ps(m4, _mm256_broadcast_ss(&block.s), acc[r]);
                }
            }
            let mut out = [[0f32; 8]; R];
            for (out, acc) in out.iter_mut().zip(acc) {
                // SAFETY: `out` is 8 writable f32; the store has no alignment needs.
                unsafe { _mm256_storeu_ps(out.as_mut_ptr(), acc) };
            }
            out
        }
    };
}

tile_kernel!(
    /// `R` activation rows times the 8 weight rows of `w`, with AVX2.
    tile_avx2,
    "avx2,fma,f16c",
    step_avx2,
    finish_avx2
);

tile_kernel!(
    /// `R` activation rows times the 8 weight rows of `w`, with AVX-512 VNNI.
    tile_vnni,
    "avx2,fma,f16c,avx512vnni,avx512vl",
    step_vnni,
    finish_vnni
);

//! The kernel's vector operations for x86-64: AVX2 (with FMA and F16C), the
//! same with AVX-512 VNNI's `vpdpbusd` for the byte dot products and
//! AVX-512 BW's byte masks for the bit planes, and those on 512-bit vectors
//! that span two groups of weight rows ([`Wide`]). Also the SIMD
//! quantization of activations.

use super::activations::{BlockQ8, QK};
use super::formats::Format;
use super::kernel::{tile, Lanes, Scales, Simd};
use core::arch::x86_64::*;

/// Whether the CPU runs the AVX2 kernel.
pub fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("f16c")
}

/// Whether the CPU runs the VNNI kernel.
pub fn has_vnni() -> bool {
    has_avx2()
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512vnni")
}

/// The 4 activation bytes `a[..4]` in every 32-bit lane.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn broadcast(a: &[i8]) -> __m256i {
    let a = &a[..4];
    _mm256_set1_epi32(i32::from_le_bytes([
        a[0] as u8, a[1] as u8, a[2] as u8, a[3] as u8,
    ]))
}

/// AVX2 with FMA and F16C.
pub struct Avx2;

impl Simd for Avx2 {
    type Bytes = __m256i;
    type Ints = __m256i;
    type Floats = __m256;

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn load(bytes: &[u8]) -> __m256i {
        let bytes = &bytes[..32];
        // SAFETY: `bytes` is 32 readable bytes; the load has no alignment needs.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn nibbles(raw: __m256i) -> (__m256i, __m256i) {
        let mask = _mm256_set1_epi8(0x0F);
        (
            _mm256_and_si256(raw, mask),
            _mm256_and_si256(_mm256_srli_epi16::<4>(raw), mask),
        )
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn bits(mask: u32, value: u8) -> __m256i {
        let spread = _mm256_shuffle_epi8(
            _mm256_set1_epi32(mask as i32),
            _mm256_setr_epi8(
                0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, //
                2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
            ),
        );
        let bit = _mm256_set1_epi64x(0x8040_2010_0804_0201u64 as i64);
        let set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
        _mm256_and_si256(set, _mm256_set1_epi8(value as i8))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn or(a: __m256i, b: __m256i) -> __m256i {
        _mm256_or_si256(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn crumbs<const AT: u32>(raw: __m256i) -> __m256i {
        // Shifts of 16-bit lanes: the mask keeps only bits from the byte's own.
        let moved = match AT {
            0 => _mm256_slli_epi16::<4>(raw),
            2 => _mm256_slli_epi16::<2>(raw),
            4 => raw,
            _ => _mm256_srli_epi16::<2>(raw),
        };
        _mm256_and_si256(moved, _mm256_set1_epi8(0x30))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn izero() -> __m256i {
        _mm256_setzero_si256()
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn dot(acc: __m256i, w: __m256i, a: &[i8]) -> __m256i {
        let pairs = _mm256_maddubs_epi16(w, broadcast(a));
        _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn dot_signed(acc: __m256i, w: __m256i, a: &[i8]) -> __m256i {
        let pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(broadcast(a), w));
        _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
    }

    const SHORT_SUMS: bool = true;

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn dot_short(acc: __m256i, w: __m256i, a: &[i8]) -> __m256i {
        _mm256_add_epi16(acc, _mm256_maddubs_epi16(w, broadcast(a)))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn widen(acc: __m256i) -> __m256i {
        _mm256_madd_epi16(acc, _mm256_set1_epi16(1))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn iadd(a: __m256i, b: __m256i) -> __m256i {
        _mm256_add_epi32(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn isub(a: __m256i, b: i32) -> __m256i {
        _mm256_sub_epi32(a, _mm256_set1_epi32(b))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn float(a: __m256i) -> __m256 {
        _mm256_cvtepi32_ps(a)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn fzero() -> __m256 {
        _mm256_setzero_ps()
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn halves(h: &[u16]) -> __m256 {
        let h = &h[..8];
        // SAFETY: `h` is 16 readable bytes; the load has no alignment needs.
        _mm256_cvtph_ps(unsafe { _mm_loadu_si128(h.as_ptr().cast()) })
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn unsigned(b: &[u8]) -> __m256 {
        let b = &b[..8];
        // SAFETY: `b` is 8 readable bytes; the load has no alignment needs.
        let b = unsafe { _mm_loadl_epi64(b.as_ptr().cast()) };
        _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn signed(b: &[i8]) -> __m256 {
        let b = &b[..8];
        // SAFETY: `b` is 8 readable bytes; the load has no alignment needs.
        let b = unsafe { _mm_loadl_epi64(b.as_ptr().cast()) };
        _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn mul(a: __m256, b: __m256) -> __m256 {
        _mm256_mul_ps(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn scale(a: __m256, s: f32) -> __m256 {
        _mm256_mul_ps(a, _mm256_set1_ps(s))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn fmadd(a: __m256, b: __m256, c: __m256) -> __m256 {
        _mm256_fmadd_ps(a, b, c)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn fmadd_scalar(a: __m256, s: f32, c: __m256) -> __m256 {
        _mm256_fmadd_ps(a, _mm256_set1_ps(s), c)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    unsafe fn store(a: __m256) -> [f32; 8] {
        let mut out = [0f32; 8];
        // SAFETY: `out` is 8 writable f32; the store has no alignment needs.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), a) };
        out
    }
}

/// AVX2 with AVX-512 VNNI, BW and VL on 256-bit vectors.
pub struct Vnni;

macro_rules! like_avx2 {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(
            #[inline]
            #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
            unsafe fn $name($($arg: $ty),*) -> $out {
                // SAFETY: this CPU has AVX2 and more.
                unsafe { <Avx2 as Simd>::$name($($arg),*) }
            }
        )*
    };
}

impl Simd for Vnni {
    type Bytes = __m256i;
    type Ints = __m256i;
    type Floats = __m256;

    like_avx2! {
        load(bytes: &[u8]) -> __m256i;
        nibbles(raw: __m256i) -> (__m256i, __m256i);
        or(a: __m256i, b: __m256i) -> __m256i;
        izero() -> __m256i;
        iadd(a: __m256i, b: __m256i) -> __m256i;
        isub(a: __m256i, b: i32) -> __m256i;
        float(a: __m256i) -> __m256;
        fzero() -> __m256;
        halves(h: &[u16]) -> __m256;
        unsigned(b: &[u8]) -> __m256;
        signed(b: &[i8]) -> __m256;
        mul(a: __m256, b: __m256) -> __m256;
        scale(a: __m256, s: f32) -> __m256;
        fmadd(a: __m256, b: __m256, c: __m256) -> __m256;
        fmadd_scalar(a: __m256, s: f32, c: __m256) -> __m256;
        store(a: __m256) -> [f32; 8];
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn crumbs<const AT: u32>(raw: __m256i) -> __m256i {
        // SAFETY: this CPU has AVX2 and more.
        unsafe { <Avx2 as Simd>::crumbs::<AT>(raw) }
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn bits(mask: u32, value: u8) -> __m256i {
        _mm256_maskz_set1_epi8(mask, value as i8)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn dot(acc: __m256i, w: __m256i, a: &[i8]) -> __m256i {
        _mm256_dpbusd_epi32(acc, w, broadcast(a))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn dot_signed(acc: __m256i, w: __m256i, a: &[i8]) -> __m256i {
        _mm256_dpbusd_epi32(acc, _mm256_abs_epi8(w), _mm256_sign_epi8(broadcast(a), w))
    }
}

/// AVX-512 VNNI on 512-bit vectors: lanes `0..8` are the rows of one group
/// of weights and lanes `8..16` those of the next, each group unpacked by
/// [`Vnni`] and the two joined; the products and sums work on all 16 rows.
pub struct Wide;

/// `lo` in lanes `0..8` and `hi` in `8..16`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
fn join_bytes(lo: __m256i, hi: __m256i) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// `lo` in lanes `0..8` and `hi` in `8..16`.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
fn join_floats(lo: __m256, hi: __m256) -> __m512 {
    let lo = _mm512_castpd256_pd512(_mm256_castps_pd(lo));
    _mm512_castpd_ps(_mm512_insertf64x4::<1>(lo, _mm256_castps_pd(hi)))
}

/// The 4 activation bytes `a[..4]` in every 32-bit lane of 16.
#[inline]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
fn broadcast16(a: &[i8]) -> __m512i {
    let a = &a[..4];
    _mm512_set1_epi32(i32::from_le_bytes([
        a[0] as u8, a[1] as u8, a[2] as u8, a[3] as u8,
    ]))
}

impl Lanes for Wide {
    type Bytes = __m512i;
    type Ints = __m512i;
    type Floats = __m512;
    type Out = [f32; 16];
    type Blocks<'a, F: Format> = [&'a F; 2];

    #[inline(always)]
    fn blocks<'a, F: Format>(w: &[&'a [F]], b: usize) -> [&'a F; 2] {
        [&w[0][b], &w[1][b]]
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn unpack<F: Format>(w: [&F; 2], sub: usize, k: usize) -> (__m512i, __m512i) {
        // SAFETY (both): this CPU has what `Vnni` needs.
        let (l0, h0) = unsafe { w[0].unpack::<Vnni>(sub, k) };
        let (l1, h1) = unsafe { w[1].unpack::<Vnni>(sub, k) };
        (join_bytes(l0, l1), join_bytes(h0, h1))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn scales<F: Format>(w: [&F; 2], sub: usize) -> Scales<__m512> {
        // SAFETY (both): this CPU has what `Vnni` needs.
        let (a, b) = unsafe { (w[0].scales::<Vnni>(sub), w[1].scales::<Vnni>(sub)) };
        Scales::join(a, b, |lo, hi| join_floats(lo, hi))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn izero() -> __m512i {
        _mm512_setzero_si512()
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn dot(acc: __m512i, w: __m512i, a: &[i8]) -> __m512i {
        _mm512_dpbusd_epi32(acc, w, broadcast16(a))
    }

    /// AVX-512 has no `vpsignb`: the activations are negated where the
    /// weight is negative, and multiplied by its magnitude.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn dot_signed(acc: __m512i, w: __m512i, a: &[i8]) -> __m512i {
        let a = broadcast16(a);
        let negative = _mm512_movepi8_mask(w);
        let a = _mm512_mask_sub_epi8(a, negative, _mm512_setzero_si512(), a);
        _mm512_dpbusd_epi32(acc, _mm512_abs_epi8(w), a)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn iadd(a: __m512i, b: __m512i) -> __m512i {
        _mm512_add_epi32(a, b)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn isub(a: __m512i, b: i32) -> __m512i {
        _mm512_sub_epi32(a, _mm512_set1_epi32(b))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn float(a: __m512i) -> __m512 {
        _mm512_cvtepi32_ps(a)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn fzero() -> __m512 {
        _mm512_setzero_ps()
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn scale(a: __m512, s: f32) -> __m512 {
        _mm512_mul_ps(a, _mm512_set1_ps(s))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn fmadd(a: __m512, b: __m512, c: __m512) -> __m512 {
        _mm512_fmadd_ps(a, b, c)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn fmadd_scalar(a: __m512, s: f32, c: __m512) -> __m512 {
        _mm512_fmadd_ps(a, _mm512_set1_ps(s), c)
    }

    #[inline]
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn store(a: __m512) -> [f32; 16] {
        let mut out = [0f32; 16];
        // SAFETY: `out` is 16 writable f32; the store has no alignment needs.
        unsafe { _mm512_storeu_ps(out.as_mut_ptr(), a) };
        out
    }
}

/// The kernel with AVX2, for one group.
///
/// # Safety
/// The CPU must have AVX2, FMA and F16C ([`has_avx2`]).
#[target_feature(enable = "avx2,fma,f16c")]
pub unsafe fn tile_avx2<F: Format, const R: usize>(
    w: &[&[F]],
    a: [&[BlockQ8]; R],
) -> [[f32; 8]; R] {
    // SAFETY: the caller vouches for the CPU.
    unsafe { tile::<Avx2, F, R>(w, a) }
}

/// The kernel with AVX-512 VNNI, for one group.
///
/// # Safety
/// The CPU must have what [`has_vnni`] checks.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
pub unsafe fn tile_vnni<F: Format, const R: usize>(
    w: &[&[F]],
    a: [&[BlockQ8]; R],
) -> [[f32; 8]; R] {
    // SAFETY: the caller vouches for the CPU.
    unsafe { tile::<Vnni, F, R>(w, a) }
}

/// The kernel with AVX-512 VNNI on 512-bit vectors, for two groups.
///
/// # Safety
/// The CPU must have what [`has_vnni`] checks.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")]
pub unsafe fn tile_wide<F: Format, const R: usize>(
    w: &[&[F]],
    a: [&[BlockQ8]; R],
) -> [[f32; 16]; R] {
    // SAFETY: the caller vouches for the CPU.
    unsafe { tile::<Wide, F, R>(w, a) }
}

/// [`BlockQ8::quantize_scalar`] with AVX2, bit for bit: rounding half
/// away from zero, NaN to 0 and saturation at the ends of `i8`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn quantize(xs: &[f32; QK]) -> BlockQ8 {
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
    let id = _mm256_set1_ps(BlockQ8::inverse_scale(amax));
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
    let packed = _mm256_packs_epi16(
        _mm256_packs_epi32(q[0], q[1]),
        _mm256_packs_epi32(q[2], q[3]),
    );
    let packed = _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    let mut qs = [0i8; QK];
    // SAFETY: `qs` is 32 writable bytes; the store has no alignment needs.
    unsafe { _mm256_storeu_si256(qs.as_mut_ptr().cast(), packed) };
    BlockQ8::from_quants(amax, qs)
}

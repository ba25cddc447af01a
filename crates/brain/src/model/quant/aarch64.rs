//! The kernel's vector operations for aarch64 NEON, with the `dotprod`
//! extension's `sdot` where the CPU has it (Cortex-A76 and later:
//! Raspberry Pi 5) and widening multiplies and pairwise adds otherwise
//! (Cortex-A72: Raspberry Pi 4).
//!
//! A 128-bit vector holds 4 quants of each of 4 weight rows, so every value
//! of the kernel is a pair of vectors: rows `0..4` and rows `4..8`.

use super::activations::BlockQ8;
use super::formats::Format;
use super::kernel::{tile, Simd};
use core::arch::aarch64::*;
use core::arch::asm;

/// Whether the CPU has the `sdot` instruction.
pub fn has_dotprod() -> bool {
    std::arch::is_aarch64_feature_detected!("dotprod")
}

/// The 4 activation bytes `a[..4]` in every 32-bit lane.
#[inline]
#[target_feature(enable = "neon")]
fn broadcast(a: &[i8]) -> int8x16_t {
    let a = &a[..4];
    vreinterpretq_s8_s32(vdupq_n_s32(i32::from_le_bytes([
        a[0] as u8, a[1] as u8, a[2] as u8, a[3] as u8,
    ])))
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

/// 16 bits of a mask as 16 bytes: `value` where the bit is set.
#[inline]
#[target_feature(enable = "neon")]
fn expand(mask: u16, value: u8) -> uint8x16_t {
    const SPREAD: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1];
    const BIT: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: the constants are 16 readable bytes each.
    let (spread, bit) = unsafe { (vld1q_u8(SPREAD.as_ptr()), vld1q_u8(BIT.as_ptr())) };
    let bytes = vqtbl1q_u8(vreinterpretq_u8_u16(vdupq_n_u16(mask)), spread);
    vandq_u8(vtstq_u8(bytes, bit), vdupq_n_u8(value))
}

/// Per row of 4, the 4 bytes of `w` times the 4 of `a`, summed, with
/// widening multiplies.
#[inline]
#[target_feature(enable = "neon")]
fn sums_neon(w: uint8x16_t, a: int8x16_t) -> int32x4_t {
    let w = vreinterpretq_s8_u8(w);
    let low = vpaddlq_s16(vmull_s8(vget_low_s8(w), vget_low_s8(a)));
    let high = vpaddlq_s16(vmull_s8(vget_high_s8(w), vget_high_s8(a)));
    vpaddq_s32(low, high)
}

/// [`sums_neon`] added to `acc` with `sdot`.
#[inline]
#[target_feature(enable = "neon,dotprod")]
fn sums_sdot(acc: int32x4_t, w: uint8x16_t, a: int8x16_t) -> int32x4_t {
    let mut acc = acc;
    // SAFETY: `sdot` only reads and writes the named vector registers, and
    // this function requires the `dotprod` feature that provides it.
    unsafe {
        asm!(
            "sdot {acc:v}.4s, {w:v}.16b, {a:v}.16b",
            acc = inout(vreg) acc,
            w = in(vreg) w,
            a = in(vreg) a,
            options(pure, nomem, nostack),
        );
    }
    acc
}

/// Plain NEON.
pub struct Neon;

type Pair<T> = [T; 2];

impl Simd for Neon {
    type Bytes = Pair<uint8x16_t>;
    type Ints = Pair<int32x4_t>;
    type Floats = Pair<float32x4_t>;

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn load(bytes: &[u8]) -> Pair<uint8x16_t> {
        let bytes = &bytes[..32];
        // SAFETY: `bytes` is 32 readable bytes.
        unsafe { [vld1q_u8(bytes.as_ptr()), vld1q_u8(bytes[16..].as_ptr())] }
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn nibbles(raw: Pair<uint8x16_t>) -> (Pair<uint8x16_t>, Pair<uint8x16_t>) {
        let mask = vdupq_n_u8(0x0F);
        (
            raw.map(|r| vandq_u8(r, mask)),
            raw.map(|r| vshrq_n_u8::<4>(r)),
        )
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn bits(mask: u32, value: u8) -> Pair<uint8x16_t> {
        [
            expand(mask as u16, value),
            expand((mask >> 16) as u16, value),
        ]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn or(a: Pair<uint8x16_t>, b: Pair<uint8x16_t>) -> Pair<uint8x16_t> {
        [vorrq_u8(a[0], b[0]), vorrq_u8(a[1], b[1])]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn crumbs<const AT: u32>(raw: Pair<uint8x16_t>) -> Pair<uint8x16_t> {
        let mask = vdupq_n_u8(0x30);
        raw.map(|r| {
            let moved = match AT {
                0 => vshlq_n_u8::<4>(r),
                2 => vshlq_n_u8::<2>(r),
                4 => r,
                _ => vshrq_n_u8::<2>(r),
            };
            vandq_u8(moved, mask)
        })
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn izero() -> Pair<int32x4_t> {
        [vdupq_n_s32(0); 2]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn dot(acc: Pair<int32x4_t>, w: Pair<uint8x16_t>, a: &[i8]) -> Pair<int32x4_t> {
        let a = broadcast(a);
        [
            vaddq_s32(acc[0], sums_neon(w[0], a)),
            vaddq_s32(acc[1], sums_neon(w[1], a)),
        ]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn dot_signed(acc: Pair<int32x4_t>, w: Pair<uint8x16_t>, a: &[i8]) -> Pair<int32x4_t> {
        // SAFETY: the same CPU.
        unsafe { Self::dot(acc, w, a) }
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn iadd(a: Pair<int32x4_t>, b: Pair<int32x4_t>) -> Pair<int32x4_t> {
        [vaddq_s32(a[0], b[0]), vaddq_s32(a[1], b[1])]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn isub(a: Pair<int32x4_t>, b: i32) -> Pair<int32x4_t> {
        let b = vdupq_n_s32(b);
        [vsubq_s32(a[0], b), vsubq_s32(a[1], b)]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn float(a: Pair<int32x4_t>) -> Pair<float32x4_t> {
        [vcvtq_f32_s32(a[0]), vcvtq_f32_s32(a[1])]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn fzero() -> Pair<float32x4_t> {
        [vdupq_n_f32(0.0); 2]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn halves(h: &[u16]) -> Pair<float32x4_t> {
        [widen(&h[..4]), widen(&h[4..8])]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn unsigned(b: &[u8]) -> Pair<float32x4_t> {
        let b = &b[..8];
        // SAFETY: `b` is 8 readable bytes.
        let wide = vmovl_u8(unsafe { vld1_u8(b.as_ptr()) });
        [
            vcvtq_f32_u32(vmovl_u16(vget_low_u16(wide))),
            vcvtq_f32_u32(vmovl_high_u16(wide)),
        ]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn signed(b: &[i8]) -> Pair<float32x4_t> {
        let b = &b[..8];
        // SAFETY: `b` is 8 readable bytes.
        let wide = vmovl_s8(unsafe { vld1_s8(b.as_ptr()) });
        [
            vcvtq_f32_s32(vmovl_s16(vget_low_s16(wide))),
            vcvtq_f32_s32(vmovl_high_s16(wide)),
        ]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn mul(a: Pair<float32x4_t>, b: Pair<float32x4_t>) -> Pair<float32x4_t> {
        [vmulq_f32(a[0], b[0]), vmulq_f32(a[1], b[1])]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn scale(a: Pair<float32x4_t>, s: f32) -> Pair<float32x4_t> {
        [vmulq_n_f32(a[0], s), vmulq_n_f32(a[1], s)]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn fmadd(
        a: Pair<float32x4_t>,
        b: Pair<float32x4_t>,
        c: Pair<float32x4_t>,
    ) -> Pair<float32x4_t> {
        [vfmaq_f32(c[0], a[0], b[0]), vfmaq_f32(c[1], a[1], b[1])]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn fmadd_scalar(
        a: Pair<float32x4_t>,
        s: f32,
        c: Pair<float32x4_t>,
    ) -> Pair<float32x4_t> {
        [vfmaq_n_f32(c[0], a[0], s), vfmaq_n_f32(c[1], a[1], s)]
    }

    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn store(a: Pair<float32x4_t>) -> [f32; 8] {
        let mut out = [0f32; 8];
        // SAFETY: `out` is 8 writable f32.
        unsafe {
            vst1q_f32(out.as_mut_ptr(), a[0]);
            vst1q_f32(out[4..].as_mut_ptr(), a[1]);
        }
        out
    }
}

/// NEON with `sdot`.
pub struct NeonDot;

macro_rules! like_neon {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(
            #[inline]
            #[target_feature(enable = "neon,dotprod")]
            unsafe fn $name($($arg: $ty),*) -> $out {
                // SAFETY: this CPU has NEON and more.
                unsafe { <Neon as Simd>::$name($($arg),*) }
            }
        )*
    };
}

impl Simd for NeonDot {
    type Bytes = Pair<uint8x16_t>;
    type Ints = Pair<int32x4_t>;
    type Floats = Pair<float32x4_t>;

    #[inline]
    #[target_feature(enable = "neon,dotprod")]
    unsafe fn crumbs<const AT: u32>(raw: Pair<uint8x16_t>) -> Pair<uint8x16_t> {
        // SAFETY: this CPU has NEON and more.
        unsafe { <Neon as Simd>::crumbs::<AT>(raw) }
    }

    like_neon! {
        load(bytes: &[u8]) -> Pair<uint8x16_t>;
        nibbles(raw: Pair<uint8x16_t>) -> (Pair<uint8x16_t>, Pair<uint8x16_t>);
        bits(mask: u32, value: u8) -> Pair<uint8x16_t>;
        or(a: Pair<uint8x16_t>, b: Pair<uint8x16_t>) -> Pair<uint8x16_t>;
        izero() -> Pair<int32x4_t>;
        iadd(a: Pair<int32x4_t>, b: Pair<int32x4_t>) -> Pair<int32x4_t>;
        isub(a: Pair<int32x4_t>, b: i32) -> Pair<int32x4_t>;
        float(a: Pair<int32x4_t>) -> Pair<float32x4_t>;
        fzero() -> Pair<float32x4_t>;
        halves(h: &[u16]) -> Pair<float32x4_t>;
        unsigned(b: &[u8]) -> Pair<float32x4_t>;
        signed(b: &[i8]) -> Pair<float32x4_t>;
        mul(a: Pair<float32x4_t>, b: Pair<float32x4_t>) -> Pair<float32x4_t>;
        scale(a: Pair<float32x4_t>, s: f32) -> Pair<float32x4_t>;
        fmadd(a: Pair<float32x4_t>, b: Pair<float32x4_t>, c: Pair<float32x4_t>) -> Pair<float32x4_t>;
        fmadd_scalar(a: Pair<float32x4_t>, s: f32, c: Pair<float32x4_t>) -> Pair<float32x4_t>;
        store(a: Pair<float32x4_t>) -> [f32; 8];
    }

    #[inline]
    #[target_feature(enable = "neon,dotprod")]
    unsafe fn dot(acc: Pair<int32x4_t>, w: Pair<uint8x16_t>, a: &[i8]) -> Pair<int32x4_t> {
        let a = broadcast(a);
        [sums_sdot(acc[0], w[0], a), sums_sdot(acc[1], w[1], a)]
    }

    #[inline]
    #[target_feature(enable = "neon,dotprod")]
    unsafe fn dot_signed(acc: Pair<int32x4_t>, w: Pair<uint8x16_t>, a: &[i8]) -> Pair<int32x4_t> {
        // SAFETY: the same CPU.
        unsafe { Self::dot(acc, w, a) }
    }
}

/// The kernel with plain NEON.
///
/// # Safety
/// None beyond aarch64's baseline NEON.
#[target_feature(enable = "neon")]
pub unsafe fn tile_neon<F: Format, const R: usize>(
    w: &[&[F]],
    a: [&[BlockQ8]; R],
) -> [[f32; 8]; R] {
    // SAFETY: every aarch64 CPU has NEON.
    unsafe { tile::<Neon, F, R>(w, a) }
}

/// The kernel with `sdot`.
///
/// # Safety
/// The CPU must have the `dotprod` extension ([`has_dotprod`]).
#[target_feature(enable = "neon,dotprod")]
pub unsafe fn tile_dotprod<F: Format, const R: usize>(
    w: &[&[F]],
    a: [&[BlockQ8]; R],
) -> [[f32; 8]; R] {
    // SAFETY: the caller vouches for the CPU.
    unsafe { tile::<NeonDot, F, R>(w, a) }
}

//! The one kernel: `R` activation rows times 8 interleaved weight rows,
//! written once over the vector operations of [`Simd`] and the
//! [`Format`] of the weights.
//!
//! Each lane of a vector belongs to one of the 8 weight rows. Per block of
//! 32 weights, the format unpacks 4 quants of every row into 32 unsigned
//! bytes (signed for Q8_0) for positions `4k..4k + 4` and `16 + 4k..`; the
//! matching 4 activation bytes are broadcast to every lane and the products
//! summed per lane, so no horizontal sums are needed. The two halves of the
//! block keep separate integer sums (Q6_K scales each half on its own);
//! then per block the format's zero point is taken off in integers, and
//! the sums are scaled by the row scales times the activation scale, with
//! `min * s` added for formats with a minimum.

use super::activations::{BlockQ8, QK};
use super::formats::Format;
use std::sync::OnceLock;

/// The vector operations the kernel is written in. Every method is
/// `unsafe`: an implementation may only be called on a CPU with the features
/// it is compiled for.
pub trait Simd {
    /// 32 bytes: 4 consecutive quants of each of 8 weight rows.
    type Bytes: Copy;
    /// 8 i32 sums, one per weight row.
    type Ints: Copy;
    /// 8 f32 values, one per weight row.
    type Floats: Copy;

    /// The first 32 of `bytes`.
    unsafe fn load(bytes: &[u8]) -> Self::Bytes;
    /// The low and the high nibbles of each byte.
    unsafe fn nibbles(raw: Self::Bytes) -> (Self::Bytes, Self::Bytes);
    /// `value` in the bytes whose bit is set in `mask`, 0 elsewhere.
    unsafe fn bits(mask: u32, value: u8) -> Self::Bytes;
    /// Bitwise or.
    unsafe fn or(a: Self::Bytes, b: Self::Bytes) -> Self::Bytes;
    /// All zero.
    unsafe fn izero() -> Self::Ints;
    /// Adds to each row's sum its 4 bytes of `w` (unsigned, below 128)
    /// times the 4 activations `a[..4]`.
    unsafe fn dot(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints;
    /// [`Simd::dot`] with signed bytes in `w`.
    unsafe fn dot_signed(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints;
    /// Lane-wise sum.
    unsafe fn iadd(a: Self::Ints, b: Self::Ints) -> Self::Ints;
    /// `b` taken off every lane.
    unsafe fn isub(a: Self::Ints, b: i32) -> Self::Ints;
    /// As floats.
    unsafe fn float(a: Self::Ints) -> Self::Floats;
    /// All zero.
    unsafe fn fzero() -> Self::Floats;
    /// The first 8 f16 values of `h`.
    unsafe fn halves(h: &[u16]) -> Self::Floats;
    /// The first 8 bytes of `b`, unsigned.
    unsafe fn unsigned(b: &[u8]) -> Self::Floats;
    /// The first 8 bytes of `b`, signed.
    unsafe fn signed(b: &[i8]) -> Self::Floats;
    /// Lane-wise product.
    unsafe fn mul(a: Self::Floats, b: Self::Floats) -> Self::Floats;
    /// Every lane times `s`.
    unsafe fn scale(a: Self::Floats, s: f32) -> Self::Floats;
    /// `a * b + c`, lane-wise.
    unsafe fn fmadd(a: Self::Floats, b: Self::Floats, c: Self::Floats) -> Self::Floats;
    /// `a * s + c`, lane-wise.
    unsafe fn fmadd_scalar(a: Self::Floats, s: f32, c: Self::Floats) -> Self::Floats;
    /// The 8 lanes.
    unsafe fn store(a: Self::Floats) -> [f32; 8];
}

/// The scales of the 8 rows of one block: `low` for quants `0..16`, `high`
/// for `16..32` (the same as `low` unless the format is
/// [`Format::SPLIT`]), `min` the offset added per unit of activation sum
/// (zero unless [`Format::MIN`]).
pub struct Scales<S: Simd> {
    /// Scale of the first half of the block.
    pub low: S::Floats,
    /// Scale of the second half of the block.
    pub high: S::Floats,
    /// Offset of every weight of the block.
    pub min: S::Floats,
}

impl<S: Simd> Scales<S> {
    /// One f16 scale per row for the whole block, and an f16 minimum per
    /// row if `min` is given (the legacy types).
    ///
    /// # Safety
    /// The CPU must have the features `S` is compiled for.
    #[inline(always)]
    pub unsafe fn of_halves(d: &[u16], min: Option<&[u16]>) -> Self {
        // SAFETY (all): the caller vouches for the CPU.
        unsafe {
            let d = S::halves(d);
            Scales {
                low: d,
                high: d,
                min: match min {
                    Some(m) => S::halves(m),
                    None => S::fzero(),
                },
            }
        }
    }
}

/// `R` activation rows times the 8 weight rows of `w`.
///
/// # Safety
/// The CPU must have the features `S` is compiled for.
#[inline(always)]
pub unsafe fn tile<S: Simd, F: Format, const R: usize>(
    w: &[F],
    a: [&[BlockQ8]; R],
) -> [[f32; 8]; R] {
    let a = a.map(|a| &a[..w.len() * F::SUBS]);
    // SAFETY (all below): the caller vouches for the CPU.
    let mut acc = [unsafe { S::fzero() }; R];
    for (g, group) in w.iter().enumerate() {
        for sub in 0..F::SUBS {
            let x: [&BlockQ8; R] = std::array::from_fn(|r| &a[r][g * F::SUBS + sub]);
            let mut low = [unsafe { S::izero() }; R];
            let mut high = low;
            for k in 0..4 {
                let (wl, wh) = unsafe { group.unpack::<S>(sub, k) };
                for r in 0..R {
                    let (al, ah) = (&x[r].qs[4 * k..], &x[r].qs[QK / 2 + 4 * k..]);
                    unsafe {
                        if F::SIGNED {
                            low[r] = S::dot_signed(low[r], wl, al);
                            high[r] = S::dot_signed(high[r], wh, ah);
                        } else {
                            low[r] = S::dot(low[r], wl, al);
                            high[r] = S::dot(high[r], wh, ah);
                        }
                    }
                }
            }
            let scales = unsafe { group.scales::<S>(sub) };
            for r in 0..R {
                let x = x[r];
                unsafe {
                    if F::SPLIT {
                        let l = S::float(S::isub(low[r], F::ZERO * x.sums[0]));
                        let h = S::float(S::isub(high[r], F::ZERO * x.sums[1]));
                        acc[r] = S::fmadd(l, S::scale(scales.low, x.d), acc[r]);
                        acc[r] = S::fmadd(h, S::scale(scales.high, x.d), acc[r]);
                    } else {
                        let mut sum = S::iadd(low[r], high[r]);
                        if F::ZERO != 0 {
                            sum = S::isub(sum, F::ZERO * (x.sums[0] + x.sums[1]));
                        }
                        acc[r] = S::fmadd(S::float(sum), S::scale(scales.low, x.d), acc[r]);
                    }
                    if F::MIN {
                        acc[r] = S::fmadd_scalar(scales.min, x.s, acc[r]);
                    }
                }
            }
        }
    }
    acc.map(|acc| unsafe { S::store(acc) })
}

/// A set of vector instructions the kernel can be compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust, everywhere.
    Scalar,
    /// x86-64 AVX2 with FMA and F16C.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// x86-64 AVX2 with AVX-512 (BW, VL) and VNNI byte dot products.
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
                if super::x86::has_avx2() {
                    kernels.push(Kernel::Avx2);
                }
                if super::x86::has_vnni() {
                    kernels.push(Kernel::Avx512Vnni);
                }
            }
            #[cfg(target_arch = "aarch64")]
            {
                kernels.push(Kernel::Neon);
                if super::aarch64::has_dotprod() {
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

    /// [`tile`] with this kernel's instructions.
    pub(super) fn tile<F: Format, const R: usize>(
        self,
        w: &[F],
        a: [&[BlockQ8]; R],
    ) -> [[f32; 8]; R] {
        match self {
            // SAFETY: plain Rust runs everywhere.
            Kernel::Scalar => unsafe { tile::<super::scalar::Scalar, F, R>(w, a) },
            // SAFETY (all below): `available` lists a kernel only where the
            // CPU has the features it is compiled for.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { super::x86::tile_avx2(w, a) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vnni => unsafe { super::x86::tile_vnni(w, a) },
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => unsafe { super::aarch64::tile_neon(w, a) },
            #[cfg(target_arch = "aarch64")]
            Kernel::NeonDotprod => unsafe { super::aarch64::tile_dotprod(w, a) },
        }
    }
}

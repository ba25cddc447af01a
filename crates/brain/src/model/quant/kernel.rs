//! The one kernel: `R` activation rows times 8 interleaved weight rows (or
//! two groups of them, 16 rows, on 512-bit vectors), written once over the
//! vector operations of [`Lanes`] and the [`Format`] of the weights.
//!
//! Each lane of a vector belongs to one of the weight rows. Per block of
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
    /// Bits `AT..AT + 2` of each byte (`AT` is 0, 2, 4 or 6) moved to bits
    /// 4 and 5, the rest 0: the two high bits of a 6-bit quant, kept four
    /// to a byte.
    unsafe fn crumbs<const AT: u32>(raw: Self::Bytes) -> Self::Bytes;
    /// All zero.
    unsafe fn izero() -> Self::Ints;
    /// Adds to each row's sum its 4 bytes of `w` (unsigned, below 128)
    /// times the 4 activations `a[..4]`.
    unsafe fn dot(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints;
    /// [`Simd::dot`] with signed bytes in `w`.
    unsafe fn dot_signed(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints;
    /// Whether [`Simd::dot_short`] keeps its sums in 16-bit lanes, which
    /// the kernel then widens once per block instead of after every
    /// product (AVX2, whose widening multiply costs as much as the product).
    const SHORT_SUMS: bool = false;
    /// [`Simd::dot`] into a running sum that [`Simd::widen`] makes the
    /// rows' sums. The kernel sums at most 4 such products of unsigned
    /// quants below 32 before widening, so 16 bits hold them: 8 products
    /// of at most 31 × 128 each.
    unsafe fn dot_short(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Self::dot(acc, w, a) }
    }
    /// The rows' sums of a run of [`Simd::dot_short`] begun at zero.
    unsafe fn widen(acc: Self::Ints) -> Self::Ints {
        acc
    }
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

/// The scales of the rows of one block, one lane a row: `low` for quants
/// `0..16`, `high` for `16..32` (the same as `low` unless the format is
/// [`Format::SPLIT`]), `min` the offset added per unit of activation sum
/// (zero unless [`Format::MIN`]).
pub struct Scales<T> {
    /// Scale of the first half of the block.
    pub low: T,
    /// Scale of the second half of the block.
    pub high: T,
    /// Offset of every weight of the block.
    pub min: T,
}

impl<T: Copy> Scales<T> {
    /// One f16 scale per row for the whole block, and an f16 minimum per
    /// row if `min` is given (the legacy types).
    ///
    /// # Safety
    /// The CPU must have the features `S` is compiled for.
    #[inline(always)]
    pub unsafe fn of_halves<S: Simd<Floats = T>>(d: &[u16], min: Option<&[u16]>) -> Self {
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

    /// The scales of two sets of rows side by side, joined lane-wise by
    /// `join`.
    #[inline(always)]
    pub fn join<U>(a: Self, b: Self, join: impl Fn(T, T) -> U) -> Scales<U> {
        Scales {
            low: join(a.low, b.low),
            high: join(a.high, b.high),
            min: join(a.min, b.min),
        }
    }
}

/// What the kernel multiplies with: vectors with a lane for each of the 8
/// rows of one group of weights (every [`Simd`]), or for the 16 rows of two
/// groups side by side (x86-64's 512-bit vectors). All methods are
/// `unsafe`: an implementation may only be called on a CPU with the
/// features it is compiled for.
pub trait Lanes {
    /// Quants, 4 of each row.
    type Bytes: Copy;
    /// An i32 sum per row.
    type Ints: Copy;
    /// An f32 value per row.
    type Floats: Copy;
    /// The f32 values of the rows, stored.
    type Out: Copy + AsRef<[f32]>;
    /// The blocks of the groups one vector spans, at one position along the
    /// rows.
    type Blocks<'a, F: Format>: Copy;

    /// The blocks at position `b` of the groups `w` (one run of blocks
    /// per group, as many as one vector spans).
    fn blocks<'a, F: Format>(w: &[&'a [F]], b: usize) -> Self::Blocks<'a, F>;
    /// [`Format::unpack`] for every group.
    unsafe fn unpack<F: Format>(
        w: Self::Blocks<'_, F>,
        sub: usize,
        k: usize,
    ) -> (Self::Bytes, Self::Bytes);
    /// [`Format::scales`] for every group.
    unsafe fn scales<F: Format>(w: Self::Blocks<'_, F>, sub: usize) -> Scales<Self::Floats>;
    /// As [`Simd::izero`].
    unsafe fn izero() -> Self::Ints;
    /// As [`Simd::dot`].
    unsafe fn dot(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints;
    /// As [`Simd::dot_signed`].
    unsafe fn dot_signed(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints;
    /// As [`Simd::SHORT_SUMS`].
    const SHORT_SUMS: bool = false;
    /// As [`Simd::dot_short`].
    unsafe fn dot_short(acc: Self::Ints, w: Self::Bytes, a: &[i8]) -> Self::Ints {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Self::dot(acc, w, a) }
    }
    /// As [`Simd::widen`].
    unsafe fn widen(acc: Self::Ints) -> Self::Ints {
        acc
    }
    /// As [`Simd::iadd`].
    unsafe fn iadd(a: Self::Ints, b: Self::Ints) -> Self::Ints;
    /// As [`Simd::isub`].
    unsafe fn isub(a: Self::Ints, b: i32) -> Self::Ints;
    /// As [`Simd::float`].
    unsafe fn float(a: Self::Ints) -> Self::Floats;
    /// As [`Simd::fzero`].
    unsafe fn fzero() -> Self::Floats;
    /// As [`Simd::scale`].
    unsafe fn scale(a: Self::Floats, s: f32) -> Self::Floats;
    /// As [`Simd::fmadd`].
    unsafe fn fmadd(a: Self::Floats, b: Self::Floats, c: Self::Floats) -> Self::Floats;
    /// As [`Simd::fmadd_scalar`].
    unsafe fn fmadd_scalar(a: Self::Floats, s: f32, c: Self::Floats) -> Self::Floats;
    /// The lanes.
    unsafe fn store(a: Self::Floats) -> Self::Out;
}

/// Every [`Simd`] multiplies one group of 8 rows at a time.
impl<S: Simd> Lanes for S {
    type Bytes = S::Bytes;
    type Ints = S::Ints;
    type Floats = S::Floats;
    type Out = [f32; 8];
    type Blocks<'a, F: Format> = &'a F;

    #[inline(always)]
    fn blocks<'a, F: Format>(w: &[&'a [F]], b: usize) -> &'a F {
        &w[0][b]
    }

    // SAFETY (all below): the caller vouches for the CPU.
    #[inline(always)]
    unsafe fn unpack<F: Format>(w: &F, sub: usize, k: usize) -> (S::Bytes, S::Bytes) {
        unsafe { w.unpack::<S>(sub, k) }
    }
    #[inline(always)]
    unsafe fn scales<F: Format>(w: &F, sub: usize) -> Scales<S::Floats> {
        unsafe { w.scales::<S>(sub) }
    }
    #[inline(always)]
    unsafe fn izero() -> S::Ints {
        unsafe { S::izero() }
    }
    #[inline(always)]
    unsafe fn dot(acc: S::Ints, w: S::Bytes, a: &[i8]) -> S::Ints {
        unsafe { S::dot(acc, w, a) }
    }
    #[inline(always)]
    unsafe fn dot_signed(acc: S::Ints, w: S::Bytes, a: &[i8]) -> S::Ints {
        unsafe { S::dot_signed(acc, w, a) }
    }
    const SHORT_SUMS: bool = S::SHORT_SUMS;
    #[inline(always)]
    unsafe fn dot_short(acc: S::Ints, w: S::Bytes, a: &[i8]) -> S::Ints {
        unsafe { S::dot_short(acc, w, a) }
    }
    #[inline(always)]
    unsafe fn widen(acc: S::Ints) -> S::Ints {
        unsafe { S::widen(acc) }
    }
    #[inline(always)]
    unsafe fn iadd(a: S::Ints, b: S::Ints) -> S::Ints {
        unsafe { S::iadd(a, b) }
    }
    #[inline(always)]
    unsafe fn isub(a: S::Ints, b: i32) -> S::Ints {
        unsafe { S::isub(a, b) }
    }
    #[inline(always)]
    unsafe fn float(a: S::Ints) -> S::Floats {
        unsafe { S::float(a) }
    }
    #[inline(always)]
    unsafe fn fzero() -> S::Floats {
        unsafe { S::fzero() }
    }
    #[inline(always)]
    unsafe fn scale(a: S::Floats, s: f32) -> S::Floats {
        unsafe { S::scale(a, s) }
    }
    #[inline(always)]
    unsafe fn fmadd(a: S::Floats, b: S::Floats, c: S::Floats) -> S::Floats {
        unsafe { S::fmadd(a, b, c) }
    }
    #[inline(always)]
    unsafe fn fmadd_scalar(a: S::Floats, s: f32, c: S::Floats) -> S::Floats {
        unsafe { S::fmadd_scalar(a, s, c) }
    }
    #[inline(always)]
    unsafe fn store(a: S::Floats) -> [f32; 8] {
        unsafe { S::store(a) }
    }
}

/// `R` activation rows times the rows of the groups `w` (one run of
/// blocks per group, as many as one vector spans, all as long).
///
/// # Safety
/// The CPU must have the features `S` is compiled for.
#[inline(always)]
pub unsafe fn tile<S: Lanes, F: Format, const R: usize>(
    w: &[&[F]],
    a: [&[BlockQ8]; R],
) -> [S::Out; R] {
    let len = w[0].len();
    let a = a.map(|a| &a[..len * F::SUBS]);
    // Each half block's 4 products summed in 16 bits, where they fit; 4-bit
    // quants with one scale for the block fit its 8 products in one sum
    // (16 products of at most 15 × 128).
    let short = S::SHORT_SUMS && !F::SIGNED && F::BITS <= 5;
    let one = short && !F::SPLIT && F::BITS <= 4;
    // SAFETY (all below): the caller vouches for the CPU.
    let mut acc = [unsafe { S::fzero() }; R];
    for g in 0..len {
        let group = S::blocks(w, g);
        for sub in 0..F::SUBS {
            let x: [&BlockQ8; R] = std::array::from_fn(|r| &a[r][g * F::SUBS + sub]);
            // One activation row's sums run as two chains (even and odd `k`),
            // so that a product need not wait for the one before it (VNNI adds
            // into its accumulator); several rows' chains overlap already.
            let chains = if R == 1 && !short { 2 } else { 1 };
            let mut low = [[unsafe { S::izero() }; R]; 2];
            let mut high = low;
            for k in 0..4 {
                let (wl, wh) = unsafe { S::unpack::<F>(group, sub, k) };
                let (low, high) = (&mut low[k % chains], &mut high[k % chains]);
                for r in 0..R {
                    let (al, ah) = (&x[r].qs[4 * k..], &x[r].qs[QK / 2 + 4 * k..]);
                    unsafe {
                        if F::SIGNED {
                            low[r] = S::dot_signed(low[r], wl, al);
                            high[r] = S::dot_signed(high[r], wh, ah);
                        } else if one {
                            low[r] = S::dot_short(S::dot_short(low[r], wl, al), wh, ah);
                        } else if short {
                            low[r] = S::dot_short(low[r], wl, al);
                            high[r] = S::dot_short(high[r], wh, ah);
                        } else {
                            low[r] = S::dot(low[r], wl, al);
                            high[r] = S::dot(high[r], wh, ah);
                        }
                    }
                }
            }
            if short {
                for r in 0..R {
                    unsafe {
                        low[0][r] = S::widen(low[0][r]);
                        high[0][r] = S::widen(high[0][r]);
                    }
                }
            }
            if chains == 2 {
                for r in 0..R {
                    unsafe {
                        low[0][r] = S::iadd(low[0][r], low[1][r]);
                        high[0][r] = S::iadd(high[0][r], high[1][r]);
                    }
                }
            }
            let (low, high) = (low[0], high[0]);
            let scales = unsafe { S::scales::<F>(group, sub) };
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
    /// [`Kernel::Avx512Vnni`] on 512-bit vectors: 16 weight rows (two
    /// groups) at a time.
    #[cfg(target_arch = "x86_64")]
    Avx512Wide,
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
                    kernels.push(Kernel::Avx512Wide);
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

    /// Groups of 8 weight rows the kernel multiplies at once with `rows`
    /// activation rows. The 512-bit kernel takes two only for a whole tile
    /// of rows (prefill): with weights read from memory, for a few rows
    /// (decode, a draft being checked) it measured up to 1.5× slower than
    /// the 256-bit one (`cargo bench --bench kernels`).
    pub fn groups(self, rows: usize) -> usize {
        let wide = match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Wide => true,
            _ => false,
        };
        if wide && rows >= self.tile_rows() {
            2
        } else {
            1
        }
    }

    /// Activation rows per tile when there are many (prefill): each
    /// unpacked weight vector is used this many times. The 512-bit kernel
    /// has the registers (32) for 8; the others spill beyond 4.
    pub fn tile_rows(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Wide => 8,
            _ => 4,
        }
    }

    /// [`tile`] with this kernel's instructions, for `w`: one run of
    /// blocks per group, [`Kernel::groups`] of them or fewer. Hands each
    /// activation row's products to `put(r, products)`, one per weight row
    /// from the first group's first row on.
    pub(super) fn tile<F: Format, const R: usize>(
        self,
        w: &[&[F]],
        a: [&[BlockQ8]; R],
        mut put: impl FnMut(usize, &[f32]),
    ) {
        fn hand<O: AsRef<[f32]>, const R: usize>(
            dots: [O; R],
            put: &mut impl FnMut(usize, &[f32]),
        ) {
            for (r, dots) in dots.iter().enumerate() {
                put(r, dots.as_ref());
            }
        }
        match self {
            // SAFETY: plain Rust runs everywhere.
            Kernel::Scalar => hand(
                unsafe { tile::<super::scalar::Scalar, F, R>(w, a) },
                &mut put,
            ),
            // SAFETY (all below): `available` lists a kernel only where the
            // CPU has the features it is compiled for.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => hand(unsafe { super::x86::tile_avx2(w, a) }, &mut put),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Vnni => hand(unsafe { super::x86::tile_vnni(w, a) }, &mut put),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Wide if w.len() == 2 => {
                hand(unsafe { super::x86::tile_wide(w, a) }, &mut put)
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512Wide => hand(unsafe { super::x86::tile_vnni(w, a) }, &mut put),
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => hand(unsafe { super::aarch64::tile_neon(w, a) }, &mut put),
            #[cfg(target_arch = "aarch64")]
            Kernel::NeonDotprod => hand(unsafe { super::aarch64::tile_dotprod(w, a) }, &mut put),
        }
    }
}

//! The packed layout of each GGML weight type.
//!
//! Every format holds the same stretch of 8 weight rows ([`Format::WEIGHTS`]
//! weights each: one GGML block) in one struct. Quants are kept as in GGML,
//! unsigned with a zero point or a minimum (Q8_0: signed), but regrouped per
//! block of 32 so that [`Format::unpack`] gives 4 quants of every row in 32
//! bytes:
//!
//! - the low 4 bits of quant `j` of row `c` go to byte `32 * (j % 16 / 4) +
//!   4 * c + j % 4` of the block's 128 nibble bytes, in the low nibble for
//!   `j < 16` and the high nibble above;
//! - a fifth bit (Q5 types) goes to a bit plane: one `u32` per 32 such
//!   bytes, bit `4 * c + j % 4` of word `2 * (j % 16 / 4) + j / 16`;
//! - Q6_K's fifth and sixth bits go, as a pair, to a byte laid out as the
//!   nibble bytes, four pairs to a byte ([`crumbs`]);
//! - Q8_0's bytes go whole to byte `32 * (j / 4) + 4 * c + j % 4`.
//!
//! Scales stay as in the file (f16, and the 6-bit or 8-bit sub-block scales
//! of the K types as bytes), so a packed matrix is the size of the file's,
//! give or take 3%.

use super::activations::QK;
use super::kernel::{Scales, Simd};
use candle_core::quantized::GgmlDType;

/// One GGML block of each of 8 weight rows, packed for the kernel.
pub trait Format: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The GGML type packed.
    const DTYPE: GgmlDType;
    /// Weights of one row in one group (one GGML block).
    const WEIGHTS: usize;
    /// Bytes those weights take in a GGUF file.
    const FILE_BYTES: usize;
    /// Blocks of [`QK`] weights in [`Format::WEIGHTS`].
    const SUBS: usize = Self::WEIGHTS / QK;
    /// The quant that stands for 0 (taken off the integer sums).
    const ZERO: i32 = 0;
    /// Whether the two halves of a block of 32 have scales of their own.
    const SPLIT: bool = false;
    /// Whether each block of 32 has a minimum (an offset) of its own.
    const MIN: bool = false;
    /// Whether the quants are signed bytes.
    const SIGNED: bool = false;
    /// Bits of a quant (unsigned below `2^BITS`; Q8_0: signed bytes).
    const BITS: u32;

    /// Packs one GGML block of each of 8 rows, given as their file bytes
    /// ([`Format::FILE_BYTES`] each).
    fn pack(rows: [&[u8]; 8]) -> Self;

    /// The quants of block `sub` at positions `4k..4k + 4` and `16 + 4k..`
    /// (`k < 4`) of every row.
    ///
    /// # Safety
    /// The CPU must have the features `S` is compiled for.
    unsafe fn unpack<S: Simd>(&self, sub: usize, k: usize) -> (S::Bytes, S::Bytes);

    /// The scales of block `sub` of every row.
    ///
    /// # Safety
    /// The CPU must have the features `S` is compiled for.
    unsafe fn scales<S: Simd>(&self, sub: usize) -> Scales<S::Floats>;
}

/// 32 quants of one row, unsigned (Q8_0: the signed bytes as `u8`).
type Quants = [u8; QK];

fn f16_bits(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

/// The low 4 bits of the quants of 8 rows, in the nibble layout.
fn nibbles(q: &[Quants; 8]) -> [u8; 4 * QK] {
    let mut out = [0u8; 4 * QK];
    for (c, q) in q.iter().enumerate() {
        for j in 0..QK / 2 {
            out[32 * (j / 4) + 4 * c + j % 4] = (q[j] & 0x0F) | (q[j + QK / 2] << 4);
        }
    }
    out
}

/// Bit `bit` of the quants of 8 rows, as a bit plane.
fn plane(q: &[Quants; 8], bit: u32) -> [u32; 8] {
    let mut out = [0u32; 8];
    for (c, q) in q.iter().enumerate() {
        for (j, &v) in q.iter().enumerate() {
            let set = u32::from(v) >> bit & 1;
            out[2 * (j % 16 / 4) + j / 16] |= set << (4 * c + j % 4);
        }
    }
    out
}

/// The whole bytes of the quants of 8 rows.
fn whole(q: &[Quants; 8]) -> [u8; 8 * QK] {
    let mut out = [0u8; 8 * QK];
    for (c, q) in q.iter().enumerate() {
        for (j, &v) in q.iter().enumerate() {
            out[32 * (j / 4) + 4 * c + j % 4] = v;
        }
    }
    out
}

/// The nibbles of positions `4k..` and `16 + 4k..` from a block's 128
/// nibble bytes.
#[inline(always)]
unsafe fn nibbles_at<S: Simd>(qs: &[u8], k: usize) -> (S::Bytes, S::Bytes) {
    // SAFETY (both): the caller vouches for the CPU.
    unsafe { S::nibbles(S::load(&qs[32 * k..])) }
}

/// `pair` with `value` added where the bit plane `plane` has its bits set.
#[inline(always)]
unsafe fn with_plane<S: Simd>(
    pair: (S::Bytes, S::Bytes),
    plane: &[u32],
    k: usize,
    value: u8,
) -> (S::Bytes, S::Bytes) {
    // SAFETY (all): the caller vouches for the CPU.
    unsafe {
        (
            S::or(pair.0, S::bits(plane[2 * k], value)),
            S::or(pair.1, S::bits(plane[2 * k + 1], value)),
        )
    }
}

/// The 4-bit quants of a Q4_0/Q4_1 block (`qs` its 16 bytes).
fn quants4(qs: &[u8]) -> Quants {
    std::array::from_fn(|j| {
        if j < 16 {
            qs[j] & 0x0F
        } else {
            qs[j - 16] >> 4
        }
    })
}

/// The 5-bit quants of a Q5_0/Q5_1 block (`qh` its 4 bytes of fifth bits,
/// `qs` its 16 bytes of nibbles).
fn quants5(qh: &[u8], qs: &[u8]) -> Quants {
    let high = u32::from_le_bytes([qh[0], qh[1], qh[2], qh[3]]);
    let low = quants4(qs);
    std::array::from_fn(|j| low[j] | (((high >> j) & 1) as u8) << 4)
}

/// Q4_0: `d * (q - 8)`, 18 bytes a block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q4_0x8 {
    d: [u16; 8],
    qs: [u8; 4 * QK],
}

impl Format for Q4_0x8 {
    const BITS: u32 = 4;
    const DTYPE: GgmlDType = GgmlDType::Q4_0;
    const WEIGHTS: usize = QK;
    const FILE_BYTES: usize = 18;
    const ZERO: i32 = 8;

    fn pack(rows: [&[u8]; 8]) -> Self {
        Q4_0x8 {
            d: rows.map(|r| f16_bits(r, 0)),
            qs: nibbles(&rows.map(|r| quants4(&r[2..18]))),
        }
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, _: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY: the caller vouches for the CPU.
        unsafe { nibbles_at::<S>(&self.qs, k) }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, _: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Scales::of_halves::<S>(&self.d, None) }
    }
}

/// Q4_1: `d * q + m`, 20 bytes a block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q4_1x8 {
    d: [u16; 8],
    m: [u16; 8],
    qs: [u8; 4 * QK],
}

impl Format for Q4_1x8 {
    const BITS: u32 = 4;
    const DTYPE: GgmlDType = GgmlDType::Q4_1;
    const WEIGHTS: usize = QK;
    const FILE_BYTES: usize = 20;
    const MIN: bool = true;

    fn pack(rows: [&[u8]; 8]) -> Self {
        Q4_1x8 {
            d: rows.map(|r| f16_bits(r, 0)),
            m: rows.map(|r| f16_bits(r, 2)),
            qs: nibbles(&rows.map(|r| quants4(&r[4..20]))),
        }
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, _: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY: the caller vouches for the CPU.
        unsafe { nibbles_at::<S>(&self.qs, k) }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, _: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Scales::of_halves::<S>(&self.d, Some(&self.m)) }
    }
}

/// Q5_0: `d * (q - 16)`, 22 bytes a block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q5_0x8 {
    d: [u16; 8],
    qh: [u32; 8],
    qs: [u8; 4 * QK],
}

impl Format for Q5_0x8 {
    const BITS: u32 = 5;
    const DTYPE: GgmlDType = GgmlDType::Q5_0;
    const WEIGHTS: usize = QK;
    const FILE_BYTES: usize = 22;
    const ZERO: i32 = 16;

    fn pack(rows: [&[u8]; 8]) -> Self {
        let q = rows.map(|r| quants5(&r[2..6], &r[6..22]));
        Q5_0x8 {
            d: rows.map(|r| f16_bits(r, 0)),
            qh: plane(&q, 4),
            qs: nibbles(&q),
        }
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, _: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY: the caller vouches for the CPU.
        unsafe { with_plane::<S>(nibbles_at::<S>(&self.qs, k), &self.qh, k, 0x10) }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, _: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Scales::of_halves::<S>(&self.d, None) }
    }
}

/// Q5_1: `d * q + m`, 24 bytes a block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q5_1x8 {
    d: [u16; 8],
    m: [u16; 8],
    qh: [u32; 8],
    qs: [u8; 4 * QK],
}

impl Format for Q5_1x8 {
    const BITS: u32 = 5;
    const DTYPE: GgmlDType = GgmlDType::Q5_1;
    const WEIGHTS: usize = QK;
    const FILE_BYTES: usize = 24;
    const MIN: bool = true;

    fn pack(rows: [&[u8]; 8]) -> Self {
        let q = rows.map(|r| quants5(&r[4..8], &r[8..24]));
        Q5_1x8 {
            d: rows.map(|r| f16_bits(r, 0)),
            m: rows.map(|r| f16_bits(r, 2)),
            qh: plane(&q, 4),
            qs: nibbles(&q),
        }
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, _: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY: the caller vouches for the CPU.
        unsafe { with_plane::<S>(nibbles_at::<S>(&self.qs, k), &self.qh, k, 0x10) }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, _: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Scales::of_halves::<S>(&self.d, Some(&self.m)) }
    }
}

/// Q8_0: `d * q` with signed `q`, 34 bytes a block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q8_0x8 {
    d: [u16; 8],
    qs: [u8; 8 * QK],
}

impl Format for Q8_0x8 {
    const BITS: u32 = 8;
    const DTYPE: GgmlDType = GgmlDType::Q8_0;
    const WEIGHTS: usize = QK;
    const FILE_BYTES: usize = 34;
    const SIGNED: bool = true;

    fn pack(rows: [&[u8]; 8]) -> Self {
        Q8_0x8 {
            d: rows.map(|r| f16_bits(r, 0)),
            qs: whole(&rows.map(|r| std::array::from_fn(|j| r[2 + j]))),
        }
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, _: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY (both): the caller vouches for the CPU.
        unsafe {
            (
                S::load(&self.qs[32 * k..]),
                S::load(&self.qs[32 * (k + 4)..]),
            )
        }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, _: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { Scales::of_halves::<S>(&self.d, None) }
    }
}

/// Weights in a K-type super-block.
const QK_K: usize = 256;

/// The 6-bit scale and minimum of sub-block `j` of a Q4_K/Q5_K super-block
/// from its 12 packed scale bytes `s`.
fn k_scale_min(s: &[u8], j: usize) -> (u8, u8) {
    if j < 4 {
        (s[j] & 63, s[j + 4] & 63)
    } else {
        (
            (s[j + 4] & 0x0F) | ((s[j - 4] >> 6) << 4),
            (s[j + 4] >> 4) | ((s[j] >> 6) << 4),
        )
    }
}

/// The 4-bit quants of sub-block `j` of a Q4_K/Q5_K super-block (`qs` its
/// 128 bytes of nibbles: each 32 bytes hold two sub-blocks, low nibbles
/// first).
fn k_quants4(qs: &[u8], j: usize) -> Quants {
    let bytes = &qs[32 * (j / 2)..32 * (j / 2) + 32];
    std::array::from_fn(|l| {
        if j.is_multiple_of(2) {
            bytes[l] & 0x0F
        } else {
            bytes[l] >> 4
        }
    })
}

/// The f16 bits of `x` with the sign flipped.
fn negated(bits: u16) -> u16 {
    bits ^ 0x8000
}

/// The scales and minimums of one Q4_K/Q5_K super-block of each of 8 rows:
/// blocks of `d * sc * q - dmin * m` with 6-bit `sc` and `m`.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct KScales {
    d: [u16; 8],
    /// `-dmin`, so that the minimum is added.
    neg_dmin: [u16; 8],
    sc: [[u8; 8]; 8],
    m: [[u8; 8]; 8],
}

impl KScales {
    /// From the first 16 bytes of each row's super-block: `d`, `dmin` and
    /// the 12 bytes of packed 6-bit scales and minimums.
    fn pack(rows: &[&[u8]; 8]) -> Self {
        let mut scales = KScales {
            d: rows.map(|r| f16_bits(r, 0)),
            neg_dmin: rows.map(|r| negated(f16_bits(r, 2))),
            sc: [[0; 8]; 8],
            m: [[0; 8]; 8],
        };
        for j in 0..8 {
            for (c, r) in rows.iter().enumerate() {
                (scales.sc[j][c], scales.m[j][c]) = k_scale_min(&r[4..16], j);
            }
        }
        scales
    }

    /// The scales of block `sub` of every row.
    ///
    /// # Safety
    /// The CPU must have the features `S` is compiled for.
    #[inline(always)]
    unsafe fn of<S: Simd>(&self, sub: usize) -> Scales<S::Floats> {
        // SAFETY (all): the caller vouches for the CPU.
        unsafe {
            let d = S::mul(S::halves(&self.d), S::unsigned(&self.sc[sub]));
            let min = S::mul(S::halves(&self.neg_dmin), S::unsigned(&self.m[sub]));
            Scales {
                low: d,
                high: d,
                min,
            }
        }
    }
}

/// Q4_K: super-blocks of 256 as 8 blocks with [`KScales`] and 4-bit
/// quants; 144 bytes a super-block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q4Kx8 {
    scales: KScales,
    qs: [u8; 32 * QK],
}

impl Format for Q4Kx8 {
    const BITS: u32 = 4;
    const DTYPE: GgmlDType = GgmlDType::Q4K;
    const WEIGHTS: usize = QK_K;
    const FILE_BYTES: usize = 144;
    const MIN: bool = true;

    fn pack(rows: [&[u8]; 8]) -> Self {
        let mut packed = Q4Kx8 {
            scales: KScales::pack(&rows),
            qs: [0; 32 * QK],
        };
        for j in 0..8 {
            let q = rows.map(|r| k_quants4(&r[16..144], j));
            packed.qs[128 * j..128 * (j + 1)].copy_from_slice(&nibbles(&q));
        }
        packed
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, sub: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY: the caller vouches for the CPU.
        unsafe { nibbles_at::<S>(&self.qs[128 * sub..], k) }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, sub: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { self.scales.of::<S>(sub) }
    }
}

/// Q5_K: Q4_K with a fifth bit; 176 bytes a super-block.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q5Kx8 {
    scales: KScales,
    qh: [[u32; 8]; 8],
    qs: [u8; 32 * QK],
}

impl Format for Q5Kx8 {
    const BITS: u32 = 5;
    const DTYPE: GgmlDType = GgmlDType::Q5K;
    const WEIGHTS: usize = QK_K;
    const FILE_BYTES: usize = 176;
    const MIN: bool = true;

    fn pack(rows: [&[u8]; 8]) -> Self {
        let mut packed = Q5Kx8 {
            scales: KScales::pack(&rows),
            qh: [[0; 8]; 8],
            qs: [0; 32 * QK],
        };
        for j in 0..8 {
            let q = rows.map(|r| {
                let low = k_quants4(&r[48..176], j);
                let qh = &r[16..48];
                std::array::from_fn(|l| low[l] | ((qh[l] >> j) & 1) << 4)
            });
            packed.qh[j] = plane(&q, 4);
            packed.qs[128 * j..128 * (j + 1)].copy_from_slice(&nibbles(&q));
        }
        packed
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, sub: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY: the caller vouches for the CPU.
        unsafe {
            let low = nibbles_at::<S>(&self.qs[128 * sub..], k);
            with_plane::<S>(low, &self.qh[sub], k, 0x10)
        }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, sub: usize) -> Scales<S::Floats> {
        // SAFETY: the caller vouches for the CPU.
        unsafe { self.scales.of::<S>(sub) }
    }
}

/// Q6_K: super-blocks of 256 as 16 blocks of `d * sc * (q - 32)`, with
/// 6-bit `q` and 8-bit signed `sc`; 210 bytes a super-block.
///
/// Each block of 32 is 64 bytes of [`crumbs`] (the quants' two high bits,
/// four to a byte) and then its 128 nibble bytes, so that a block's quants
/// are read in one run: with the high bits in planes of their own, apart
/// from the nibbles, one activation row was read from memory at two thirds
/// the speed (`cargo bench --bench kernels`).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct Q6Kx8 {
    blocks: [[u8; 6 * QK]; 8],
    sc: [[i8; 8]; 16],
    d: [u16; 8],
}

impl Format for Q6Kx8 {
    const BITS: u32 = 6;
    const DTYPE: GgmlDType = GgmlDType::Q6K;
    const WEIGHTS: usize = QK_K;
    const FILE_BYTES: usize = 210;
    const ZERO: i32 = 32;
    const SPLIT: bool = true;

    fn pack(rows: [&[u8]; 8]) -> Self {
        let mut packed = Q6Kx8 {
            d: rows.map(|r| f16_bits(r, 208)),
            sc: [[0; 8]; 16],
            blocks: [[0; 6 * QK]; 8],
        };
        for (c, r) in rows.iter().enumerate() {
            for (s, &scale) in r[192..208].iter().enumerate() {
                packed.sc[s][c] = scale as i8;
            }
        }
        for j in 0..8 {
            let q = rows.map(|r| std::array::from_fn(|l| q6_quant(r, QK * j + l)));
            let (high, low) = packed.blocks[j].split_at_mut(2 * QK);
            high.copy_from_slice(&crumbs(&q));
            low.copy_from_slice(&nibbles(&q));
        }
        packed
    }

    #[inline(always)]
    unsafe fn unpack<S: Simd>(&self, sub: usize, k: usize) -> (S::Bytes, S::Bytes) {
        // SAFETY (all): the caller vouches for the CPU.
        unsafe {
            let block = &self.blocks[sub];
            let (low, high) = nibbles_at::<S>(&block[2 * QK..], k);
            let h = S::load(&block[32 * (k / 2)..]);
            if k.is_multiple_of(2) {
                (
                    S::or(low, S::crumbs::<0>(h)),
                    S::or(high, S::crumbs::<2>(h)),
                )
            } else {
                (
                    S::or(low, S::crumbs::<4>(h)),
                    S::or(high, S::crumbs::<6>(h)),
                )
            }
        }
    }

    #[inline(always)]
    unsafe fn scales<S: Simd>(&self, sub: usize) -> Scales<S::Floats> {
        // SAFETY (all): the caller vouches for the CPU.
        unsafe {
            let d = S::halves(&self.d);
            Scales {
                low: S::mul(d, S::signed(&self.sc[2 * sub])),
                high: S::mul(d, S::signed(&self.sc[2 * sub + 1])),
                min: S::fzero(),
            }
        }
    }
}

/// Bits 4 and 5 of the quants of 8 rows, four to a byte: the byte that
/// holds the nibbles of quants `j` and `16 + j` (`j < 16`) in [`nibbles`]
/// holds, at bit `4 * (j / 4 % 2)`, the high bits of quant `j`, then those
/// of quant `16 + j`; two such runs of 32 bytes cover a block.
fn crumbs(q: &[Quants; 8]) -> [u8; 2 * QK] {
    let mut out = [0u8; 2 * QK];
    for (c, q) in q.iter().enumerate() {
        for j in 0..QK / 2 {
            let k = j / 4;
            let pair = (q[j] >> 4 & 3) | (q[j + QK / 2] >> 4 & 3) << 2;
            out[32 * (k / 2) + 4 * c + j % 4] |= pair << (4 * (k % 2));
        }
    }
    out
}

/// Quant `i` (0..256, unsigned, 0..64) of a Q6_K super-block `r`: 128 bytes
/// of low nibbles, then 64 of 2-bit high parts, each half of the block
/// (128 quants) using 64 and 32 of them in four runs of 32.
fn q6_quant(r: &[u8], i: usize) -> u8 {
    let (half, run, l) = (i / 128, i % 128 / 32, i % 32);
    let ql = r[64 * half + l + 32 * (run % 2)];
    let low = if run < 2 { ql & 0x0F } else { ql >> 4 };
    let high = (r[128 + 32 * half + l] >> (2 * run)) & 3;
    low | high << 4
}

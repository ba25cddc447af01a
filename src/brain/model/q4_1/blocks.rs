//! The two block formats and their scalar reference arithmetic.
//!
//! Both follow GGML. A Q4_1 block holds 32 weights as `d * q + m` with 4-bit
//! `q`: `q[j]` is the low nibble of `qs[j]` for `j < 16` and the high nibble
//! of `qs[j - 16]` above. A Q8_1 block holds 32 activations as `d * q` with
//! 8-bit `q`, plus `s = d * sum(q)`, so that the dot product of a Q4_1 and a
//! Q8_1 block is `d4 * d8 * sum(q4 * q8) + m4 * s8`.

use half::f16;

/// Values per block, in both formats.
pub const QK: usize = 32;

/// Bytes of a Q4_1 block in a GGUF file: `d`, `m` (f16) and 16 bytes of nibbles.
pub const Q4_1_BYTES: usize = 20;

/// 32 weights, stored as in GGUF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct BlockQ4_1 {
    /// Scale, f16 bits.
    pub d: u16,
    /// Minimum (offset), f16 bits.
    pub m: u16,
    /// Two 4-bit quants per byte.
    pub qs: [u8; QK / 2],
}

const _: () = assert!(std::mem::size_of::<BlockQ4_1>() == Q4_1_BYTES);

impl BlockQ4_1 {
    /// Reads one block from its 20 little-endian bytes.
    pub fn from_bytes(bytes: &[u8; Q4_1_BYTES]) -> Self {
        let mut qs = [0u8; QK / 2];
        qs.copy_from_slice(&bytes[4..]);
        BlockQ4_1 {
            d: u16::from_le_bytes([bytes[0], bytes[1]]),
            m: u16::from_le_bytes([bytes[2], bytes[3]]),
            qs,
        }
    }

    /// The scale and minimum as f32.
    pub fn scales(&self) -> (f32, f32) {
        (
            f16::from_bits(self.d).to_f32(),
            f16::from_bits(self.m).to_f32(),
        )
    }

    /// The 4-bit quant `j` (0..32).
    pub fn quant(&self, j: usize) -> u8 {
        if j < QK / 2 {
            self.qs[j] & 0x0F
        } else {
            self.qs[j - QK / 2] >> 4
        }
    }
}

/// 32 activations. `d` and `s` hold exactly GGML's f16 values, widened to
/// f32 so the kernels need no conversion.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct BlockQ8_1 {
    /// Scale: `max|x| / 127`, rounded to f16.
    pub d: f32,
    /// `d * sum(qs)` (with `d` before rounding), rounded to f16.
    pub s: f32,
    /// Signed 8-bit quants.
    pub qs: [i8; QK],
}

impl BlockQ8_1 {
    /// Quantizes 32 values as GGML's `quantize_row_q8_1_ref` does, with
    /// SIMD where the CPU has it (bit for bit the same result).
    pub fn quantize(xs: &[f32; QK]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if super::x86::has_avx2() {
            // SAFETY: the CPU has the features the function is compiled for.
            return unsafe { super::x86::quantize(xs) };
        }
        Self::quantize_scalar(xs)
    }

    /// [`BlockQ8_1::quantize`] in plain Rust.
    pub fn quantize_scalar(xs: &[f32; QK]) -> Self {
        let amax = xs.iter().fold(0f32, |a, x| a.max(x.abs()));
        let id = Self::inverse_scale(amax);
        let mut qs = [0i8; QK];
        for (q, x) in qs.iter_mut().zip(xs) {
            *q = (x * id).round() as i8;
        }
        let sum: i32 = qs.iter().map(|&q| q as i32).sum();
        Self::from_quants(amax, qs, sum)
    }

    /// `1 / d` for the largest magnitude `amax` (0 for an all-zero block).
    pub fn inverse_scale(amax: f32) -> f32 {
        let d = amax / 127.0;
        if d != 0.0 {
            1.0 / d
        } else {
            0.0
        }
    }

    /// The block of quants `qs` (summing to `sum`) of values whose largest
    /// magnitude is `amax`.
    pub fn from_quants(amax: f32, qs: [i8; QK], sum: i32) -> Self {
        let d = amax / 127.0;
        BlockQ8_1 {
            d: round_to_f16(d),
            s: round_to_f16(sum as f32 * d),
            qs,
        }
    }
}

fn round_to_f16(x: f32) -> f32 {
    f16::from_f32(x).to_f32()
}

/// The same block of 8 consecutive weight rows, interleaved so that one
/// 32-byte load holds 4 quant bytes of each row: `qs[32 * k + 4 * c + i]` is
/// byte `4 * k + i` of row `c`'s `qs` (so its low nibbles are quants
/// `4k..4k + 4` and its high nibbles quants `16 + 4k..16 + 4k + 4`). Rows
/// past the end of a matrix are zero blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Q4_1x8 {
    /// Scales of the 8 rows, f16 bits.
    pub d: [u16; 8],
    /// Minimums of the 8 rows, f16 bits.
    pub m: [u16; 8],
    /// Interleaved quant bytes.
    pub qs: [u8; 8 * QK / 2],
}

const _: () = assert!(std::mem::size_of::<Q4_1x8>() == 8 * Q4_1_BYTES);

impl Q4_1x8 {
    /// Interleaves one block of each of 8 rows.
    pub fn new(rows: &[BlockQ4_1; 8]) -> Self {
        let mut group = Q4_1x8 {
            d: rows.map(|b| b.d),
            m: rows.map(|b| b.m),
            qs: [0; 8 * QK / 2],
        };
        for (c, row) in rows.iter().enumerate() {
            for (j, &byte) in row.qs.iter().enumerate() {
                group.qs[32 * (j / 4) + 4 * c + j % 4] = byte;
            }
        }
        group
    }

    /// The block of row `c` (0..8).
    pub fn row(&self, c: usize) -> BlockQ4_1 {
        let mut qs = [0u8; QK / 2];
        for (j, byte) in qs.iter_mut().enumerate() {
            *byte = self.qs[32 * (j / 4) + 4 * c + j % 4];
        }
        BlockQ4_1 {
            d: self.d[c],
            m: self.m[c],
            qs,
        }
    }
}

/// Dot product of a row of weight blocks with a row of activation blocks of
/// the same length, block by block in plain Rust: the reference the kernels
/// are tested against.
#[cfg(test)]
pub fn dot(w: &[BlockQ4_1], a: &[BlockQ8_1]) -> f32 {
    w.iter()
        .zip(a)
        .map(|(w, a)| {
            let sum: i32 = (0..QK).map(|j| w.quant(j) as i32 * a.qs[j] as i32).sum();
            let (d, m) = w.scales();
            sum as f32 * d * a.d + m * a.s
        })
        .sum()
}

/// The scalar kernel, in the shape of the SIMD ones: `R` activation rows
/// times the 8 weight rows of `w`.
pub fn tile<const R: usize>(w: &[Q4_1x8], a: [&[BlockQ8_1]; R]) -> [[f32; 8]; R] {
    let mut out = [[0f32; 8]; R];
    for (b, group) in w.iter().enumerate() {
        for (out, a) in out.iter_mut().zip(a) {
            let a = &a[b];
            for (c, o) in out.iter_mut().enumerate() {
                let mut sum = 0i32;
                for j in 0..QK / 2 {
                    let byte = group.qs[32 * (j / 4) + 4 * c + j % 4];
                    sum += (byte & 0x0F) as i32 * a.qs[j] as i32
                        + (byte >> 4) as i32 * a.qs[j + QK / 2] as i32;
                }
                let d = f16::from_bits(group.d[c]).to_f32();
                let m = f16::from_bits(group.m[c]).to_f32();
                *o += sum as f32 * d * a.d + m * a.s;
            }
        }
    }
    out
}

//! The kernel's vector operations in plain Rust: the reference the SIMD
//! ones are tested against, and the kernel on any other CPU.

use super::kernel::Simd;
use half::f16;

/// Plain arrays, one element a lane.
pub struct Scalar;

impl Simd for Scalar {
    type Bytes = [u8; 32];
    type Ints = [i32; 8];
    type Floats = [f32; 8];

    unsafe fn load(bytes: &[u8]) -> [u8; 32] {
        std::array::from_fn(|i| bytes[i])
    }

    unsafe fn nibbles(raw: [u8; 32]) -> ([u8; 32], [u8; 32]) {
        (raw.map(|b| b & 0x0F), raw.map(|b| b >> 4))
    }

    unsafe fn bits(mask: u32, value: u8) -> [u8; 32] {
        std::array::from_fn(|i| if mask >> i & 1 == 1 { value } else { 0 })
    }

    unsafe fn or(a: [u8; 32], b: [u8; 32]) -> [u8; 32] {
        std::array::from_fn(|i| a[i] | b[i])
    }

    unsafe fn crumbs<const AT: u32>(raw: [u8; 32]) -> [u8; 32] {
        raw.map(|b| (b >> AT & 3) << 4)
    }

    unsafe fn izero() -> [i32; 8] {
        [0; 8]
    }

    unsafe fn dot(acc: [i32; 8], w: [u8; 32], a: &[i8]) -> [i32; 8] {
        std::array::from_fn(|c| {
            acc[c]
                + (0..4)
                    .map(|i| w[4 * c + i] as i32 * a[i] as i32)
                    .sum::<i32>()
        })
    }

    unsafe fn dot_signed(acc: [i32; 8], w: [u8; 32], a: &[i8]) -> [i32; 8] {
        std::array::from_fn(|c| {
            acc[c]
                + (0..4)
                    .map(|i| w[4 * c + i] as i8 as i32 * a[i] as i32)
                    .sum::<i32>()
        })
    }

    unsafe fn iadd(a: [i32; 8], b: [i32; 8]) -> [i32; 8] {
        std::array::from_fn(|i| a[i] + b[i])
    }

    unsafe fn isub(a: [i32; 8], b: i32) -> [i32; 8] {
        a.map(|a| a - b)
    }

    unsafe fn float(a: [i32; 8]) -> [f32; 8] {
        a.map(|a| a as f32)
    }

    unsafe fn fzero() -> [f32; 8] {
        [0.0; 8]
    }

    unsafe fn halves(h: &[u16]) -> [f32; 8] {
        std::array::from_fn(|i| f16::from_bits(h[i]).to_f32())
    }

    unsafe fn unsigned(b: &[u8]) -> [f32; 8] {
        std::array::from_fn(|i| b[i] as f32)
    }

    unsafe fn signed(b: &[i8]) -> [f32; 8] {
        std::array::from_fn(|i| b[i] as f32)
    }

    unsafe fn mul(a: [f32; 8], b: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|i| a[i] * b[i])
    }

    unsafe fn scale(a: [f32; 8], s: f32) -> [f32; 8] {
        a.map(|a| a * s)
    }

    unsafe fn fmadd(a: [f32; 8], b: [f32; 8], c: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|i| a[i] * b[i] + c[i])
    }

    unsafe fn fmadd_scalar(a: [f32; 8], s: f32, c: [f32; 8]) -> [f32; 8] {
        std::array::from_fn(|i| a[i] * s + c[i])
    }

    unsafe fn store(a: [f32; 8]) -> [f32; 8] {
        a
    }
}

//! The f32 vector arithmetic of attention: dot products and weighted sums,
//! each in one fixed order of operations, so that a result is bit for bit
//! the same on every code path, vectorised or not, and whatever else is
//! computed beside it.
//!
//! A dot product keeps eight running sums (lane `k` adds the products of
//! elements `k`, `k + 8`, …), adds them as `((s0 + s4) + (s1 + s5)) + ((s2 +
//! s6) + (s3 + s7))`, then adds the products of the elements past the last
//! multiple of eight one by one. Multiplications and additions are never
//! fused. On x86-64 with AVX the eight sums are one register, and
//! [`dots4`] keeps four keys' sums apart so that they do not wait on each
//! other; elsewhere the same order is written out in plain Rust.

/// `a · b` (`b` at least as long as `a`).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    dots::<1>(a, [b])[0]
}

/// `a · b` for four `b`s at once, each as [`dot`] gives it.
#[inline]
pub fn dots4(a: &[f32], b: [&[f32]; 4]) -> [f32; 4] {
    dots::<4>(a, b)
}

/// `out += p * v`, element by element (`v` at least as long as `out`).
#[inline]
pub fn add_scaled(out: &mut [f32], p: f32, v: &[f32]) {
    add_scaled_many::<1>(out, [p], [v]);
}

/// `out += p[0] * v[0]`, then `+= p[1] * v[1]`, and so on, each element
/// summed in that order, as four calls of [`add_scaled`] would, in one
/// pass over `out`.
#[inline]
pub fn add_scaled4(out: &mut [f32], p: [f32; 4], v: [&[f32]; 4]) {
    add_scaled_many::<4>(out, p, v);
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
#[inline]
fn dots<const N: usize>(a: &[f32], b: [&[f32]; N]) -> [f32; N] {
    use std::arch::x86_64::*;
    let whole = a.len() / 8 * 8;
    let b: [&[f32]; N] = std::array::from_fn(|n| &b[n][..a.len()]);
    // SAFETY: AVX is enabled at compile time (the cfg above), and every
    // load reads 8 floats at an offset below `whole`, within `a` and each
    // `b[n]` (as long as `a`).
    unsafe {
        let mut acc = [_mm256_setzero_ps(); N];
        for c in (0..whole).step_by(8) {
            let x = _mm256_loadu_ps(a.as_ptr().add(c));
            for n in 0..N {
                let y = _mm256_loadu_ps(b[n].as_ptr().add(c));
                acc[n] = _mm256_add_ps(acc[n], _mm256_mul_ps(x, y));
            }
        }
        std::array::from_fn(|n| {
            let pairs = _mm_add_ps(
                _mm256_castps256_ps128(acc[n]),
                _mm256_extractf128_ps(acc[n], 1),
            );
            let mut s = [0f32; 4];
            _mm_storeu_ps(s.as_mut_ptr(), pairs);
            tail((s[0] + s[1]) + (s[2] + s[3]), &a[whole..], &b[n][whole..])
        })
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
#[inline]
fn dots<const N: usize>(a: &[f32], b: [&[f32]; N]) -> [f32; N] {
    std::array::from_fn(|n| scalar_dot(a, b[n]))
}

/// [`dot`] written out, lane by lane: the order every path follows.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "avx"), allow(dead_code))]
fn scalar_dot(a: &[f32], b: &[f32]) -> f32 {
    let whole = a.len() / 8 * 8;
    let b = &b[..a.len()];
    let mut acc = [0f32; 8];
    for (x, y) in a[..whole].chunks_exact(8).zip(b[..whole].chunks_exact(8)) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let sum = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    tail(sum, &a[whole..], &b[whole..])
}

/// `sum` plus the products of the elements past the last whole eight.
#[inline]
fn tail(mut sum: f32, a: &[f32], b: &[f32]) -> f32 {
    for (x, y) in a.iter().zip(b) {
        sum += x * y;
    }
    sum
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
#[inline]
fn add_scaled_many<const N: usize>(out: &mut [f32], p: [f32; N], v: [&[f32]; N]) {
    use std::arch::x86_64::*;
    let len = out.len();
    let whole = len / 8 * 8;
    let v: [&[f32]; N] = std::array::from_fn(|n| &v[n][..len]);
    // SAFETY: AVX is enabled at compile time (the cfg above), and every
    // load and store touches 8 floats at an offset below `whole`, within
    // `out` and each `v[n]` (as long as `out`).
    unsafe {
        let weights: [__m256; N] = std::array::from_fn(|n| _mm256_set1_ps(p[n]));
        for c in (0..whole).step_by(8) {
            let mut sum = _mm256_loadu_ps(out.as_ptr().add(c));
            for n in 0..N {
                let x = _mm256_loadu_ps(v[n].as_ptr().add(c));
                sum = _mm256_add_ps(sum, _mm256_mul_ps(weights[n], x));
            }
            _mm256_storeu_ps(out.as_mut_ptr().add(c), sum);
        }
    }
    for c in whole..len {
        for n in 0..N {
            out[c] += p[n] * v[n][c];
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
#[inline]
fn add_scaled_many<const N: usize>(out: &mut [f32], p: [f32; N], v: [&[f32]; N]) {
    let v: [&[f32]; N] = std::array::from_fn(|n| &v[n][..out.len()]);
    for (c, o) in out.iter_mut().enumerate() {
        let mut sum = *o;
        for n in 0..N {
            sum += p[n] * v[n][c];
        }
        *o = sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave(len: usize, seed: f32) -> Vec<f32> {
        (0..len)
            .map(|i| ((i as f32 + 1.0) * seed).sin() * (1.0 + i as f32 * 0.37))
            .collect()
    }

    #[test]
    fn every_path_sums_in_the_same_order() {
        for len in [0, 1, 7, 8, 9, 37, 64, 128, 131] {
            let a = wave(len, 0.31);
            let keys = [
                wave(len, 1.7),
                wave(len, 2.9),
                wave(len, 0.05),
                wave(len, 7.3),
            ];
            let four = dots4(&a, [&keys[0], &keys[1], &keys[2], &keys[3]]);
            for (n, key) in keys.iter().enumerate() {
                let alone = dot(&a, key);
                assert_eq!(alone.to_bits(), scalar_dot(&a, key).to_bits(), "len {len}");
                assert_eq!(four[n].to_bits(), alone.to_bits(), "len {len}, key {n}");
            }
        }
        let a: Vec<f32> = (0..11).map(|x| x as f32).collect();
        assert_eq!(dot(&a, &[1f32; 11]), 55.0);
    }

    #[test]
    fn weighted_sums_at_once_are_the_sums_one_by_one() {
        for len in [1, 8, 13, 64, 128] {
            let v = [
                wave(len, 0.7),
                wave(len, 1.3),
                wave(len, 4.1),
                wave(len, 0.2),
            ];
            let p = [0.31, -1.7, 0.0007, 12.5];
            let mut at_once = wave(len, 0.9);
            let mut one_by_one = at_once.clone();
            let mut written_out = at_once.clone();
            add_scaled4(&mut at_once, p, [&v[0], &v[1], &v[2], &v[3]]);
            for n in 0..4 {
                add_scaled(&mut one_by_one, p[n], &v[n]);
                for (o, x) in written_out.iter_mut().zip(&v[n]) {
                    *o += p[n] * x;
                }
            }
            assert_eq!(at_once, one_by_one, "len {len}");
            assert_eq!(at_once, written_out, "len {len}");
        }
    }
}

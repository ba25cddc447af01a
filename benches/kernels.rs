//! loopd's quantized matrix products alone: each kernel this CPU runs, on
//! the shapes of Qwen2.5-1.5B's feed-forward (8960 × 1536), for 1 to 64
//! activation rows. Prints the time per product, the weight bytes read per
//! second, and what each extra row costs against one: decode is one row,
//! checking a draft of k tokens is k + 1, prefill is many. Weights come
//! from memory, as in a model: the product runs over [`COPIES`] copies of
//! the matrix, more bytes than the caches hold (`COPIES=1` in the
//! environment: from the caches instead).
//!
//! `cargo bench --bench kernels`

use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use loopd::brain::model::quant::{matmul, Kernel, Q8Rows, QMatrix};
use std::time::Instant;

const ROWS: [usize; 8] = [1, 2, 3, 4, 5, 6, 8, 64];
const REPEAT: usize = 10;
const COPIES: usize = 16;

/// Pseudo-random values in -1..1 (a fixed LCG: no dependency, same every run).
fn values(len: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

fn main() {
    let (n, k) = (8960, 1536);
    for dtype in [GgmlDType::Q4K, GgmlDType::Q6K] {
        let w = Tensor::from_vec(values(n * k, 1), (n, k), &Device::Cpu).unwrap();
        let q = QTensor::quantize(&w, dtype).unwrap();
        let bytes = q.storage_size_in_bytes() as f64;
        let w = QMatrix::from_qtensor(&q).unwrap();
        let copies = std::env::var("COPIES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(COPIES);
        let copies: Vec<QMatrix> = vec![w; copies];
        let bytes = bytes * copies.len() as f64;
        let inputs: Vec<Q8Rows> = ROWS
            .iter()
            .map(|&m| Q8Rows::quantize(&values(m * k, 2), k).unwrap())
            .collect();
        for &kernel in Kernel::available() {
            let all = |x: &Q8Rows| {
                let started = Instant::now();
                for w in &copies {
                    matmul(kernel, &[w], x).unwrap();
                }
                started.elapsed().as_secs_f64()
            };
            // Rounds over every row count in turn, so that the machine's
            // ups and downs reach all of them alike; the best of each.
            let mut best = [f64::INFINITY; ROWS.len()];
            for _ in 0..REPEAT {
                for (b, x) in best.iter_mut().zip(&inputs) {
                    *b = b.min(all(x));
                }
            }
            let one = best[0];
            let mut line = format!(
                "{dtype:?} {n}x{k} {kernel:?}: m=1 {:.0} us ({:.1} GB/s)",
                one * 1e6,
                bytes / one / 1e9
            );
            for (m, b) in ROWS.iter().zip(best).skip(1) {
                line += &format!(", m={m} {:.2}x", b / one);
            }
            println!("{line}");
        }
    }
}

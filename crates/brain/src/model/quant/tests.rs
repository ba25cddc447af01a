use super::*;
use candle_core::{Device, Tensor};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TYPES: [GgmlDType; 8] = [
    GgmlDType::Q4_0,
    GgmlDType::Q4_1,
    GgmlDType::Q5_0,
    GgmlDType::Q5_1,
    GgmlDType::Q8_0,
    GgmlDType::Q4K,
    GgmlDType::Q5K,
    GgmlDType::Q6K,
];

/// Random values in `-scale..scale`, with a different scale every 32, and
/// an offset every 32 so that minimums are not all near zero.
fn random(rng: &mut StdRng, len: usize) -> Vec<f32> {
    let (mut scale, mut offset) = (1.0, 0.0);
    (0..len)
        .map(|i| {
            if i % QK == 0 {
                scale = rng.random_range(0.05f32..2.0);
                offset = rng.random_range(-0.5f32..0.5) * scale;
            }
            offset + rng.random_range(-scale..scale)
        })
        .collect()
}

/// Random weights quantized by candle, and the values candle dequantizes
/// them to.
fn weights(rng: &mut StdRng, dtype: GgmlDType, n: usize, k: usize) -> (QMatrix, Vec<f32>) {
    let w = Tensor::from_vec(random(rng, n * k), (n, k), &Device::Cpu).unwrap();
    let q = QTensor::quantize(&w, dtype).unwrap();
    let values = q.dequantize(&Device::Cpu).unwrap();
    let values = values.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    (QMatrix::from_qtensor(&q).unwrap(), values)
}

/// The kernels this CPU's features call for, found without [`Kernel`].
fn kernels_for_this_cpu() -> Vec<Kernel> {
    #[allow(unused_mut)]
    let mut kernels = vec![Kernel::Scalar];
    #[cfg(target_arch = "x86_64")]
    {
        let has = |f: &[bool]| f.iter().all(|&b| b);
        if has(&[
            is_x86_feature_detected!("avx2"),
            is_x86_feature_detected!("fma"),
            is_x86_feature_detected!("f16c"),
        ]) {
            kernels.push(Kernel::Avx2);
            if has(&[
                is_x86_feature_detected!("avx512f"),
                is_x86_feature_detected!("avx512bw"),
                is_x86_feature_detected!("avx512vl"),
                is_x86_feature_detected!("avx512vnni"),
            ]) {
                kernels.push(Kernel::Avx512Vnni);
                kernels.push(Kernel::Avx512Wide);
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        kernels.push(Kernel::Neon);
        if std::arch::is_aarch64_feature_detected!("dotprod") {
            kernels.push(Kernel::NeonDotprod);
        }
    }
    kernels
}

/// Every kernel against the product of the dequantized weights and the
/// dequantized activations, in f64.
///
/// The kernels sum the products of quants exactly in integers; what is
/// left is f32 rounding: the scales (`d * sc` is exact in f32: an 11-bit
/// by a 6- or 8-bit integer), their product with the activation scale, and
/// the sum over blocks. Each step loses at most 2⁻²⁴ of the magnitude it
/// works on, so with up to 48 blocks the error stays below 10⁻⁵ of the sum
/// of the magnitudes of the products, the bound checked. A packing mistake
/// (a quant or scale in the wrong place) is off by far more.
#[test]
fn every_kernel_of_this_cpu_matches_the_dequantized_reference_for_every_type() {
    let expected = kernels_for_this_cpu();
    assert_eq!(
        Kernel::available(),
        expected,
        "the kernels this CPU can run are not the ones offered"
    );
    eprintln!("kernels on this CPU: {expected:?}");
    let mut rng = StdRng::seed_from_u64(7);
    let mut exercised = vec![];
    for dtype in TYPES {
        let block = if matches!(dtype, GgmlDType::Q4K | GgmlDType::Q5K | GgmlDType::Q6K) {
            256
        } else {
            32
        };
        for (k, n) in [(block, 1), (2 * block, 13), (6 * block, 37)] {
            let (w, values) = weights(&mut rng, dtype, n, k);
            assert_eq!(w.dtype(), dtype);
            for m in [1, 2, 3, 5, 7, 17, 301] {
                let x = Q8Rows::quantize(&random(&mut rng, m * k), k).unwrap();
                for &kernel in Kernel::available() {
                    assert_matches_reference(kernel, &w, &values, &x, dtype);
                    if !exercised.contains(&kernel) {
                        exercised.push(kernel);
                    }
                }
            }
        }
    }
    assert_eq!(exercised, expected, "a kernel this CPU runs was not tested");
}

/// `kernel`'s product of `w` (dequantized: `values`) and `x` against the
/// same in f64, within the bound explained above.
fn assert_matches_reference(
    kernel: Kernel,
    w: &QMatrix,
    values: &[f32],
    x: &Q8Rows,
    dtype: GgmlDType,
) {
    let k = x.cols;
    let n = values.len() / k;
    let xs: Vec<f32> = x.blocks.iter().flat_map(|b| b.dequantize()).collect();
    let ours = matmul(kernel, &[w], x).unwrap().remove(0);
    for (i, got) in ours.iter().enumerate() {
        let (r, c) = (i / n, i % n);
        let (mut want, mut size) = (0f64, 0f64);
        for j in 0..k {
            let p = xs[r * k + j] as f64 * values[c * k + j] as f64;
            want += p;
            size += p.abs();
        }
        let error = (*got as f64 - want).abs();
        assert!(
            error <= 1e-5 * size + 1e-30,
            "{kernel:?} {dtype:?} m={} n={n} k={k} [{r},{c}]: \
             {got} against {want} (error {error}, sum of magnitudes {size})",
            x.rows
        );
    }
}

/// Weights whose quants are all at the top of their range and activations
/// all at ±127: the largest integer sums a block can hold, which a kernel
/// that sums in 16 bits (AVX2) must still get right.
#[test]
fn every_kernel_holds_the_largest_sums_of_every_type() {
    for dtype in TYPES {
        let k = 512;
        // The first value of every 16, of the other sign and the largest,
        // sets the scale: the rest quantize to the top quant, in the
        // symmetric formats (whose scale maps the largest value to the
        // bottom) and in those with a minimum alike.
        let row = |sign: f32| (0..k).map(move |j| if j % 16 == 0 { -sign } else { 0.99 * sign });
        let w: Vec<f32> = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]
            .into_iter()
            .flat_map(row)
            .collect();
        let n = w.len() / k;
        let q =
            QTensor::quantize(&Tensor::from_vec(w, (n, k), &Device::Cpu).unwrap(), dtype).unwrap();
        let values = q.dequantize(&Device::Cpu).unwrap();
        let values = values.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let w = QMatrix::from_qtensor(&q).unwrap();
        let x: Vec<f32> = [1.0f32, -1.0, 1.0, -1.0, 1.0]
            .into_iter()
            .flat_map(|sign| std::iter::repeat_n(sign, k))
            .collect();
        let x = Q8Rows::quantize(&x, k).unwrap();
        for &kernel in Kernel::available() {
            assert_matches_reference(kernel, &w, &values, &x, dtype);
        }
    }
}

#[test]
fn packed_matrices_are_the_size_of_the_file_within_3_percent() {
    let mut rng = StdRng::seed_from_u64(3);
    for dtype in TYPES {
        let (n, k) = (64, 512);
        let w = Tensor::from_vec(random(&mut rng, n * k), (n, k), &Device::Cpu).unwrap();
        let q = QTensor::quantize(&w, dtype).unwrap();
        let file = q.data().unwrap().len();
        let packed = QMatrix::from_qtensor(&q).unwrap().bytes();
        assert!(
            packed * 100 <= file * 103,
            "{dtype:?}: {packed} bytes packed against {file} in the file"
        );
    }
}

#[test]
fn looked_up_rows_are_the_dequantized_weights() {
    let mut rng = StdRng::seed_from_u64(5);
    for dtype in TYPES {
        let (n, k) = (13, 512);
        let (w, values) = weights(&mut rng, dtype, n, k);
        let ids = [12, 0, 7, 7, 8];
        let rows = w.rows_of(&ids).unwrap();
        for (row, &id) in rows.chunks_exact(k).zip(&ids) {
            let want = &values[id as usize * k..][..k];
            for (j, (a, b)) in row.iter().zip(want).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-6 * b.abs(),
                    "{dtype:?} row {id}[{j}]: {a} vs {b}"
                );
            }
        }
        assert!(w.rows_of(&[13]).is_err());
    }
}

#[test]
fn shared_activations_give_each_matrix_its_own_product() {
    let mut rng = StdRng::seed_from_u64(11);
    let k = 256;
    let ws: Vec<QMatrix> = [
        (24, GgmlDType::Q5_0),
        (8, GgmlDType::Q8_0),
        (9, GgmlDType::Q6K),
    ]
    .into_iter()
    .map(|(n, dtype)| weights(&mut rng, dtype, n, k).0)
    .collect();
    let refs: Vec<&QMatrix> = ws.iter().collect();
    for m in [1, 5, 64] {
        let x = Q8Rows::quantize(&random(&mut rng, m * k), k).unwrap();
        let together = matmul(Kernel::best(), &refs, &x).unwrap();
        for (w, got) in ws.iter().zip(&together) {
            let alone = matmul(Kernel::best(), &[w], &x).unwrap().remove(0);
            assert_eq!(got, &alone, "m={m} n={}", w.rows());
        }
    }
}

#[test]
fn a_rows_product_does_not_depend_on_the_batch() {
    let mut rng = StdRng::seed_from_u64(13);
    let (k, n, m) = (256, 45, 301);
    let (w, _) = weights(&mut rng, GgmlDType::Q4K, n, k);
    let xs = random(&mut rng, m * k);
    for &kernel in Kernel::available() {
        let all = matmul(kernel, &[&w], &Q8Rows::quantize(&xs, k).unwrap()).unwrap();
        for r in [0, 1, 150, 297, 300] {
            let one = Q8Rows::quantize(&xs[r * k..(r + 1) * k], k).unwrap();
            let alone = matmul(kernel, &[&w], &one).unwrap().remove(0);
            assert_eq!(alone, all[0][r * n..(r + 1) * n], "{kernel:?} row {r}");
        }
    }
}

/// A prefill against matrices larger than the caches takes the weights a
/// block at a time over runs of row tiles: every row's product is still
/// the one it has alone, across blocks, runs and a last partial tile.
#[test]
fn a_large_matrix_taken_a_block_at_a_time_gives_each_row_its_own_product() {
    let mut rng = StdRng::seed_from_u64(21);
    let (k, n, m) = (4096, 1100, 75);
    let (w, _) = weights(&mut rng, GgmlDType::Q8_0, n, k);
    assert!(w.bytes() > 4 << 20, "the matrix must outgrow the caches");
    let xs = random(&mut rng, m * k);
    for &kernel in Kernel::available() {
        let all = matmul(kernel, &[&w], &Q8Rows::quantize(&xs, k).unwrap()).unwrap();
        for r in [0, 23, 24, 50, 74] {
            let one = Q8Rows::quantize(&xs[r * k..(r + 1) * k], k).unwrap();
            let alone = matmul(kernel, &[&w], &one).unwrap().remove(0);
            assert_eq!(alone, all[0][r * n..(r + 1) * n], "{kernel:?} row {r}");
        }
    }
}

/// The 512-bit kernel runs the 256-bit one's arithmetic lane for lane, on
/// two groups of rows at once: its products are the same bit for bit, so
/// the choice between them never changes what a model says.
#[cfg(target_arch = "x86_64")]
#[test]
fn the_wide_kernel_is_the_vnni_one_bit_for_bit() {
    let available = Kernel::available();
    if !available.contains(&Kernel::Avx512Wide) {
        eprintln!("no AVX-512 VNNI on this CPU: nothing to compare");
        return;
    }
    let mut rng = StdRng::seed_from_u64(19);
    for dtype in TYPES {
        let k = if matches!(dtype, GgmlDType::Q4K | GgmlDType::Q5K | GgmlDType::Q6K) {
            512
        } else {
            96
        };
        let (w, _) = weights(&mut rng, dtype, 45, k);
        for m in [1, 7, 64] {
            let x = Q8Rows::quantize(&random(&mut rng, m * k), k).unwrap();
            let narrow = matmul(Kernel::Avx512Vnni, &[&w], &x).unwrap();
            let wide = matmul(Kernel::Avx512Wide, &[&w], &x).unwrap();
            assert_eq!(narrow, wide, "{dtype:?} m={m}");
        }
    }
}

#[test]
fn quantized_activations_follow_ggml() {
    let mut xs = [0f32; QK];
    for (i, x) in xs.iter_mut().enumerate() {
        *x = i as f32 - 12.5;
    }
    let b = BlockQ8::quantize(&xs);
    let d = half::f16::from_f32(18.5f32 / 127.0).to_f32();
    assert_eq!(b.d, d);
    assert_eq!(b.qs[0], -86);
    assert_eq!(b.qs[31], 127);
    let sum = |qs: &[i8]| qs.iter().map(|&q| q as i32).sum::<i32>();
    assert_eq!(b.sums, [sum(&b.qs[..16]), sum(&b.qs[16..])]);
    assert_eq!(b.s, d * sum(&b.qs) as f32);
    assert_eq!(BlockQ8::quantize(&[0.0; QK]).qs, [0; QK]);
}

#[test]
fn simd_quantization_is_the_scalar_one_bit_for_bit() {
    let mut rng = StdRng::seed_from_u64(17);
    let mut blocks: Vec<[f32; QK]> = (0..2000)
        .map(|_| std::array::from_fn(|_| rng.random_range(-3.0f32..3.0)))
        .collect();
    let mut ties = [0f32; QK];
    for (i, x) in ties.iter_mut().enumerate() {
        *x = i as f32 - 15.5;
    }
    ties[0] = 127.0;
    blocks.push(ties);
    blocks.push([0.0; QK]);
    blocks.push([1e-40; QK]);
    let mut odd = [1e38f32; QK];
    odd[1] = f32::NAN;
    odd[2] = f32::INFINITY;
    odd[3] = -3e38;
    blocks.push(odd);
    let mut nan = [0.5f32; QK];
    nan[7] = f32::NAN;
    nan[9] = -0.0;
    blocks.push(nan);
    let bits = |b: &BlockQ8| (b.d.to_bits(), b.s.to_bits(), b.sums, b.qs);
    for xs in &blocks {
        assert_eq!(
            bits(&BlockQ8::quantize(xs)),
            bits(&BlockQ8::quantize_scalar(xs)),
            "{xs:?}"
        );
    }
}

#[test]
fn malformed_input_is_an_error() {
    use GgmlDType::*;
    assert!(QMatrix::from_bytes(Q4_1, &[0; 39], 1, 32).is_err());
    assert!(QMatrix::from_bytes(Q4_1, &[0; 41], 1, 64).is_err());
    assert!(QMatrix::from_bytes(Q4_1, &[0; 20], 1, 16).is_err());
    assert!(QMatrix::from_bytes(Q4_1, &[], usize::MAX, 64).is_err());
    assert!(QMatrix::from_bytes(Q4K, &[0; 144], 1, 128).is_err());
    assert!(QMatrix::from_bytes(Q6K, &[0; 209], 1, 256).is_err());
    assert!(QMatrix::from_bytes(F16, &[0; 64], 1, 32).is_err());
    assert!(QMatrix::from_bytes(Q4_1, &[0; 40], 2, 32).is_ok());
    assert!(QMatrix::from_bytes(Q6K, &[0; 420], 2, 256).is_ok());
    assert!(Q8Rows::quantize(&[0.0; 48], 48).is_err());
    assert!(Q8Rows::quantize(&[0.0; 48], 32).is_err());
    let w = QMatrix::from_bytes(Q4_1, &[0; 40], 1, 64).unwrap();
    let x = Q8Rows::quantize(&[0.0; 32], 32).unwrap();
    assert!(matmul(Kernel::best(), &[&w], &x).is_err());
}

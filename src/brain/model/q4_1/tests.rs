use super::*;
use candle_core::quantized::QMatMul;
use candle_core::{Device, Module, Tensor};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Random values in `-scale..scale`, with a different scale every 32.
fn random(rng: &mut StdRng, len: usize) -> Vec<f32> {
    let mut scale = 1.0;
    (0..len)
        .map(|i| {
            if i % QK == 0 {
                scale = rng.random_range(0.05f32..2.0);
            }
            rng.random_range(-scale..scale)
        })
        .collect()
}

fn quantized_weights(rng: &mut StdRng, n: usize, k: usize) -> QTensor {
    let w = Tensor::from_vec(random(rng, n * k), (n, k), &Device::Cpu).unwrap();
    QTensor::quantize(&w, GgmlDType::Q4_1).unwrap()
}

/// `x` with each block's `s` rounded as candle does (`f16(sum) * f16(d)` in
/// f16 arithmetic) instead of as GGML does (`f16(sum * d)`).
fn with_candle_sums(x: &Q8_1Rows) -> Q8_1Rows {
    use half::f16;
    let mut x = x.clone();
    for b in &mut x.blocks {
        let sum: i32 = b.qs.iter().map(|&q| q as i32).sum();
        b.s = (f16::from_f32(sum as f32) * f16::from_f32(b.d)).to_f32();
    }
    x
}

/// How far apart GGML's and candle's `s` can put one product: one f16 unit
/// in the last place of each block's `m4 * s8`.
fn sum_rounding(w: &Q4_1Matrix, x: &Q8_1Rows, r: usize, c: usize) -> f32 {
    let ulp = 1.0 / 1024.0;
    w.row(c)
        .into_iter()
        .zip(x.row(r))
        .map(|(w, a)| (w.scales().1 * a.s).abs() * ulp)
        .sum()
}

fn scale(reference: &[f32]) -> f32 {
    reference.iter().fold(1e-6f32, |m, v| m.max(v.abs()))
}

/// Largest difference, relative to the largest magnitude in `reference`.
fn relative_error(got: &[f32], reference: &[f32]) -> f32 {
    assert_eq!(got.len(), reference.len());
    let scale = scale(reference);
    got.iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs() / scale)
        .fold(0.0, f32::max)
}

#[test]
fn every_kernel_matches_the_scalar_reference_and_candle() {
    eprintln!("kernels on this CPU: {:?}", Kernel::available());
    let mut rng = StdRng::seed_from_u64(7);
    for (k, n) in [(32, 1), (64, 7), (96, 13), (576, 37), (1536, 70)] {
        let qt = quantized_weights(&mut rng, n, k);
        let w = Q4_1Matrix::from_qtensor(&qt).unwrap();
        let candle = QMatMul::from_qtensor(qt).unwrap();
        for m in [1, 3, 17, 300, 301] {
            let xs = random(&mut rng, m * k);
            let x = Q8_1Rows::quantize(&xs, k).unwrap();
            let reference: Vec<f32> = (0..m)
                .flat_map(|r| (0..n).map(move |c| (r, c)))
                .map(|(r, c)| blocks::dot(&w.row(c), x.row(r)))
                .collect();
            let theirs = candle
                .forward(&Tensor::from_vec(xs, (m, k), &Device::Cpu).unwrap())
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            for &kernel in Kernel::available() {
                let ours = matmul(kernel, &[&w], &x).unwrap().remove(0);
                let what = format!("{kernel:?} m={m} n={n} k={k}");
                let e = relative_error(&ours, &reference);
                assert!(e < 1e-5, "{what}: {e} from the scalar reference");
                for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                    let bound = 1e-4 * scale(&theirs) + sum_rounding(&w, &x, i / n, i % n);
                    assert!((a - b).abs() <= bound, "{what}: {a} vs candle's {b}");
                }
                let like_candle = matmul(kernel, &[&w], &with_candle_sums(&x))
                    .unwrap()
                    .remove(0);
                let e = relative_error(&like_candle, &theirs);
                assert!(e < 1e-4, "{what}: {e} from candle with candle's sums");
            }
        }
    }
}

#[test]
fn shared_activations_give_each_matrix_its_own_product() {
    let mut rng = StdRng::seed_from_u64(11);
    let k = 128;
    let ws: Vec<Q4_1Matrix> = [24, 8, 9]
        .into_iter()
        .map(|n| Q4_1Matrix::from_qtensor(&quantized_weights(&mut rng, n, k)).unwrap())
        .collect();
    let refs: Vec<&Q4_1Matrix> = ws.iter().collect();
    for m in [1, 5, 64] {
        let x = Q8_1Rows::quantize(&random(&mut rng, m * k), k).unwrap();
        let together = matmul(Kernel::best(), &refs, &x).unwrap();
        for (w, got) in ws.iter().zip(&together) {
            let alone = matmul(Kernel::best(), &[w], &x).unwrap().remove(0);
            assert_eq!(got, &alone, "m={m} n={}", w.rows());
        }
    }
}

#[test]
fn quantized_activations_follow_ggml() {
    let mut xs = [0f32; QK];
    for (i, x) in xs.iter_mut().enumerate() {
        *x = i as f32 - 12.5;
    }
    let b = BlockQ8_1::quantize(&xs);
    let d = 18.5f32 / 127.0;
    assert_eq!(b.d, half::f16::from_f32(d).to_f32());
    assert_eq!(b.qs[0], -86);
    assert_eq!(b.qs[31], 127);
    let sum: i32 = b.qs.iter().map(|&q| q as i32).sum();
    assert_eq!(b.s, half::f16::from_f32(sum as f32 * d).to_f32());
    assert_eq!(BlockQ8_1::quantize(&[0.0; QK]).qs, [0; QK]);
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
    let bits = |b: &BlockQ8_1| (b.d.to_bits(), b.s.to_bits(), b.qs);
    for xs in &blocks {
        assert_eq!(
            bits(&BlockQ8_1::quantize(xs)),
            bits(&BlockQ8_1::quantize_scalar(xs)),
            "{xs:?}"
        );
    }
}

#[test]
fn malformed_input_is_an_error() {
    assert!(Q4_1Matrix::from_bytes(&[0; 39], 1, 32).is_err());
    assert!(Q4_1Matrix::from_bytes(&[0; 41], 1, 64).is_err());
    assert!(Q4_1Matrix::from_bytes(&[0; 20], 1, 16).is_err());
    assert!(Q4_1Matrix::from_bytes(&[], usize::MAX, 64).is_err());
    assert!(Q4_1Matrix::from_bytes(&[0; 40], 2, 32).is_ok());
    let q8 = Tensor::zeros((2, 32), candle_core::DType::F32, &Device::Cpu).unwrap();
    let q8 = QTensor::quantize(&q8, GgmlDType::Q8_0).unwrap();
    assert!(Q4_1Matrix::from_qtensor(&q8).is_err());
    assert!(Q8_1Rows::quantize(&[0.0; 48], 48).is_err());
    assert!(Q8_1Rows::quantize(&[0.0; 48], 32).is_err());
    let w = Q4_1Matrix::from_bytes(&[0; 40], 1, 64).unwrap();
    let x = Q8_1Rows::quantize(&[0.0; 32], 32).unwrap();
    assert!(matmul(Kernel::best(), &[&w], &x).is_err());
}

#[test]
fn a_rows_product_does_not_depend_on_the_batch() {
    let mut rng = StdRng::seed_from_u64(13);
    let (k, n, m) = (256, 45, 301);
    let w = Q4_1Matrix::from_qtensor(&quantized_weights(&mut rng, n, k)).unwrap();
    let xs = random(&mut rng, m * k);
    for &kernel in Kernel::available() {
        let all = matmul(kernel, &[&w], &Q8_1Rows::quantize(&xs, k).unwrap()).unwrap();
        for r in [0, 1, 150, 297, 300] {
            let one = Q8_1Rows::quantize(&xs[r * k..(r + 1) * k], k).unwrap();
            let alone = matmul(kernel, &[&w], &one).unwrap().remove(0);
            assert_eq!(alone, all[0][r * n..(r + 1) * n], "{kernel:?} row {r}");
        }
    }
}

#[test]
fn interleaving_keeps_every_block() {
    let bytes: Vec<u8> = (0..11 * 3 * 20).map(|i| (i * 37 % 251) as u8).collect();
    let w = Q4_1Matrix::from_bytes(&bytes, 11, 96).unwrap();
    for (i, chunk) in bytes.chunks_exact(20).enumerate() {
        let block = BlockQ4_1::from_bytes(chunk.try_into().unwrap());
        assert_eq!(w.row(i / 3)[i % 3], block);
    }
}

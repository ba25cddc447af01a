//! Causal self-attention on the CPU, one query row at a time.
//!
//! Each query row is computed in a fixed order — dot products over the head,
//! a softmax over the visible keys, a weighted sum of values — whatever else
//! is in the batch. So a token's result is bit-for-bit the same whether the
//! sequence was computed in one pass, in chunks, or token by token, which is
//! what makes KV-cache reuse give exactly the output of a fresh computation.
//! It also needs no mask tensor and no copies of the keys for grouped-query
//! heads.

use super::vector;
use candle_core::{CpuStorage, Device, Result, Storage, Tensor};
use half::slice::HalfFloatSliceExt;
use rayon::prelude::*;

/// The geometry of one attention call.
#[derive(Debug, Clone, Copy)]
pub struct AttentionShape {
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (divides `heads`).
    pub kv_heads: usize,
    /// Size of one head.
    pub head_dim: usize,
    /// New query rows.
    pub seq: usize,
    /// Position of the first new row (keys before it come from the cache).
    pub start: usize,
    /// Keys further back than this are invisible (sliding-window layers).
    pub window: Option<usize>,
}

/// Work below this many multiply-adds runs on one thread: spreading a tiny
/// decode step over threads costs more than it saves.
const PARALLEL_THRESHOLD: usize = 1 << 22;

/// Work from this many multiply-adds up to [`PARALLEL_THRESHOLD`] is spread
/// over the products' helper threads ([`super::quant::spread`]), which stay
/// awake through a decode step.
const SPREAD_THRESHOLD: usize = 1 << 16;

/// Attention of `q` `(1, heads, seq, head_dim)`, each query multiplied by
/// `scale`, over `keys` and `values` `(1, kv_heads, start + seq, head_dim)`,
/// all with the last dimension contiguous. Returns `(1, seq, heads *
/// head_dim)`.
pub fn attend(
    q: &Tensor,
    keys: &Tensor,
    values: &Tensor,
    shape: AttentionShape,
    scale: f32,
) -> Result<Tensor> {
    let AttentionShape {
        heads,
        kv_heads,
        head_dim,
        seq,
        start,
        ..
    } = shape;
    let total = start + seq;
    let (q_guard, q_layout) = q.storage_and_layout();
    let Storage::Cpu(qs) = &*q_guard else {
        candle_core::bail!("row-wise attention runs on the CPU only");
    };
    let q_data = &qs.as_slice::<f32>()?[q_layout.start_offset()..];
    let q_stride = q_layout.stride();
    if q.dims() != [1, heads, seq, head_dim] || q_stride[3] != 1 {
        candle_core::bail!(
            "attention queries have shape {:?} stride {q_stride:?}",
            q.dims()
        );
    }
    let (q_head_stride, q_row_stride) = (q_stride[1], q_stride[2]);
    let (mut k_data, mut v_data) = WIDENED.take();
    widen(keys, shape, total, &mut k_data)?;
    widen(values, shape, total, &mut v_data)?;
    let strides = (total * head_dim, head_dim);

    let group = heads / kv_heads;
    let mut out = vec![0f32; seq * heads * head_dim];
    let row = |(index, out_row): (usize, &mut [f32])| {
        let (i, h) = (index / heads, index % heads);
        let kv = h / group;
        let pos = start + i;
        let first = shape.window.map_or(0, |w| (pos + 1).saturating_sub(w));
        let query: Vec<f32> = q_data[h * q_head_stride + i * q_row_stride..][..head_dim]
            .iter()
            .map(|x| x * scale)
            .collect();
        let query = &query[..];
        let from = kv * strides.0 + first * strides.1;
        let keys = &k_data[from..][..(pos + 1 - first) * head_dim];
        let values = &v_data[from..][..(pos + 1 - first) * head_dim];
        let mut scores = Vec::with_capacity(pos + 1 - first);
        let mut fours = keys.chunks_exact(4 * head_dim);
        for four in fours.by_ref() {
            let four: [&[f32]; 4] = std::array::from_fn(|n| &four[n * head_dim..]);
            scores.extend(vector::dots4(query, four));
        }
        for key in fours.remainder().chunks_exact(head_dim) {
            scores.push(vector::dot(query, key));
        }
        let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0f32;
        for s in scores.iter_mut() {
            *s = (*s - max).exp();
            sum += *s;
        }
        let inv = 1.0 / sum;
        let mut weights = scores.chunks_exact(4);
        let mut fours = values.chunks_exact(4 * head_dim);
        for (p, four) in weights.by_ref().zip(fours.by_ref()) {
            let four: [&[f32]; 4] = std::array::from_fn(|n| &four[n * head_dim..]);
            vector::add_scaled4(out_row, std::array::from_fn(|n| p[n] * inv), four);
        }
        for (p, value) in weights
            .remainder()
            .iter()
            .zip(fours.remainder().chunks_exact(head_dim))
        {
            vector::add_scaled(out_row, p * inv, value);
        }
    };
    let work = seq * heads * total * head_dim;
    if work >= PARALLEL_THRESHOLD {
        out.par_chunks_mut(head_dim).enumerate().for_each(row);
    } else if work >= SPREAD_THRESHOLD {
        super::quant::spread(out.chunks_mut(head_dim).enumerate().collect(), row);
    } else {
        out.chunks_mut(head_dim).enumerate().for_each(row);
    }
    drop(q_guard);
    if k_data.capacity() <= KEEP_WIDENED {
        WIDENED.set((k_data, v_data));
    }
    Tensor::from_vec(out, (1, seq, heads * head_dim), &Device::Cpu)
}

/// The longest widened buffers kept for the next attention (4 MiB of f32):
/// a long context's are given back.
const KEEP_WIDENED: usize = 1 << 20;

thread_local! {
    /// The keys and values the last attention on this thread widened, whose
    /// buffers the next one reuses: decoding would otherwise allocate two
    /// buffers one position longer than the last for every layer and token,
    /// and the allocator's list of freed blocks kept for reuse would fill
    /// with lengths never asked for again.
    static WIDENED: std::cell::Cell<(Vec<f32>, Vec<f32>)> = const { std::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// The keys (or values) of a cache view `(1, kv_heads, total, head_dim)`,
/// f16 or f32, as contiguous f32 rows `[kv_head][position][head_dim]` in
/// `out`. Each element is widened once here, not once per query head that
/// reads it.
fn widen(t: &Tensor, shape: AttentionShape, total: usize, out: &mut Vec<f32>) -> Result<()> {
    let (guard, layout) = t.storage_and_layout();
    let (head_stride, position_stride) = key_strides(t, layout.stride(), shape, total)?;
    let head_dim = shape.head_dim;
    let len = shape.kv_heads * total * head_dim;
    if out.len() < len {
        out.resize(len, 0.0);
    }
    out.truncate(len);
    let start = layout.start_offset();
    // Each head's positions, one contiguous run of the cache when its rows
    // are adjacent.
    let run = |kv: usize, out: &mut [f32], row: &dyn Fn(usize, &mut [f32])| {
        if position_stride == head_dim {
            row(start + kv * head_stride, out);
        } else {
            for (position, out) in out.chunks_exact_mut(head_dim).enumerate() {
                row(start + kv * head_stride + position * position_stride, out);
            }
        }
    };
    let heads: Vec<(usize, &mut [f32])> = out.chunks_mut(total * head_dim).enumerate().collect();
    let spread = len >= SPREAD_WIDENING;
    match &*guard {
        Storage::Cpu(CpuStorage::F16(data)) => {
            let work = |(kv, out): (usize, &mut [f32])| {
                run(kv, out, &|from, out| {
                    data[from..][..out.len()].convert_to_f32_slice(out)
                })
            };
            for_heads(heads, spread, work);
        }
        Storage::Cpu(CpuStorage::F32(data)) => {
            let work = |(kv, out): (usize, &mut [f32])| {
                run(kv, out, &|from, out| {
                    out.copy_from_slice(&data[from..][..out.len()])
                })
            };
            for_heads(heads, spread, work);
        }
        _ => candle_core::bail!(
            "row-wise attention reads f16 or f32 keys on the CPU, not {:?} on {:?}",
            t.dtype(),
            t.device().location()
        ),
    }
    Ok(())
}

/// Widening from this many values up is spread over the helper threads.
const SPREAD_WIDENING: usize = 1 << 15;

/// Runs `work` on each head's item, spread over the helpers or here.
fn for_heads<T: Send>(heads: Vec<T>, spread: bool, work: impl Fn(T) + Sync) {
    if spread {
        super::quant::spread(heads, work);
    } else {
        heads.into_iter().for_each(work);
    }
}

/// (head stride, position stride) of a keys/values view, checked.
fn key_strides(
    t: &Tensor,
    stride: &[usize],
    shape: AttentionShape,
    total: usize,
) -> Result<(usize, usize)> {
    let dims = t.dims();
    if dims != [1, shape.kv_heads, total, shape.head_dim] || stride[3] != 1 {
        candle_core::bail!("attention keys/values have shape {dims:?} stride {stride:?}");
    }
    Ok((stride[1], stride[2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tensor formulation used on GPUs, with its −∞ mask.
    fn reference(q: &Tensor, k: &Tensor, v: &Tensor, shape: AttentionShape) -> Vec<f32> {
        let mask = (shape.seq > 1).then(|| {
            super::super::attention_mask(shape.seq, shape.start, shape.window, &Device::Cpu)
                .unwrap()
        });
        super::super::tensor_attention(q, k.clone(), v.clone(), shape, mask.as_ref())
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap()
    }

    #[test]
    fn matches_the_tensor_formulation() {
        for (seq, start, window) in [
            (5, 0, None),
            (1, 7, None),
            (4, 6, Some(3)),
            (1, 9, Some(4)),
            (40, 30, None),
        ] {
            let shape = AttentionShape {
                heads: 6,
                kv_heads: 2,
                head_dim: 12,
                seq,
                start,
                window,
            };
            let total = start + seq;
            // Queries as the rope leaves them: a transposed view.
            let q = Tensor::randn(0f32, 1.0, (1, seq, 6, 12), &Device::Cpu)
                .unwrap()
                .transpose(1, 2)
                .unwrap();
            // Keys live in a larger buffer, as in the KV cache.
            let kbuf = Tensor::randn(0f32, 1.0, (1, 2, total + 5, 12), &Device::Cpu).unwrap();
            let vbuf = Tensor::randn(0f32, 1.0, (1, 2, total + 5, 12), &Device::Cpu).unwrap();
            let (k, v) = (
                kbuf.narrow(2, 0, total).unwrap(),
                vbuf.narrow(2, 0, total).unwrap(),
            );
            let ours = attend(&q, &k, &v, shape, 0.5)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            let theirs = reference(
                &(&q * 0.5).unwrap(),
                &k.contiguous().unwrap(),
                &v.contiguous().unwrap(),
                shape,
            );
            let diff = ours
                .iter()
                .zip(&theirs)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(
                diff < 1e-5,
                "seq {seq} start {start} window {window:?}: {diff}"
            );
        }
    }

    #[test]
    fn f16_keys_and_values_read_as_their_f32_values() {
        let shape = AttentionShape {
            heads: 4,
            kv_heads: 2,
            head_dim: 12,
            seq: 3,
            start: 6,
            window: Some(5),
        };
        let q = Tensor::randn(0f32, 1.0, (1, 4, 3, 12), &Device::Cpu).unwrap();
        let half = |t: Tensor| t.to_dtype(candle_core::DType::F16).unwrap();
        let k = half(Tensor::randn(0f32, 1.0, (1, 2, 11, 12), &Device::Cpu).unwrap());
        let v = half(Tensor::randn(0f32, 1.0, (1, 2, 11, 12), &Device::Cpu).unwrap());
        let (k, v) = (k.narrow(2, 0, 9).unwrap(), v.narrow(2, 0, 9).unwrap());
        let wide = |t: &Tensor| t.to_dtype(candle_core::DType::F32).unwrap();
        let flat = |t: Tensor| t.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert_eq!(
            flat(attend(&q, &k, &v, shape, 0.3).unwrap()),
            flat(attend(&q, &wide(&k), &wide(&v), shape, 0.3).unwrap())
        );
    }

    #[test]
    fn a_row_does_not_depend_on_the_batch() {
        let shape = |seq, start| AttentionShape {
            heads: 4,
            kv_heads: 2,
            head_dim: 16,
            seq,
            start,
            window: None,
        };
        let q = Tensor::randn(0f32, 1.0, (1, 4, 9, 16), &Device::Cpu).unwrap();
        let k = Tensor::randn(0f32, 1.0, (1, 2, 9, 16), &Device::Cpu).unwrap();
        let v = Tensor::randn(0f32, 1.0, (1, 2, 9, 16), &Device::Cpu).unwrap();
        let all = attend(&q, &k, &v, shape(9, 0), 1.0).unwrap();
        let last = attend(&q.narrow(2, 8, 1).unwrap(), &k, &v, shape(1, 8), 1.0).unwrap();
        let all_last = all
            .narrow(1, 8, 1)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        assert_eq!(
            all_last,
            last.flatten_all().unwrap().to_vec1::<f32>().unwrap()
        );
    }
}

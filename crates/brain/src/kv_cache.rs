//! The attention key/value cache, kept outside the model.
//!
//! A [`KvCache`] is a plain value: it knows which tokens it holds, can be cut
//! back to a prefix ([`KvCache::truncate`]) and copied ([`KvCache::try_clone`]), so the
//! brain can keep a cache per session and reuse any shared prefix. The model's
//! forward pass takes it by `&mut` and owns nothing between calls.

use candle_core::{DType, Device, Result, Tensor};

/// Dimensions of a model's cache.
#[derive(Debug, Clone)]
pub struct KvShape {
    /// Transformer layers.
    pub layers: usize,
    /// Key/value heads per layer.
    pub kv_heads: usize,
    /// Size of one head.
    pub head_dim: usize,
    /// Most tokens the cache may hold (the context window).
    pub max_tokens: usize,
    /// Element type.
    pub dtype: DType,
    /// Where the tensors live.
    pub device: Device,
}

impl KvShape {
    /// Bytes that one token's keys (or values) take in one layer.
    fn token_bytes_per_layer(&self) -> usize {
        self.kv_heads * self.head_dim * self.dtype.size_in_bytes()
    }

    /// Bytes that one token takes in a full cache (keys and values, all layers).
    pub fn token_bytes(&self) -> usize {
        2 * self.layers * self.token_bytes_per_layer()
    }
}

/// Keys and values of one layer: `(1, kv_heads, capacity, head_dim)` buffers of
/// which the first `len` positions are valid.
#[derive(Debug)]
struct LayerKv {
    k: Tensor,
    v: Tensor,
}

/// The keys and values computed for a sequence of tokens.
#[derive(Debug)]
pub struct KvCache {
    shape: KvShape,
    layers: Vec<Option<LayerKv>>,
    capacity: usize,
    tokens: Vec<u32>,
}

const GROWTH_STEP: usize = 256;

impl KvCache {
    /// An empty cache.
    pub fn new(shape: KvShape) -> Self {
        KvCache {
            layers: (0..shape.layers).map(|_| None).collect(),
            capacity: 0,
            tokens: Vec::new(),
            shape,
        }
    }

    /// The cache's dimensions.
    pub fn shape(&self) -> &KvShape {
        &self.shape
    }

    /// Number of tokens held.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether no token is held.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The tokens held, in order.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// Memory held by the key and value buffers, in bytes.
    pub fn bytes(&self) -> usize {
        let layers = self.layers.iter().flatten().count();
        layers * 2 * self.capacity * self.shape.token_bytes_per_layer()
    }

    /// Room left before the context window is full.
    pub fn remaining(&self) -> usize {
        self.shape.max_tokens.saturating_sub(self.len())
    }

    /// How many leading tokens of `prompt` this cache already holds.
    pub fn common_prefix(&self, prompt: &[u32]) -> usize {
        self.tokens
            .iter()
            .zip(prompt)
            .take_while(|(a, b)| a == b)
            .count()
    }

    /// Forgets everything after the first `n` tokens.
    pub fn truncate(&mut self, n: usize) {
        self.tokens.truncate(n);
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.tokens.clear();
    }

    /// Stores the keys and values of new positions for `layer`, converted to
    /// the cache's element type, and returns the keys and values of all
    /// positions, old and new: `(1, kv_heads, len + new, head_dim)`. Call for
    /// every layer, then [`KvCache::commit`] the tokens.
    pub fn append(&mut self, layer: usize, k: &Tensor, v: &Tensor) -> Result<(Tensor, Tensor)> {
        let dtype = self.shape.dtype;
        self.append_with(layer, k.dim(2)?, |keys, values, start| {
            keys.slice_set(&k.to_dtype(dtype)?.contiguous()?, 2, start)?;
            values.slice_set(&v.to_dtype(dtype)?.contiguous()?, 2, start)
        })
    }

    /// [`KvCache::append`] for `new` positions that `write` stores itself:
    /// it is given the layer's whole key and value buffers, `(1, kv_heads,
    /// capacity, head_dim)` of the cache's element type, and the first
    /// position to write.
    pub fn append_with(
        &mut self,
        layer: usize,
        new: usize,
        write: impl FnOnce(&Tensor, &Tensor, usize) -> Result<()>,
    ) -> Result<(Tensor, Tensor)> {
        let start = self.len();
        let end = start + new;
        if end > self.shape.max_tokens {
            candle_core::bail!(
                "the KV cache holds at most {} tokens, {end} requested",
                self.shape.max_tokens
            );
        }
        if end > self.capacity {
            self.grow(end)?;
        }
        if self.layers[layer].is_none() {
            let dims = (1, self.shape.kv_heads, self.capacity, self.shape.head_dim);
            self.layers[layer] = Some(LayerKv {
                k: zeros(dims, self.shape.dtype, &self.shape.device)?,
                v: zeros(dims, self.shape.dtype, &self.shape.device)?,
            });
        }
        let Some(slot) = self.layers[layer].as_mut() else {
            candle_core::bail!("KV cache layer {layer} is missing");
        };
        write(&slot.k, &slot.v, start)?;
        Ok((slot.k.narrow(2, 0, end)?, slot.v.narrow(2, 0, end)?))
    }

    /// Records the tokens whose keys and values were just appended.
    pub fn commit(&mut self, tokens: &[u32]) {
        self.tokens.extend_from_slice(tokens);
    }

    /// Makes room for `needed` positions and a growth step more, so that a
    /// prompt's decoding does not copy the cache straight after its prefill
    /// (room not written to takes no memory: see [`zeros`]).
    fn grow(&mut self, needed: usize) -> Result<()> {
        let wanted = (needed + GROWTH_STEP)
            .max(self.capacity * 2)
            .next_multiple_of(GROWTH_STEP)
            .min(self.shape.max_tokens);
        let keep = self.len();
        for layer in self.layers.iter_mut().flatten() {
            layer.k = regrow(&layer.k, keep, wanted)?;
            layer.v = regrow(&layer.v, keep, wanted)?;
        }
        self.capacity = wanted;
        Ok(())
    }
}

impl Drop for KvCache {
    /// Gives the buffers back to the system rather than to the allocator's
    /// kept blocks: the next cache's come back zeroed anyway, and kept they
    /// would be resident beside the next call's first pass.
    fn drop(&mut self) {
        if self.layers.iter().any(Option::is_some) && self.shape.device.is_cpu() {
            self.layers.clear();
            loopd_alloc::release_kept();
        }
    }
}

/// A zeroed buffer whose pages, on the CPU, are only resident once written:
/// a cache's room for positions it never reaches costs no memory, also when
/// the buffer is a freed cache's, reused. (Candle fills f16 zeros element
/// by element, touching every page.)
fn zeros(dims: (usize, usize, usize, usize), dtype: DType, device: &Device) -> Result<Tensor> {
    if dtype == DType::F16 && device.is_cpu() {
        use half::vec::HalfBitsVecExt;
        let (b, h, n, d) = dims;
        let bits = loopd_alloc::untouched_zeros(b * h * n * d);
        return Tensor::from_vec(bits.reinterpret_into::<half::f16>(), dims, device);
    }
    Tensor::zeros(dims, dtype, device)
}

/// `buffer` with room for `capacity` positions, its first `keep` kept.
fn regrow(buffer: &Tensor, keep: usize, capacity: usize) -> Result<Tensor> {
    if let Some(grown) = regrow_on_cpu(buffer, keep, capacity)? {
        return Ok(grown);
    }
    let (b, h, _, d) = buffer.dims4()?;
    let grown = zeros((b, h, capacity, d), buffer.dtype(), buffer.device())?;
    if keep > 0 {
        grown.slice_set(&buffer.narrow(2, 0, keep)?.contiguous()?, 2, 0)?;
    }
    Ok(grown)
}

/// [`regrow`] for a CPU f16 buffer, as one copy of each head's kept rows
/// into a new buffer, instead of candle's narrow, contiguous copy and
/// slice-set per buffer (an 81-token prefix of 24 layers: 1.0 ms against
/// 1.3 ms, most of both the new buffers' first touch). `None` for any
/// other buffer.
fn regrow_on_cpu(buffer: &Tensor, keep: usize, capacity: usize) -> Result<Option<Tensor>> {
    use candle_core::{CpuStorage, Storage};
    use half::vec::HalfBitsVecExt;
    if buffer.dtype() != DType::F16 || !buffer.device().is_cpu() {
        return Ok(None);
    }
    let (b, h, old, d) = buffer.dims4()?;
    let keep = keep.min(old).min(capacity);
    let (storage, layout) = buffer.storage_and_layout();
    let (Storage::Cpu(CpuStorage::F16(data)), Some((start, end))) =
        (&*storage, layout.contiguous_offsets())
    else {
        return Ok(None);
    };
    let source = &data[start..end];
    let mut grown =
        loopd_alloc::untouched_zeros(b * h * capacity * d).reinterpret_into::<half::f16>();
    for (to, from) in grown
        .chunks_exact_mut(capacity * d)
        .zip(source.chunks_exact(old * d))
    {
        to[..keep * d].copy_from_slice(&from[..keep * d]);
    }
    drop(storage);
    Tensor::from_vec(grown, (b, h, capacity, d), buffer.device()).map(Some)
}

impl KvCache {
    /// A deep copy. The buffers are written in place, so copies must not
    /// share them; copying allocates, hence the `Result`.
    pub fn try_clone(&self) -> Result<Self> {
        self.clone_prefix(self.len())
    }

    /// A deep copy of the first `n` tokens (all of them if fewer are held),
    /// with room for at least one growth step more.
    pub fn clone_prefix(&self, n: usize) -> Result<Self> {
        let keep = n.min(self.len());
        if keep == 0 {
            return Ok(KvCache::new(self.shape.clone()));
        }
        let capacity = (keep + 1)
            .next_multiple_of(GROWTH_STEP)
            .min(self.shape.max_tokens)
            .max(keep);
        let layers = self
            .layers
            .iter()
            .map(|layer| {
                layer
                    .as_ref()
                    .map(|l| {
                        Ok(LayerKv {
                            k: regrow(&l.k, keep, capacity)?,
                            v: regrow(&l.v, keep, capacity)?,
                        })
                    })
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(KvCache {
            shape: self.shape.clone(),
            layers,
            capacity,
            tokens: self.tokens[..keep].to_vec(),
        })
    }
}

impl KvCache {
    /// Every layer's keys then values for the tokens held, as the bytes of
    /// their elements (little-endian, the cache's dtype), layer by layer:
    /// `[layer][k|v][kv_head][token][head_dim]`. For keeping on disk.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let len = self.len();
        let mut out = Vec::with_capacity(len * self.shape.token_bytes());
        for (i, layer) in self.layers.iter().enumerate() {
            let Some(layer) = layer else {
                candle_core::bail!("KV cache layer {i} holds nothing");
            };
            for buffer in [&layer.k, &layer.v] {
                let held = buffer
                    .narrow(2, 0, len)?
                    .to_device(&Device::Cpu)?
                    .flatten_all()?;
                match held.dtype() {
                    DType::F16 => {
                        for x in held.to_vec1::<half::f16>()? {
                            out.extend_from_slice(&x.to_le_bytes());
                        }
                    }
                    DType::F32 => {
                        for x in held.to_vec1::<f32>()? {
                            out.extend_from_slice(&x.to_le_bytes());
                        }
                    }
                    other => candle_core::bail!("a KV cache of {other:?} cannot be kept"),
                }
            }
        }
        Ok(out)
    }

    /// The cache [`KvCache::to_bytes`] wrote for `tokens`, rebuilt on
    /// `shape`'s device; an error if the byte count does not fit.
    pub fn from_bytes(shape: KvShape, tokens: Vec<u32>, bytes: &[u8]) -> Result<Self> {
        let len = tokens.len();
        if len == 0 || len > shape.max_tokens || bytes.len() != len * shape.token_bytes() {
            candle_core::bail!(
                "{} bytes are not the keys and values of {len} tokens (at most {})",
                bytes.len(),
                shape.max_tokens
            );
        }
        let per_buffer = len * shape.token_bytes_per_layer();
        let dims = (1, shape.kv_heads, len, shape.head_dim);
        let mut buffers = bytes.chunks_exact(per_buffer).map(|chunk| {
            Tensor::from_raw_buffer(
                chunk,
                shape.dtype,
                &[1, shape.kv_heads, len, shape.head_dim],
                &shape.device,
            )
        });
        let mut layers = Vec::with_capacity(shape.layers);
        for _ in 0..shape.layers {
            let (Some(k), Some(v)) = (buffers.next(), buffers.next()) else {
                candle_core::bail!("the bytes end before the last layer");
            };
            let (k, v) = (k?.reshape(dims)?, v?.reshape(dims)?);
            layers.push(Some(LayerKv { k, v }));
        }
        Ok(KvCache {
            shape,
            layers,
            capacity: len,
            tokens,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> KvShape {
        KvShape {
            layers: 2,
            kv_heads: 1,
            head_dim: 2,
            max_tokens: 600,
            dtype: DType::F32,
            device: Device::Cpu,
        }
    }

    fn kv(values: &[f32]) -> Tensor {
        Tensor::from_slice(values, (1, 1, values.len() / 2, 2), &Device::Cpu).unwrap()
    }

    #[test]
    fn append_truncate_clone() {
        let mut cache = KvCache::new(shape());
        for layer in 0..2 {
            cache
                .append(layer, &kv(&[1., 1., 2., 2.]), &kv(&[1., 1., 2., 2.]))
                .unwrap();
        }
        cache.commit(&[10, 11]);
        assert_eq!(cache.len(), 2);
        let snapshot = cache.try_clone().unwrap();
        cache.truncate(1);
        let (k, _) = cache.append(0, &kv(&[9., 9.]), &kv(&[9., 9.])).unwrap();
        assert_eq!(
            k.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            vec![1., 1., 9., 9.]
        );
        assert_eq!(snapshot.common_prefix(&[10, 11, 12]), 2);
        let mut snapshot = snapshot;
        let (k, _) = snapshot.append(0, &kv(&[3., 3.]), &kv(&[3., 3.])).unwrap();
        assert_eq!(
            k.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            vec![1., 1., 2., 2., 3., 3.]
        );
    }

    #[test]
    fn an_f16_cache_keeps_values_rounded_to_f16_and_zeros_beyond() {
        let mut cache = KvCache::new(KvShape {
            dtype: DType::F16,
            ..shape()
        });
        let (k, v) = cache
            .append(0, &kv(&[1.0, 0.1, 2.5, -3.0]), &kv(&[0.0; 4]))
            .unwrap();
        assert_eq!((k.dtype(), v.dtype()), (DType::F16, DType::F16));
        let read = |t: &Tensor| {
            t.to_dtype(DType::F32)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
        };
        let tenth = half::f16::from_f32(0.1).to_f32();
        assert_eq!(read(&k), vec![1.0, tenth, 2.5, -3.0]);
        let buffer = &cache.layers[0].as_ref().unwrap().k;
        // Two positions and a growth step of room beyond them.
        let room = (2 + GROWTH_STEP).next_multiple_of(GROWTH_STEP);
        assert_eq!(buffer.dims(), [1, 1, room, 2]);
        assert!(read(&buffer.narrow(2, 2, room - 2).unwrap())
            .iter()
            .all(|&x| x == 0.0));
    }

    #[test]
    fn an_f16_cache_grown_and_cloned_keeps_every_head_in_place() {
        let read = |t: &Tensor| {
            t.to_dtype(DType::F32)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
        };
        let heads = |n: usize, base: f32| {
            let values: Vec<f32> = (0..2 * n * 2).map(|i| base + i as f32).collect();
            Tensor::from_slice(&values, (1, 2, n, 2), &Device::Cpu).unwrap()
        };
        let mut grown = Vec::new();
        for dtype in [DType::F16, DType::F32] {
            let shape = KvShape {
                kv_heads: 2,
                dtype,
                ..shape()
            };
            let mut cache = KvCache::new(shape);
            cache.append(0, &heads(200, 0.0), &heads(200, 1.0)).unwrap();
            cache.commit(&[1; 200]);
            let (k, v) = cache
                .append(0, &heads(100, 900.0), &heads(100, 0.5))
                .unwrap();
            cache.commit(&[2; 100]);
            assert_eq!(k.dims(), [1, 2, 300, 2]);
            let clone = cache.clone_prefix(250).unwrap();
            let buffer = &clone.layers[0].as_ref().unwrap().k;
            let room = buffer.dim(2).unwrap();
            assert!(room > 250);
            assert!(read(&buffer.narrow(2, 250, room - 250).unwrap())
                .iter()
                .all(|&x| x == 0.0));
            let kept = buffer.narrow(2, 0, 250).unwrap();
            assert_eq!(read(&kept), read(&k.narrow(2, 0, 250).unwrap()));
            grown.push((read(&k), read(&v), read(&kept)));
        }
        assert_eq!(grown[0], grown[1]);
    }

    #[test]
    fn grows_past_one_step_and_refuses_beyond_max() {
        let mut cache = KvCache::new(shape());
        let block = kv(&vec![0.5; 2 * 300]);
        cache.append(0, &block, &block).unwrap();
        cache.commit(&[1; 300]);
        cache.append(0, &block, &block).unwrap();
        cache.commit(&[2; 300]);
        assert_eq!(cache.len(), 600);
        assert!(cache.append(0, &kv(&[1., 1.]), &kv(&[1., 1.])).is_err());
    }

    #[test]
    fn bytes_give_back_the_same_cache() {
        for dtype in [DType::F16, DType::F32] {
            let shape = KvShape { dtype, ..shape() };
            let mut cache = KvCache::new(shape.clone());
            for layer in 0..2 {
                let k = kv(&[layer as f32, 1.5, 2.0, -2.0]);
                cache
                    .append(layer, &k, &kv(&[0.25, 0.5, 0.75, 1.0]))
                    .unwrap();
            }
            cache.commit(&[7, 8]);
            let bytes = cache.to_bytes().unwrap();
            assert_eq!(bytes.len(), 2 * shape.token_bytes());
            let mut back = KvCache::from_bytes(shape.clone(), vec![7, 8], &bytes).unwrap();
            assert_eq!(back.tokens(), &[7, 8]);
            assert_eq!(back.to_bytes().unwrap(), bytes);
            let (k, _) = back.append(1, &kv(&[5., 5.]), &kv(&[6., 6.])).unwrap();
            assert_eq!(
                k.to_dtype(DType::F32)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f32>()
                    .unwrap(),
                vec![1., 1.5, 2., -2., 5., 5.]
            );
            assert!(KvCache::from_bytes(shape.clone(), vec![7], &bytes).is_err());
            assert!(KvCache::from_bytes(shape, vec![7, 8], &bytes[1..]).is_err());
        }
    }
}

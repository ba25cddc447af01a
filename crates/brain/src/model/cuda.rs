//! loopd's own CUDA kernels (`cuda.cu`, compiled to PTX by `build.rs`) for
//! the operations of a decode step that candle would run as several
//! kernels each: a new position's biases, rope and cache writes, attention
//! of one query row, a residual sum with its norm, and SiLU times up.

use super::attention::AttentionShape;
use super::hparams::RopeStyle;
use super::rope::Rope;
use crate::kv_cache::KvCache;
use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::cudarc::driver::{CudaSlice, CudaView, LaunchConfig, PushKernelArg};
use candle_core::cuda_backend::WrapErr;
use candle_core::{
    CpuStorage, CudaStorage, CustomOp2, CustomOp3, DType, Layout, Result, Shape, Storage, Tensor,
};
use std::ops::Deref;

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/cuda.ptx"));
const MODULE: &str = "loopd_decode";

/// Most keys the attention kernel takes: its scores live in shared memory.
const MAX_KEYS: usize = 8192;
/// Threads per attention block (the most a block may have); a head may be
/// at most this long.
const ATTENTION_THREADS: usize = 1024;

/// Attention of one new query row, `q` `(1, heads, 1, head_dim)`, over
/// `keys` and `values` `(1, kv_heads, len, head_dim)` (views of the f32 KV
/// cache), queries multiplied by `scale`, as one kernel. Returns `(1, 1,
/// heads * head_dim)`, or `None` where the kernel does not apply (not one
/// row, not f32, too long).
pub fn decode_attention(
    q: &Tensor,
    keys: &Tensor,
    values: &Tensor,
    shape: AttentionShape,
    scale: f32,
) -> Result<Option<Tensor>> {
    let len = keys.dim(2)?;
    let fits = shape.seq == 1
        && q.device().is_cuda()
        && [q.dtype(), keys.dtype(), values.dtype()] == [DType::F32; 3]
        && shape.head_dim <= ATTENTION_THREADS
        && (1..=MAX_KEYS).contains(&len);
    if !fits {
        return Ok(None);
    }
    let op = DecodeAttention { shape, scale };
    q.contiguous()?
        .apply_op3_no_bwd(keys, values, &op)
        .map(Some)
}

/// `silu(gate) * up` as one kernel, for f32 tensors on CUDA of one shape
/// whose rows are contiguous; `None` otherwise.
pub fn silu_times(gate: &Tensor, up: &Tensor) -> Result<Option<Tensor>> {
    let fits = gate.device().is_cuda()
        && gate.dtype() == DType::F32
        && up.dtype() == DType::F32
        && gate.shape() == up.shape()
        && rows(gate.layout()).is_some()
        && rows(up.layout()).is_some();
    if !fits {
        return Ok(None);
    }
    gate.apply_op2_no_bwd(up, &SiluTimes).map(Some)
}

/// One new position's projections, `(1, 1, width)` each, before their
/// biases and rope.
pub struct NewPosition<'a> {
    /// Queries, `heads * head_dim` wide.
    pub q: &'a Tensor,
    /// Keys, `kv_heads * head_dim` wide.
    pub k: &'a Tensor,
    /// Values, as wide as the keys.
    pub v: &'a Tensor,
    /// The biases of `q`, `k` and `v`, not yet added.
    pub biases: Option<[&'a Tensor; 3]>,
}

/// Adds the biases of one new position's queries, keys and values, turns
/// the queries and keys by `rope` at position `start`, and writes the keys
/// and values into layer `layer` of `cache`, as one kernel. Returns the
/// queries `(1, heads, 1, head_dim)` and the layer's keys and values of
/// every position, or `None` where the kernel does not apply (not CUDA, not
/// f32, not one position).
pub fn rope_store(
    new: NewPosition,
    shape: AttentionShape,
    rope: &Rope,
    cache: &mut KvCache,
    layer: usize,
) -> Result<Option<(Tensor, Tensor, Tensor)>> {
    let AttentionShape {
        heads,
        kv_heads,
        head_dim,
        seq,
        start,
        ..
    } = shape;
    let (cos, sin, style, rope_dims) = rope.tables();
    let tensors = [new.q, new.k, new.v]
        .into_iter()
        .chain(new.biases.into_iter().flatten());
    let fits = seq == 1
        && new.q.device().is_cuda()
        && cache.shape().dtype == DType::F32
        && tensors.clone().all(|t| t.dtype() == DType::F32)
        && head_dim <= ATTENTION_THREADS
        && rope_dims <= head_dim
        && start < cos.dim(0)?;
    if !fits {
        return Ok(None);
    }
    let widths = [heads * head_dim, kv_heads * head_dim, kv_heads * head_dim];
    for (t, width) in [new.q, new.k, new.v].into_iter().zip(widths) {
        if t.elem_count() != width || t.layout().contiguous_offsets().is_none() {
            return Ok(None);
        }
    }
    let mut queries = None;
    let (keys, values) = cache.append_with(layer, 1, |k_cache, v_cache, at| {
        let op = RopeStore {
            shape,
            style,
            rope_dims,
            position: at,
            cos: cos.clone(),
            sin: sin.clone(),
            k_cache: k_cache.clone(),
            v_cache: v_cache.clone(),
            biases: new.biases.map(|b| b.map(Tensor::clone)),
        };
        queries = Some(new.q.apply_op3_no_bwd(new.k, new.v, &op)?);
        Ok(())
    })?;
    let Some(queries) = queries else {
        candle_core::bail!("the rope-store kernel wrote no queries");
    };
    Ok(Some((queries, keys, values)))
}

/// `x + y` and that sum's RMS norm times `weight` (`eps` added to the mean
/// square), as one kernel, for `(1, rows, width)` f32 rows on CUDA; `None`
/// where the kernel does not apply. The two results are views of one
/// buffer.
pub fn add_rms_norm(
    x: &Tensor,
    y: &Tensor,
    weight: &Tensor,
    eps: f32,
) -> Result<Option<(Tensor, Tensor)>> {
    let fits = x.device().is_cuda()
        && [x.dtype(), y.dtype(), weight.dtype()] == [DType::F32; 3]
        && x.rank() == 3
        && x.dim(0)? == 1
        && x.shape() == y.shape()
        && weight.elem_count() == x.dim(2)?
        && [x, y, weight]
            .iter()
            .all(|t| t.layout().contiguous_offsets().is_some());
    if !fits {
        return Ok(None);
    }
    let both = x.apply_op3_no_bwd(y, weight, &AddRmsNorm { eps })?;
    Ok(Some((both.narrow(0, 0, 1)?, both.narrow(0, 1, 1)?)))
}

/// `(rows, width, row stride)` of a layout whose last dimension is
/// contiguous and whose other dimensions step through rows evenly.
fn rows(layout: &Layout) -> Option<(usize, usize, usize)> {
    let dims = layout.dims();
    let stride = layout.stride();
    let (&width, lead) = dims.split_last()?;
    if width == 0 || stride[dims.len() - 1] != 1 {
        return None;
    }
    let rows: usize = lead.iter().product();
    let mut row_stride = None;
    for (i, &dim) in lead.iter().enumerate().rev() {
        if dim == 1 {
            continue;
        }
        match row_stride {
            None => row_stride = Some((stride[i], dim)),
            Some(_) => return None,
        }
    }
    Some((rows, width, row_stride.map_or(width, |(s, _)| s)))
}

struct DecodeAttention {
    shape: AttentionShape,
    scale: f32,
}

impl DecodeAttention {
    /// `(head stride, keys)` of a keys or values view, checked.
    fn view(&self, layout: &Layout) -> Result<(usize, usize)> {
        let AttentionShape {
            kv_heads, head_dim, ..
        } = self.shape;
        let (dims, stride) = (layout.dims(), layout.stride());
        if dims.len() != 4
            || dims[0] != 1
            || dims[1] != kv_heads
            || dims[3] != head_dim
            || stride[2] != head_dim
            || stride[3] != 1
        {
            candle_core::bail!("decode attention keys have shape {dims:?} stride {stride:?}");
        }
        Ok((stride[1], dims[2]))
    }
}

impl CustomOp3 for DecodeAttention {
    fn name(&self) -> &'static str {
        "loopd-decode-attention"
    }

    fn cpu_fwd(
        &self,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        candle_core::bail!("the decode attention kernel runs on CUDA only")
    }

    fn cuda_fwd(
        &self,
        q: &CudaStorage,
        q_layout: &Layout,
        k: &CudaStorage,
        k_layout: &Layout,
        v: &CudaStorage,
        v_layout: &Layout,
    ) -> Result<(CudaStorage, Shape)> {
        let AttentionShape {
            heads,
            kv_heads,
            head_dim,
            ..
        } = self.shape;
        let width = heads * head_dim;
        let Some((q_start, q_end)) = q_layout.contiguous_offsets() else {
            candle_core::bail!("decode attention needs contiguous queries");
        };
        if q_end - q_start != width || kv_heads == 0 || heads % kv_heads != 0 {
            candle_core::bail!("decode attention queries have shape {:?}", q_layout.dims());
        }
        let (head_stride, len) = self.view(k_layout)?;
        if self.view(v_layout)? != (head_stride, len) {
            candle_core::bail!("decode attention keys and values differ in shape");
        }
        let device = q.device().clone();
        let q = q.as_cuda_slice::<f32>()?.slice(q_start..q_end);
        let k = k.as_cuda_slice::<f32>()?.slice(k_layout.start_offset()..);
        let v = v.as_cuda_slice::<f32>()?.slice(v_layout.start_offset()..);
        // SAFETY: the kernel writes every element.
        let out = unsafe { device.alloc::<f32>(width)? };
        let func = device.get_or_load_custom_func("loopd_decode_attention", MODULE, PTX)?;
        let config = LaunchConfig {
            grid_dim: (heads as u32, 1, 1),
            block_dim: (ATTENTION_THREADS as u32, 1, 1),
            shared_mem_bytes: ((head_dim + len) * std::mem::size_of::<f32>()) as u32,
        };
        let (head_dim, group, len) = (head_dim as i32, (heads / kv_heads) as i32, len as i32);
        let head_stride = head_stride as i64;
        let mut launch = func.builder();
        launch
            .arg(&q)
            .arg(&k)
            .arg(&v)
            .arg(&out)
            .arg(&head_dim)
            .arg(&group)
            .arg(&len)
            .arg(&head_stride)
            .arg(&self.scale);
        // SAFETY: the arguments match the kernel's signature, and every read
        // stays inside the views checked above.
        unsafe { launch.launch(config) }.w()?;
        Ok((
            CudaStorage::wrap_cuda_slice(out, device),
            Shape::from((1, 1, width)),
        ))
    }
}

struct SiluTimes;

impl CustomOp2 for SiluTimes {
    fn name(&self) -> &'static str {
        "loopd-silu-times"
    }

    fn cpu_fwd(
        &self,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        candle_core::bail!("the silu-times kernel runs on CUDA only")
    }

    fn cuda_fwd(
        &self,
        gate: &CudaStorage,
        gate_layout: &Layout,
        up: &CudaStorage,
        up_layout: &Layout,
    ) -> Result<(CudaStorage, Shape)> {
        let (Some((rows, width, gate_stride)), Some((_, _, up_stride))) =
            (rows(gate_layout), rows(up_layout))
        else {
            candle_core::bail!("silu-times needs rows with a contiguous last dimension");
        };
        let count = rows * width;
        let device = gate.device().clone();
        let gate = gate
            .as_cuda_slice::<f32>()?
            .slice(gate_layout.start_offset()..);
        let up = up.as_cuda_slice::<f32>()?.slice(up_layout.start_offset()..);
        // SAFETY: the kernel writes every element.
        let out = unsafe { device.alloc::<f32>(count)? };
        let func = device.get_or_load_custom_func("loopd_silu_times", MODULE, PTX)?;
        let config = LaunchConfig::for_num_elems(count as u32);
        let (rows, width) = (rows as i32, width as i32);
        let (gate_stride, up_stride) = (gate_stride as i64, up_stride as i64);
        let mut launch = func.builder();
        launch
            .arg(&gate)
            .arg(&up)
            .arg(&out)
            .arg(&rows)
            .arg(&width)
            .arg(&gate_stride)
            .arg(&up_stride);
        // SAFETY: the arguments match the kernel's signature, and every read
        // stays inside the row layouts checked above.
        unsafe { launch.launch(config) }.w()?;
        Ok((
            CudaStorage::wrap_cuda_slice(out, device),
            gate_layout.shape().clone(),
        ))
    }
}

/// A tensor's CUDA buffer, read-locked, and where its layout starts.
struct Held<G> {
    storage: G,
    start: usize,
}

/// Read-locks `t`'s buffer.
fn hold(t: &Tensor) -> Held<impl Deref<Target = Storage> + '_> {
    let (storage, layout) = t.storage_and_layout();
    Held {
        start: layout.start_offset(),
        storage,
    }
}

impl<G: Deref<Target = Storage>> Held<G> {
    /// The f32 buffer from `offset` elements past the layout's start.
    fn from(&self, offset: usize) -> Result<CudaView<'_, f32>> {
        let Storage::Cuda(storage) = &*self.storage else {
            candle_core::bail!("a fused kernel's tensor is not on CUDA");
        };
        Ok(storage.as_cuda_slice::<f32>()?.slice(self.start + offset..))
    }
}

struct RopeStore {
    shape: AttentionShape,
    style: RopeStyle,
    rope_dims: usize,
    position: usize,
    cos: Tensor,
    sin: Tensor,
    k_cache: Tensor,
    v_cache: Tensor,
    biases: Option<[Tensor; 3]>,
}

impl CustomOp3 for RopeStore {
    fn name(&self) -> &'static str {
        "loopd-rope-store"
    }

    fn cpu_fwd(
        &self,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        candle_core::bail!("the rope-store kernel runs on CUDA only")
    }

    fn cuda_fwd(
        &self,
        q: &CudaStorage,
        q_layout: &Layout,
        k: &CudaStorage,
        k_layout: &Layout,
        v: &CudaStorage,
        v_layout: &Layout,
    ) -> Result<(CudaStorage, Shape)> {
        let AttentionShape {
            heads,
            kv_heads,
            head_dim,
            ..
        } = self.shape;
        let (cache_dims, cache_stride) = (self.k_cache.dims(), self.k_cache.stride());
        if cache_dims.len() != 4
            || cache_dims[1] != kv_heads
            || cache_dims[3] != head_dim
            || self.position >= cache_dims[2]
            || cache_stride[2] != head_dim
            || cache_stride[3] != 1
            || self.v_cache.stride() != cache_stride
            || self.v_cache.dims() != cache_dims
        {
            candle_core::bail!("rope-store cache has shape {cache_dims:?} stride {cache_stride:?}");
        }
        let head_stride = cache_stride[1] as i64;
        let device = q.device().clone();
        let q = q.as_cuda_slice::<f32>()?.slice(q_layout.start_offset()..);
        let k = k.as_cuda_slice::<f32>()?.slice(k_layout.start_offset()..);
        let v = v.as_cuda_slice::<f32>()?.slice(v_layout.start_offset()..);
        let half = self.rope_dims / 2;
        let (cos, sin) = (hold(&self.cos), hold(&self.sin));
        let (cos, sin) = (
            cos.from(self.position * half)?,
            sin.from(self.position * half)?,
        );
        let row = self.position * head_dim;
        let (k_cache, v_cache) = (hold(&self.k_cache), hold(&self.v_cache));
        let (k_cache, v_cache) = (k_cache.from(row)?, v_cache.from(row)?);
        let biases = self.biases.as_ref().map(|b| b.each_ref().map(hold));
        let bias_views = match &biases {
            Some([qb, kb, vb]) => Some([qb.from(0)?, kb.from(0)?, vb.from(0)?]),
            None => None,
        };
        let [q_bias, k_bias, v_bias] = match &bias_views {
            Some([qb, kb, vb]) => [qb, kb, vb],
            None => [&q, &k, &v],
        };
        // SAFETY: the kernel writes every element.
        let out: CudaSlice<f32> = unsafe { device.alloc::<f32>(heads * head_dim)? };
        let func = device.get_or_load_custom_func("loopd_rope_store", MODULE, PTX)?;
        let config = LaunchConfig {
            grid_dim: ((heads + 2 * kv_heads) as u32, 1, 1),
            block_dim: (head_dim.next_multiple_of(32) as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let biased = i32::from(bias_views.is_some());
        let adjacent = i32::from(self.style == RopeStyle::AdjacentPairs);
        let (heads_i, kv_heads_i) = (heads as i32, kv_heads as i32);
        let (head_dim_i, rope_dims) = (head_dim as i32, self.rope_dims as i32);
        let mut launch = func.builder();
        launch
            .arg(&q)
            .arg(&k)
            .arg(&v)
            .arg(q_bias)
            .arg(k_bias)
            .arg(v_bias)
            .arg(&biased)
            .arg(&cos)
            .arg(&sin)
            .arg(&out)
            .arg(&k_cache)
            .arg(&v_cache)
            .arg(&heads_i)
            .arg(&kv_heads_i)
            .arg(&head_dim_i)
            .arg(&rope_dims)
            .arg(&adjacent)
            .arg(&head_stride);
        // SAFETY: the arguments match the kernel's signature; the caller
        // checked the projections' widths, and the cache's shape is checked
        // above, so every read and write stays inside its buffer.
        unsafe { launch.launch(config) }.w()?;
        Ok((
            CudaStorage::wrap_cuda_slice(out, device),
            Shape::from((1, heads, 1, head_dim)),
        ))
    }
}

struct AddRmsNorm {
    eps: f32,
}

impl CustomOp3 for AddRmsNorm {
    fn name(&self) -> &'static str {
        "loopd-add-rms-norm"
    }

    fn cpu_fwd(
        &self,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        candle_core::bail!("the add-rms-norm kernel runs on CUDA only")
    }

    fn cuda_fwd(
        &self,
        x: &CudaStorage,
        x_layout: &Layout,
        y: &CudaStorage,
        y_layout: &Layout,
        weight: &CudaStorage,
        weight_layout: &Layout,
    ) -> Result<(CudaStorage, Shape)> {
        let (_, rows, width) = x_layout.shape().dims3()?;
        let device = x.device().clone();
        let x = x.as_cuda_slice::<f32>()?.slice(x_layout.start_offset()..);
        let y = y.as_cuda_slice::<f32>()?.slice(y_layout.start_offset()..);
        let weight = weight
            .as_cuda_slice::<f32>()?
            .slice(weight_layout.start_offset()..);
        // SAFETY: the kernel writes every element.
        let out = unsafe { device.alloc::<f32>(2 * rows * width)? };
        let func = device.get_or_load_custom_func("loopd_add_rms_norm", MODULE, PTX)?;
        let config = LaunchConfig {
            grid_dim: (rows as u32, 1, 1),
            block_dim: (width.clamp(32, 1024).next_multiple_of(32) as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let (rows_i, width_i) = (rows as i32, width as i32);
        let mut launch = func.builder();
        launch
            .arg(&x)
            .arg(&y)
            .arg(&weight)
            .arg(&out)
            .arg(&rows_i)
            .arg(&width_i)
            .arg(&self.eps);
        // SAFETY: the arguments match the kernel's signature; `add_rms_norm`
        // checked that x and y are contiguous rows of one shape and that the
        // weight is one row long.
        unsafe { launch.launch(config) }.w()?;
        Ok((
            CudaStorage::wrap_cuda_slice(out, device),
            Shape::from((2, rows, width)),
        ))
    }
}

//! loopd's own CUDA kernels (`cuda.cu`, compiled to PTX by `build.rs`) for
//! the operations of a decode step that candle would run as several
//! kernels each: attention of one query row, and SiLU times up.

use super::attention::AttentionShape;
use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::cudarc::driver::{LaunchConfig, PushKernelArg};
use candle_core::cuda_backend::WrapErr;
use candle_core::{
    CpuStorage, CudaStorage, CustomOp2, CustomOp3, DType, Layout, Result, Shape, Tensor,
};

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

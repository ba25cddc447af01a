//! Weight matrices: loopd's own quantized products on the CPU, candle's
//! `QMatMul` for other types and devices.

use super::quant::{self, Kernel, Q8Rows, QMatrix};
use candle_core::quantized::{QMatMul, QTensor};
use candle_core::{DType, Device, Module, Result, Storage, Tensor};
use std::sync::Arc;

/// A quantized weight matrix.
enum Weight {
    Candle(QMatMul),
    Packed(QMatrix),
}

/// A weight matrix (quantized) with an optional bias.
pub(super) struct Linear {
    weight: Weight,
    bias: Option<Tensor>,
}

impl Linear {
    /// Takes over `weight` (`out × in`, as stored in GGUF). A matrix on the
    /// CPU of a type loopd has kernels for, that candle would keep quantized
    /// (it dequantizes all under `CANDLE_DEQUANTIZE_ALL`), is packed for
    /// loopd's kernels and the candle copy freed.
    pub(super) fn new(weight: QTensor, bias: Option<Tensor>) -> Result<Self> {
        Self::shared(Arc::new(weight), bias)
    }

    /// [`Linear::new`] for a tensor that may have other owners (tied
    /// embeddings): packing copies it, and the candle copy is freed when
    /// the last owner lets go.
    pub(super) fn shared(weight: Arc<QTensor>, bias: Option<Tensor>) -> Result<Self> {
        let weight = match QMatMul::from_arc(weight)? {
            QMatMul::QTensor(t) if QMatrix::supports(t.dtype()) && t.device().is_cpu() => {
                Weight::Packed(QMatrix::from_qtensor(&t)?)
            }
            other => Weight::Candle(other),
        };
        Ok(Linear { weight, bias })
    }

    /// `x · weightᵀ + bias` over the last dimension of `x`.
    pub(super) fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match &self.weight {
            Weight::Candle(w) => self.add_bias(w.forward(x)?),
            Weight::Packed(_) => {
                let mut out = project_packed(&[self], x)?;
                out.pop()
                    .ok_or_else(|| candle_core::Error::Msg("projection gave no output".into()))
            }
        }
    }

    /// `x · weightᵀ`, and the bias still to be added to it: for a kernel
    /// that adds the bias with other work. Packed weights add it themselves
    /// (their products write it in the same pass) and return no bias.
    pub(super) fn forward_unbiased(&self, x: &Tensor) -> Result<(Tensor, Option<&Tensor>)> {
        match &self.weight {
            Weight::Candle(w) => Ok((w.forward(x)?, self.bias.as_ref())),
            Weight::Packed(_) => Ok((self.forward(x)?, None)),
        }
    }

    /// Whether the weights are packed for loopd's kernels.
    pub(super) fn is_packed(&self) -> bool {
        matches!(self.weight, Weight::Packed(_))
    }

    /// The weights packed for loopd's kernels, if they are, with no bias.
    pub(super) fn packed(&self) -> Option<&QMatrix> {
        match (&self.weight, &self.bias) {
            (Weight::Packed(w), None) => Some(w),
            _ => None,
        }
    }

    /// The rows `ids` of a packed weight matrix, as `(ids.len(), cols)`
    /// (an embedding lookup in a tied output matrix).
    pub(super) fn rows_of(&self, ids: &[u32], device: &Device) -> Result<Tensor> {
        let Weight::Packed(w) = &self.weight else {
            candle_core::bail!("only packed weights are looked up by row");
        };
        Tensor::from_vec(w.rows_of(ids)?, (ids.len(), w.cols()), device)
    }

    fn add_bias(&self, y: Tensor) -> Result<Tensor> {
        match &self.bias {
            Some(b) => y.broadcast_add(b),
            None => Ok(y),
        }
    }
}

/// Applies several projections of the same input. Packed weights share one
/// quantization of the input and one parallel pass; for one token, candle
/// runs its quantized types as one fused pass too.
pub(super) fn project_all(linears: &[&Linear], x: &Tensor) -> Result<Vec<Tensor>> {
    if linears
        .iter()
        .all(|l| matches!(l.weight, Weight::Packed(_)))
    {
        return project_packed(linears, x);
    }
    if x.dim(1)? == 1 && x.device().is_cpu() {
        let quantized: Option<Vec<_>> = linears
            .iter()
            .map(|l| match &l.weight {
                Weight::Candle(QMatMul::QTensor(t)) => Some(t.as_ref()),
                _ => None,
            })
            .collect();
        if let Some(weights) = quantized {
            if let Some(outs) = QTensor::gemv_fused_shared_lhs(&weights, x)? {
                return linears
                    .iter()
                    .zip(outs)
                    .map(|(l, y)| l.add_bias(y))
                    .collect();
            }
        }
    }
    linears.iter().map(|l| l.forward(x)).collect()
}

/// The packed projections of `x` (f32 on the CPU, any leading dimensions).
fn project_packed(linears: &[&Linear], x: &Tensor) -> Result<Vec<Tensor>> {
    let weights: Vec<&QMatrix> = linears
        .iter()
        .filter_map(|l| match &l.weight {
            Weight::Packed(w) => Some(w),
            Weight::Candle(_) => None,
        })
        .collect();
    if weights.len() != linears.len() {
        candle_core::bail!("mixed packed and candle projections");
    }
    let dims = x.dims().to_vec();
    let Some((&cols, lead)) = dims.split_last() else {
        candle_core::bail!("cannot project a scalar");
    };
    let x = x.to_dtype(DType::F32)?.contiguous()?;
    let quantized = quantized(&x, cols)?;
    let outs = quant::matmul(Kernel::best(), &weights, &quantized)?;
    linears
        .iter()
        .zip(weights)
        .zip(outs)
        .map(|((l, w), out)| {
            let mut shape = lead.to_vec();
            shape.push(w.rows());
            l.add_bias(Tensor::from_vec(out, shape, x.device())?)
        })
        .collect()
}

/// The rows of `cols` values of `x` (f32, contiguous, on the CPU),
/// quantized for the packed products.
pub(super) fn quantized(x: &Tensor, cols: usize) -> Result<Q8Rows> {
    let (storage, layout) = x.storage_and_layout();
    let Storage::Cpu(storage) = &*storage else {
        candle_core::bail!("the packed products run on the CPU only");
    };
    let data = storage.as_slice::<f32>()?;
    let start = layout.start_offset();
    let data = data
        .get(start..start + x.elem_count())
        .ok_or_else(|| candle_core::Error::Msg("input shorter than its shape".into()))?;
    Q8Rows::quantize(data, cols)
}

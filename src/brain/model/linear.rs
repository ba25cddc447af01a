//! Weight matrices: loopd's own Q4_1 product on the CPU, candle's
//! `QMatMul` for every other type and device.

use super::q4_1::{self, Kernel, Q4_1Matrix, Q8_1Rows};
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{DType, Module, Result, Storage, Tensor};

/// A quantized weight matrix.
enum Weight {
    Candle(QMatMul),
    Q4_1(Q4_1Matrix),
}

/// A weight matrix (quantized) with an optional bias.
pub(super) struct Linear {
    weight: Weight,
    bias: Option<Tensor>,
}

impl Linear {
    /// Takes over `weight` (`out × in`, as stored in GGUF). A Q4_1 matrix on
    /// the CPU that candle would keep quantized (it dequantizes all under
    /// `CANDLE_DEQUANTIZE_ALL`) is copied to loopd's own blocks and the
    /// candle copy freed.
    pub(super) fn new(weight: QTensor, bias: Option<Tensor>) -> Result<Self> {
        let weight = match QMatMul::from_qtensor(weight)? {
            QMatMul::QTensor(t) if t.dtype() == GgmlDType::Q4_1 && t.device().is_cpu() => {
                Weight::Q4_1(Q4_1Matrix::from_qtensor(&t)?)
            }
            other => Weight::Candle(other),
        };
        Ok(Linear { weight, bias })
    }

    /// `x · weightᵀ + bias` over the last dimension of `x`.
    pub(super) fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match &self.weight {
            Weight::Candle(w) => self.add_bias(w.forward(x)?),
            Weight::Q4_1(_) => {
                let mut out = project_q4_1(&[self], x)?;
                out.pop()
                    .ok_or_else(|| candle_core::Error::Msg("projection gave no output".into()))
            }
        }
    }

    fn add_bias(&self, y: Tensor) -> Result<Tensor> {
        match &self.bias {
            Some(b) => y.broadcast_add(b),
            None => Ok(y),
        }
    }
}

/// Applies several projections of the same input. Q4_1 weights share one
/// quantization of the input and one parallel pass; for one token, candle
/// runs its quantized types as one fused pass too.
pub(super) fn project_all(linears: &[&Linear], x: &Tensor) -> Result<Vec<Tensor>> {
    if linears.iter().all(|l| matches!(l.weight, Weight::Q4_1(_))) {
        return project_q4_1(linears, x);
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

/// The Q4_1 projections of `x` (f32 on the CPU, any leading dimensions).
fn project_q4_1(linears: &[&Linear], x: &Tensor) -> Result<Vec<Tensor>> {
    let weights: Vec<&Q4_1Matrix> = linears
        .iter()
        .filter_map(|l| match &l.weight {
            Weight::Q4_1(w) => Some(w),
            Weight::Candle(_) => None,
        })
        .collect();
    if weights.len() != linears.len() {
        candle_core::bail!("mixed Q4_1 and other projections");
    }
    let dims = x.dims().to_vec();
    let Some((&cols, lead)) = dims.split_last() else {
        candle_core::bail!("cannot project a scalar");
    };
    let x = x.to_dtype(DType::F32)?.contiguous()?;
    let quantized = {
        let (storage, layout) = x.storage_and_layout();
        let Storage::Cpu(storage) = &*storage else {
            candle_core::bail!("the Q4_1 product runs on the CPU only");
        };
        let data = storage.as_slice::<f32>()?;
        let start = layout.start_offset();
        let data = data
            .get(start..start + x.elem_count())
            .ok_or_else(|| candle_core::Error::Msg("input shorter than its shape".into()))?;
        Q8_1Rows::quantize(data, cols)?
    };
    let outs = q4_1::matmul(Kernel::best(), &weights, &quantized)?;
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

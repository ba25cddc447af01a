//! The gated feed-forward activation, `act(gate) * up`.
//!
//! On the CPU, SiLU's product is written over the gate's own buffer: the
//! widest activations of a layer (`tokens × feed_forward` floats) then need
//! two buffers instead of four, which is most of a small model's working set
//! during prefill. On CUDA it is one kernel of loopd's own.

use candle_core::{CpuStorage, DType, InplaceOp2, Layout, Result, Tensor};

/// `act(gate) * up`, where `act` is GELU (tanh form) or SiLU. Consumes both.
/// If `gate_owns_its_buffer` (no other tensor views it), SiLU's result is
/// written there.
pub fn gated(gate: Tensor, up: Tensor, gelu: bool, gate_owns_its_buffer: bool) -> Result<Tensor> {
    let in_place = !gelu
        && gate_owns_its_buffer
        && gate.device().is_cpu()
        && gate.dtype() == DType::F32
        && up.dtype() == DType::F32
        && gate.is_contiguous()
        && up.is_contiguous()
        && gate.shape() == up.shape();
    if in_place {
        gate.inplace_op2(&up, &SiluTimes)?;
        return Ok(gate);
    }
    #[cfg(feature = "cuda")]
    if !gelu && super::gpu_fusion() {
        if let Some(out) = super::cuda::silu_times(&gate, &up)? {
            return Ok(out);
        }
    }
    let act = if gelu {
        gate.gelu()?
    } else {
        candle_nn::ops::silu(&gate)?
    };
    drop(gate);
    act * up
}

/// `gate = silu(gate) * up`, elementwise, with candle's SiLU formula (so the
/// result is the out-of-place one bit for bit).
struct SiluTimes;

impl InplaceOp2 for SiluTimes {
    fn name(&self) -> &'static str {
        "silu-times"
    }

    fn cpu_fwd(
        &self,
        gate: &mut CpuStorage,
        gate_layout: &Layout,
        up: &CpuStorage,
        up_layout: &Layout,
    ) -> Result<()> {
        let (Some((g0, g1)), Some((u0, u1))) = (
            gate_layout.contiguous_offsets(),
            up_layout.contiguous_offsets(),
        ) else {
            candle_core::bail!("silu-times needs contiguous tensors");
        };
        let (CpuStorage::F32(gate), CpuStorage::F32(up)) = (gate, up) else {
            candle_core::bail!("silu-times runs on f32");
        };
        let (gate, up) = (&mut gate[g0..g1], &up[u0..u1]);
        if gate.len() != up.len() {
            candle_core::bail!("silu-times of {} and {} values", gate.len(), up.len());
        }
        for (g, u) in gate.iter_mut().zip(up) {
            *g = *g / (1.0 + (-*g).exp()) * u;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn in_place_silu_is_the_out_of_place_one_bit_for_bit() {
        let gate = Tensor::randn(0f32, 3.0, (7, 33), &Device::Cpu).unwrap();
        let up = Tensor::randn(0f32, 1.0, (7, 33), &Device::Cpu).unwrap();
        let expected = (candle_nn::ops::silu(&gate).unwrap() * &up)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        let fresh = gate.copy().unwrap();
        let ours = gated(fresh, up, false, true)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        assert_eq!(ours, expected);
    }

    #[test]
    fn a_gate_that_shares_its_buffer_is_not_overwritten() {
        let both = Tensor::randn(0f32, 1.0, (1, 10), &Device::Cpu).unwrap();
        let gate = both.narrow(1, 0, 5).unwrap();
        let up = both.narrow(1, 5, 5).unwrap();
        let before = both.to_vec2::<f32>().unwrap();
        let out = gated(gate.clone(), up.clone(), false, false).unwrap();
        assert_eq!(both.to_vec2::<f32>().unwrap(), before, "input was written");
        let expected = (candle_nn::ops::silu(&gate).unwrap() * &up).unwrap();
        assert_eq!(
            out.to_vec2::<f32>().unwrap(),
            expected.to_vec2::<f32>().unwrap()
        );
    }
}

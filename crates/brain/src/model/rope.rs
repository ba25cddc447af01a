//! Rotary position embeddings: each pair of a head's first `dims` values
//! turned by an angle that grows with the position.
//!
//! On the CPU the rows are turned where they lie, `(1, seq, heads,
//! head_dim)` as the projection wrote them: no transposed copy and no second
//! buffer. Elsewhere candle's kernels turn a transposed copy. Both compute
//! `x0·cos − x1·sin, x0·sin + x1·cos` in the same order, so they agree bit
//! for bit.

use super::hparams::RopeStyle;
use candle_core::{CpuStorage, DType, Device, InplaceOp1, Layout, Result, Storage, Tensor};

/// Precomputed rotary embedding angles for every position.
pub struct Rope {
    cos: Tensor,
    sin: Tensor,
    style: RopeStyle,
    dims: usize,
}

impl Rope {
    /// Angles for `positions` positions, rotating the first `dims` values of
    /// each head; `freq_factors` divide the per-pair frequencies.
    pub fn new(
        base: f64,
        dims: usize,
        positions: usize,
        freq_factors: Option<&[f32]>,
        style: RopeStyle,
        device: &Device,
    ) -> Result<Self> {
        let half = dims / 2;
        let inv_freq: Vec<f32> = (0..half)
            .map(|i| {
                let f = 1.0 / base.powf(2.0 * i as f64 / dims as f64);
                let factor = freq_factors
                    .and_then(|fs| fs.get(i))
                    .copied()
                    .unwrap_or(1.0) as f64;
                (f / factor) as f32
            })
            .collect();
        let mut angles = Vec::with_capacity(positions * half);
        for p in 0..positions {
            angles.extend(inv_freq.iter().map(|f| p as f32 * f));
        }
        let angles = Tensor::from_vec(angles, (positions, half), device)?;
        Ok(Rope {
            cos: angles.cos()?,
            sin: angles.sin()?,
            style,
            dims,
        })
    }

    /// Rotates `x`, `(1, seq, heads, head_dim)` at positions
    /// `start..start+seq`, and returns it as `(1, heads, seq, head_dim)`: on
    /// the CPU a transposed view of `x`'s own buffer, whose elements it
    /// overwrites (so no tensor still in use may view those elements).
    pub fn rotate(&self, x: Tensor, start: usize) -> Result<Tensor> {
        if !x.device().is_cpu() || x.dtype() != DType::F32 {
            return self.apply(&x.transpose(1, 2)?, start);
        }
        let (_, seq, _, head_dim) = x.dims4()?;
        if start + seq > self.cos.dim(0)? {
            candle_core::bail!("positions up to {} have no rope angles", start + seq);
        }
        let x = x.contiguous()?;
        let (cos, cos_layout) = self.cos.storage_and_layout();
        let (sin, sin_layout) = self.sin.storage_and_layout();
        let (Storage::Cpu(cos), Storage::Cpu(sin)) = (&*cos, &*sin) else {
            candle_core::bail!("the rope tables of a CPU model are on another device");
        };
        x.inplace_op1(&TurnRows {
            cos: &cos.as_slice::<f32>()?[cos_layout.start_offset()..],
            sin: &sin.as_slice::<f32>()?[sin_layout.start_offset()..],
            style: self.style,
            dims: self.dims,
            head_dim,
            start,
        })?;
        x.transpose(1, 2)
    }

    /// The angles' cosines and sines, `(positions, dims / 2)`, how values
    /// are paired, and how many of a head's values turn: for a kernel that
    /// turns them itself.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn tables(&self) -> (&Tensor, &Tensor, RopeStyle, usize) {
        (&self.cos, &self.sin, self.style, self.dims)
    }

    /// Rotates `x`, `(1, heads, seq, head_dim)`, with candle's kernels.
    pub fn apply(&self, x: &Tensor, start: usize) -> Result<Tensor> {
        let (_, _, seq, head_dim) = x.dims4()?;
        let cos = self.cos.narrow(0, start, seq)?;
        let sin = self.sin.narrow(0, start, seq)?;
        let rotate = |t: &Tensor| match self.style {
            RopeStyle::AdjacentPairs => candle_nn::rotary_emb::rope_i(t, &cos, &sin),
            RopeStyle::Halves => candle_nn::rotary_emb::rope(t, &cos, &sin),
        };
        if self.dims == head_dim {
            rotate(&x.contiguous()?)
        } else {
            let rotated = rotate(&x.narrow(3, 0, self.dims)?.contiguous()?)?;
            let kept = x.narrow(3, self.dims, head_dim - self.dims)?;
            Tensor::cat(&[rotated, kept], 3)?.contiguous()
        }
    }
}

/// Turns the heads of `(1, seq, heads, head_dim)` rows in place.
struct TurnRows<'a> {
    /// `cos` of every position's angles, `dims / 2` to a position.
    cos: &'a [f32],
    sin: &'a [f32],
    style: RopeStyle,
    dims: usize,
    head_dim: usize,
    start: usize,
}

impl InplaceOp1 for TurnRows<'_> {
    fn name(&self) -> &'static str {
        "rope-in-place"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let (Some((from, to)), CpuStorage::F32(data)) = (layout.contiguous_offsets(), storage)
        else {
            candle_core::bail!("rope in place needs contiguous f32 rows");
        };
        let heads = layout.dims()[2];
        let half = self.dims / 2;
        for (row, head) in data[from..to].chunks_exact_mut(self.head_dim).enumerate() {
            let at = (self.start + row / heads) * half;
            let (cos, sin) = (&self.cos[at..at + half], &self.sin[at..at + half]);
            for j in 0..half {
                let (a, b) = match self.style {
                    RopeStyle::AdjacentPairs => (2 * j, 2 * j + 1),
                    RopeStyle::Halves => (j, j + half),
                };
                let (x0, x1) = (head[a], head[b]);
                head[a] = x0 * cos[j] - x1 * sin[j];
                head[b] = x0 * sin[j] + x1 * cos[j];
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_in_place_is_candles_rope_bit_for_bit() {
        for style in [RopeStyle::AdjacentPairs, RopeStyle::Halves] {
            for (head_dim, dims) in [(16, 16), (16, 8)] {
                let rope = Rope::new(10000.0, dims, 40, None, style, &Device::Cpu).unwrap();
                for (seq, start) in [(5, 0), (1, 17), (9, 30)] {
                    let x = Tensor::randn(0f32, 1.0, (1, seq, 3, head_dim), &Device::Cpu).unwrap();
                    let expected = rope.apply(&x.transpose(1, 2).unwrap(), start).unwrap();
                    let ours = rope.rotate(x.copy().unwrap(), start).unwrap();
                    assert_eq!(ours.dims(), expected.dims());
                    let flat = |t: &Tensor| {
                        t.contiguous()
                            .unwrap()
                            .flatten_all()
                            .unwrap()
                            .to_vec1::<f32>()
                            .unwrap()
                    };
                    assert_eq!(
                        flat(&ours),
                        flat(&expected),
                        "{style:?} dims {dims}/{head_dim} seq {seq} start {start}"
                    );
                }
            }
        }
    }

    #[test]
    fn positions_past_the_tables_are_an_error() {
        let rope = Rope::new(10000.0, 8, 4, None, RopeStyle::Halves, &Device::Cpu).unwrap();
        let x = Tensor::zeros((1, 2, 1, 8), DType::F32, &Device::Cpu).unwrap();
        assert!(rope.rotate(x, 3).is_err());
    }
}

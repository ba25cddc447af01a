//! A decoder-only transformer over quantized GGUF weights.
//!
//! One implementation covers the supported architectures; they differ in a
//! few switches (biases, q/k norms, sandwich norms, fused projections, GELU,
//! sliding-window layers), all read from the file in [`HyperParams`] and from
//! which tensors are present. The model owns only its weights: the attention
//! cache is a [`KvCache`] the caller passes to every forward pass.

mod attention;
#[cfg(feature = "cuda")]
mod cuda;
mod gated;
mod head;
mod hparams;
mod linear;
pub mod quant;
mod rope;
mod vector;

pub use head::Logits;
pub use hparams::{Arch, HyperParams, RopeStyle, SUPPORTED};

use super::gguf::{GgufError, GgufFile};
use super::kv_cache::{KvCache, KvShape};
use attention::AttentionShape;
use candle_core::quantized::QMatMul;
use candle_core::{DType, Device, Result, Tensor, D};
use head::CoarseHead;
use hparams::GEMMA3_LOCAL_ROPE_BASE;
use linear::{project_all, Linear};
use rope::Rope;

/// The most prompt tokens computed per forward pass during prefill: bounds
/// the activations' memory and lets cancellation land between chunks.
pub const PREFILL_CHUNK: usize = 256;

/// A prefill pass's widest activations (the gate's and up's `rows ×
/// feed_forward` f32s) are kept within this fraction of the weights' bytes:
/// on a small model (SmolLM2-135M, 1536 wide for 92 MiB of weights) 256 rows
/// would add 3 MiB to the peak, so it computes 128 at a time.
const ACTIVATIONS_PER_WEIGHTS: f64 = 1.0 / 40.0;

/// Rows per prefill pass for a model of `weight_bytes` and a feed-forward
/// layer `feed_forward` wide: [`PREFILL_CHUNK`], halved (down to 64) while
/// the activations exceed [`ACTIVATIONS_PER_WEIGHTS`] of the weights.
fn prefill_rows(weight_bytes: usize, feed_forward: usize) -> usize {
    let mut rows = PREFILL_CHUNK;
    while rows > 64
        && (rows * feed_forward * 2 * std::mem::size_of::<f32>()) as f64
            > weight_bytes as f64 * ACTIVATIONS_PER_WEIGHTS
    {
        rows /= 2;
    }
    rows
}

/// How a block computes queries, keys and values.
enum QkvProjection {
    Separate { q: Linear, k: Linear, v: Linear },
    Fused(Linear),
}

/// The feed-forward half of a block.
enum FeedForward {
    Gated {
        gate: Linear,
        up: Linear,
        down: Linear,
        gelu: bool,
    },
    FusedGateUp {
        gate_up: Linear,
        down: Linear,
    },
}

/// One transformer block.
struct Block {
    attn_norm: Tensor,
    qkv: QkvProjection,
    q_norm: Option<Tensor>,
    k_norm: Option<Tensor>,
    attn_out: Linear,
    post_attn_norm: Option<Tensor>,
    ffn_norm: Tensor,
    ffn: FeedForward,
    post_ffn_norm: Option<Tensor>,
    sliding: bool,
}

/// Where a token's embedding is looked up.
enum Embeddings {
    /// Its own table.
    Own(QMatMul),
    /// The rows of the (tied) output matrix, packed for loopd's kernels.
    Output,
    /// The rows of the coarse copy of the output matrix ([`CoarseHead`]).
    Coarse,
}

/// A loaded model: weights and the constants to run them.
pub struct Model {
    hp: HyperParams,
    embeddings: Embeddings,
    embedding_scale: Option<f64>,
    blocks: Vec<Block>,
    output_norm: Tensor,
    output: Linear,
    coarse: Option<CoarseHead>,
    /// Whether greedy decoding reads the coarse head first.
    coarse_on: bool,
    rope: Rope,
    local_rope: Option<Rope>,
    vocab: usize,
    max_positions: usize,
    prefill_rows: usize,
    device: Device,
    row_wise_attention: bool,
}

impl Model {
    /// Loads the weights of a GGUF file onto `device`. `max_positions` caps
    /// the context window (and the size of the rope tables).
    pub fn load(
        gguf: &mut GgufFile,
        device: &Device,
        max_positions: usize,
    ) -> std::result::Result<Self, GgufError> {
        let model = Self::load_weights(gguf, device, max_positions);
        loopd_alloc::release_kept();
        model
    }

    /// [`Model::load`], leaving the file's freed tensors in the kept blocks.
    fn load_weights(
        gguf: &mut GgufFile,
        device: &Device,
        max_positions: usize,
    ) -> std::result::Result<Self, GgufError> {
        let hp = HyperParams::from_gguf(gguf)?;
        let e = hp.embedding;
        let q_width = hp.heads * hp.head_dim;
        let kv_width = hp.kv_heads * hp.head_dim;
        let vocab = gguf
            .tensor_shape("token_embd.weight")
            .and_then(|dims| dims.first().copied())
            .ok_or_else(|| gguf.error("tensor `token_embd.weight` is missing"))?;
        if vocab == 0 {
            return Err(gguf.error("tensor `token_embd.weight` has no rows (vocabulary size 0)"));
        }
        let max_positions = max_positions.min(hp.context_length).max(1);

        let token_embd = gguf.tensor("token_embd.weight", &[vocab, e], device)?;
        let token_embd = std::sync::Arc::new(token_embd);
        let qmatmul = |t: std::sync::Arc<candle_core::quantized::QTensor>, gguf: &GgufFile| {
            QMatMul::from_arc(t).map_err(|err| gguf.error(err.to_string()))
        };
        let load_error = |gguf: &GgufFile, err: candle_core::Error| gguf.error(err.to_string());
        let (output, embeddings, coarse) = if gguf.has_tensor("output.weight") {
            let t = gguf.tensor("output.weight", &[vocab, e], device)?;
            let output = Linear::new(t, None).map_err(|err| load_error(gguf, err))?;
            match coarse_head(&output, &token_embd).map_err(|err| load_error(gguf, err))? {
                Some(coarse) => {
                    drop(token_embd);
                    (output, Embeddings::Coarse, Some(coarse))
                }
                None => (output, Embeddings::Own(qmatmul(token_embd, gguf)?), None),
            }
        } else {
            let output =
                Linear::shared(token_embd.clone(), None).map_err(|err| load_error(gguf, err))?;
            if output.is_packed() {
                // The packed copy is the only one now: the file's is freed
                // before the layers load beside it.
                drop(token_embd);
                (output, Embeddings::Output, None)
            } else {
                (output, Embeddings::Own(qmatmul(token_embd, gguf)?), None)
            }
        };
        let output_norm = vector(gguf, "output_norm.weight", e, device)?;

        let mut blocks = Vec::with_capacity(hp.layers);
        for i in 0..hp.layers {
            let name = |part: &str| format!("blk.{i}.{part}");
            let linear = |gguf: &mut GgufFile,
                          part: &str,
                          rows: usize,
                          cols: usize|
             -> std::result::Result<Linear, GgufError> {
                let weight =
                    gguf.tensor(&name(&format!("{part}.weight")), &[rows, cols], device)?;
                let bias_name = name(&format!("{part}.bias"));
                let bias = if gguf.has_tensor(&bias_name) {
                    Some(vector(gguf, &bias_name, rows, device)?)
                } else {
                    None
                };
                Linear::new(weight, bias).map_err(|err| gguf.error(err.to_string()))
            };
            let optional_vector = |gguf: &mut GgufFile, part: &str, len: usize| {
                let n = name(part);
                if gguf.has_tensor(&n) {
                    vector(gguf, &n, len, device).map(Some)
                } else {
                    Ok(None)
                }
            };
            let qkv = if gguf.has_tensor(&name("attn_qkv.weight")) {
                QkvProjection::Fused(linear(gguf, "attn_qkv", q_width + 2 * kv_width, e)?)
            } else if let Some(qkv) = stack_on_gpu(
                gguf,
                device,
                &[
                    (name("attn_q"), q_width),
                    (name("attn_k"), kv_width),
                    (name("attn_v"), kv_width),
                ],
                e,
            )? {
                QkvProjection::Fused(qkv)
            } else {
                QkvProjection::Separate {
                    q: linear(gguf, "attn_q", q_width, e)?,
                    k: linear(gguf, "attn_k", kv_width, e)?,
                    v: linear(gguf, "attn_v", kv_width, e)?,
                }
            };
            let gelu = hp.arch == Arch::Gemma3;
            let stacked_gate_up = if gelu || !gguf.has_tensor(&name("ffn_gate.weight")) {
                None
            } else {
                stack_on_gpu(
                    gguf,
                    device,
                    &[
                        (name("ffn_gate"), hp.feed_forward),
                        (name("ffn_up"), hp.feed_forward),
                    ],
                    e,
                )?
            };
            let ffn = if let Some(gate_up) = stacked_gate_up {
                FeedForward::FusedGateUp {
                    gate_up,
                    down: linear(gguf, "ffn_down", e, hp.feed_forward)?,
                }
            } else if gguf.has_tensor(&name("ffn_gate.weight")) {
                FeedForward::Gated {
                    gate: linear(gguf, "ffn_gate", hp.feed_forward, e)?,
                    up: linear(gguf, "ffn_up", hp.feed_forward, e)?,
                    down: linear(gguf, "ffn_down", e, hp.feed_forward)?,
                    gelu,
                }
            } else {
                FeedForward::FusedGateUp {
                    gate_up: linear(gguf, "ffn_up", 2 * hp.feed_forward, e)?,
                    down: linear(gguf, "ffn_down", e, hp.feed_forward)?,
                }
            };
            blocks.push(Block {
                attn_norm: vector(gguf, &name("attn_norm.weight"), e, device)?,
                qkv,
                q_norm: optional_vector(gguf, "attn_q_norm.weight", hp.head_dim)?,
                k_norm: optional_vector(gguf, "attn_k_norm.weight", hp.head_dim)?,
                attn_out: linear(gguf, "attn_output", e, q_width)?,
                post_attn_norm: optional_vector(gguf, "post_attention_norm.weight", e)?,
                ffn_norm: vector(gguf, &name("ffn_norm.weight"), e, device)?,
                ffn,
                post_ffn_norm: optional_vector(gguf, "post_ffw_norm.weight", e)?,
                sliding: hp.is_sliding(i),
            });
        }

        let freq_factors = if gguf.has_tensor("rope_freqs.weight") {
            let t = vector(gguf, "rope_freqs.weight", hp.rope_dims / 2, &Device::Cpu)?;
            Some(
                t.to_vec1::<f32>()
                    .map_err(|err| gguf.error(err.to_string()))?,
            )
        } else {
            None
        };
        let style = hp.arch.rope_style();
        let rope = Rope::new(
            hp.rope_base,
            hp.rope_dims,
            max_positions,
            freq_factors.as_deref(),
            style,
            device,
        )
        .map_err(|err| gguf.error(err.to_string()))?;
        let local_rope = match hp.sliding_window {
            Some(_) => Some(
                Rope::new(
                    GEMMA3_LOCAL_ROPE_BASE,
                    hp.rope_dims,
                    max_positions,
                    None,
                    style,
                    device,
                )
                .map_err(|err| gguf.error(err.to_string()))?,
            ),
            None => None,
        };
        let prefill_rows = prefill_rows(gguf.tensor_bytes(), hp.feed_forward);
        let coarse_on = match (&coarse, output.packed(), coarse_head_setting()) {
            (Some(_), Some(_), Some(on)) => on,
            (Some(coarse), Some(exact), None) => {
                quant::install(|| coarse.pays(exact)).map_err(|err| load_error(gguf, err))?
            }
            _ => false,
        };
        Ok(Model {
            embedding_scale: (hp.arch == Arch::Gemma3).then(|| (e as f64).sqrt()),
            hp,
            embeddings,
            blocks,
            output_norm,
            output,
            coarse,
            coarse_on,
            rope,
            local_rope,
            vocab,
            max_positions,
            prefill_rows,
            row_wise_attention: device.is_cpu(),
            device: device.clone(),
        })
    }

    /// The hyper-parameters.
    pub fn hparams(&self) -> &HyperParams {
        &self.hp
    }

    /// Rows of the embedding table: every token id must be below this.
    pub fn vocab_size(&self) -> usize {
        self.vocab
    }

    /// The context window in use (the file's, capped at load).
    pub fn max_positions(&self) -> usize {
        self.max_positions
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Computes attention with tensor operations (as on GPUs) instead of the
    /// CPU's row-wise kernel; lets tests check the GPU formulation on a CPU.
    pub fn use_tensor_attention(&mut self) {
        self.row_wise_attention = false;
    }

    /// An empty cache shaped for this model. On the CPU it keeps f16, as
    /// llama.cpp does: half the memory of f32, and the row-wise attention
    /// widens each key once per call. GPUs keep f32 for their tensor
    /// attention.
    pub fn new_cache(&self) -> KvCache {
        self.new_cache_of(if self.device.is_cpu() {
            DType::F16
        } else {
            DType::F32
        })
    }

    /// An empty cache that keeps `dtype` (f16 or f32 on the CPU; f32 on
    /// GPUs): f32 makes the whole forward pass plain f32 arithmetic, for
    /// comparing with an f32 reference.
    pub fn new_cache_of(&self, dtype: DType) -> KvCache {
        KvCache::new(KvShape {
            layers: self.hp.layers,
            kv_heads: self.hp.kv_heads,
            head_dim: self.hp.head_dim,
            max_tokens: self.max_positions,
            dtype,
            device: self.device.clone(),
        })
    }

    /// Runs a prompt after what `cache` holds, at most [`PREFILL_CHUNK`]
    /// tokens per pass (see [`prefill_rows`]), asking `go_on` before each;
    /// the logits after its last token as greedy decoding needs them
    /// ([`Model::forward_logits`]), or `None` when stopped or given no
    /// tokens. The allocator's kept blocks are given back after it: sized
    /// for the prompt's activations, decoding never asks for them again.
    pub fn prefill_logits(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        go_on: impl Fn() -> bool,
    ) -> Result<Option<Logits>> {
        let mut last = None;
        for chunk in tokens.chunks(self.prefill_rows) {
            if !go_on() {
                last = None;
                break;
            }
            last = Some(self.forward_logits(chunk, cache, 1)?.remove(0));
        }
        loopd_alloc::release_kept();
        Ok(last)
    }

    /// Like [`Model::forward_rows`], but each row's logits as greedy
    /// decoding needs them: where the file holds a coarser copy of the
    /// output matrix, exact only for the tokens that could be the largest
    /// ([`Logits`]; [`Model::complete`] gives the rest).
    pub fn forward_logits(
        &self,
        tokens: &[u32],
        cache: &mut KvCache,
        rows: usize,
    ) -> Result<Vec<Logits>> {
        let coarse = self.coarse.as_ref().filter(|_| self.coarse_on);
        let (Some(coarse), Some(output)) = (coarse, self.output.packed()) else {
            let logits = self.forward_rows(tokens, cache, rows)?;
            return Ok(logits
                .to_vec2::<f32>()?
                .into_iter()
                .map(Logits::exact)
                .collect());
        };
        let logits = quant::install(|| {
            let hidden = self.hidden_here(tokens, cache, rows)?;
            let hidden = hidden.to_dtype(DType::F32)?.contiguous()?;
            coarse.logits(output, linear::quantized(&hidden, self.hp.embedding)?)
        });
        loopd_alloc::end_of_pass();
        logits
    }

    /// Whether the file holds a coarser copy of the output matrix that
    /// greedy decoding can read first ([`Model::forward_logits`]).
    pub fn has_coarse_head(&self) -> bool {
        self.coarse.is_some()
    }

    /// Whether greedy decoding reads the coarse head first: chosen at load,
    /// where its products are clearly faster on this CPU.
    pub fn coarse_head_on(&self) -> bool {
        self.coarse_on && self.coarse.is_some()
    }

    /// Turns reading the coarse head first on or off (to compare the two).
    pub fn use_coarse_head(&mut self, on: bool) {
        self.coarse_on = on;
    }

    /// The token greedy decoding picks from `logits`: the largest finite
    /// logit, the first on ties.
    pub fn greedy(&self, logits: Logits) -> Result<u32> {
        let token = crate::sampler::argmax(logits.values());
        match logits.is_sure(token) {
            true => Ok(token),
            false => Ok(crate::sampler::argmax(self.complete(logits)?.values())),
        }
    }

    /// `logits` with every value exact.
    pub fn complete(&self, logits: Logits) -> Result<Logits> {
        match self.output.packed() {
            Some(output) => logits.completed(output),
            None => Ok(logits),
        }
    }

    /// Runs `tokens` after what `cache` holds, stores their keys and values
    /// in `cache`, and returns the logits for the token after the last one
    /// (a `vocab`-long f32 vector).
    pub fn forward(&self, tokens: &[u32], cache: &mut KvCache) -> Result<Tensor> {
        self.forward_rows(tokens, cache, 1)?.squeeze(0)
    }

    /// Like [`Model::forward`], but returns the logits after each of the
    /// last `rows` tokens, `(rows, vocab)`: row `i` predicts the token after
    /// `tokens[tokens.len() - rows + i]` (to check several drafted tokens in
    /// one pass).
    pub fn forward_rows(&self, tokens: &[u32], cache: &mut KvCache, rows: usize) -> Result<Tensor> {
        if self.device.is_cpu() {
            let logits = quant::install(|| self.forward_here(tokens, cache, rows));
            loopd_alloc::end_of_pass();
            logits
        } else {
            self.forward_here(tokens, cache, rows)
        }
    }

    fn forward_here(&self, tokens: &[u32], cache: &mut KvCache, rows: usize) -> Result<Tensor> {
        let last = self.hidden_here(tokens, cache, rows)?;
        self.output.forward(&last)?.squeeze(0)?.to_dtype(DType::F32)
    }

    /// Runs `tokens` as [`Model::forward_rows`] does, up to the output
    /// matrix: the normed states of the last `rows`, `(1, rows, width)`.
    fn hidden_here(&self, tokens: &[u32], cache: &mut KvCache, rows: usize) -> Result<Tensor> {
        let seq = tokens.len();
        if seq == 0 {
            candle_core::bail!("forward needs at least one token");
        }
        if rows == 0 || rows > seq {
            candle_core::bail!("logits for {rows} rows asked of {seq} tokens");
        }
        if let Some(bad) = tokens.iter().find(|&&t| t as usize >= self.vocab) {
            candle_core::bail!("token id {bad} is outside the vocabulary of {}", self.vocab);
        }
        let start = cache.len();
        if start + seq > self.max_positions {
            candle_core::bail!(
                "{} tokens exceed the context window of {}",
                start + seq,
                self.max_positions
            );
        }
        let mut x = match &self.embeddings {
            Embeddings::Own(table) => {
                table.embedding(&Tensor::new(tokens, &self.device)?.unsqueeze(0)?)?
            }
            Embeddings::Output => self.output.rows_of(tokens, &self.device)?.unsqueeze(0)?,
            Embeddings::Coarse => match &self.coarse {
                Some(coarse) => Tensor::from_vec(
                    coarse.table().rows_of(tokens)?,
                    (1, tokens.len(), self.hp.embedding),
                    &self.device,
                )?,
                None => candle_core::bail!("the coarse head is missing"),
            },
        };
        if let Some(scale) = self.embedding_scale {
            x = (x * scale)?;
        }
        let total = start + seq;
        let masked = seq > 1 && !self.row_wise_attention;
        let causal = masked
            .then(|| attention_mask(seq, start, None, &self.device))
            .transpose()?;
        let windowed = match self.hp.sliding_window {
            Some(w) if total > w && masked => {
                Some(attention_mask(seq, start, Some(w), &self.device)?)
            }
            _ => causal.clone(),
        };
        let mut pending = None;
        for (i, block) in self.blocks.iter().enumerate() {
            let (rope, mask) = match (block.sliding, &self.local_rope) {
                (true, Some(local)) => (local, windowed.as_ref()),
                _ => (&self.rope, causal.as_ref()),
            };
            (x, pending) = self.block_forward(block, i, x, pending, start, rope, mask, cache)?;
        }
        cache.commit(tokens);
        let last = x.narrow(1, seq - rows, rows)?;
        let pending = pending.map(|p| p.narrow(1, seq - rows, rows)).transpose()?;
        let (_, last) = add_norm(last, pending, &self.output_norm, self.hp.norm_eps)?;
        Ok(last)
    }

    /// One block, given the residual stream `x` and the last block's output
    /// not yet added to it (`pending`: the sum is made with the norm that
    /// follows it); returns the stream and this block's output, likewise
    /// not yet added. Takes its inputs by value, and drops every
    /// intermediate as soon as it is used, so that few activation buffers
    /// are alive at once.
    #[allow(clippy::too_many_arguments)]
    fn block_forward(
        &self,
        block: &Block,
        index: usize,
        x: Tensor,
        pending: Option<Tensor>,
        start: usize,
        rope: &Rope,
        mask: Option<&Tensor>,
        cache: &mut KvCache,
    ) -> Result<(Tensor, Option<Tensor>)> {
        let eps = self.hp.norm_eps;
        let (x, h) = add_norm(x, pending, &block.attn_norm, eps)?;
        let mut attn = self.attention(block, index, h, start, rope, mask, cache)?;
        if let Some(norm) = &block.post_attn_norm {
            attn = rms_norm(&attn, norm, eps)?;
        }
        let (x, h) = add_norm(x, Some(attn), &block.ffn_norm, eps)?;
        let mut ffn = feed_forward(&block.ffn, h)?;
        if let Some(norm) = &block.post_ffn_norm {
            ffn = rms_norm(&ffn, norm, eps)?;
        }
        Ok((x, Some(ffn)))
    }

    #[allow(clippy::too_many_arguments)]
    fn attention(
        &self,
        block: &Block,
        index: usize,
        x: Tensor,
        start: usize,
        rope: &Rope,
        mask: Option<&Tensor>,
        cache: &mut KvCache,
    ) -> Result<Tensor> {
        let hp = &self.hp;
        let (_, seq, _) = x.dims3()?;
        let (hd, heads, kv_heads) = (hp.head_dim, hp.heads, hp.kv_heads);
        let shape = AttentionShape {
            heads,
            kv_heads,
            head_dim: hd,
            seq,
            start,
            window: if block.sliding {
                hp.sliding_window
            } else {
                None
            },
        };
        let projected = project_qkv(block, &x, heads * hd, kv_heads * hd)?;
        drop(x);
        #[cfg(feature = "cuda")]
        let fused = if gpu_fusion() && block.q_norm.is_none() && block.k_norm.is_none() {
            let new = cuda::NewPosition {
                q: &projected.q,
                k: &projected.k,
                v: &projected.v,
                biases: projected.biases.as_ref().map(|b| b.each_ref()),
            };
            cuda::rope_store(new, shape, rope, cache, index)?
        } else {
            None
        };
        #[cfg(not(feature = "cuda"))]
        let fused = None;
        let (q, keys, values) = match fused {
            Some(done) => done,
            None => rope_and_store(block, index, projected, shape, rope, cache, hp.norm_eps)?,
        };
        let scale = 1.0 / (hd as f64).sqrt();
        let out = if self.row_wise_attention {
            attention::attend(&q, &keys, &values, shape, scale as f32)?
        } else {
            gpu_attention(&q, keys, values, shape, scale, mask)?
        };
        drop(q);
        block.attn_out.forward(&out)
    }
}

/// Finishes a block's new queries, keys and values with candle's
/// operations (biases, q/k norms, rope) and stores the keys and values in
/// `cache`: the queries `(1, heads, seq, head_dim)` and the layer's keys and
/// values of every position.
fn rope_and_store(
    block: &Block,
    index: usize,
    projected: Projected,
    shape: AttentionShape,
    rope: &Rope,
    cache: &mut KvCache,
    eps: f64,
) -> Result<(Tensor, Tensor, Tensor)> {
    let Projected { q, k, v, biases } = projected;
    let AttentionShape {
        heads,
        kv_heads,
        head_dim,
        seq,
        start,
        ..
    } = shape;
    let (q, k, v) = match biases {
        Some([qb, kb, vb]) => (
            q.broadcast_add(&qb)?,
            k.broadcast_add(&kb)?,
            v.broadcast_add(&vb)?,
        ),
        None => (q, k, v),
    };
    let split_heads = |t: Tensor, n: usize| t.reshape((1, seq, n, head_dim));
    let mut q = split_heads(q, heads)?;
    let mut k = split_heads(k, kv_heads)?;
    let v = split_heads(v, kv_heads)?.transpose(1, 2)?;
    if let Some(norm) = &block.q_norm {
        q = rms_norm(&q.contiguous()?, norm, eps)?;
    }
    if let Some(norm) = &block.k_norm {
        k = rms_norm(&k.contiguous()?, norm, eps)?;
    }
    let q = rope.rotate(q, start)?;
    let k = rope.rotate(k, start)?;
    let (keys, values) = cache.append(index, &k, &v)?;
    Ok((q, keys, values))
}

/// A block's queries, keys and values of one input.
struct Projected {
    q: Tensor,
    k: Tensor,
    v: Tensor,
    /// The biases of `q`, `k` and `v`, where a GPU kernel is to add them.
    biases: Option<[Tensor; 3]>,
}

/// The queries (`q_width` wide), keys and values (`kv_width`) of `x`.
fn project_qkv(block: &Block, x: &Tensor, q_width: usize, kv_width: usize) -> Result<Projected> {
    let split = |all: &Tensor| -> Result<[Tensor; 3]> {
        Ok([
            all.narrow(D::Minus1, 0, q_width)?,
            all.narrow(D::Minus1, q_width, kv_width)?,
            all.narrow(D::Minus1, q_width + kv_width, kv_width)?,
        ])
    };
    let ([q, k, v], biases) = match &block.qkv {
        QkvProjection::Separate { q, k, v } if x.device().is_cpu() => {
            let mut out = project_all(&[q, k, v], x)?.into_iter();
            match (out.next(), out.next(), out.next()) {
                (Some(q), Some(k), Some(v)) => ([q, k, v], None),
                _ => candle_core::bail!("projection returned too few outputs"),
            }
        }
        QkvProjection::Separate { q, k, v } => {
            let ((q, qb), (k, kb), (v, vb)) = (
                q.forward_unbiased(x)?,
                k.forward_unbiased(x)?,
                v.forward_unbiased(x)?,
            );
            match (qb, kb, vb) {
                (Some(qb), Some(kb), Some(vb)) => {
                    ([q, k, v], Some([qb, kb, vb].map(Tensor::clone)))
                }
                (qb, kb, vb) => {
                    let add = |t: Tensor, b: Option<&Tensor>| {
                        b.map_or(Ok(t.clone()), |b| t.broadcast_add(b))
                    };
                    ([add(q, qb)?, add(k, kb)?, add(v, vb)?], None)
                }
            }
        }
        QkvProjection::Fused(qkv) => {
            let (all, bias) = qkv.forward_unbiased(x)?;
            (split(&all)?, bias.map(split).transpose()?)
        }
    };
    Ok(Projected { q, k, v, biases })
}

/// `x + y` (where there is a `y`) and the sum's RMS norm times `weight`:
/// one kernel on CUDA.
fn add_norm(x: Tensor, y: Option<Tensor>, weight: &Tensor, eps: f64) -> Result<(Tensor, Tensor)> {
    let Some(y) = y else {
        let h = rms_norm(&x, weight, eps)?;
        return Ok((x, h));
    };
    #[cfg(feature = "cuda")]
    if gpu_fusion() {
        if let Some(both) = cuda::add_rms_norm(&x, &y, weight, eps as f32)? {
            return Ok(both);
        }
    }
    let x = (x + y)?;
    let h = rms_norm(&x, weight, eps)?;
    Ok((x, h))
}

/// Attention on a GPU: one kernel for a decoded token on CUDA, tensor
/// operations otherwise.
fn gpu_attention(
    q: &Tensor,
    keys: Tensor,
    values: Tensor,
    shape: AttentionShape,
    scale: f64,
    mask: Option<&Tensor>,
) -> Result<Tensor> {
    #[cfg(feature = "cuda")]
    {
        let total = shape.start + shape.seq;
        let (keys, values) = match (shape.window, shape.seq) {
            (Some(w), 1) if total > w => (
                keys.narrow(2, total - w, w)?,
                values.narrow(2, total - w, w)?,
            ),
            _ => (keys.clone(), values.clone()),
        };
        if gpu_fusion() {
            if let Some(out) = cuda::decode_attention(q, &keys, &values, shape, scale as f32)? {
                return Ok(out);
            }
        }
    }
    tensor_attention(&(q * scale)?, keys, values, shape, mask)
}

/// Attention as tensor operations, for GPUs. Query heads that share a
/// key/value head are stacked as extra rows, so grouped-query attention needs
/// no copies of the keys and values.
fn tensor_attention(
    q: &Tensor,
    mut keys: Tensor,
    mut values: Tensor,
    shape: AttentionShape,
    mut mask: Option<&Tensor>,
) -> Result<Tensor> {
    let AttentionShape {
        heads,
        kv_heads,
        head_dim,
        seq,
        start,
        window,
    } = shape;
    let total = start + seq;
    if let (Some(w), 1) = (window, seq) {
        if total > w {
            keys = keys.narrow(2, total - w, w)?;
            values = values.narrow(2, total - w, w)?;
            mask = None;
        }
    }
    let group = heads / kv_heads;
    let (keys, values) = (keys.to_dtype(q.dtype())?, values.to_dtype(q.dtype())?);
    let q = q.reshape((1, kv_heads, group * seq, head_dim))?;
    let scores = q.matmul(&keys.t()?)?;
    let scores = match mask {
        Some(mask) => {
            let keys_len = scores.dim(D::Minus1)?;
            scores
                .reshape((1, kv_heads, group, seq, keys_len))?
                .broadcast_add(mask)?
                .reshape((1, kv_heads, group * seq, keys_len))?
        }
        None => scores,
    };
    let probs = candle_nn::ops::softmax_last_dim(&scores)?;
    probs
        .matmul(&values.contiguous()?)?
        .reshape((1, heads, seq, head_dim))?
        .transpose(1, 2)?
        .reshape((1, seq, heads * head_dim))
}

/// The feed-forward half of a block; consumes its input, and each
/// intermediate as soon as the next one is computed.
fn feed_forward(ffn: &FeedForward, x: Tensor) -> Result<Tensor> {
    let (hidden, down) = match ffn {
        FeedForward::Gated {
            gate,
            up,
            down,
            gelu,
        } => {
            let mut out = project_all(&[gate, up], &x)?.into_iter();
            drop(x);
            let (Some(g), Some(u)) = (out.next(), out.next()) else {
                candle_core::bail!("projection returned too few outputs");
            };
            (gated::gated(g, u, *gelu, true)?, down)
        }
        FeedForward::FusedGateUp { gate_up, down } => {
            let both = gate_up.forward(&x)?;
            drop(x);
            let half = both.dim(D::Minus1)? / 2;
            let g = both.narrow(D::Minus1, 0, half)?;
            let u = both.narrow(D::Minus1, half, half)?;
            (gated::gated(g, u, false, false)?, down)
        }
    };
    down.forward(&hidden)
}

fn rms_norm(x: &Tensor, weight: &Tensor, eps: f64) -> Result<Tensor> {
    candle_nn::ops::rms_norm(&x.contiguous()?, weight, eps as f32)
}

/// An additive mask `(seq, start + seq)`: 0 where query `i` (at position
/// `start + i`) may attend to key `j`, −∞ elsewhere — future keys, and keys
/// older than the window when there is one.
fn attention_mask(
    seq: usize,
    start: usize,
    window: Option<usize>,
    device: &Device,
) -> Result<Tensor> {
    let total = start + seq;
    let mut mask = Vec::with_capacity(seq * total);
    for i in 0..seq {
        let pos = start + i;
        for j in 0..total {
            let future = j > pos;
            let too_old = window.is_some_and(|w| pos - j.min(pos) >= w);
            mask.push(if future || too_old {
                f32::NEG_INFINITY
            } else {
                0.0
            });
        }
    }
    Tensor::from_vec(mask, (seq, total), device)
}

/// Whether a GPU model takes loopd's fused decode path: stacked
/// projections and loopd's own CUDA kernels. `LOOPD_CUDA_FUSION=off` runs
/// candle's generic operations instead, to measure what fusion gives.
fn gpu_fusion() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("LOOPD_CUDA_FUSION").map_or(true, |v| v != "off"))
}

/// On a GPU, the weight matrices `parts` (name without `.weight`, rows;
/// `cols` columns each) as one stacked [`Linear`], with their biases
/// stacked too: one product and one launch in place of several, which is
/// what a GPU decode step is bound by. `None` on the CPU (its kernels share
/// one pass already), or where the parts differ in type or in having a bias.
fn stack_on_gpu(
    gguf: &mut GgufFile,
    device: &Device,
    parts: &[(String, usize)],
    cols: usize,
) -> std::result::Result<Option<Linear>, GgufError> {
    if device.is_cpu() || !gpu_fusion() {
        return Ok(None);
    }
    let weights: Vec<(String, usize)> = parts
        .iter()
        .map(|(name, rows)| (format!("{name}.weight"), *rows))
        .collect();
    let types: Vec<_> = weights.iter().map(|(w, _)| gguf.tensor_type(w)).collect();
    let biased: Vec<bool> = parts
        .iter()
        .map(|(name, _)| gguf.has_tensor(&format!("{name}.bias")))
        .collect();
    let one_type = types[0].is_some() && types.iter().all(|t| *t == types[0]);
    let all_or_none_biased = biased.iter().all(|b| *b == biased[0]);
    if !one_type || !all_or_none_biased {
        return Ok(None);
    }
    let named: Vec<(&str, usize)> = weights.iter().map(|(w, r)| (w.as_str(), *r)).collect();
    let weight = gguf.stacked_tensor(&named, cols, device)?;
    let bias = if biased[0] {
        let biases = parts
            .iter()
            .map(|(name, rows)| vector(gguf, &format!("{name}.bias"), *rows, device))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Some(Tensor::cat(&biases, 0).map_err(|err| gguf.error(err.to_string()))?)
    } else {
        None
    };
    Linear::new(weight, bias)
        .map(Some)
        .map_err(|err| gguf.error(err.to_string()))
}

/// Reads a 1-D tensor (norm weight, bias) as f32.
fn vector(
    gguf: &mut GgufFile,
    name: &str,
    len: usize,
    device: &Device,
) -> std::result::Result<Tensor, GgufError> {
    let t = gguf.tensor(name, &[len], device)?;
    t.dequantize(device)
        .map_err(|e| gguf.error(format!("cannot dequantize `{name}`: {e}")))
}

/// `LOOPD_COARSE_HEAD=on` or `off`: whether greedy decoding reads the
/// coarse head first, whatever the load-time measurement says (to compare
/// the two side by side).
fn coarse_head_setting() -> Option<bool> {
    match std::env::var("LOOPD_COARSE_HEAD").ok()?.as_str() {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// The coarse head of `output` in `token_embd`, when both are packed for
/// loopd's kernels, of one shape, and the table takes fewer bytes.
fn coarse_head(
    output: &Linear,
    token_embd: &candle_core::quantized::QTensor,
) -> Result<Option<CoarseHead>> {
    let Some(exact) = output.packed() else {
        return Ok(None);
    };
    if !quant::QMatrix::supports(token_embd.dtype()) || !token_embd.device().is_cpu() {
        return Ok(None);
    }
    let table = quant::QMatrix::from_qtensor(token_embd)?;
    let smaller = table.bytes() < exact.bytes();
    let same_shape = (table.rows(), table.cols()) == (exact.rows(), exact.cols());
    match smaller && same_shape {
        true => Ok(Some(CoarseHead::new(table, exact)?)),
        false => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_models_prefill_takes_fewer_rows_per_pass() {
        // The tensor bytes and feed-forward widths of the shipped models.
        assert_eq!(prefill_rows(96_573_184, 1536), 128, "SmolLM2-135M");
        assert_eq!(prefill_rows(491_000_000, 4864), 256, "Qwen2.5-0.5B");
        assert_eq!(prefill_rows(1_117_000_000, 8960), 256, "Qwen2.5-1.5B");
        assert_eq!(prefill_rows(1_000_000, 1536), 64, "never under 64");
    }

    #[test]
    fn mask_is_causal_and_windowed() {
        let m = attention_mask(2, 1, None, &Device::Cpu)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        assert_eq!(m[0], vec![0.0, 0.0, f32::NEG_INFINITY]);
        assert_eq!(m[1], vec![0.0, 0.0, 0.0]);
        let m = attention_mask(1, 3, Some(2), &Device::Cpu)
            .unwrap()
            .to_vec2::<f32>()
            .unwrap();
        assert_eq!(m[0], vec![f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0, 0.0]);
    }
}

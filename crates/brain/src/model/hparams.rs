//! A model's hyper-parameters, read from GGUF metadata and checked.

use crate::gguf::{GgufError, GgufFile};

/// The GGUF architectures loopd can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// Llama 2/3, SmolLM2, and other Llama-shaped models.
    Llama,
    /// Qwen2 / Qwen2.5: Llama with biases on q, k and v.
    Qwen2,
    /// Qwen3: per-head RMS norm on q and k.
    Qwen3,
    /// Gemma 3: scaled embeddings, sandwich norms, GELU, sliding-window layers.
    Gemma3,
    /// Phi-3: fused qkv and gate/up projections.
    Phi3,
}

impl Arch {
    /// Parses `general.architecture`.
    pub fn from_name(name: &str) -> Option<Arch> {
        Some(match name {
            "llama" => Arch::Llama,
            "qwen2" => Arch::Qwen2,
            "qwen3" => Arch::Qwen3,
            "gemma3" => Arch::Gemma3,
            "phi3" => Arch::Phi3,
            _ => return None,
        })
    }

    /// The GGUF name, also the prefix of its metadata keys.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Llama => "llama",
            Arch::Qwen2 => "qwen2",
            Arch::Qwen3 => "qwen3",
            Arch::Gemma3 => "gemma3",
            Arch::Phi3 => "phi3",
        }
    }

    /// How rotary embeddings pair up dimensions. llama.cpp stores Llama's q/k
    /// weights permuted for adjacent pairs; the others rotate the two halves.
    pub fn rope_style(self) -> RopeStyle {
        match self {
            Arch::Llama => RopeStyle::AdjacentPairs,
            _ => RopeStyle::Halves,
        }
    }
}

/// Names of the supported architectures, for error messages.
pub const SUPPORTED: &str = "llama, qwen2, qwen3, gemma3, phi3";

/// Which dimensions a rotary embedding rotates together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RopeStyle {
    /// (0,1), (2,3), … — GGML's "normal" rope.
    AdjacentPairs,
    /// (0,d/2), (1,d/2+1), … — GGML's "neox" rope.
    Halves,
}

/// Sizes and constants of a transformer, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct HyperParams {
    /// The architecture.
    pub arch: Arch,
    /// Transformer blocks.
    pub layers: usize,
    /// Width of the residual stream.
    pub embedding: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (divides `heads`).
    pub kv_heads: usize,
    /// Size of one head.
    pub head_dim: usize,
    /// Hidden size of the feed-forward block.
    pub feed_forward: usize,
    /// Context window the model was trained for.
    pub context_length: usize,
    /// RMS norm epsilon.
    pub norm_eps: f64,
    /// Rotary embedding base frequency.
    pub rope_base: f64,
    /// Leading dimensions of each head that are rotated.
    pub rope_dims: usize,
    /// Window of the sliding-window layers (Gemma 3), if any.
    pub sliding_window: Option<usize>,
}

/// Gemma 3's local layers use this rope base; its global layers use the file's.
pub const GEMMA3_LOCAL_ROPE_BASE: f64 = 10_000.0;
/// In Gemma 3, every sixth layer attends globally; the others use the window.
pub const GEMMA3_GLOBAL_EVERY: usize = 6;

impl HyperParams {
    /// Reads and checks the hyper-parameters of the file's architecture.
    pub fn from_gguf(gguf: &GgufFile) -> Result<Self, GgufError> {
        let arch_name = gguf.architecture()?;
        let arch = Arch::from_name(&arch_name).ok_or_else(|| {
            gguf.error(format!(
                "architecture `{arch_name}` is not supported (supported: {SUPPORTED})"
            ))
        })?;
        let key = |k: &str| format!("{}.{k}", arch.name());
        let layers = gguf.usize_in(&key("block_count"), 1..=1024)?;
        let embedding = gguf.usize_in(&key("embedding_length"), 1..=1 << 17)?;
        let heads = gguf.usize_in(&key("attention.head_count"), 1..=4096)?;
        let kv_heads = gguf
            .opt_usize_in(&key("attention.head_count_kv"), 1..=4096)?
            .unwrap_or(heads);
        if heads % kv_heads != 0 {
            return Err(gguf.error(format!(
                "{kv_heads} key/value heads do not divide {heads} query heads"
            )));
        }
        let head_dim = match gguf.opt_usize_in(&key("attention.key_length"), 2..=4096)? {
            Some(d) => d,
            None if embedding % heads == 0 => embedding / heads,
            None => {
                return Err(gguf.error(format!(
                    "{heads} attention heads do not divide the embedding width {embedding}"
                )))
            }
        };
        if let Some(v) = gguf.opt_usize_in(&key("attention.value_length"), 1..=4096)? {
            if v != head_dim {
                return Err(gguf.error(format!(
                    "key length {head_dim} and value length {v} differ; not supported"
                )));
            }
        }
        if head_dim % 2 != 0 {
            return Err(gguf.error(format!(
                "head size {head_dim} is odd; rotary embeddings need it even"
            )));
        }
        let rope_dims = gguf
            .opt_usize_in(&key("rope.dimension_count"), 2..=head_dim)?
            .unwrap_or(head_dim);
        if rope_dims % 2 != 0 {
            return Err(gguf.error(format!("rope dimension count {rope_dims} is odd")));
        }
        let feed_forward = gguf.usize_in(&key("feed_forward_length"), 1..=1 << 20)?;
        let context_length = gguf.usize_in(&key("context_length"), 1..=1 << 24)?;
        let norm_eps = gguf
            .opt_positive_f64(&key("attention.layer_norm_rms_epsilon"))?
            .unwrap_or(1e-6);
        let rope_base = gguf
            .opt_positive_f64(&key("rope.freq_base"))?
            .unwrap_or(10_000.0);
        let sliding_window = match arch {
            Arch::Gemma3 => Some(
                gguf.opt_usize_in(&key("attention.sliding_window"), 1..=1 << 24)?
                    .unwrap_or(512),
            ),
            _ => None,
        };
        Ok(HyperParams {
            arch,
            layers,
            embedding,
            heads,
            kv_heads,
            head_dim,
            feed_forward,
            context_length,
            norm_eps,
            rope_base,
            rope_dims,
            sliding_window,
        })
    }

    /// Whether layer `index` attends only within the sliding window.
    pub fn is_sliding(&self, index: usize) -> bool {
        self.sliding_window.is_some() && !(index + 1).is_multiple_of(GEMMA3_GLOBAL_EVERY)
    }
}

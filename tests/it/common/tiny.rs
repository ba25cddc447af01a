//! Tiny random-weight GGUF files for every supported architecture, written
//! with candle's GGUF writer. They prove that an architecture loads and
//! generates, and they are the raw material for damaged-file tests.

use candle_core::quantized::gguf_file::{self, Value};
use candle_core::quantized::{GgmlDType, QTensor};
use candle_core::{Device, Tensor};
use std::path::Path;

/// A GGUF file under construction.
pub struct Tiny {
    pub metadata: Vec<(String, Value)>,
    pub tensors: Vec<(String, QTensor)>,
}

const EMBD: usize = 64;
const HEADS: usize = 4;
const KV_HEADS: usize = 2;
const FFN: usize = 128;

fn random(shape: &[usize], seed: u64) -> QTensor {
    let n: usize = shape.iter().product();
    // A small deterministic pseudo-random generator: tests must not depend on luck.
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let values: Vec<f32> = (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2
        })
        .collect();
    let t = Tensor::from_vec(values, shape, &Device::Cpu).unwrap();
    let dtype = if shape.len() == 2 {
        GgmlDType::Q8_0
    } else {
        GgmlDType::F32
    };
    QTensor::quantize(&t, dtype).unwrap()
}

fn ones(len: usize) -> QTensor {
    let t = Tensor::ones(len, candle_core::DType::F32, &Device::Cpu).unwrap();
    QTensor::quantize(&t, GgmlDType::F32).unwrap()
}

fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::String(s.clone())).collect())
}

/// GPT-2's byte-to-character map, in byte order.
fn byte_level_alphabet() -> Vec<String> {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut next = 256u32;
    (0..=255u8)
        .map(|b| {
            if printable(b) {
                char::from(b).to_string()
            } else {
                let c = char::from_u32(next).unwrap();
                next += 1;
                c.to_string()
            }
        })
        .collect()
}

impl Tiny {
    /// A tiny model of `arch` (`llama`, `qwen2`, `qwen3`, `gemma3`, `phi3`).
    pub fn new(arch: &str) -> Self {
        let mut tiny = Tiny {
            metadata: Vec::new(),
            tensors: Vec::new(),
        };
        let head_dim = match arch {
            "qwen3" | "gemma3" => 32,
            _ => EMBD / HEADS,
        };
        let layers = if arch == "gemma3" { 6 } else { 2 };
        let key = |k: &str| format!("{arch}.{k}");
        tiny.set("general.architecture", Value::String(arch.into()));
        tiny.set("general.name", Value::String(format!("tiny-{arch}")));
        tiny.set(&key("block_count"), Value::U32(layers as u32));
        tiny.set(&key("embedding_length"), Value::U32(EMBD as u32));
        tiny.set(&key("attention.head_count"), Value::U32(HEADS as u32));
        tiny.set(&key("attention.head_count_kv"), Value::U32(KV_HEADS as u32));
        tiny.set(&key("feed_forward_length"), Value::U32(FFN as u32));
        tiny.set(&key("context_length"), Value::U32(256));
        tiny.set(&key("attention.layer_norm_rms_epsilon"), Value::F32(1e-6));
        tiny.set(&key("rope.freq_base"), Value::F32(10000.0));
        if head_dim != EMBD / HEADS {
            tiny.set(&key("attention.key_length"), Value::U32(head_dim as u32));
            tiny.set(&key("attention.value_length"), Value::U32(head_dim as u32));
        }
        if arch == "gemma3" {
            tiny.set(&key("attention.sliding_window"), Value::U32(4));
        }

        let vocab = if arch == "gemma3" {
            tiny.sentencepiece_vocab()
        } else {
            tiny.byte_level_vocab()
        };
        let (q, kv) = (HEADS * head_dim, KV_HEADS * head_dim);
        let mut seed = 1;
        let mut add = |tiny: &mut Tiny, name: String, shape: &[usize]| {
            seed += 1;
            tiny.tensors.push((name, random(shape, seed)));
        };
        add(&mut tiny, "token_embd.weight".into(), &[vocab, EMBD]);
        tiny.tensors.push(("output_norm.weight".into(), ones(EMBD)));
        if arch == "llama" {
            add(&mut tiny, "output.weight".into(), &[vocab, EMBD]);
        }
        for i in 0..layers {
            let n = |part: &str| format!("blk.{i}.{part}");
            tiny.tensors.push((n("attn_norm.weight"), ones(EMBD)));
            tiny.tensors.push((n("ffn_norm.weight"), ones(EMBD)));
            if arch == "phi3" {
                add(&mut tiny, n("attn_qkv.weight"), &[q + 2 * kv, EMBD]);
                add(&mut tiny, n("ffn_up.weight"), &[2 * FFN, EMBD]);
            } else {
                add(&mut tiny, n("attn_q.weight"), &[q, EMBD]);
                add(&mut tiny, n("attn_k.weight"), &[kv, EMBD]);
                add(&mut tiny, n("attn_v.weight"), &[kv, EMBD]);
                add(&mut tiny, n("ffn_gate.weight"), &[FFN, EMBD]);
                add(&mut tiny, n("ffn_up.weight"), &[FFN, EMBD]);
            }
            add(&mut tiny, n("attn_output.weight"), &[EMBD, q]);
            add(&mut tiny, n("ffn_down.weight"), &[EMBD, FFN]);
            if arch == "qwen2" {
                add(&mut tiny, n("attn_q.bias"), &[q]);
                add(&mut tiny, n("attn_k.bias"), &[kv]);
                add(&mut tiny, n("attn_v.bias"), &[kv]);
            }
            if arch == "qwen3" || arch == "gemma3" {
                tiny.tensors.push((n("attn_q_norm.weight"), ones(head_dim)));
                tiny.tensors.push((n("attn_k_norm.weight"), ones(head_dim)));
            }
            if arch == "gemma3" {
                tiny.tensors
                    .push((n("post_attention_norm.weight"), ones(EMBD)));
                tiny.tensors.push((n("post_ffw_norm.weight"), ones(EMBD)));
            }
        }
        tiny
    }

    /// A byte-level BPE vocabulary with a few merges and ChatML tokens;
    /// returns its size.
    fn byte_level_vocab(&mut self) -> usize {
        let mut tokens = byte_level_alphabet();
        let mut types = vec![1i32; tokens.len()];
        let merges = ["Ġ t", "h e", "Ġt he", "Ġ a", "i s"];
        for m in merges {
            tokens.push(m.replace(' ', ""));
            types.push(1);
        }
        for special in ["<|im_start|>", "<|im_end|>", "<|endoftext|>"] {
            tokens.push(special.into());
            types.push(3);
        }
        tokens.push("<tool_call>".into());
        types.push(4);
        let id = |t: &str| tokens.iter().position(|x| x == t).unwrap() as u32;
        self.set("tokenizer.ggml.model", Value::String("gpt2".into()));
        self.set("tokenizer.ggml.pre", Value::String("qwen2".into()));
        self.set("tokenizer.ggml.eos_token_id", Value::U32(id("<|im_end|>")));
        self.set(
            "tokenizer.ggml.bos_token_id",
            Value::U32(id("<|endoftext|>")),
        );
        self.set(
            "tokenizer.ggml.merges",
            strings(&merges.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        );
        self.set(
            "tokenizer.ggml.token_type",
            Value::Array(types.into_iter().map(Value::I32).collect()),
        );
        let n = tokens.len();
        self.set("tokenizer.ggml.tokens", strings(&tokens));
        n
    }

    /// A SentencePiece vocabulary (Gemma style): control tokens, 256 byte
    /// tokens, letters and a few scored merges; returns its size.
    fn sentencepiece_vocab(&mut self) -> usize {
        let mut tokens: Vec<String> = vec![
            "<pad>".into(),
            "<eos>".into(),
            "<bos>".into(),
            "<unk>".into(),
        ];
        let mut types = vec![3i32, 3, 3, 2];
        let mut scores = vec![0f32; 4];
        for b in 0..=255u8 {
            tokens.push(format!("<0x{b:02X}>"));
            types.push(6);
            scores.push(0.0);
        }
        let pieces = [
            "▁", "t", "h", "e", "a", "i", "s", "▁t", "he", "▁the", "is", "▁is",
        ];
        for (i, p) in pieces.iter().enumerate() {
            tokens.push(p.to_string());
            types.push(1);
            scores.push(-(i as f32));
        }
        for special in ["<start_of_turn>", "<end_of_turn>"] {
            tokens.push(special.into());
            types.push(3);
            scores.push(0.0);
        }
        let id = |t: &str| tokens.iter().position(|x| x == t).unwrap() as u32;
        self.set("tokenizer.ggml.model", Value::String("llama".into()));
        self.set("tokenizer.ggml.bos_token_id", Value::U32(id("<bos>")));
        self.set("tokenizer.ggml.eos_token_id", Value::U32(id("<eos>")));
        self.set("tokenizer.ggml.unknown_token_id", Value::U32(id("<unk>")));
        self.set("tokenizer.ggml.add_bos_token", Value::Bool(true));
        self.set("tokenizer.ggml.add_space_prefix", Value::Bool(false));
        self.set(
            "tokenizer.ggml.scores",
            Value::Array(scores.into_iter().map(Value::F32).collect()),
        );
        self.set(
            "tokenizer.ggml.token_type",
            Value::Array(types.into_iter().map(Value::I32).collect()),
        );
        self.set(
            "tokenizer.chat_template",
            Value::String(
                "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ m.role }}\n{{ m.content }}<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}".into(),
            ),
        );
        let n = tokens.len();
        self.set("tokenizer.ggml.tokens", strings(&tokens));
        n
    }

    /// Sets (or adds) a metadata value.
    pub fn set(&mut self, key: &str, value: Value) -> &mut Self {
        self.metadata.retain(|(k, _)| k != key);
        self.metadata.push((key.to_string(), value));
        self
    }

    /// Removes a tensor.
    pub fn drop_tensor(&mut self, name: &str) -> &mut Self {
        self.tensors.retain(|(n, _)| n != name);
        self
    }

    /// Writes the file.
    pub fn write(&self, path: &Path) {
        let mut file = std::fs::File::create(path).unwrap();
        let metadata: Vec<(&str, &Value)> =
            self.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
        let tensors: Vec<(&str, &QTensor)> =
            self.tensors.iter().map(|(k, t)| (k.as_str(), t)).collect();
        gguf_file::write(&mut file, &metadata, &tensors).unwrap();
    }
}

//! Speech to text with Whisper on candle, from a CTranslate2 conversion.
//!
//! A model directory holds `model.bin` (CTranslate2), `tokenizer.json` and
//! CTranslate2's `config.json` (the token ids to suppress). At load time the
//! variables are renamed to the Hugging Face names candle's Whisper reads,
//! fused projections split, and the hyper-parameters read from the tensors.
//! Transcription is greedy, without timestamps, 30 seconds at a time.

use super::ct2::Ct2Model;
use super::mel;
use super::VoiceError;
use candle_core::{DType, Device, IndexOp, Tensor, D};
use candle_nn::VarBuilder;
use candle_transformers::models::whisper::{self as m, Config};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// The sample rate Whisper hears.
pub const SAMPLE_RATE: usize = m::SAMPLE_RATE;

/// A window whose no-speech probability is above this, and whose tokens
/// average a log-probability below [`LOGPROB_THRESHOLD`], is silence.
const NO_SPEECH_THRESHOLD: f64 = m::NO_SPEECH_THRESHOLD;
const LOGPROB_THRESHOLD: f64 = m::LOGPROB_THRESHOLD;
/// A window whose no-speech probability is above this is silence however
/// sure the tokens are: on silence tiny.en says "you" with a mean
/// log-probability of -0.37 and a no-speech probability of 0.95 (spoken
/// questions: 0.15).
const NO_SPEECH_CERTAIN: f64 = 0.9;

/// Silence the encoder hears after the audio when it does not hear all 30
/// seconds: 4 s. With 2 or 3 s, tiny.en repeats some short commands ("set a
/// timer for 5 minutes. Set a timer …") and the window is decoded again;
/// with 4 s, five test commands came out as with the full window.
const TRIM_PADDING_FRAMES: usize = 400;
/// Mel frames per second of audio.
const FRAMES_PER_SECOND: usize = m::SAMPLE_RATE / m::HOP_LENGTH;
/// Tokens allowed per second of audio in a trimmed window (speech is 3 to 5).
const TOKENS_PER_SECOND: usize = 12;
/// Tokens allowed in a trimmed window however short.
const MIN_TOKENS: usize = 24;
/// A run of tokens said this many times in a row is a decoder running away.
const REPEATS: usize = 4;

/// CTranslate2's `config.json`: the ids Whisper must never emit, and those
/// it must not begin with.
#[derive(Debug, Deserialize)]
struct SuppressConfig {
    #[serde(default)]
    suppress_ids: Vec<u32>,
    #[serde(default)]
    suppress_ids_begin: Vec<u32>,
}

/// The special tokens the decoder is prompted and stopped with.
#[derive(Debug, Clone)]
struct Specials {
    start: u32,
    end: u32,
    no_timestamps: u32,
    no_speech: Option<u32>,
    /// A multilingual model's language tokens (`<|en|>` to the last before
    /// `<|translate|>`) and its `<|transcribe|>`; `None` for `.en`.
    multilingual: Option<(std::ops::Range<u32>, u32)>,
}

/// A loaded Whisper model, ready to transcribe.
pub struct Whisper {
    model: m::model::Whisper,
    tokenizer: tokenizers::Tokenizer,
    filters: Vec<f32>,
    specials: Specials,
    /// Added to the logits at every step: 0 or minus infinity.
    suppress: Tensor,
    /// Added at the first step besides.
    suppress_begin: Tensor,
    /// The token embeddings, which are also the output projection: logits
    /// are `embeddings · hidden`, computed this way round so the large
    /// matrix is never transposed and copied.
    embeddings: Tensor,
    device: Device,
    /// The language token of the window being decoded or last decoded
    /// (multilingual models).
    language: Option<u32>,
}

impl Whisper {
    /// Loads the model in `dir` onto `device`.
    pub fn load(dir: &Path, device: &Device) -> Result<Whisper, VoiceError> {
        let read = |file: &str| {
            std::fs::read(dir.join(file)).map_err(|e| {
                VoiceError::Model(format!("cannot read {}: {e}", dir.join(file).display()))
            })
        };
        let ct2 = Ct2Model::parse(&read("model.bin")?)
            .map_err(|e| VoiceError::Model(format!("{}: {e}", dir.join("model.bin").display())))?;
        if ct2.spec != "WhisperSpec" {
            return Err(VoiceError::Model(format!(
                "{} holds a {} model, not Whisper",
                dir.display(),
                ct2.spec
            )));
        }
        let config = config_of(&ct2)?;
        let suppress: SuppressConfig = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| VoiceError::Model(format!("config.json: {e}")))?;
        let tokenizer = tokenizers::Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|e| VoiceError::Model(format!("tokenizer.json: {e}")))?;
        let specials = specials(&tokenizer, &config)?;
        let embeddings = ct2
            .tensors
            .get("decoder/embeddings/weight")
            .ok_or_else(|| VoiceError::Model("model.bin has no decoder/embeddings/weight".into()))?
            .to_device(device)?;
        let tensors = hugging_face_names(ct2.tensors)?;
        let vb = VarBuilder::from_tensors(tensors, DType::F32, device);
        let model = m::model::Whisper::load(&vb, config.clone())
            .map_err(|e| VoiceError::Model(format!("{}: {e}", dir.display())))?;
        let mask = |ids: &mut dyn Iterator<Item = u32>| -> Result<Tensor, VoiceError> {
            let mut values = vec![0f32; config.vocab_size];
            for id in ids {
                if let Some(v) = values.get_mut(id as usize) {
                    *v = f32::NEG_INFINITY;
                }
            }
            Ok(Tensor::new(values, device)?)
        };
        let timestamps = specials.no_timestamps..config.vocab_size as u32;
        let suppress_ids = &mut suppress
            .suppress_ids
            .iter()
            .copied()
            .chain(timestamps)
            .chain(specials.no_speech)
            .chain([specials.start]);
        let suppress_tensor = mask(suppress_ids)?;
        let suppress_begin = mask(&mut suppress.suppress_ids_begin.iter().copied())?;
        Ok(Whisper {
            filters: mel::filters(SAMPLE_RATE, m::N_FFT, config.num_mel_bins),
            model,
            tokenizer,
            specials,
            suppress: suppress_tensor,
            suppress_begin,
            embeddings,
            device: device.clone(),
            language: None,
        })
    }

    /// The language a multilingual model heard in the last window it
    /// decoded (`en`, `de`, …); `None` for an English-only model.
    pub fn language(&self) -> Option<String> {
        let id = self.language?;
        let token = self.tokenizer.id_to_token(id)?;
        Some(
            token
                .trim_start_matches("<|")
                .trim_end_matches("|>")
                .to_string(),
        )
    }

    /// The text spoken in `samples` (mono, 16 kHz, -1.0..1.0), in the
    /// language spoken when the model is multilingual; empty when nothing
    /// was said.
    pub fn transcribe(&mut self, samples: &[f32]) -> Result<String, VoiceError> {
        let mut text = String::new();
        for window in samples.chunks(m::N_SAMPLES) {
            let part = self.transcribe_window(window)?;
            let part = part.trim();
            if !part.is_empty() {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(part);
            }
        }
        Ok(text)
    }

    /// One window of at most 30 seconds. The encoder first hears only the
    /// audio and [`TRIM_PADDING_FRAMES`] of silence after it (ten times less
    /// work for a short question); when the decoder then runs away —
    /// repeats itself or fills its budget — the window is decoded again
    /// with the full 30 seconds Whisper was trained on.
    fn transcribe_window(&mut self, samples: &[f32]) -> Result<String, VoiceError> {
        self.language = None;
        let heard = samples.len().div_ceil(m::HOP_LENGTH);
        let trimmed = (heard + TRIM_PADDING_FRAMES).next_multiple_of(2);
        if trimmed < m::N_FRAMES {
            let budget = MIN_TOKENS.max(heard * TOKENS_PER_SECOND / FRAMES_PER_SECOND);
            if let Decoded::Text(text) = self.decode(samples, trimmed, budget)? {
                return Ok(text);
            }
        }
        let budget = self.model.config.max_target_positions / 2;
        match self.decode(samples, m::N_FRAMES, budget)? {
            Decoded::Text(text) | Decoded::RanAway(text) => Ok(text),
        }
    }

    /// Greedy decoding of `samples` heard through `frames` mel frames, at
    /// most `budget` tokens.
    fn decode(
        &mut self,
        samples: &[f32],
        frames: usize,
        budget: usize,
    ) -> Result<Decoded, VoiceError> {
        let n_mels = self.model.config.num_mel_bins;
        let mel = mel::log_mel(samples, frames, m::HOP_LENGTH, m::N_FFT, &self.filters);
        let mel = Tensor::from_vec(mel, (1, n_mels, frames), &self.device)?;
        let features = self.model.encoder.forward(&mel, true)?;
        let mut tokens = vec![self.specials.start];
        if let Some((languages, transcribe)) = self.specials.multilingual.clone() {
            let language = match self.language {
                Some(known) => known,
                None => self.detect_language(&features, languages)?,
            };
            self.language = Some(language);
            tokens.extend([language, transcribe]);
        }
        tokens.push(self.specials.no_timestamps);
        let prompt_len = tokens.len();
        let mut logprob_sum = 0.0;
        let mut no_speech_prob = 0.0;
        let mut finished = false;
        for step in 0..budget {
            let input = Tensor::new(tokens.as_slice(), &self.device)?.unsqueeze(0)?;
            let hidden = self.model.decoder.forward(&input, &features, step == 0)?;
            if step == 0 {
                if let Some(id) = self.specials.no_speech {
                    let first = self.logits(&hidden.i((0, 0))?)?;
                    let probs = candle_nn::ops::softmax(&first, D::Minus1)?;
                    no_speech_prob = probs.i(id as usize)?.to_scalar::<f32>()? as f64;
                }
            }
            let last = hidden.dim(1)? - 1;
            let logits = self.logits(&hidden.i((0, last))?)?;
            let mut logits = logits.broadcast_add(&self.suppress)?;
            if step == 0 {
                logits = logits.broadcast_add(&self.suppress_begin)?;
            }
            let (next, logprob) = greedy(&logits.to_vec1::<f32>()?);
            logprob_sum += logprob;
            if next == self.specials.end {
                finished = true;
                break;
            }
            tokens.push(next);
            if repeats(&tokens[prompt_len..]) {
                break;
            }
        }
        let spoken = &tokens[prompt_len..];
        let mean_logprob = logprob_sum / (spoken.len() + 1) as f64;
        let unsure = no_speech_prob > NO_SPEECH_THRESHOLD && mean_logprob < LOGPROB_THRESHOLD;
        let text = if unsure || no_speech_prob > NO_SPEECH_CERTAIN {
            String::new()
        } else {
            self.tokenizer
                .decode(spoken, true)
                .map_err(|e| VoiceError::Model(format!("cannot decode tokens: {e}")))?
        };
        Ok(if finished {
            Decoded::Text(text)
        } else {
            Decoded::RanAway(text)
        })
    }
}

impl Whisper {
    /// The most likely of the `languages` tokens after the start token, for
    /// the audio `features` (decided once per window).
    fn detect_language(
        &mut self,
        features: &Tensor,
        languages: std::ops::Range<u32>,
    ) -> Result<u32, VoiceError> {
        let input = Tensor::new(&[self.specials.start], &self.device)?.unsqueeze(0)?;
        let hidden = self.model.decoder.forward(&input, features, true)?;
        let logits = self.logits(&hidden.i((0, 0))?)?.to_vec1::<f32>()?;
        let scores = logits
            .get(languages.start as usize..languages.end as usize)
            .ok_or_else(|| VoiceError::Model("language tokens past the vocabulary".into()))?;
        let (best, _) = greedy(scores);
        Ok(languages.start + best)
    }

    /// The logits of one hidden state (`d_model` values).
    fn logits(&self, hidden: &Tensor) -> Result<Tensor, VoiceError> {
        Ok(self.embeddings.matmul(&hidden.unsqueeze(1)?)?.squeeze(1)?)
    }
}

/// How a decode ended.
enum Decoded {
    /// At the end-of-text token.
    Text(String),
    /// Repeating itself or out of tokens.
    RanAway(String),
}

/// The most likely token and its log-probability.
fn greedy(logits: &[f32]) -> (u32, f64) {
    let (best, top) =
        logits
            .iter()
            .enumerate()
            .fold((0, f32::NEG_INFINITY), |(bi, bv), (i, &v)| {
                if v > bv {
                    (i, v)
                } else {
                    (bi, bv)
                }
            });
    let sum: f64 = logits.iter().map(|&v| ((v - top) as f64).exp()).sum();
    (best as u32, -sum.ln())
}

/// Whether the newest tokens repeat, for the [`REPEATS`]th time in a row,
/// a run of 1 to 8 tokens.
fn repeats(tokens: &[u32]) -> bool {
    (1..=8).any(|run| {
        let span = run * REPEATS;
        tokens.len() >= span && {
            let tail = &tokens[tokens.len() - span..];
            tail.chunks(run).all(|c| c == &tail[..run])
        }
    })
}

/// Whisper's hyper-parameters, read from the shapes of its variables.
fn config_of(ct2: &Ct2Model) -> Result<Config, VoiceError> {
    let shape = |name: &str| -> Result<Vec<usize>, VoiceError> {
        ct2.tensors
            .get(name)
            .map(|t| t.dims().to_vec())
            .ok_or_else(|| VoiceError::Model(format!("model.bin has no `{name}`")))
    };
    let layers = |side: &str| {
        (0..)
            .take_while(|i| {
                let prefix = format!("{side}/layer_{i}/");
                ct2.tensors.keys().any(|k| k.starts_with(&prefix))
            })
            .count()
    };
    let conv1 = shape("encoder/conv1/weight")?;
    let embeddings = shape("decoder/embeddings/weight")?;
    let d_model = conv1[0];
    let heads = |side: &str| {
        ct2.scalars
            .get(&format!("{side}/num_heads"))
            .map(|&h| h as usize)
            .unwrap_or(d_model / 64)
    };
    Ok(Config {
        num_mel_bins: conv1[1],
        max_source_positions: shape("encoder/position_encodings/encodings")?[0],
        d_model,
        encoder_attention_heads: heads("encoder"),
        encoder_layers: layers("encoder"),
        vocab_size: embeddings[0],
        max_target_positions: shape("decoder/position_encodings/encodings")?[0],
        decoder_attention_heads: heads("decoder"),
        decoder_layers: layers("decoder"),
        suppress_tokens: Vec::new(),
    })
}

fn specials(tokenizer: &tokenizers::Tokenizer, config: &Config) -> Result<Specials, VoiceError> {
    let id = |token: &str| {
        tokenizer
            .token_to_id(token)
            .ok_or_else(|| VoiceError::Model(format!("tokenizer.json has no {token}")))
    };
    let multilingual = config.vocab_size >= 51865;
    Ok(Specials {
        start: id(m::SOT_TOKEN)?,
        end: id(m::EOT_TOKEN)?,
        no_timestamps: id(m::NO_TIMESTAMPS_TOKEN)?,
        no_speech: m::NO_SPEECH_TOKENS
            .iter()
            .find_map(|t| tokenizer.token_to_id(t)),
        multilingual: if multilingual {
            Some((
                id("<|en|>")?..id(m::TRANSLATE_TOKEN)?,
                id(m::TRANSCRIBE_TOKEN)?,
            ))
        } else {
            None
        },
    })
}

/// CTranslate2's variables under the names candle's Whisper loads: layer
/// norms' `gamma`/`beta` are `weight`/`bias`, fused query-key-value (and
/// cross-attention key-value) projections are split, and the key
/// projections lose their (zero) bias.
fn hugging_face_names(ct2: HashMap<String, Tensor>) -> Result<HashMap<String, Tensor>, VoiceError> {
    let mut out = HashMap::new();
    for (name, tensor) in ct2 {
        let parts: Vec<&str> = name.split('/').collect();
        let (side, rest) = match parts.as_slice() {
            [side @ ("encoder" | "decoder"), rest @ ..] => (*side, rest),
            _ => continue,
        };
        let prefix = format!("model.{side}");
        match rest {
            ["conv1" | "conv2", _] | ["layer_norm", _] => {
                out.insert(format!("{prefix}.{}", hf_leaf(rest)), tensor);
            }
            ["embeddings", "weight"] => {
                out.insert(format!("{prefix}.embed_tokens.weight"), tensor);
            }
            ["position_encodings", "encodings"] if side == "decoder" => {
                out.insert(format!("{prefix}.embed_positions.weight"), tensor);
            }
            [layer, block, inner @ ..] if layer.starts_with("layer_") => {
                let index = &layer["layer_".len()..];
                let base = format!("{prefix}.layers.{index}");
                layer_variable(&mut out, &base, block, inner, tensor)?;
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `layer_norm/gamma` → `layer_norm.weight`, `conv1/weight` → `conv1.weight`.
fn hf_leaf(parts: &[&str]) -> String {
    parts
        .iter()
        .map(|p| match *p {
            "gamma" => "weight",
            "beta" => "bias",
            other => other,
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn layer_variable(
    out: &mut HashMap<String, Tensor>,
    base: &str,
    block: &str,
    inner: &[&str],
    tensor: Tensor,
) -> Result<(), VoiceError> {
    let (attention, norm) = match block {
        "self_attention" => ("self_attn", "self_attn_layer_norm"),
        "attention" => ("encoder_attn", "encoder_attn_layer_norm"),
        "ffn" => match inner {
            ["layer_norm", leaf] => {
                out.insert(
                    format!("{base}.final_layer_norm.{}", hf_leaf(&[leaf])),
                    tensor,
                );
                return Ok(());
            }
            ["linear_0", leaf] => {
                out.insert(format!("{base}.fc1.{leaf}"), tensor);
                return Ok(());
            }
            ["linear_1", leaf] => {
                out.insert(format!("{base}.fc2.{leaf}"), tensor);
                return Ok(());
            }
            _ => return Ok(()),
        },
        _ => return Ok(()),
    };
    let pieces: &[&str] = match (block, inner.first().copied()) {
        (_, Some("layer_norm")) => {
            let leaf = hf_leaf(&inner[1..]);
            out.insert(format!("{base}.{norm}.{leaf}"), tensor);
            return Ok(());
        }
        ("self_attention", Some("linear_0")) => &["q_proj", "k_proj", "v_proj"],
        ("self_attention", Some("linear_1")) => &["out_proj"],
        ("attention", Some("linear_0")) => &["q_proj"],
        ("attention", Some("linear_1")) => &["k_proj", "v_proj"],
        ("attention", Some("linear_2")) => &["out_proj"],
        _ => return Ok(()),
    };
    let leaf = inner.get(1).copied().unwrap_or("weight");
    let rows = tensor.dim(0)? / pieces.len();
    for (i, piece) in pieces.iter().enumerate() {
        if *piece == "k_proj" && leaf == "bias" {
            continue;
        }
        let part = tensor.narrow(0, i * rows, rows)?.contiguous()?;
        out.insert(format!("{base}.{attention}.{piece}.{leaf}"), part);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_picks_the_best_token_with_its_log_probability() {
        let (token, logprob) = greedy(&[0.0, 2.0f32.ln(), f32::NEG_INFINITY, 0.0]);
        assert_eq!(token, 1);
        assert!((logprob - 0.5f64.ln()).abs() < 1e-6, "{logprob}");
    }

    #[test]
    fn runaway_repeats_are_seen() {
        assert!(repeats(&[7, 7, 7, 7]));
        assert!(repeats(&[1, 2, 3, 9, 8, 9, 8, 9, 8, 9, 8]));
        assert!(!repeats(&[9, 8, 9, 8, 9, 8]));
        assert!(!repeats(&[1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3]));
        assert!(!repeats(&[]));
    }

    #[test]
    fn fused_projections_are_split_and_renamed() {
        let fused = Tensor::arange(0f32, 6.0, &Device::Cpu)
            .unwrap()
            .reshape((6, 1))
            .unwrap();
        let bias = Tensor::arange(0f32, 6.0, &Device::Cpu).unwrap();
        let norm = Tensor::ones(2, DType::F32, &Device::Cpu).unwrap();
        let ct2 = HashMap::from([
            (
                "encoder/layer_0/self_attention/linear_0/weight".to_string(),
                fused.clone(),
            ),
            (
                "encoder/layer_0/self_attention/linear_0/bias".to_string(),
                bias,
            ),
            (
                "decoder/layer_1/attention/linear_1/weight".to_string(),
                fused,
            ),
            (
                "decoder/layer_1/ffn/layer_norm/gamma".to_string(),
                norm.clone(),
            ),
            ("decoder/layer_norm/beta".to_string(), norm),
        ]);
        let hf = hugging_face_names(ct2).unwrap();
        let rows = |name: &str| hf[name].flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let q = "model.encoder.layers.0.self_attn";
        assert_eq!(rows(&format!("{q}.q_proj.weight")), [0.0, 1.0]);
        assert_eq!(rows(&format!("{q}.k_proj.weight")), [2.0, 3.0]);
        assert_eq!(rows(&format!("{q}.v_proj.weight")), [4.0, 5.0]);
        assert_eq!(rows(&format!("{q}.v_proj.bias")), [4.0, 5.0]);
        assert!(!hf.contains_key(&format!("{q}.k_proj.bias")));
        let kv = "model.decoder.layers.1.encoder_attn";
        assert_eq!(rows(&format!("{kv}.k_proj.weight")), [0.0, 1.0, 2.0]);
        assert_eq!(rows(&format!("{kv}.v_proj.weight")), [3.0, 4.0, 5.0]);
        assert!(hf.contains_key("model.decoder.layers.1.final_layer_norm.weight"));
        assert!(hf.contains_key("model.decoder.layer_norm.bias"));
    }
}

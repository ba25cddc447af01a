//! Whisper's network, read straight from CTranslate2's variables: an audio
//! encoder (two convolutions, then pre-norm attention blocks) and a text
//! decoder whose self-attention keeps its keys and values, so each new
//! token costs one row, not the whole transcript again.
//!
//! The decoder's state lives in a [`Decoding`] that the caller owns: one per
//! window of audio, started from the encoder's output.

use crate::ct2::Ct2Model;
use crate::VoiceError;
use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::{Conv1d, Conv1dConfig, LayerNorm, Linear};
use std::collections::HashMap;

/// Whisper's layer norms' epsilon.
const NORM_EPS: f64 = 1e-5;

/// The sizes of a Whisper model, read from the shapes of its variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Dims {
    /// Mel bands the encoder hears (80, or 128 for large-v3).
    pub mel_bins: usize,
    /// Width of every hidden state.
    pub width: usize,
    /// Most encoder positions (1500: 30 s after the strided convolution).
    pub audio_positions: usize,
    /// Most decoder positions (448 tokens).
    pub text_positions: usize,
    /// Tokens in the vocabulary.
    pub vocab: usize,
    /// Attention heads in the encoder and in the decoder.
    pub encoder_heads: usize,
    /// Attention heads in the decoder.
    pub decoder_heads: usize,
    /// Blocks in the encoder.
    pub encoder_layers: usize,
    /// Blocks in the decoder.
    pub decoder_layers: usize,
}

impl Dims {
    /// The sizes of the model in `ct2`.
    pub fn of(ct2: &Ct2Model) -> Result<Dims, VoiceError> {
        let shape = |name: &str| -> Result<Vec<usize>, VoiceError> {
            ct2.tensors
                .get(name)
                .map(|t| t.dims().to_vec())
                .ok_or_else(|| missing(name))
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
        let [width, mel_bins, 3] = conv1[..] else {
            return Err(bad_shape("encoder/conv1/weight", &conv1));
        };
        let heads = |side: &str| {
            ct2.scalars
                .get(&format!("{side}/num_heads"))
                .map(|&h| h as usize)
                .unwrap_or(width / 64)
        };
        let dims = Dims {
            mel_bins,
            width,
            audio_positions: shape("encoder/position_encodings/encodings")?[0],
            text_positions: shape("decoder/position_encodings/encodings")?[0],
            vocab: shape("decoder/embeddings/weight")?[0],
            encoder_heads: heads("encoder"),
            decoder_heads: heads("decoder"),
            encoder_layers: layers("encoder"),
            decoder_layers: layers("decoder"),
        };
        let divides = |heads: usize| heads > 0 && width % heads == 0;
        if !divides(dims.encoder_heads) || !divides(dims.decoder_heads) {
            return Err(VoiceError::Model(format!(
                "{} and {} heads do not divide a width of {width}",
                dims.encoder_heads, dims.decoder_heads
            )));
        }
        Ok(dims)
    }
}

/// A loaded Whisper network.
pub struct WhisperNet {
    /// Its sizes.
    pub dims: Dims,
    conv1: Conv1d,
    conv2: Conv1d,
    /// Sinusoidal positions of the encoder, `audio_positions × width`.
    audio_positions: Tensor,
    encoder: Vec<EncoderBlock>,
    encoder_norm: LayerNorm,
    /// Token embeddings, `vocab × width`; also the output projection.
    embeddings: Tensor,
    /// Learned positions of the decoder, `text_positions × width`.
    text_positions: Tensor,
    decoder: Vec<DecoderBlock>,
    decoder_norm: LayerNorm,
}

/// The decoder's state for one window of audio: each block's keys and
/// values of the audio (fixed) and of the tokens so far (growing).
pub struct Decoding {
    /// Per block: the audio's keys, transposed (`heads × head_width ×
    /// frames`), and its values (`heads × frames × head_width`).
    audio: Vec<(Tensor, Tensor)>,
    /// Per block: the tokens' keys and values (`heads × tokens ×
    /// head_width`), `None` before the first token.
    past: Vec<Option<(Tensor, Tensor)>>,
    /// Tokens decoded so far.
    len: usize,
}

impl Decoding {
    /// Tokens the decoder has read.
    pub fn position(&self) -> usize {
        self.len
    }

    /// Forgets the tokens read after the first `len`, as if they had never
    /// been read.
    pub fn truncate(&mut self, len: usize) -> Result<(), VoiceError> {
        if len >= self.len {
            return Ok(());
        }
        for past in &mut self.past {
            *past = match past.take() {
                Some(_) if len == 0 => None,
                Some((keys, values)) => Some((keys.narrow(1, 0, len)?, values.narrow(1, 0, len)?)),
                None => None,
            };
        }
        self.len = len;
        Ok(())
    }
}

impl WhisperNet {
    /// The network in `ct2`, onto `device`.
    pub fn load(ct2: &Ct2Model, device: &Device) -> Result<WhisperNet, VoiceError> {
        let dims = Dims::of(ct2)?;
        let vars = Vars {
            tensors: &ct2.tensors,
            device,
        };
        let convolution = |name: &str, stride: usize| -> Result<Conv1d, VoiceError> {
            let config = Conv1dConfig {
                padding: 1,
                stride,
                ..Default::default()
            };
            Ok(Conv1d::new(
                vars.get(&format!("encoder/{name}/weight"))?,
                Some(vars.get(&format!("encoder/{name}/bias"))?),
                config,
            ))
        };
        let width = dims.width;
        let encoder = (0..dims.encoder_layers)
            .map(|i| EncoderBlock::load(&vars, &format!("encoder/layer_{i}"), width))
            .collect::<Result<_, _>>()?;
        let decoder = (0..dims.decoder_layers)
            .map(|i| DecoderBlock::load(&vars, &format!("decoder/layer_{i}"), width))
            .collect::<Result<_, _>>()?;
        Ok(WhisperNet {
            conv1: convolution("conv1", 1)?,
            conv2: convolution("conv2", 2)?,
            audio_positions: sinusoids(dims.audio_positions, width, device)?,
            encoder,
            encoder_norm: vars.norm("encoder/layer_norm")?,
            embeddings: vars.get("decoder/embeddings/weight")?,
            text_positions: vars.get("decoder/position_encodings/encodings")?,
            decoder,
            decoder_norm: vars.norm("decoder/layer_norm")?,
            dims,
        })
    }

    /// The token embeddings (`vocab × width`), which are also the output
    /// projection.
    pub fn embeddings(&self) -> &Tensor {
        &self.embeddings
    }

    /// What the encoder hears in a log-mel spectrogram (`1 × mel_bins ×
    /// frames`): `frames / 2` states of `width`.
    pub fn encode(&self, mel: &Tensor) -> Result<Tensor, VoiceError> {
        self.encode_while(mel, &|| true)?
            .ok_or_else(|| VoiceError::Model("the encoder stopped by itself".into()))
    }

    /// [`WhisperNet::encode`], asking `go_on` before each layer: `None` once
    /// it says no.
    pub fn encode_while(
        &self,
        mel: &Tensor,
        go_on: &dyn Fn() -> bool,
    ) -> Result<Option<Tensor>, VoiceError> {
        let x = self.conv1.forward(mel)?.gelu()?;
        let x = self.conv2.forward(&x)?.gelu()?;
        let x = x.squeeze(0)?.t()?;
        let frames = x.dim(0)?;
        if frames > self.dims.audio_positions {
            return Err(VoiceError::Model(format!(
                "{frames} audio positions, the model has {}",
                self.dims.audio_positions
            )));
        }
        let mut x = (x + self.audio_positions.narrow(0, 0, frames)?)?;
        for block in &self.encoder {
            if !go_on() {
                return Ok(None);
            }
            x = block.forward(&x, self.dims.encoder_heads)?;
        }
        Ok(Some(self.encoder_norm.forward(&x)?))
    }

    /// A decoder ready to read the audio the encoder heard as `features`.
    pub fn start(&self, features: &Tensor) -> Result<Decoding, VoiceError> {
        let heads = self.dims.decoder_heads;
        let audio = self
            .decoder
            .iter()
            .map(|block| {
                let kv = block.cross_kv.forward(features)?;
                let width = self.dims.width;
                let keys = split_heads(&kv.narrow(1, 0, width)?, heads)?;
                let values = split_heads(&kv.narrow(1, width, width)?, heads)?;
                Ok((keys.t()?.contiguous()?, values))
            })
            .collect::<Result<_, VoiceError>>()?;
        Ok(Decoding {
            audio,
            past: vec![None; self.decoder.len()],
            len: 0,
        })
    }

    /// Feeds `tokens` to the decoder after those it has read; their final
    /// hidden states (`tokens × width`), ready for the output projection.
    pub fn step(&self, decoding: &mut Decoding, tokens: &[u32]) -> Result<Tensor, VoiceError> {
        let start = decoding.len;
        if tokens.is_empty() || start + tokens.len() > self.dims.text_positions {
            return Err(VoiceError::Model(format!(
                "{} tokens after {start}: the decoder holds {}",
                tokens.len(),
                self.dims.text_positions
            )));
        }
        let device = self.embeddings.device();
        let ids = Tensor::new(tokens, device)?;
        let mut x = (self.embeddings.index_select(&ids, 0)?
            + self.text_positions.narrow(0, start, tokens.len())?)?;
        let mask = causal_mask(start, tokens.len(), device)?;
        let heads = self.dims.decoder_heads;
        for ((block, audio), past) in self
            .decoder
            .iter()
            .zip(&decoding.audio)
            .zip(&mut decoding.past)
        {
            x = block.forward(&x, heads, audio, past, mask.as_ref())?;
        }
        decoding.len += tokens.len();
        Ok(self.decoder_norm.forward(&x)?)
    }
}

/// An encoder block: self-attention over the audio, then the MLP.
struct EncoderBlock {
    norm: LayerNorm,
    qkv: Linear,
    out: Linear,
    mlp: Mlp,
}

impl EncoderBlock {
    fn load(vars: &Vars, prefix: &str, width: usize) -> Result<EncoderBlock, VoiceError> {
        let attention = format!("{prefix}/self_attention");
        Ok(EncoderBlock {
            norm: vars.norm(&format!("{attention}/layer_norm"))?,
            qkv: vars.linear(&format!("{attention}/linear_0"), 3 * width)?,
            out: vars.linear(&format!("{attention}/linear_1"), width)?,
            mlp: Mlp::load(vars, &format!("{prefix}/ffn"), width)?,
        })
    }

    fn forward(&self, x: &Tensor, heads: usize) -> Result<Tensor, VoiceError> {
        let (q, k, v) = project_qkv(&self.qkv, &self.norm.forward(x)?, heads)?;
        let attended = attend(&q, &k.t()?, &v, None)?;
        let x = (x + self.out.forward(&attended)?)?;
        self.mlp.residual(&x)
    }
}

/// A decoder block: causal self-attention over the tokens, attention to
/// the audio, then the MLP.
struct DecoderBlock {
    self_norm: LayerNorm,
    self_qkv: Linear,
    self_out: Linear,
    cross_norm: LayerNorm,
    cross_q: Linear,
    /// Keys and values of the audio, stacked: `2·width × width`.
    cross_kv: Linear,
    cross_out: Linear,
    mlp: Mlp,
}

impl DecoderBlock {
    fn load(vars: &Vars, prefix: &str, width: usize) -> Result<DecoderBlock, VoiceError> {
        let own = format!("{prefix}/self_attention");
        let cross = format!("{prefix}/attention");
        Ok(DecoderBlock {
            self_norm: vars.norm(&format!("{own}/layer_norm"))?,
            self_qkv: vars.linear(&format!("{own}/linear_0"), 3 * width)?,
            self_out: vars.linear(&format!("{own}/linear_1"), width)?,
            cross_norm: vars.norm(&format!("{cross}/layer_norm"))?,
            cross_q: vars.linear(&format!("{cross}/linear_0"), width)?,
            cross_kv: vars.linear(&format!("{cross}/linear_1"), 2 * width)?,
            cross_out: vars.linear(&format!("{cross}/linear_2"), width)?,
            mlp: Mlp::load(vars, &format!("{prefix}/ffn"), width)?,
        })
    }

    fn forward(
        &self,
        x: &Tensor,
        heads: usize,
        (audio_keys, audio_values): &(Tensor, Tensor),
        past: &mut Option<(Tensor, Tensor)>,
        mask: Option<&Tensor>,
    ) -> Result<Tensor, VoiceError> {
        let (q, k, v) = project_qkv(&self.self_qkv, &self.self_norm.forward(x)?, heads)?;
        let (k, v) = match past.take() {
            Some((pk, pv)) => (Tensor::cat(&[&pk, &k], 1)?, Tensor::cat(&[&pv, &v], 1)?),
            None => (k, v),
        };
        let attended = attend(&q, &k.t()?, &v, mask)?;
        *past = Some((k, v));
        let x = (x + self.self_out.forward(&attended)?)?;

        let q = self.cross_q.forward(&self.cross_norm.forward(&x)?)?;
        let q = scaled(&split_heads(&q, heads)?)?;
        let attended = attend(&q, audio_keys, audio_values, None)?;
        let x = (x + self.cross_out.forward(&attended)?)?;
        self.mlp.residual(&x)
    }
}

/// The position-wise MLP with its norm: `x + fc2(gelu(fc1(norm(x))))`.
struct Mlp {
    norm: LayerNorm,
    up: Linear,
    down: Linear,
}

impl Mlp {
    fn load(vars: &Vars, prefix: &str, width: usize) -> Result<Mlp, VoiceError> {
        let hidden = vars.rows(&format!("{prefix}/linear_0/weight"))?;
        Ok(Mlp {
            norm: vars.norm(&format!("{prefix}/layer_norm"))?,
            up: vars.linear(&format!("{prefix}/linear_0"), hidden)?,
            down: vars.linear(&format!("{prefix}/linear_1"), width)?,
        })
    }

    fn residual(&self, x: &Tensor) -> Result<Tensor, VoiceError> {
        let h = self.up.forward(&self.norm.forward(x)?)?.gelu()?;
        Ok((x + self.down.forward(&h)?)?)
    }
}

/// The query, key and value heads (`heads × tokens × head_width`) of `x`
/// through a stacked projection; the query already scaled.
fn project_qkv(
    qkv: &Linear,
    x: &Tensor,
    heads: usize,
) -> Result<(Tensor, Tensor, Tensor), VoiceError> {
    let stacked = qkv.forward(x)?;
    let width = stacked.dim(1)? / 3;
    let part = |i: usize| split_heads(&stacked.narrow(1, i * width, width)?, heads);
    Ok((scaled(&part(0)?)?, part(1)?, part(2)?))
}

/// `tokens × width` as `heads × tokens × head_width`.
fn split_heads(x: &Tensor, heads: usize) -> Result<Tensor, VoiceError> {
    let (tokens, width) = x.dims2()?;
    Ok(x.reshape((tokens, heads, width / heads))?
        .transpose(0, 1)?
        .contiguous()?)
}

/// Queries divided by the square root of their width.
fn scaled(q: &Tensor) -> Result<Tensor, VoiceError> {
    let head_width = q.dim(D::Minus1)?;
    Ok((q / (head_width as f64).sqrt())?)
}

/// Scaled dot-product attention of `q` (`heads × n × d`) over transposed
/// keys (`heads × d × t`) and values (`heads × t × d`), heads joined
/// again: `n × heads·d`.
fn attend(
    q: &Tensor,
    keys_t: &Tensor,
    values: &Tensor,
    mask: Option<&Tensor>,
) -> Result<Tensor, VoiceError> {
    let mut scores = q.matmul(keys_t)?;
    if let Some(mask) = mask {
        scores = scores.broadcast_add(mask)?;
    }
    let weights = candle_nn::ops::softmax_last_dim(&scores)?;
    let out = weights.matmul(values)?.transpose(0, 1)?;
    Ok(out.flatten_from(1)?)
}

/// For `n` tokens after `start` read ones: minus infinity where a token
/// would see one after it (`n × start + n`); `None` for a single token.
fn causal_mask(start: usize, n: usize, device: &Device) -> Result<Option<Tensor>, VoiceError> {
    if n == 1 {
        return Ok(None);
    }
    let total = start + n;
    let values: Vec<f32> = (0..n)
        .flat_map(|i| {
            (0..total).map(move |j| {
                if j > start + i {
                    f32::NEG_INFINITY
                } else {
                    0.0
                }
            })
        })
        .collect();
    Ok(Some(Tensor::from_vec(values, (n, total), device)?))
}

/// Whisper's encoder positions: sines then cosines of geometrically spaced
/// frequencies, `length × channels`.
fn sinusoids(length: usize, channels: usize, device: &Device) -> Result<Tensor, VoiceError> {
    let half = channels / 2;
    let step = 10000f32.ln() / (half.max(2) - 1) as f32;
    let mut values = Vec::with_capacity(length * channels);
    for position in 0..length {
        let angle = |i: usize| position as f32 * (-(i as f32) * step).exp();
        values.extend((0..half).map(|i| angle(i).sin()));
        values.extend((0..half).map(|i| angle(i).cos()));
    }
    Ok(Tensor::from_vec(values, (length, channels), device)?)
}

/// The model's variables by CTranslate2 name, fetched onto the device.
struct Vars<'a> {
    tensors: &'a HashMap<String, Tensor>,
    device: &'a Device,
}

impl Vars<'_> {
    fn get(&self, name: &str) -> Result<Tensor, VoiceError> {
        let tensor = self.tensors.get(name).ok_or_else(|| missing(name))?;
        Ok(tensor.to_dtype(DType::F32)?.to_device(self.device)?)
    }

    /// The first dimension of a variable, without fetching it.
    fn rows(&self, name: &str) -> Result<usize, VoiceError> {
        let tensor = self.tensors.get(name).ok_or_else(|| missing(name))?;
        Ok(tensor.dim(0)?)
    }

    /// A layer norm's `gamma` and `beta`.
    fn norm(&self, prefix: &str) -> Result<LayerNorm, VoiceError> {
        Ok(LayerNorm::new(
            self.get(&format!("{prefix}/gamma"))?,
            self.get(&format!("{prefix}/beta"))?,
            NORM_EPS,
        ))
    }

    /// A projection with its bias, checked to give `rows` outputs.
    fn linear(&self, prefix: &str, rows: usize) -> Result<Linear, VoiceError> {
        let weight = self.get(&format!("{prefix}/weight"))?;
        let bias = self.get(&format!("{prefix}/bias"))?;
        if weight.dim(0)? != rows || bias.dims() != [rows] {
            return Err(VoiceError::Model(format!(
                "`{prefix}` is {:?} with a {:?} bias, not {rows} rows",
                weight.dims(),
                bias.dims()
            )));
        }
        Ok(Linear::new(weight, Some(bias)))
    }
}

fn missing(name: &str) -> VoiceError {
    VoiceError::Model(format!("model.bin has no `{name}`"))
}

fn bad_shape(name: &str, dims: &[usize]) -> VoiceError {
    VoiceError::Model(format!("`{name}` has the shape {dims:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Whisper of random weights: width 8, two heads, one block each side.
    fn tiny() -> Ct2Model {
        let (width, mels, vocab) = (8, 4, 12);
        let mut tensors = HashMap::new();
        let mut add = |name: &str, shape: &[usize]| {
            let t = Tensor::randn(0f32, 0.5, shape, &Device::Cpu).unwrap();
            tensors.insert(name.to_string(), t);
        };
        add("encoder/conv1/weight", &[width, mels, 3]);
        add("encoder/conv1/bias", &[width]);
        add("encoder/conv2/weight", &[width, width, 3]);
        add("encoder/conv2/bias", &[width]);
        add("encoder/position_encodings/encodings", &[6, width]);
        add("decoder/position_encodings/encodings", &[10, width]);
        add("decoder/embeddings/weight", &[vocab, width]);
        let linears: &[(&str, usize)] = &[
            ("encoder/layer_0/self_attention/linear_0", 3 * width),
            ("encoder/layer_0/self_attention/linear_1", width),
            ("decoder/layer_0/self_attention/linear_0", 3 * width),
            ("decoder/layer_0/self_attention/linear_1", width),
            ("decoder/layer_0/attention/linear_0", width),
            ("decoder/layer_0/attention/linear_1", 2 * width),
            ("decoder/layer_0/attention/linear_2", width),
            ("encoder/layer_0/ffn/linear_0", 4 * width),
            ("decoder/layer_0/ffn/linear_0", 4 * width),
        ];
        for (name, rows) in linears {
            add(&format!("{name}/weight"), &[*rows, width]);
            add(&format!("{name}/bias"), &[*rows]);
        }
        for side in ["encoder", "decoder"] {
            add(
                &format!("{side}/layer_0/ffn/linear_1/weight"),
                &[width, 4 * width],
            );
            add(&format!("{side}/layer_0/ffn/linear_1/bias"), &[width]);
        }
        for norm in [
            "encoder/layer_0/self_attention/layer_norm",
            "encoder/layer_0/ffn/layer_norm",
            "encoder/layer_norm",
            "decoder/layer_0/self_attention/layer_norm",
            "decoder/layer_0/attention/layer_norm",
            "decoder/layer_0/ffn/layer_norm",
            "decoder/layer_norm",
        ] {
            add(&format!("{norm}/gamma"), &[width]);
            add(&format!("{norm}/beta"), &[width]);
        }
        let scalars = HashMap::from([
            ("encoder/num_heads".to_string(), 2),
            ("decoder/num_heads".to_string(), 2),
        ]);
        Ct2Model {
            spec: "WhisperSpec".into(),
            tensors,
            scalars,
        }
    }

    fn rows(t: &Tensor) -> Vec<Vec<f32>> {
        t.to_vec2().unwrap()
    }

    #[test]
    fn sizes_are_read_from_the_variables() {
        let net = WhisperNet::load(&tiny(), &Device::Cpu).unwrap();
        let d = &net.dims;
        assert_eq!((d.width, d.mel_bins, d.vocab), (8, 4, 12));
        assert_eq!((d.audio_positions, d.text_positions), (6, 10));
        assert_eq!((d.encoder_layers, d.decoder_layers), (1, 1));
        assert_eq!((d.encoder_heads, d.decoder_heads), (2, 2));
    }

    #[test]
    fn tokens_one_at_a_time_equal_tokens_at_once() {
        let net = WhisperNet::load(&tiny(), &Device::Cpu).unwrap();
        let mel = Tensor::randn(0f32, 1.0, (1, 4, 12), &Device::Cpu).unwrap();
        let features = net.encode(&mel).unwrap();
        assert_eq!(features.dims(), [6, 8]);
        let tokens = [3, 1, 4, 1, 5];
        let mut whole = net.start(&features).unwrap();
        let at_once = rows(&net.step(&mut whole, &tokens).unwrap());
        let mut split = net.start(&features).unwrap();
        let mut one_by_one = rows(&net.step(&mut split, &tokens[..2]).unwrap());
        for &t in &tokens[2..] {
            one_by_one.extend(rows(&net.step(&mut split, &[t]).unwrap()));
        }
        assert_eq!((whole.position(), split.position()), (5, 5));
        for (a, b) in at_once.iter().flatten().zip(one_by_one.iter().flatten()) {
            assert!((a - b).abs() < 1e-4, "{at_once:?}\n{one_by_one:?}");
        }
    }

    #[test]
    fn tokens_read_and_forgotten_leave_no_trace() {
        let net = WhisperNet::load(&tiny(), &Device::Cpu).unwrap();
        let mel = Tensor::randn(0f32, 1.0, (1, 4, 12), &Device::Cpu).unwrap();
        let features = net.encode(&mel).unwrap();
        let mut plain = net.start(&features).unwrap();
        net.step(&mut plain, &[3, 1]).unwrap();
        let expected = rows(&net.step(&mut plain, &[2]).unwrap());
        let mut guessed = net.start(&features).unwrap();
        net.step(&mut guessed, &[3, 1, 4, 1, 5]).unwrap();
        guessed.truncate(2).unwrap();
        assert_eq!(guessed.position(), 2);
        let after = rows(&net.step(&mut guessed, &[2]).unwrap());
        for (a, b) in expected.iter().flatten().zip(after.iter().flatten()) {
            assert!((a - b).abs() < 1e-4, "{expected:?}\n{after:?}");
        }
        guessed.truncate(0).unwrap();
        assert_eq!(guessed.position(), 0);
        assert_eq!(net.step(&mut guessed, &[3]).unwrap().dims(), [1, 8]);
    }

    #[test]
    fn the_encoder_stops_when_told() {
        let net = WhisperNet::load(&tiny(), &Device::Cpu).unwrap();
        let mel = Tensor::randn(0f32, 1.0, (1, 4, 12), &Device::Cpu).unwrap();
        assert!(net.encode_while(&mel, &|| false).unwrap().is_none());
        let heard = net.encode_while(&mel, &|| true).unwrap().unwrap();
        assert_eq!(heard.dims(), [6, 8]);
    }

    #[test]
    fn past_the_decoder_s_positions_or_a_damaged_model_is_an_error() {
        let net = WhisperNet::load(&tiny(), &Device::Cpu).unwrap();
        let mel = Tensor::randn(0f32, 1.0, (1, 4, 12), &Device::Cpu).unwrap();
        let mut decoding = net.start(&net.encode(&mel).unwrap()).unwrap();
        assert!(net.step(&mut decoding, &[1; 11]).is_err());
        assert!(net.step(&mut decoding, &[]).is_err());
        let too_long = Tensor::randn(0f32, 1.0, (1, 4, 14), &Device::Cpu).unwrap();
        assert!(net.encode(&too_long).is_err());

        let mut damaged = tiny();
        damaged
            .tensors
            .remove("decoder/layer_0/attention/linear_1/bias");
        let e = WhisperNet::load(&damaged, &Device::Cpu).err().unwrap();
        assert!(e.to_string().contains("attention/linear_1/bias"), "{e}");
        let mut damaged = tiny();
        let wrong = Tensor::zeros((7, 8), DType::F32, &Device::Cpu).unwrap();
        damaged.tensors.insert(
            "encoder/layer_0/self_attention/linear_0/weight".into(),
            wrong,
        );
        let e = WhisperNet::load(&damaged, &Device::Cpu).err().unwrap();
        assert!(e.to_string().contains("not 24 rows"), "{e}");
    }

    #[test]
    fn the_mask_hides_later_tokens_only() {
        assert!(causal_mask(4, 1, &Device::Cpu).unwrap().is_none());
        let mask = causal_mask(1, 2, &Device::Cpu).unwrap().unwrap();
        let inf = f32::NEG_INFINITY;
        assert_eq!(rows(&mask), [[0.0, 0.0, inf], [0.0, 0.0, 0.0]]);
    }
}

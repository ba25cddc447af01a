//! Speech to text with Whisper on candle, from a CTranslate2 conversion.
//!
//! A model directory holds `model.bin` (CTranslate2), `tokenizer.json` and
//! CTranslate2's `config.json` (the token ids to suppress); [`net`] reads
//! the network from the variables. Transcription is greedy, without
//! timestamps, 30 seconds at a time.

pub mod net;

use crate::ct2::Ct2Model;
use crate::mel;
use crate::VoiceError;
use candle_core::{Device, IndexOp, Tensor, D};
use net::{Decoding, WhisperNet};
use serde::Deserialize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The sample rate Whisper hears.
pub const SAMPLE_RATE: usize = 16_000;
/// Samples between mel frames (10 ms).
const HOP_LENGTH: usize = 160;
/// The Fourier transform's window (25 ms).
const N_FFT: usize = 400;
/// Samples in the 30-second window Whisper was trained on.
const N_SAMPLES: usize = 30 * SAMPLE_RATE;
/// Mel frames in that window.
const N_FRAMES: usize = N_SAMPLES / HOP_LENGTH;

/// A window whose no-speech probability is above this, and whose tokens
/// average a log-probability below [`LOGPROB_THRESHOLD`], is silence.
const NO_SPEECH_THRESHOLD: f64 = 0.6;
const LOGPROB_THRESHOLD: f64 = -1.0;
/// A window whose no-speech probability is above this is silence however
/// sure the tokens are: on silence tiny.en says "you" with a mean
/// log-probability of -0.37 and a no-speech probability of 0.95 (spoken
/// questions: 0.15).
const NO_SPEECH_CERTAIN: f64 = 0.9;

/// Silence the encoder hears after the audio when it does not hear all 30
/// seconds: 4 s. With 2 or 3 s, tiny.en repeats some short commands ("set a
/// timer for 5 minutes. Set a timer …") and the window is decoded again;
/// with 4 s, five test commands came out as with the full window.
const TRIM_PADDING_FRAMES: [usize; 2] = [400, 1000];
/// Mel frames per second of audio.
const FRAMES_PER_SECOND: usize = SAMPLE_RATE / HOP_LENGTH;
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
    net: WhisperNet,
    tokenizer: tokenizers::Tokenizer,
    filters: Vec<f32>,
    specials: Specials,
    /// Added to the logits at every step: 0 or minus infinity.
    suppress: Tensor,
    /// Added at the first step besides.
    suppress_begin: Tensor,
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
        let net = WhisperNet::load(&ct2, device)
            .map_err(|e| VoiceError::Model(format!("{}: {e}", dir.display())))?;
        drop(ct2);
        let suppress: SuppressConfig = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| VoiceError::Model(format!("config.json: {e}")))?;
        let tokenizer = tokenizers::Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|e| VoiceError::Model(format!("tokenizer.json: {e}")))?;
        let vocab = net.dims.vocab;
        let specials = specials(&tokenizer, vocab)?;
        let mask = |ids: &mut dyn Iterator<Item = u32>| -> Result<Tensor, VoiceError> {
            let mut values = vec![0f32; vocab];
            for id in ids {
                if let Some(v) = values.get_mut(id as usize) {
                    *v = f32::NEG_INFINITY;
                }
            }
            Ok(Tensor::new(values, device)?)
        };
        let timestamps = specials.no_timestamps..vocab as u32;
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
            filters: mel::filters(SAMPLE_RATE, N_FFT, net.dims.mel_bins),
            net,
            tokenizer,
            specials,
            suppress: suppress_tensor,
            suppress_begin,
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
        let heard = self.transcribe_unless(samples, &AtomicBool::new(false))?;
        Ok(heard.unwrap_or_default())
    }

    /// [`Whisper::transcribe`], given up as soon as `abandoned` is set (it is
    /// looked at between the encoder's layers and the decoder's tokens):
    /// `None` then. For a transcription that newer speech has made stale,
    /// so that it does not hold up the next.
    pub fn transcribe_unless(
        &mut self,
        samples: &[f32],
        abandoned: &AtomicBool,
    ) -> Result<Option<String>, VoiceError> {
        Ok(self.hear(samples, &[], abandoned)?.map(|heard| heard.text))
    }

    /// [`Whisper::transcribe_unless`] for speech that an earlier
    /// transcription heard the beginning of: `hint` is what that one
    /// decoded ([`Heard::tokens`]). The decoder reads the hint in one step
    /// and keeps as much of it as it would have said itself, so only the
    /// rest is decoded a token at a time; the text is the one decoded
    /// without a hint.
    pub fn hear(
        &mut self,
        samples: &[f32],
        hint: &[u32],
        abandoned: &AtomicBool,
    ) -> Result<Option<Heard>, VoiceError> {
        let go_on = || !abandoned.load(Ordering::Relaxed);
        let mut heard = Heard::default();
        for (i, window) in samples.chunks(N_SAMPLES).enumerate() {
            let hint = if i == 0 { hint } else { &[] };
            let Some(said) = self.transcribe_window(window, hint, &go_on)? else {
                return Ok(None);
            };
            if i == 0 {
                heard.tokens = said.tokens;
                heard.reused = said.reused;
            }
            let part = said.text.trim();
            if !part.is_empty() {
                if !heard.text.is_empty() {
                    heard.text.push(' ');
                }
                heard.text.push_str(part);
            }
        }
        Ok(Some(heard))
    }

    /// One window of at most 30 seconds. The encoder first hears only the
    /// audio and [`TRIM_PADDING_FRAMES`] of silence after it (ten times less
    /// work for a short question); when the decoder then runs away —
    /// repeats itself or fills its budget — the window is decoded again
    /// with more silence, up to the full 30 seconds Whisper was trained
    /// on. A sentence said over and over is heard again with its first
    /// copy as the hint: read in one step, so that hearing costs little
    /// more than its encoder when it agrees.
    fn transcribe_window(
        &mut self,
        samples: &[f32],
        hint: &[u32],
        go_on: &dyn Fn() -> bool,
    ) -> Result<Option<Heard>, VoiceError> {
        self.language = None;
        let heard = samples.len().div_ceil(HOP_LENGTH);
        let mut hint = hint.to_vec();
        for padding in TRIM_PADDING_FRAMES {
            let trimmed = (heard + padding).next_multiple_of(2);
            if trimmed >= N_FRAMES {
                break;
            }
            let budget = MIN_TOKENS.max(heard * TOKENS_PER_SECOND / FRAMES_PER_SECOND);
            match self.decode(samples, trimmed, budget, &hint, go_on)? {
                Decoded::Text(said) => return Ok(Some(said)),
                Decoded::Stopped => return Ok(None),
                Decoded::RanAway(_) => {}
                Decoded::Repeated(said) => hint = said.tokens,
            }
        }
        let budget = self.net.dims.text_positions / 2;
        match self.decode(samples, N_FRAMES, budget, &hint, go_on)? {
            Decoded::Text(said) | Decoded::RanAway(said) | Decoded::Repeated(said) => {
                Ok(Some(said))
            }
            Decoded::Stopped => Ok(None),
        }
    }

    /// Greedy decoding of `samples` heard through `frames` mel frames, at
    /// most `budget` tokens, while `go_on` says so; the tokens the decoder
    /// is expected to begin with (`hint`) are checked in one step.
    fn decode(
        &mut self,
        samples: &[f32],
        frames: usize,
        budget: usize,
        hint: &[u32],
        go_on: &dyn Fn() -> bool,
    ) -> Result<Decoded, VoiceError> {
        let n_mels = self.net.dims.mel_bins;
        let mel = mel::log_mel(samples, frames, HOP_LENGTH, N_FFT, &self.filters);
        let mel = Tensor::from_vec(mel, (1, n_mels, frames), &self.device)?;
        let Some(features) = self.net.encode_while(&mel, go_on)? else {
            return Ok(Decoded::Stopped);
        };
        let mut decoding = self.net.start(&features)?;
        let first = self.logits(&self.net.step(&mut decoding, &[self.specials.start])?)?;
        let no_speech_prob = match self.specials.no_speech {
            Some(id) => {
                let probs = candle_nn::ops::softmax(&first, D::Minus1)?;
                probs.i(id as usize)?.to_scalar::<f32>()? as f64
            }
            None => 0.0,
        };
        let mut prompt = Vec::new();
        if let Some((languages, transcribe)) = self.specials.multilingual.clone() {
            let language = match self.language {
                Some(known) => known,
                None => language_of(&first, languages)?,
            };
            self.language = Some(language);
            prompt.extend([language, transcribe]);
        }
        prompt.push(self.specials.no_timestamps);
        let hidden = self.net.step(&mut decoding, &prompt)?;
        let mut logits = self.logits(&hidden)?;
        let steps = budget.min(self.room(&decoding));
        let mut guess = Guess::new(hint, steps, decoding.position());
        if !guess.tokens.is_empty() {
            let hidden = self.net.step(&mut decoding, &guess.tokens)?;
            guess.logits = self.all_logits(&hidden)?;
        }
        let mut tokens = Vec::new();
        let mut logprob_sum = 0.0;
        let mut finished = false;
        let mut repeated = false;
        for step in 0..steps {
            if !go_on() {
                return Ok(Decoded::Stopped);
            }
            let mut suppressed = logits.broadcast_add(&self.suppress)?;
            if step == 0 {
                suppressed = suppressed.broadcast_add(&self.suppress_begin)?;
            }
            let (next, logprob) = greedy(&suppressed.to_vec1::<f32>()?);
            logprob_sum += logprob;
            if next == self.specials.end {
                finished = true;
                break;
            }
            tokens.push(next);
            if let Some(once) = first_of_copies(&tokens, |t| self.ends_sentence(t)) {
                tokens.truncate(once);
                repeated = true;
                break;
            }
            if repeats(&tokens) {
                break;
            }
            logits = match guess.next(next) {
                Some(read) => read,
                None => {
                    if let Some(kept) = guess.dropped() {
                        decoding.truncate(kept)?;
                    }
                    self.logits(&self.net.step(&mut decoding, &[next])?)?
                }
            };
        }
        if let Some(once) = said_twice(&tokens, |t| self.ends_sentence(t)).filter(|_| finished) {
            tokens.truncate(once);
        }
        let mean_logprob = logprob_sum / (tokens.len() + 1) as f64;
        let unsure = no_speech_prob > NO_SPEECH_THRESHOLD && mean_logprob < LOGPROB_THRESHOLD;
        let text = if unsure || no_speech_prob > NO_SPEECH_CERTAIN {
            String::new()
        } else {
            self.tokenizer
                .decode(&tokens, true)
                .map_err(|e| VoiceError::Model(format!("cannot decode tokens: {e}")))?
        };
        let said = Heard {
            text,
            tokens,
            reused: guess.agreed,
        };
        Ok(if finished {
            Decoded::Text(said)
        } else if repeated {
            Decoded::Repeated(said)
        } else {
            Decoded::RanAway(said)
        })
    }
}

impl Whisper {
    /// The logits after the last of `hidden`'s states (`tokens × width`).
    fn logits(&self, hidden: &Tensor) -> Result<Tensor, VoiceError> {
        let last = hidden.i(hidden.dim(0)? - 1)?;
        // `embeddings · hidden`, this way round so that the large matrix is
        // never transposed and copied.
        Ok(self
            .net
            .embeddings()
            .matmul(&last.unsqueeze(1)?)?
            .squeeze(1)?)
    }

    /// The logits after each of `hidden`'s states, a row each.
    fn all_logits(&self, hidden: &Tensor) -> Result<Vec<Tensor>, VoiceError> {
        let all = self
            .net
            .embeddings()
            .matmul(&hidden.t()?)?
            .t()?
            .contiguous()?;
        (0..all.dim(0)?).map(|row| Ok(all.i(row)?)).collect()
    }

    /// Whether `token` ends a sentence (`.`, `?`, `!`).
    fn ends_sentence(&self, token: u32) -> bool {
        self.tokenizer
            .decode(&[token], false)
            .is_ok_and(|text| text.trim_end().ends_with(['.', '?', '!']))
    }

    /// Tokens the decoder can still take after what `decoding` has read.
    fn room(&self, decoding: &Decoding) -> usize {
        self.net
            .dims
            .text_positions
            .saturating_sub(decoding.position())
    }
}

/// The most likely of the `languages` tokens in the `logits` after the
/// start token (decided once per window).
fn language_of(logits: &Tensor, languages: std::ops::Range<u32>) -> Result<u32, VoiceError> {
    let logits = logits.to_vec1::<f32>()?;
    let scores = logits
        .get(languages.start as usize..languages.end as usize)
        .ok_or_else(|| VoiceError::Model("language tokens past the vocabulary".into()))?;
    let (best, _) = greedy(scores);
    Ok(languages.start + best)
}

/// What a transcription heard.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heard {
    /// The text.
    pub text: String,
    /// The tokens decoded from the first 30 seconds, as a hint for a later
    /// transcription of the same speech heard longer ([`Whisper::hear`]).
    pub tokens: Vec<u32>,
    /// Of the hint's tokens, how many the decoder said too (read in one
    /// step instead of one at a time).
    pub reused: usize,
}

/// How a decode ended.
enum Decoded {
    /// At the end-of-text token.
    Text(Heard),
    /// Repeating itself or out of tokens.
    RanAway(Heard),
    /// Going on to say a sentence a third time: its first copy.
    Repeated(Heard),
    /// Given up when asked to stop.
    Stopped,
}

/// The tokens a decode is expected to begin with, read in one step, and
/// how far the decoder has agreed with them.
struct Guess {
    tokens: Vec<u32>,
    /// The logits after each guessed token (once read).
    logits: Vec<Tensor>,
    /// Guessed tokens the decoder has said so far.
    agreed: usize,
    /// Until the decoder says something else.
    open: bool,
    /// Where the decoder's positions stood before the guess was read.
    read_at: usize,
}

impl Guess {
    /// At most `steps - 1` tokens of `hint` (the last step must be free to
    /// end the text), to be read after `read_at` positions.
    fn new(hint: &[u32], steps: usize, read_at: usize) -> Guess {
        Guess {
            tokens: hint[..hint.len().min(steps.saturating_sub(1))].to_vec(),
            logits: Vec::new(),
            agreed: 0,
            open: true,
            read_at,
        }
    }

    /// The decoder said `token`: the logits after it when it was the next
    /// guessed token (already read); `None` when it must be read now.
    fn next(&mut self, token: u32) -> Option<Tensor> {
        if !self.open || self.tokens.get(self.agreed) != Some(&token) {
            return None;
        }
        self.agreed += 1;
        self.logits.get(self.agreed - 1).cloned()
    }

    /// Once, after the decoder first said something else: how many
    /// positions to keep (the prompt and the guessed tokens it said), when
    /// a guess had been read.
    fn dropped(&mut self) -> Option<usize> {
        let open = std::mem::replace(&mut self.open, false);
        (open && !self.tokens.is_empty()).then_some(self.read_at + self.agreed)
    }
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

/// Where the first of two copies ends when `tokens` are whole sentences said
/// twice over (`What is the capital of France? What is the capital of
/// France?`): Whisper, hearing a short question and then silence, often
/// says it again before it ends. Only an exact second copy, ending where
/// the first ended, counts. (A decode that goes on to a third copy is
/// stopped there and the window heard again with more silence: that
/// transcript is often better, "a brave little robot" where the short
/// window heard "on out and rain little robot".)
fn said_twice(tokens: &[u32], ends_sentence: impl Fn(u32) -> bool) -> Option<usize> {
    let half = tokens.len() / 2;
    (half >= 2
        && tokens.len().is_multiple_of(2)
        && tokens[..half] == tokens[half..]
        && ends_sentence(tokens[half - 1]))
    .then_some(half)
}

/// Where the first copy ends, when `tokens` are a sentence said twice over
/// and the first token of a third: a decoder going on repeating.
fn first_of_copies(tokens: &[u32], ends_sentence: impl Fn(u32) -> bool) -> Option<usize> {
    let (third, copies) = tokens.split_last()?;
    said_twice(copies, ends_sentence).filter(|_| copies.first() == Some(third))
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

fn specials(tokenizer: &tokenizers::Tokenizer, vocab: usize) -> Result<Specials, VoiceError> {
    let id = |token: &str| {
        tokenizer
            .token_to_id(token)
            .ok_or_else(|| VoiceError::Model(format!("tokenizer.json has no {token}")))
    };
    let multilingual = vocab >= 51865;
    Ok(Specials {
        start: id("<|startoftranscript|>")?,
        end: id("<|endoftext|>")?,
        no_timestamps: id("<|notimestamps|>")?,
        no_speech: ["<|nocaptions|>", "<|nospeech|>"]
            .iter()
            .find_map(|t| tokenizer.token_to_id(t)),
        multilingual: if multilingual {
            Some((id("<|en|>")?..id("<|translate|>")?, id("<|transcribe|>")?))
        } else {
            None
        },
    })
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
    fn a_sentence_said_twice_over_is_kept_once() {
        let stop = |t: u32| t == 0;
        assert_eq!(said_twice(&[5, 6, 0, 5, 6, 0], stop), Some(3));
        assert_eq!(
            said_twice(&[5, 6, 0, 7, 5, 6, 0, 7], stop),
            None,
            "not at a sentence's end"
        );
        assert_eq!(said_twice(&[5, 6, 0, 5, 6], stop), None);
        assert_eq!(said_twice(&[5, 6, 0, 5, 6, 0, 8], stop), None);
        assert_eq!(said_twice(&[0, 0], stop), None, "too short to tell");
        assert_eq!(said_twice(&[], stop), None);
    }

    #[test]
    fn a_third_copy_begun_is_a_decoder_repeating() {
        let stop = |t: u32| t == 0;
        assert_eq!(first_of_copies(&[5, 6, 0, 5, 6, 0, 5], stop), Some(3));
        assert_eq!(
            first_of_copies(&[5, 6, 0, 5, 6, 0, 7], stop),
            None,
            "a new sentence"
        );
        assert_eq!(
            first_of_copies(&[5, 6, 0, 5, 6, 0], stop),
            None,
            "not yet begun"
        );
        assert_eq!(
            first_of_copies(&[5, 6, 1, 5, 6, 1, 5], stop),
            None,
            "not sentences"
        );
        assert_eq!(first_of_copies(&[], stop), None);
    }

    #[test]
    fn runaway_repeats_are_seen() {
        assert!(repeats(&[7, 7, 7, 7]));
        assert!(repeats(&[1, 2, 3, 9, 8, 9, 8, 9, 8, 9, 8]));
        assert!(!repeats(&[9, 8, 9, 8, 9, 8]));
        assert!(!repeats(&[1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3]));
        assert!(!repeats(&[]));
    }
}

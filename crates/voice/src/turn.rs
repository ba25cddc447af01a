//! Whether the speaker has finished their turn, heard from how they spoke:
//! the Smart Turn v3.2 model (a Whisper-tiny encoder with a classifier,
//! ONNX) on the last 8 seconds of the utterance. The endpointer asks it once
//! a short silence follows speech ([`crate::vad::TurnJudge`]), instead of
//! waiting out a long fixed silence.

use super::mel;
use super::vad::{TurnJudge, RATE};
use super::VoiceError;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use std::borrow::Cow;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// Samples the model hears: the last 8 seconds.
pub const WINDOW: usize = 8 * RATE;
/// Spectrogram frames of the window (10 ms each).
const FRAMES: usize = 800;
/// Mel bands.
const MELS: usize = 80;
/// FFT length and hop of the spectrogram (25 ms windows every 10 ms).
const N_FFT: usize = 400;
const HOP: usize = 160;

/// The Smart Turn model, ready to judge utterances.
pub struct SmartTurn {
    session: Mutex<Session>,
    filters: Vec<f32>,
}

impl std::fmt::Debug for SmartTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmartTurn").finish_non_exhaustive()
    }
}

impl SmartTurn {
    /// Loads `model` (`smart-turn-v3.2-cpu.onnx`: input `input_features`
    /// `[1, 80, 800]`, output `logits` `[1, 1]`, already a probability)
    /// with the onnxruntime library at `runtime`, on one thread.
    pub fn load(model: &Path, runtime: &Path) -> Result<SmartTurn, VoiceError> {
        let session = crate::onnx::session(model, runtime, true, "turn model")?;
        let (inputs, outputs) = crate::onnx::io_names(&session);
        if inputs != ["input_features"] || outputs != ["logits"] {
            return Err(VoiceError::Model(format!(
                "{} is not a Smart Turn model: inputs {}, outputs {}",
                model.display(),
                inputs.join(", "),
                outputs.join(", ")
            )));
        }
        Ok(SmartTurn {
            session: Mutex::new(session),
            filters: mel::filters(RATE, N_FFT, MELS),
        })
    }

    /// The probability that `speech` (16 kHz, from just before the speaker
    /// began to now) is a whole turn.
    pub fn complete(&self, speech: &[f32]) -> Result<f32, VoiceError> {
        let features = features(speech, &self.filters);
        let onnx = |e: ort::Error| VoiceError::Model(format!("turn model: {e}"));
        let input = Tensor::from_array(([1usize, MELS, FRAMES], features)).map_err(onnx)?;
        let inputs: Vec<(Cow<'static, str>, SessionInputValue<'static>)> =
            vec![("input_features".into(), input.into())];
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let outputs = session.run(inputs).map_err(onnx)?;
        let logits = outputs
            .get("logits")
            .ok_or_else(|| VoiceError::Model("the turn model gave no `logits`".into()))?;
        let (_, probability) = logits.try_extract_tensor::<f32>().map_err(onnx)?;
        probability
            .first()
            .copied()
            .filter(|p| p.is_finite())
            .ok_or_else(|| VoiceError::Model("the turn model gave no probability".into()))
    }
}

impl TurnJudge for SmartTurn {
    fn complete(&self, speech: &[f32]) -> Result<f32, VoiceError> {
        SmartTurn::complete(self, speech)
    }
}

/// The model's input for `speech`: its last 8 seconds, zero-padded in front
/// to exactly 8, scaled to zero mean and unit variance, as Whisper's log-mel
/// spectrogram (`[80, 800]`, row-major).
pub fn features(speech: &[f32], filters: &[f32]) -> Vec<f32> {
    let heard = &speech[speech.len().saturating_sub(WINDOW)..];
    let mut window = vec![0f32; WINDOW - heard.len()];
    window.extend_from_slice(heard);
    let mean = window.iter().map(|&x| f64::from(x)).sum::<f64>() / WINDOW as f64;
    let variance = window
        .iter()
        .map(|&x| (f64::from(x) - mean).powi(2))
        .sum::<f64>()
        / WINDOW as f64;
    let scale = 1.0 / (variance + 1e-7).sqrt();
    for x in &mut window {
        *x = ((f64::from(*x) - mean) * scale) as f32;
    }
    mel::log_mel(&window, FRAMES, HOP, N_FFT, filters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_is_the_floor_everywhere() {
        let features = features(&[0.0; 1000], &mel::filters(RATE, N_FFT, MELS));
        assert_eq!(features.len(), MELS * FRAMES);
        assert!(features.iter().all(|v| (v + 1.5).abs() < 1e-6));
    }

    #[test]
    fn only_the_last_eight_seconds_count() {
        let filters = mel::filters(RATE, N_FFT, MELS);
        let tone: Vec<f32> = (0..WINDOW)
            .map(|i| (i as f32 * 440.0 * std::f32::consts::TAU / RATE as f32).sin())
            .collect();
        let mut longer = vec![0.3f32; 3 * RATE];
        longer.extend_from_slice(&tone);
        assert_eq!(features(&longer, &filters), features(&tone, &filters));
    }
}

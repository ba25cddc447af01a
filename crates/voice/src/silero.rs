//! Silero VAD v6 (ONNX): a trained voice detector that tells speech from
//! other sound (music, noise, hum) on 32 ms windows of 16 kHz audio,
//! carrying a recurrent state from window to window. The endpointer hears
//! with it instead of earshot's when asked to ([`crate::vad::Endpointer::hearing`]).

use super::vad::{Thresholds, VoiceDetector, VoiceScorer, FRAME};
use super::VoiceError;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// Samples the model takes at a time at 16 kHz (32 ms: two frames).
const WINDOW: usize = 512;
/// Samples of the previous window it hears again before each one.
const CONTEXT: usize = 64;
/// Floats of the recurrent state (`[2, 1, 128]`).
const STATE: usize = 2 * 128;
/// The model's own thresholds (0.5 is voiced, and speech goes on until a
/// window scores under 0.35), with speech starting after three voiced
/// windows in a row (96 ms), so that a lone window of a steady hum or a
/// chord does not start an utterance.
const THRESHOLDS: Thresholds = Thresholds {
    start: 0.5,
    start_frames: 3 * WINDOW / FRAME,
    stay: 0.35,
};

/// The Silero VAD model, shared by every stream heard with it.
#[derive(Clone)]
pub struct SileroVad {
    session: Arc<Mutex<Session>>,
}

impl std::fmt::Debug for SileroVad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SileroVad").finish_non_exhaustive()
    }
}

impl SileroVad {
    /// Loads `model` (`silero_vad.onnx` of the `silero-vad` wheel: inputs
    /// `input` `[1, 576]`, `state` `[2, 1, 128]`, `sr`; outputs `output`
    /// `[1, 1]` and `stateN`) with the onnxruntime library at `runtime`, on
    /// one thread.
    pub fn load(model: &Path, runtime: &Path) -> Result<SileroVad, VoiceError> {
        let session = crate::onnx::session(model, runtime, true, "voice detector")?;
        let (inputs, outputs) = crate::onnx::io_names(&session);
        if inputs != ["input", "sr", "state"] || outputs != ["output", "stateN"] {
            return Err(VoiceError::Model(format!(
                "{} is not a Silero VAD model: inputs {}, outputs {}",
                model.display(),
                inputs.join(", "),
                outputs.join(", ")
            )));
        }
        Ok(SileroVad {
            session: Arc::new(Mutex::new(session)),
        })
    }

    /// The probability that `window` (the context, then [`WINDOW`] new
    /// samples) holds speech, and the state after it.
    fn run(&self, window: Vec<f32>, state: Vec<f32>) -> Result<(f32, Vec<f32>), VoiceError> {
        let onnx = |e: ort::Error| VoiceError::Model(format!("voice detector: {e}"));
        let inputs: Vec<(Cow<'static, str>, SessionInputValue<'static>)> = vec![
            (
                "input".into(),
                Tensor::from_array(([1usize, CONTEXT + WINDOW], window))
                    .map_err(onnx)?
                    .into(),
            ),
            (
                "state".into(),
                Tensor::from_array(([2usize, 1, 128], state))
                    .map_err(onnx)?
                    .into(),
            ),
            (
                "sr".into(),
                Tensor::from_array(([0usize; 0], vec![16_000i64]))
                    .map_err(onnx)?
                    .into(),
            ),
        ];
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let outputs = session.run(inputs).map_err(onnx)?;
        let missing = |name| VoiceError::Model(format!("the voice detector gave no `{name}`"));
        let (_, probability) = outputs
            .get("output")
            .ok_or_else(|| missing("output"))?
            .try_extract_tensor::<f32>()
            .map_err(onnx)?;
        let (_, next) = outputs
            .get("stateN")
            .ok_or_else(|| missing("stateN"))?
            .try_extract_tensor::<f32>()
            .map_err(onnx)?;
        let probability = probability
            .first()
            .copied()
            .filter(|p| p.is_finite())
            .ok_or_else(|| VoiceError::Model("the voice detector gave no probability".into()))?;
        if next.len() != STATE {
            return Err(VoiceError::Model(format!(
                "the voice detector's state has {} values, not {STATE}",
                next.len()
            )));
        }
        Ok((probability, next.to_vec()))
    }
}

impl VoiceDetector for SileroVad {
    fn scorer(&self) -> Box<dyn VoiceScorer> {
        Box::new(SileroStream {
            vad: self.clone(),
            state: vec![0.0; STATE],
            context: vec![0.0; CONTEXT],
            pending: Vec::with_capacity(WINDOW),
            last: 0.0,
        })
    }
}

/// One stream heard by Silero VAD: its state, and the samples not yet a
/// whole window.
struct SileroStream {
    vad: SileroVad,
    state: Vec<f32>,
    context: Vec<f32>,
    pending: Vec<f32>,
    /// The last window's probability: each frame's score until the window
    /// it ends is complete.
    last: f32,
}

impl VoiceScorer for SileroStream {
    fn score(&mut self, frame: &[f32]) -> Result<f32, VoiceError> {
        debug_assert_eq!(frame.len(), FRAME);
        self.pending.extend_from_slice(frame);
        if self.pending.len() >= WINDOW {
            let mut window = Vec::with_capacity(CONTEXT + WINDOW);
            window.extend_from_slice(&self.context);
            window.extend(self.pending.drain(..WINDOW));
            self.context.copy_from_slice(&window[WINDOW..]);
            let state = std::mem::take(&mut self.state);
            let (probability, next) = self.vad.run(window, state)?;
            self.state = next;
            self.last = probability;
            tracing::trace!("silero: {probability:.3}");
        }
        Ok(self.last)
    }

    fn thresholds(&self) -> Thresholds {
        THRESHOLDS
    }
}

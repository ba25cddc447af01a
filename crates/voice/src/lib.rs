//! Voice: audio in and out, speech to text, text to speech.
//!
//! - [`audio`]: mono samples, WAV files, resampling;
//! - [`whisper`]: speech to text with Whisper on candle, read from a
//!   CTranslate2 conversion by [`ct2`], with the filter bank of [`mel`];
//! - [`speech`]: text to speech with espeak-ng or a Piper voice ([`piper`]),
//!   fed sentence by sentence by the engines\' sentence splitter;
//! - [`vad`]: where an utterance starts and ends; with the `onnx` feature,
//!   [`silero`] hears speech there with Silero VAD, and [`turn`] whether the
//!   speaker has finished, heard from how they spoke;
//! - [`onnx`]: the onnxruntime library the ONNX models share;
//! - [`stream`]: audio in real time, heard chunk by chunk and played from a
//!   queue, from and to sound cards ([`device`], with the `audio` feature)
//!   or WAV files.

#![deny(missing_docs)]

pub mod audio;
pub mod ct2;
#[cfg(feature = "audio")]
pub mod device;
pub mod mel;
#[cfg(feature = "onnx")]
pub mod onnx;
#[cfg(feature = "piper")]
pub mod piper;
#[cfg(feature = "onnx")]
pub mod silero;
pub mod speech;
pub mod stream;
#[cfg(feature = "onnx")]
pub mod turn;
pub mod vad;
pub mod whisper;

/// Why a voice stage failed.
#[derive(Debug, thiserror::Error)]
pub enum VoiceError {
    /// A speech model could not be loaded or run.
    #[error("speech model: {0}")]
    Model(String),
    /// Audio could not be read, written or converted.
    #[error("audio: {0}")]
    Audio(String),
    /// The speech synthesizer failed.
    #[error("text to speech: {0}")]
    Speech(String),
}

impl From<candle_core::Error> for VoiceError {
    fn from(e: candle_core::Error) -> Self {
        VoiceError::Model(e.to_string())
    }
}

//! `loopd transcribe` and `loopd say`: the speech stages on their own, from
//! and to WAV files.

use crate::brain::device::{self, DeviceChoice};
use crate::models;
use crate::voice::audio::Pcm;
use crate::voice::speech::Espeak;
use crate::voice::whisper::{self, Whisper};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `loopd transcribe`.
#[derive(Debug, Args)]
pub struct TranscribeArgs {
    /// The WAV file to transcribe (any rate, mono or stereo).
    pub input: PathBuf,

    /// Speech model: a known name or a model directory (default: the
    /// manifest's default speech model).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Where to run the model: auto, cpu, cuda or metal.
    #[arg(long, default_value = "auto", value_name = "D")]
    pub device: DeviceChoice,

    /// Print one JSON object: the transcript, the audio's length, the
    /// transcription time and its real-time factor.
    #[arg(long)]
    pub json: bool,
}

/// Runs `loopd transcribe`.
pub fn transcribe(args: TranscribeArgs) -> Result<(), String> {
    let dir = models::resolve_speech(args.model.as_deref()).map_err(|e| e.to_string())?;
    let device = device::open(args.device).map_err(|e| e.to_string())?;
    let loading = Instant::now();
    let mut whisper = Whisper::load(&dir, &device).map_err(|e| e.to_string())?;
    let load_ms = loading.elapsed().as_secs_f64() * 1000.0;
    let audio = Pcm::read_wav(&args.input)
        .and_then(|pcm| pcm.resampled(whisper::SAMPLE_RATE as u32))
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let text = whisper
        .transcribe(&audio.samples)
        .map_err(|e| e.to_string())?;
    let stt_ms = started.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        let out = json!({
            "transcript": text,
            "audio_ms": audio.seconds() * 1000.0,
            "load_ms": load_ms,
            "stt_ms": stt_ms,
            "real_time_factor": stt_ms / 1000.0 / audio.seconds().max(1e-9),
        });
        println!("{out}");
    } else {
        println!("{text}");
    }
    Ok(())
}

/// Arguments of `loopd say`.
#[derive(Debug, Args)]
pub struct SayArgs {
    /// What to say.
    pub text: String,

    /// The WAV file to write.
    #[arg(long, short, value_name = "OUT.wav")]
    pub output: PathBuf,

    /// espeak-ng voice.
    #[arg(long, default_value = "en-us", value_name = "VOICE")]
    pub voice: String,
}

/// Runs `loopd say`.
pub fn say(args: SayArgs) -> Result<(), String> {
    let voice = Espeak { voice: args.voice };
    let speech = voice.synthesize(&args.text).map_err(|e| e.to_string())?;
    speech.write_wav(&args.output).map_err(|e| e.to_string())
}

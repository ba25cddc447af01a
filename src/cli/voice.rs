//! `loopd transcribe` and `loopd say`: the speech stages on their own, from
//! and to WAV files.

use crate::brain::device::{self, DeviceChoice};
use crate::models;
use crate::voice::audio::Pcm;
use crate::voice::stream::{self, Sink};
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
            "language": whisper.language(),
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

    /// The WAV file to write (default: play it on a loudspeaker).
    #[arg(long, short, value_name = "OUT.wav")]
    pub output: Option<PathBuf>,

    /// The loudspeaker to play on (`loopd audio devices` lists them;
    /// default: the system's default output).
    #[arg(long, value_name = "NAME", conflicts_with = "output")]
    pub device: Option<String>,

    /// The voice: an espeak-ng voice (`en-us`), or `piper-joe` (a Piper
    /// voice, `models/fetch piper-joe`).
    #[arg(long, default_value = "en-us", value_name = "VOICE")]
    pub voice: String,
}

/// Runs `loopd say`.
pub fn say(args: SayArgs) -> Result<(), String> {
    let voice = crate::models::open_voice(&args.voice).map_err(|e| e.to_string())?;
    let speech = voice.synthesize(&args.text).map_err(|e| e.to_string())?;
    match &args.output {
        Some(path) => speech.write_wav(path).map_err(|e| e.to_string()),
        None => play(&speech, args.device.as_deref()),
    }
}

fn play(speech: &Pcm, device: Option<&str>) -> Result<(), String> {
    let sink = Sink::Loudspeaker(device.map(String::from));
    let speaker = stream::play(&sink, speech.rate, Instant::now()).map_err(|e| e.to_string())?;
    speaker.play(speech).map_err(|e| e.to_string())?;
    speaker.close().map_err(|e| e.to_string())
}

/// Arguments of `loopd audio`.
#[derive(Debug, Args)]
pub struct AudioArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: AudioCommand,
}

/// The `loopd audio` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum AudioCommand {
    /// List the sound devices (microphones and loudspeakers).
    Devices {
        /// One JSON array.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `loopd audio`.
pub fn audio(args: AudioArgs) -> Result<(), String> {
    match args.command {
        AudioCommand::Devices { json } => devices(json),
    }
}

#[cfg(feature = "audio")]
fn devices(json: bool) -> Result<(), String> {
    let devices = crate::voice::device::devices().map_err(|e| e.to_string())?;
    if json {
        println!("{}", serde_json::to_string(&devices).unwrap_or_default());
        return Ok(());
    }
    if devices.is_empty() {
        println!("no sound devices");
    }
    for d in devices {
        let mut roles = Vec::new();
        if d.input {
            roles.push(if d.default_input {
                "input (default)"
            } else {
                "input"
            });
        }
        if d.output {
            roles.push(if d.default_output {
                "output (default)"
            } else {
                "output"
            });
        }
        println!("{:<28} {:<40} {}", d.id, d.name, roles.join(", "));
    }
    Ok(())
}

#[cfg(not(feature = "audio"))]
fn devices(_: bool) -> Result<(), String> {
    Err(crate::voice::stream::NO_AUDIO.into())
}

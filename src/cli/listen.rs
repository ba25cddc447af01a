//! `loopd listen`: a spoken question from a WAV file, answered aloud into
//! another, sentence by sentence as the loop generates.

use super::ask::{self, AskOptions};
use super::Failure;
use crate::brain::device;
use crate::daemon::{AskError, Daemon};
use crate::engine::{self, Trace};
use crate::frontends::listen::{hear, speak_answer, Speaker};
use crate::models;
use crate::voice::audio::Pcm;
use crate::voice::speech::Espeak;
use crate::voice::vad::Endpointing;
use crate::voice::whisper::{self, Whisper};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `loopd listen`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct ListenArgs {
    /// The spoken question, a WAV file (any rate, mono or stereo).
    #[arg(long, value_name = "IN.wav")]
    pub input: PathBuf,

    /// Where the spoken answer goes, a WAV file.
    #[arg(long, value_name = "OUT.wav")]
    pub output: PathBuf,

    /// Speech-to-text model: a known name or a directory (default: the
    /// manifest's default speech model).
    #[arg(long, value_name = "NAME")]
    pub speech_model: Option<String>,

    /// espeak-ng voice.
    #[arg(long, default_value = "en-us", value_name = "VOICE")]
    pub voice: String,

    /// Silence that ends the question, in milliseconds.
    #[arg(long, default_value_t = 480, value_name = "MS")]
    pub trailing_silence: u32,

    /// How to answer.
    #[command(flatten)]
    pub options: AskOptions,
}

/// Runs `loopd listen`.
pub fn run(args: ListenArgs) -> Result<(), Failure> {
    let speech_dir = models::resolve_speech(args.speech_model.as_deref())?;
    let audio = Pcm::read_wav(&args.input)
        .and_then(|pcm| pcm.resampled(whisper::SAMPLE_RATE as u32))
        .map_err(|e| e.to_string())?;
    let brain = ask::load_brain(&args.options)?;
    let device = device::open(args.options.device).map_err(|e| e.to_string())?;
    let mut whisper = Whisper::load(&speech_dir, &device).map_err(|e| e.to_string())?;
    let rules = Endpointing {
        trailing_silence_ms: args.trailing_silence,
        ..Endpointing::default()
    };

    // The persona's prompt is computed once, before anyone speaks, as
    // `loopd serve` does at start; only the question is new when it comes.
    let (settings, _) = ask::prepare(&args.options, "warm-up")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let daemon = runtime.block_on(async { Daemon::start(Arc::new(brain), settings) });
    let warming = Instant::now();
    runtime.block_on(daemon.warm())?;
    let warm_ms = warming.elapsed().as_secs_f64() * 1000.0;

    let heard = hear(&audio.samples, &mut whisper, rules)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no speech heard in {}", args.input.display()))?;
    let decided = Instant::now() - heard.stt;
    let vad_ms = heard.utterance.endpoint_delay_ms();
    let since_speech = |at: Instant| vad_ms + (at - decided).as_secs_f64() * 1000.0;

    let (_, request) = ask::prepare(&args.options, &heard.transcript)?;
    let speaker = Speaker::start(Espeak { voice: args.voice });
    let (reply, ran, trace, first_token) = runtime.block_on(async {
        let mut ticket = daemon.submit(request)?;
        let mut trace = Trace::new();
        let first_token = speak_answer(&mut ticket, &speaker, &mut trace).await;
        let reply = ticket.finish().await;
        Ok::<_, AskError>((reply, ticket.ran().cloned(), trace, first_token))
    })?;
    let spoken = speaker.finish().map_err(|e| e.to_string())?;
    spoken
        .audio
        .write_wav(&args.output)
        .map_err(|e| e.to_string())?;

    let answer = reply?;
    if args.options.json {
        let report = json!({
            "transcript": heard.transcript,
            "answer": answer.answer,
            "sentences": spoken.sentences,
            "loop": ran.as_ref().map(|r| r.loop_id.clone()),
            "termination": answer.termination.as_str(),
            "stats": ran.map(|r| r.stats),
            "trace": trace,
            "warm_ms": engine::round1(warm_ms),
            "vad_ms": engine::round1(vad_ms),
            "stt_ms": engine::round1(heard.stt.as_secs_f64() * 1000.0),
            "first_answer_token_ms": first_token.map(|t| engine::round1(since_speech(t))),
            "first_audio_ms": spoken.first_audio.map(|t| engine::round1(since_speech(t))),
        });
        println!("{report}");
    } else {
        println!("heard: {}", heard.transcript);
        println!("said:  {}", answer.answer);
    }
    if let Some(note) = &answer.note {
        eprintln!("loopd: stopped ({}): {note}", answer.termination.as_str());
    }
    Ok(())
}

//! `loopd listen`: a conversation by voice, from the microphone or a WAV
//! file, answered aloud on the loudspeaker or into a WAV file, sentence by
//! sentence as the loop generates.

use super::ask::{self, AskOptions};
use super::Failure;
use crate::brain::device;
use crate::daemon::config::timers_file;
use crate::daemon::Daemon;
use crate::engine;
use crate::frontends::listen::early::Transcriber;
use crate::frontends::listen::{converse, Answering, ListenSettings, Turn};
use crate::models;
use crate::tools::timers::Timers;
use crate::tools::ExternalToolboxes;
use crate::voice::stream::{self, Sink, Source};
use crate::voice::vad::{Endpointing, Judging};
use crate::voice::whisper::Whisper;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `loopd listen`.
#[derive(Debug, Args)]
#[command(allow_negative_numbers = true)]
pub struct ListenArgs {
    /// Hear a WAV file (any rate, mono or stereo) at its recorded pace
    /// instead of the microphone.
    #[arg(long, value_name = "IN.wav", conflicts_with_all = ["mic", "push_to_talk"])]
    pub input: Option<PathBuf>,

    /// Write what the loudspeaker would play into a WAV file instead.
    #[arg(long, value_name = "OUT.wav", conflicts_with = "speaker")]
    pub output: Option<PathBuf>,

    /// The microphone (`loopd audio devices` lists them; default: the
    /// system's default input).
    #[arg(long, value_name = "NAME")]
    pub mic: Option<String>,

    /// The loudspeaker (default: the system's default output).
    #[arg(long, value_name = "NAME")]
    pub speaker: Option<String>,

    /// Answer only what begins with this phrase (e.g. "hey loop"); the
    /// phrase alone makes the next utterance a question.
    #[arg(long, value_name = "PHRASE")]
    pub wake: Option<String>,

    /// With --wake: for this many seconds after an answer, the next
    /// utterance needs no wake phrase (a follow-up); 0 turns it off.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub follow_up: f64,

    /// Talk while a key is down: Enter starts and Enter ends each question.
    #[arg(long)]
    pub push_to_talk: bool,

    /// Do not stop an answer when someone talks over it; ignore what is
    /// heard while answering (for open speakers without echo cancellation).
    #[arg(long)]
    pub no_barge_in: bool,

    /// Stop after the first answered question.
    #[arg(long)]
    pub once: bool,

    /// Transcribe and answer only once the turn has ended, not already in
    /// the pause before it (which spends a core on speech the user may
    /// still go on with).
    #[arg(long)]
    pub no_early: bool,

    /// Speech-to-text model: a known name or a directory (default: the
    /// manifest's default speech model).
    #[arg(long, value_name = "NAME")]
    pub speech_model: Option<String>,

    /// The voice: an espeak-ng voice (`en-us`), or `piper-joe` (a Piper
    /// voice, `models/fetch piper-joe`).
    #[arg(long, default_value = "en-us", value_name = "VOICE")]
    pub voice: String,

    /// Silence that ends a question, in milliseconds (without a turn model).
    #[arg(long, default_value_t = 480, value_name = "MS")]
    pub trailing_silence: u32,

    /// How the end of a question is found: `silence` (--trailing-silence),
    /// or `smart-turn` (`models/fetch smart-turn`), a model that hears
    /// whether the speaker has finished: it is asked after 160 ms of
    /// silence, and a pause it hears as unfinished is waited out for 1.2 s.
    #[arg(long, default_value = "silence", value_name = "MODEL")]
    pub turn: String,

    /// What hears speech: `earshot` (built in), or `silero-vad`
    /// (`models/fetch silero-vad`), Silero VAD, a model that tells speech
    /// from music and noise.
    #[arg(long, default_value = "earshot", value_name = "MODEL")]
    pub vad: String,

    /// How to answer.
    #[command(flatten)]
    pub options: AskOptions,
}

/// Runs `loopd listen`.
pub fn run(args: ListenArgs) -> Result<(), Failure> {
    let speech_dir = models::resolve_speech(args.speech_model.as_deref())?;
    let device = device::open(args.options.device).map_err(|e| e.to_string())?;
    let whisper = Whisper::load(&speech_dir, &device).map_err(|e| e.to_string())?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let brain = runtime.block_on(ask::open_brain(&args.options))?;
    let external = ExternalToolboxes::default();
    let _servers = runtime.block_on(ask::start_mcp(&args.options, &external))?;
    // The persona's prompt is computed once, before anyone speaks, as
    // `loopd serve` does at start; only the question is new when it comes.
    let (mut settings, _) = ask::prepare(&args.options, "warm-up", &external)?;
    settings.memory_turns = 6;
    let timers = Timers::open(timers_file(), args.options.timezone.clone());
    timers.rings_for(crate::frontends::listen::RINGS_FOR);
    let rings = timers.subscribe();
    settings.tool_config.timers = Some(timers.clone());
    let daemon = runtime.block_on(async { Daemon::start(brain, settings) });
    let keeping = tokio_util::sync::CancellationToken::new();
    let _keeping = keeping.clone().drop_guard();
    runtime.spawn(async move { timers.keep(keeping).await });
    let warming = Instant::now();
    runtime.block_on(daemon.warm())?;
    let warm_ms = engine::round1(warming.elapsed().as_secs_f64() * 1000.0);

    let start = Instant::now();
    let source = match &args.input {
        Some(path) => Source::Wav(path.clone()),
        None => Source::Microphone(args.mic.clone()),
    };
    let sink = match &args.output {
        Some(path) => Sink::Wav(path.clone()),
        None => Sink::Loudspeaker(args.speaker.clone()),
    };
    let mut input = stream::hear(&source, start).map_err(|e| e.to_string())?;
    let output = stream::play(&sink, stream::ANSWER_RATE, start).map_err(|e| e.to_string())?;
    let json = args.options.json;
    let options = args.options;
    let mut parts = Answering {
        rings: Some(rings),
        daemon,
        runtime: runtime.handle().clone(),
        ask: Box::new(move |question| {
            ask::prepare(&options, question, &external)
                .map(|(_, ask)| ask)
                .map_err(|e| e.message)
        }),
        transcriber: Transcriber::new(whisper),
        voice: crate::models::open_voice(&args.voice).map_err(|e| e.to_string())?,
        output: output.clone(),
    };
    let talking = args.push_to_talk.then(push_to_talk_keys);
    let settings = ListenSettings {
        rules: Endpointing {
            trailing_silence_ms: args.trailing_silence,
            ..Endpointing::default()
        },
        detector: crate::models::open_vad(&args.vad).map_err(|e| e.to_string())?,
        judge: crate::models::open_turn(&args.turn)
            .map_err(|e| e.to_string())?
            .map(|judge| (judge, Judging::default())),
        barge_in: !args.no_barge_in,
        wake: args.wake.clone(),
        follow_up: std::time::Duration::try_from_secs_f64(args.follow_up).map_err(|_| {
            format!(
                "--follow-up must be 0 or more seconds, not {}",
                args.follow_up
            )
        })?,
        push_to_talk: talking,
        once: args.once,
        early: !args.no_early,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stopping.store(true, Ordering::Relaxed);
        }
    });
    if args.input.is_none() {
        eprintln!(
            "loopd: listening{} (Ctrl-C to stop)",
            match (&args.wake, args.push_to_talk) {
                (_, true) => " (Enter to talk, Enter when done)".to_string(),
                (Some(w), _) => format!(" for \"{w}\""),
                _ => String::new(),
            }
        );
    }

    let mut print_turn = |turn: Turn| report(&turn, json, warm_ms);
    let answered = converse(
        input.as_mut(),
        &mut parts,
        &settings,
        &stop,
        &mut print_turn,
    )
    .map_err(|e| e.to_string())?;
    if let (0, Some(path)) = (answered, &args.input) {
        return Err(format!("no question heard in {}", path.display()).into());
    }
    output.close().map_err(|e| e.to_string())?;
    Ok(())
}

/// Prints one turn: two lines, or one JSON object with the stage timings.
fn report(turn: &Turn, json: bool, warm_ms: f64) {
    let (answer, termination, note) = match &turn.reply {
        Ok(a) => (
            a.answer.clone(),
            a.termination.as_str().to_string(),
            a.note.clone(),
        ),
        Err(e) => (String::new(), e.name().to_string(), Some(e.to_string())),
    };
    if json {
        let out = json!({
            "transcript": turn.transcript,
            "question": turn.question,
            "answer": answer,
            "sentences": turn.sentences,
            "loop": turn.ran.as_ref().map(|r| r.loop_id.clone()),
            "termination": termination,
            "stats": turn.ran.as_ref().map(|r| r.stats.clone()),
            "trace": turn.trace,
            "warm_ms": warm_ms,
            "vad_ms": engine::round1(turn.vad_ms),
            "silence_ms": engine::round1(turn.silence_ms),
            "stt_ms": turn.stt_ms,
            "transcript_ms": turn.transcript_ms,
            "transcribed_early": turn.transcribed_early,
            "stt_reused_tokens": turn.stt_reused_tokens,
            "asked_early": turn.asked_early,
            "prefilled_tokens": turn.prefilled_tokens,
            "first_answer_token_ms": turn.first_answer_token_ms,
            "first_audio_ms": turn.first_audio_ms,
            "barge_in_ms": turn.barge_in_ms,
        });
        println!("{out}");
    } else {
        println!("heard: {}", turn.transcript);
        println!("said:  {answer}");
        if let Some(ms) = turn.barge_in_ms {
            println!("(interrupted; playback stopped {ms} ms after you spoke)");
        }
    }
    if let Some(note) = note {
        if turn.barge_in_ms.is_none() {
            eprintln!("loopd: stopped ({termination}): {note}");
        }
    }
}

/// Enter toggles talking, read from stdin on a thread of its own.
fn push_to_talk_keys() -> Arc<AtomicBool> {
    let talking = Arc::new(AtomicBool::new(false));
    let keys = talking.clone();
    std::thread::spawn(move || {
        let mut line = String::new();
        while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
            let now = !keys.load(Ordering::Relaxed);
            keys.store(now, Ordering::Relaxed);
            eprintln!(
                "loopd: {}",
                if now {
                    "listening… Enter when done"
                } else {
                    "heard; Enter to talk again"
                }
            );
            line.clear();
        }
    });
    talking
}

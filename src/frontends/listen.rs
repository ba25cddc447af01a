//! The voice front end: a spoken question in, a spoken answer out.
//!
//! [`hear`] finds the utterance in 16 kHz audio and transcribes it; the
//! transcript goes to the daemon as any front end's request does; while the
//! loop streams its answer, [`speak_answer`] cuts it into sentences and a
//! [`Speaker`] synthesizes each on its own thread as soon as it is complete,
//! so the first sentence is audio before the last is generated.

use crate::daemon::Ticket;
use crate::engine::{LoopEvent, Trace};
use crate::voice::audio::Pcm;
use crate::voice::sentences::Sentences;
use crate::voice::speech::Espeak;
use crate::voice::vad::{Endpointer, Endpointing, Utterance};
use crate::voice::whisper::Whisper;
use crate::voice::VoiceError;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Silence between two spoken sentences, in seconds.
const SENTENCE_GAP_SECONDS: f32 = 0.15;

/// A question heard.
#[derive(Debug, Clone)]
pub struct Heard {
    /// What was said.
    pub transcript: String,
    /// Where it was said in the audio.
    pub utterance: Utterance,
    /// How long transcription took.
    pub stt: Duration,
}

/// The first utterance in `audio` (16 kHz mono), transcribed; `None` when
/// no one speaks, or only noise Whisper hears as nothing.
pub fn hear(
    audio: &[f32],
    whisper: &mut Whisper,
    rules: Endpointing,
) -> Result<Option<Heard>, VoiceError> {
    let mut vad = Endpointer::new(rules);
    let utterance = match vad.push(audio).first() {
        Some(u) => *u,
        None => match vad.finish() {
            Some(u) => u,
            None => return Ok(None),
        },
    };
    let started = Instant::now();
    let transcript = whisper.transcribe(&audio[utterance.start..utterance.end])?;
    let stt = started.elapsed();
    if transcript.trim().is_empty() {
        return Ok(None);
    }
    Ok(Some(Heard {
        transcript: transcript.trim().to_string(),
        utterance,
        stt,
    }))
}

/// What a [`Speaker`] said.
#[derive(Debug, Clone)]
pub struct Spoken {
    /// The speech, sentence after sentence.
    pub audio: Pcm,
    /// When the first sample was ready.
    pub first_audio: Option<Instant>,
    /// The sentences, in order.
    pub sentences: Vec<String>,
}

/// Speaks sentences on a thread of its own, in the order given.
pub struct Speaker {
    sentences: mpsc::Sender<String>,
    worker: JoinHandle<Result<Spoken, VoiceError>>,
}

impl Speaker {
    /// A speaker with this voice, idle until it is given a sentence.
    pub fn start(voice: Espeak) -> Speaker {
        let (sentences, queue) = mpsc::channel::<String>();
        let worker = std::thread::spawn(move || {
            let mut spoken = Spoken {
                audio: Pcm {
                    rate: 0,
                    samples: Vec::new(),
                },
                first_audio: None,
                sentences: Vec::new(),
            };
            for sentence in queue {
                let speech = voice.synthesize(&sentence)?;
                spoken.first_audio.get_or_insert_with(Instant::now);
                if spoken.audio.rate == 0 {
                    spoken.audio.rate = speech.rate;
                } else {
                    let gap = (SENTENCE_GAP_SECONDS * speech.rate as f32) as usize;
                    spoken.audio.samples.extend(std::iter::repeat_n(0.0, gap));
                }
                let speech = speech.resampled(spoken.audio.rate)?;
                spoken.audio.samples.extend(speech.samples);
                spoken.sentences.push(sentence);
            }
            Ok(spoken)
        });
        Speaker { sentences, worker }
    }

    /// Queues a sentence.
    pub fn say(&self, sentence: String) {
        let _ = self.sentences.send(sentence);
    }

    /// Waits until everything queued is spoken.
    pub fn finish(self) -> Result<Spoken, VoiceError> {
        drop(self.sentences);
        self.worker
            .join()
            .map_err(|_| VoiceError::Speech("the speech thread panicked".into()))?
    }
}

/// Streams the ticket's answer into `speaker` sentence by sentence, keeping
/// every event in `trace`; returns when the first answer token came.
pub async fn speak_answer(
    ticket: &mut Ticket,
    speaker: &Speaker,
    trace: &mut Trace,
) -> Option<Instant> {
    let mut sentences = Sentences::new();
    let mut first_token = None;
    while let Some(event) = ticket.next_event().await {
        trace.push(&event);
        if let LoopEvent::AnswerToken { text } = &event {
            first_token.get_or_insert_with(Instant::now);
            for sentence in sentences.push(text) {
                speaker.say(sentence);
            }
        }
    }
    if let Some(rest) = sentences.finish() {
        speaker.say(rest);
    }
    first_token
}

//! Speaking an answer while it is generated: [`speak_answer`] cuts the
//! streamed answer into sentences and a [`Speaker`] synthesizes each on a
//! thread of its own and queues it for playback, so the first sentence
//! plays before the last is generated.

use crate::daemon::Ticket;
use crate::engine::{LoopEvent, Trace};
use crate::frontends::outgoing::SpokenAnswer;
use crate::voice::speech::Voice;
use crate::voice::stream::Playing;
use crate::voice::VoiceError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Instant;

/// Silence between two spoken sentences, in seconds.
const SENTENCE_GAP_SECONDS: f32 = 0.15;

/// What a [`Speaker`] said.
#[derive(Debug, Clone, Default)]
pub struct Spoken {
    /// When the first sample was queued for playback.
    pub first_audio: Option<Instant>,
    /// The sentences queued, in order.
    pub sentences: Vec<String>,
}

/// Speaks sentences on a thread of its own, in the order given, onto a
/// shared output; once hushed (a barge-in) it drops what is left.
pub struct Speaker {
    sentences: mpsc::Sender<String>,
    hushed: Arc<AtomicBool>,
    worker: JoinHandle<Result<Spoken, VoiceError>>,
}

impl Speaker {
    /// A speaker with this voice, idle until it is given a sentence.
    pub fn start(voice: Voice, output: Arc<dyn Playing>) -> Speaker {
        let (sentences, queue) = mpsc::channel::<String>();
        let hushed = Arc::new(AtomicBool::new(false));
        let quiet = hushed.clone();
        let worker = std::thread::spawn(move || {
            let mut spoken = Spoken::default();
            for sentence in queue {
                if quiet.load(Ordering::Relaxed) {
                    continue;
                }
                let mut speech = voice.synthesize(&sentence)?;
                if quiet.load(Ordering::Relaxed) {
                    continue;
                }
                if output.is_playing() {
                    let gap = (SENTENCE_GAP_SECONDS * speech.rate as f32) as usize;
                    speech.samples.splice(0..0, std::iter::repeat_n(0.0, gap));
                }
                output.play(&speech)?;
                spoken.first_audio.get_or_insert_with(Instant::now);
                spoken.sentences.push(sentence);
            }
            Ok(spoken)
        });
        Speaker {
            sentences,
            hushed,
            worker,
        }
    }

    /// Queues a sentence.
    pub fn say(&self, sentence: String) {
        let _ = self.sentences.send(sentence);
    }

    /// A switch that hushes this speaker: sentences not yet queued for
    /// playback are dropped.
    pub fn hush_switch(&self) -> Arc<AtomicBool> {
        self.hushed.clone()
    }

    /// Waits until everything queued is synthesized and queued for playback.
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
    let mut spoken = SpokenAnswer::new();
    let mut first_token = None;
    while let Some(event) = ticket.next_event().await {
        trace.push(&event);
        if let LoopEvent::AnswerToken { .. } = &event {
            first_token.get_or_insert_with(Instant::now);
        }
        for sentence in spoken.hear(&event) {
            speaker.say(sentence);
        }
    }
    if let Some(rest) = spoken.finish() {
        speaker.say(rest);
    }
    first_token
}

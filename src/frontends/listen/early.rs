//! Getting ahead in the pause. Once the speaker has been silent a moment,
//! the speech so far is transcribed in the background ([`Transcriber`]),
//! and as soon as that transcript is ready the question is asked, held
//! ([`Ahead`]): the model starts answering while the endpointer is still
//! deciding whether the pause ends the turn, but no tool runs and nothing
//! is said until it does. Speech that goes on makes both stale: they are
//! dropped (a transcription still running is given up, so that it does not
//! hold up the next), and the next pause begins again.

use super::segment::Recent;
use super::wake::{Addressing, Heard};
use crate::daemon::Ticket;
use crate::engine::hold::{self, Release};
use crate::voice::vad::{Pause, Utterance};
use crate::voice::whisper::Whisper;
use crate::voice::VoiceError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Silence after speech before the speech so far is transcribed, in ms:
/// soon enough that the transcript is mostly ready when the turn model
/// (asked after 160 ms) ends the turn, well before the fixed rule's 480 ms.
/// A transcription begun in a gap between words is given up when the
/// speech goes on.
pub const TRANSCRIBE_AFTER_MS: u32 = 48;

/// What a transcription gave, and how long Whisper ran for it.
pub struct Transcribed {
    /// The text heard.
    pub text: Result<String, VoiceError>,
    /// Whisper's own time, waiting for another transcription included.
    pub ran: Duration,
    /// Begun in the pause before the turn ended.
    pub early: bool,
}

/// A transcription begun in a pause: running (and the flag that gives it
/// up), or done (and whether its text was handed out).
enum Begun {
    Running(JoinHandle<Transcribed>, Arc<AtomicBool>),
    Done(Transcribed, bool),
}

impl Begun {
    /// Gives it up if it is still running: newer speech made it stale.
    fn abandon(&self) {
        if let Begun::Running(_, abandoned) = self {
            abandoned.store(true, Ordering::Relaxed);
        }
    }
}

/// Speech to text for a conversation: in pauses ahead of the turn's end,
/// or when it ends.
pub struct Transcriber {
    whisper: Arc<Mutex<Whisper>>,
    /// The last transcription begun in a pause, and the speech it hears
    /// (from, to).
    begun: Option<((usize, usize), Begun)>,
}

impl Transcriber {
    /// Transcribes with `whisper`.
    pub fn new(whisper: Whisper) -> Transcriber {
        Transcriber {
            whisper: Arc::new(Mutex::new(whisper)),
            begun: None,
        }
    }

    /// After each chunk: begins transcribing the utterance under way once
    /// its speaker has paused long enough, giving up one begun in an earlier
    /// pause that is still running.
    pub fn heard(&mut self, pause: Option<&Pause>, recent: &Recent) {
        self.settle();
        let Some(pause) = pause.filter(|p| p.silent_ms >= TRANSCRIBE_AFTER_MS) else {
            return;
        };
        let span = span(&pause.so_far);
        match &self.begun {
            Some((heard, _)) if *heard == span => return,
            Some((_, begun)) => begun.abandon(),
            None => {}
        }
        let samples = recent.of(&pause.so_far).to_vec();
        let whisper = self.whisper.clone();
        let abandoned = Arc::new(AtomicBool::new(false));
        let flag = abandoned.clone();
        let spawned = std::thread::Builder::new()
            .name("loopd-stt".into())
            .spawn(move || run(&whisper, &samples, Some(flag.as_ref())));
        match spawned {
            Ok(task) => self.begun = Some((span, Begun::Running(task, abandoned))),
            Err(e) => tracing::debug!("cannot transcribe in the pause: {e}"),
        }
    }

    /// The transcript of the speech before `pause`, the first time it is
    /// asked for after it is ready.
    pub fn ready(&mut self, pause: &Pause) -> Option<String> {
        self.settle();
        match &mut self.begun {
            Some((heard, Begun::Done(done, handed))) if *heard == span(&pause.so_far) => {
                let text = done.text.as_ref().ok().filter(|_| !*handed)?;
                *handed = true;
                Some(text.clone())
            }
            _ => None,
        }
    }

    /// The transcript of `utterance`: the one begun in its last pause when
    /// it heard the same speech, else one made now.
    pub fn transcribe(&mut self, utterance: &Utterance, recent: &Recent) -> Transcribed {
        let early = match self.begun.take() {
            Some((heard, begun)) if heard == span(utterance) => match begun {
                Begun::Done(done, _) => Some(done),
                Begun::Running(task, _) => task.join().ok(),
            },
            Some((_, stale)) => {
                stale.abandon();
                None
            }
            None => None,
        };
        match early {
            Some(transcribed) if transcribed.text.is_ok() => transcribed,
            _ => run(&self.whisper, recent.of(utterance), None),
        }
    }

    /// Takes in a transcription that has finished.
    fn settle(&mut self) {
        if let Some((heard, Begun::Running(task, _))) = self
            .begun
            .take_if(|(_, begun)| matches!(begun, Begun::Running(task, _) if task.is_finished()))
        {
            self.begun = task
                .join()
                .ok()
                .map(|done| (heard, Begun::Done(done, false)));
        }
    }
}

/// Transcribes `samples`; in a pause (`abandoned` given) it may be given
/// up, and then its text is an error no one reads.
fn run(whisper: &Mutex<Whisper>, samples: &[f32], abandoned: Option<&AtomicBool>) -> Transcribed {
    let started = Instant::now();
    let mut whisper = whisper
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let text = match abandoned {
        None => whisper.transcribe(samples),
        Some(abandoned) => whisper
            .transcribe_unless(samples, abandoned)
            .and_then(|heard| heard.ok_or_else(|| VoiceError::Model("given up".into()))),
    };
    Transcribed {
        text,
        ran: started.elapsed(),
        early: abandoned.is_some(),
    }
}

fn span(utterance: &Utterance) -> (usize, usize) {
    (utterance.start, utterance.end)
}

/// A question asked in the pause, held until the turn ends.
pub struct Ahead {
    heard: (usize, usize),
    question: String,
    ticket: Ticket,
    release: Release,
}

impl Ahead {
    /// Asks, held, the question in the transcript made in `pause`, if it is
    /// one (the wake phrase and the follow-up window are only looked at).
    pub fn ask(
        pause: &Pause,
        transcript: &str,
        addressing: &Addressing,
        submit: impl FnOnce(&str, hold::Hold) -> Option<Ticket>,
    ) -> Option<Ahead> {
        let Heard::Question(question) = addressing.clone().classify(transcript, Instant::now())
        else {
            return None;
        };
        let (held, release) = hold::hold();
        let ticket = submit(&question, held)?;
        tracing::debug!("asked {question:?} in the pause, held");
        Some(Ahead {
            heard: span(&pause.so_far),
            question,
            ticket,
            release,
        })
    }

    /// Whether it asked what was heard before `pause`.
    pub fn heard_before(&self, pause: &Pause) -> bool {
        self.heard == span(&pause.so_far)
    }

    /// Its ticket, released, when it asked `question` from the speech of
    /// `utterance`; else it is withdrawn (cancelled) and `None`.
    pub fn settle(self, utterance: &Utterance, question: &str) -> Option<Ticket> {
        if self.heard == span(utterance) && self.question == question {
            self.release.release();
            return Some(self.ticket);
        }
        self.withdraw();
        None
    }

    /// Cancels it: the speech went on, or was not this question.
    pub fn withdraw(self) {
        tracing::debug!("withdrew {:?}, asked in the pause", self.question);
        self.ticket.canceller().cancel();
    }
}

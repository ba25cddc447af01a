//! Getting ahead in the pause. Once the speaker has been silent a moment,
//! the speech so far is transcribed in the background ([`Transcriber`]),
//! and as soon as that transcript is ready the question is asked, held
//! ([`Ahead`]): the model starts answering while the endpointer is still
//! deciding whether the pause ends the turn, but no tool runs and nothing
//! is said until it does. Speech that goes on makes both stale: they are
//! dropped, and the next pause begins again.

use super::segment::Recent;
use super::wake::{Addressing, Heard};
use crate::daemon::Ticket;
use crate::engine::hold::{self, Release};
use crate::voice::vad::{Pause, Utterance};
use crate::voice::whisper::Whisper;
use crate::voice::VoiceError;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Silence after speech before the speech so far is transcribed, in ms:
/// longer than most gaps between words, shorter than any turn's end (the
/// turn model is asked after 160 ms, the fixed rule waits 480 ms).
pub const TRANSCRIBE_AFTER_MS: u32 = 96;

/// What a transcription gave, and how long Whisper ran for it.
pub struct Transcribed {
    /// The text heard.
    pub text: Result<String, VoiceError>,
    /// Whisper's own time, waiting for another transcription included.
    pub ran: Duration,
    /// Begun in the pause before the turn ended.
    pub early: bool,
}

/// A transcription begun in a pause: running, or done (and whether its
/// text was handed out).
enum Begun {
    Running(JoinHandle<Transcribed>),
    Done(Transcribed, bool),
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
    /// its speaker has paused long enough, one transcription at a time.
    pub fn heard(&mut self, pause: Option<&Pause>, recent: &Recent) {
        self.settle();
        let Some(pause) = pause.filter(|p| p.silent_ms >= TRANSCRIBE_AFTER_MS) else {
            return;
        };
        let span = span(&pause.so_far);
        match &self.begun {
            Some((heard, _)) if *heard == span => return,
            Some((_, Begun::Running(_))) => return,
            _ => {}
        }
        let samples = recent.of(&pause.so_far).to_vec();
        let whisper = self.whisper.clone();
        let spawned = std::thread::Builder::new()
            .name("loopd-stt".into())
            .spawn(move || run(&whisper, &samples, true));
        match spawned {
            Ok(task) => self.begun = Some((span, Begun::Running(task))),
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
                Begun::Running(task) => task.join().ok(),
            },
            other => {
                self.begun = other;
                None
            }
        };
        match early {
            Some(transcribed) if transcribed.text.is_ok() => transcribed,
            _ => run(&self.whisper, recent.of(utterance), false),
        }
    }

    /// Takes in a transcription that has finished.
    fn settle(&mut self) {
        if let Some((heard, Begun::Running(task))) = self
            .begun
            .take_if(|(_, begun)| matches!(begun, Begun::Running(task) if task.is_finished()))
        {
            self.begun = task
                .join()
                .ok()
                .map(|done| (heard, Begun::Done(done, false)));
        }
    }
}

fn run(whisper: &Mutex<Whisper>, samples: &[f32], early: bool) -> Transcribed {
    let started = Instant::now();
    let mut whisper = whisper
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Transcribed {
        text: whisper.transcribe(samples),
        ran: started.elapsed(),
        early,
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

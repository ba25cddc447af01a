//! Getting ahead while the user speaks and in the pause. As the speech
//! grows it is transcribed again now and then ([`ROLL_EVERY_MS`]), only so
//! that the next transcription of it can take that one's tokens as a hint
//! and decode just the new tail ([`Whisper::hear`]). Once the speaker has
//! been silent a moment, the speech so far is transcribed in the
//! background ([`Transcriber`]), and as soon as that transcript is ready
//! the question is asked, held ([`Ahead`]): the model starts answering
//! while the endpointer is still deciding whether the pause ends the turn,
//! but no tool runs and nothing is said until it does. Speech that goes on
//! makes both stale: they are dropped (a transcription still running is
//! given up, so that it does not hold up the next), and the next pause
//! begins again.

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

/// Speech heard since the last transcription of an utterance before it is
/// transcribed again while the user is still speaking, in ms. Only when
/// Whisper is idle: on a slow board the hints come as often as it can make
/// them.
pub const ROLL_EVERY_MS: usize = 500;

/// What a transcription gave, and how long Whisper ran for it.
pub struct Transcribed {
    /// The text heard.
    pub text: Result<String, VoiceError>,
    /// Whisper's own time, waiting for another transcription included.
    pub ran: Duration,
    /// Begun in the pause before the turn ended.
    pub early: bool,
    /// The tokens decoded (a hint for the next transcription of the same
    /// speech heard longer).
    tokens: Vec<u32>,
    /// Of the hint it was given, the tokens the decoder said too.
    pub reused: usize,
}

/// A transcription begun in a pause: running, or done (and whether its
/// text was handed out).
enum Begun {
    Running(Running),
    Done(Transcribed, bool),
}

/// A transcription running on its own thread, and the flag that gives it
/// up.
struct Running {
    task: JoinHandle<Transcribed>,
    abandoned: Arc<AtomicBool>,
}

impl Running {
    /// Gives it up: newer speech made it stale.
    fn give_up(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }
}

impl Begun {
    /// Gives it up if it is still running: newer speech made it stale.
    fn abandon(&self) {
        if let Begun::Running(running) = self {
            running.give_up();
        }
    }
}

/// Speech to text for a conversation: while the user speaks (for hints
/// only), in pauses ahead of the turn's end, or when it ends.
pub struct Transcriber {
    whisper: Arc<Mutex<Whisper>>,
    /// The last transcription begun in a pause, and the speech it hears
    /// (from, to).
    begun: Option<((usize, usize), Begun)>,
    /// The transcription of the speech so far begun while the user was
    /// still speaking, and the speech it hears.
    rolling: Option<((usize, usize), Running)>,
    /// The tokens of the latest transcription of the utterance under way
    /// (the speech it heard), the hint for the next.
    hint: Option<((usize, usize), Vec<u32>)>,
    /// The speech the last transcription for a hint was begun on, whether
    /// or not it gave one.
    rolled: Option<(usize, usize)>,
    /// The text of the latest transcription made while the user spoke,
    /// until it is taken ([`Transcriber::so_far`]).
    so_far: Option<String>,
}

impl Transcriber {
    /// Transcribes with `whisper`.
    pub fn new(whisper: Whisper) -> Transcriber {
        Transcriber {
            whisper: Arc::new(Mutex::new(whisper)),
            begun: None,
            rolling: None,
            hint: None,
            rolled: None,
            so_far: None,
        }
    }

    /// After each chunk, with the utterance under way (`so_far`) and the
    /// pause it is in, if any: while its speaker talks, transcribes it now
    /// and then for a hint; once they have paused long enough, begins
    /// transcribing it for its text, giving up one begun earlier that is
    /// still running.
    pub fn heard(&mut self, so_far: Option<&Utterance>, pause: Option<&Pause>, recent: &Recent) {
        self.settle();
        let Some(pause) = pause.filter(|p| p.silent_ms >= TRANSCRIBE_AFTER_MS) else {
            if let Some(speech) = so_far {
                self.roll(speech, recent);
            }
            return;
        };
        let span = span(&pause.so_far);
        if let Some((_, rolling)) = self.rolling.take() {
            rolling.give_up();
        }
        match &self.begun {
            Some((heard, _)) if *heard == span => return,
            Some((_, begun)) => begun.abandon(),
            None => {}
        }
        match self.spawn(&pause.so_far, recent, true) {
            Ok(running) => self.begun = Some((span, Begun::Running(running))),
            Err(e) => tracing::debug!("cannot transcribe in the pause: {e}"),
        }
    }

    /// Begins transcribing the speech so far for a hint, when Whisper is
    /// idle and enough was said since the last transcription of it.
    fn roll(&mut self, speech: &Utterance, recent: &Recent) {
        let running = matches!(self.begun, Some((_, Begun::Running(..))));
        if self.rolling.is_some() || running {
            return;
        }
        let hinted = self.hint.as_ref().map(|(heard, _)| *heard);
        let heard_to = [hinted, self.rolled]
            .into_iter()
            .flatten()
            .filter(|(start, _)| *start == speech.start)
            .map(|(_, end)| end)
            .max()
            .unwrap_or(speech.start);
        if speech.end < heard_to + ROLL_EVERY_MS * crate::voice::vad::RATE / 1000 {
            return;
        }
        match self.spawn(speech, recent, false) {
            Ok(running) => {
                self.rolled = Some(span(speech));
                self.rolling = Some((span(speech), running));
            }
            Err(e) => tracing::debug!("cannot transcribe while the user speaks: {e}"),
        }
    }

    /// Starts transcribing `speech` on its own thread, with the hint for
    /// it; `in_pause` when its text may be used (else only its tokens).
    fn spawn(
        &self,
        speech: &Utterance,
        recent: &Recent,
        in_pause: bool,
    ) -> std::io::Result<Running> {
        let samples = recent.of(speech).to_vec();
        let hint = self.hint_for(speech);
        let whisper = self.whisper.clone();
        let abandoned = Arc::new(AtomicBool::new(false));
        let flag = abandoned.clone();
        let task = std::thread::Builder::new()
            .name("loopd-stt".into())
            .spawn(move || {
                let mut done = run(&whisper, &samples, &hint, Some(flag.as_ref()));
                done.early = in_pause;
                done
            })?;
        Ok(Running { task, abandoned })
    }

    /// The hint for transcribing `speech`: the tokens of the latest
    /// transcription of the same utterance (empty for a new one).
    fn hint_for(&self, speech: &Utterance) -> Vec<u32> {
        match &self.hint {
            Some(((start, _), tokens)) if *start == speech.start => tokens.clone(),
            _ => Vec::new(),
        }
    }

    /// Keeps the tokens of a transcription that finished as the hint.
    fn learn(&mut self, heard: (usize, usize), done: &Transcribed) {
        if done.text.is_ok() {
            self.hint = Some((heard, done.tokens.clone()));
        }
    }

    /// What the user has said so far, the first time it is asked for after
    /// a transcription made while they speak is ready (for computing the
    /// question's prompt ahead of it: [`crate::daemon::Daemon::prefill`]).
    pub fn so_far(&mut self) -> Option<String> {
        self.settle();
        self.so_far.take()
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
                Begun::Running(running) => running.task.join().ok(),
            },
            Some((_, stale)) => {
                stale.abandon();
                None
            }
            None => None,
        };
        if let Some((_, rolling)) = self.rolling.take() {
            rolling.give_up();
        }
        let transcribed = match early {
            Some(transcribed) if transcribed.text.is_ok() => transcribed,
            _ => run(
                &self.whisper,
                recent.of(utterance),
                &self.hint_for(utterance),
                None,
            ),
        };
        self.hint = None;
        self.so_far = None;
        transcribed
    }

    /// Takes in the transcriptions that have finished.
    fn settle(&mut self) {
        if let Some((heard, Begun::Running(running))) = self
            .begun
            .take_if(|(_, begun)| matches!(begun, Begun::Running(r) if r.task.is_finished()))
        {
            self.begun = running.task.join().ok().map(|done| {
                self.learn(heard, &done);
                (heard, Begun::Done(done, false))
            });
        }
        if let Some((heard, rolling)) = self.rolling.take_if(|(_, r)| r.task.is_finished()) {
            if let Ok(done) = rolling.task.join() {
                self.learn(heard, &done);
                self.so_far = done.text.ok().filter(|text| !text.trim().is_empty());
            }
        }
    }
}

/// Transcribes `samples`, taking `hint` as what it begins with; when it may
/// be given up (`abandoned` given) and is, its text is an error no one
/// reads.
fn run(
    whisper: &Mutex<Whisper>,
    samples: &[f32],
    hint: &[u32],
    abandoned: Option<&AtomicBool>,
) -> Transcribed {
    let started = Instant::now();
    let mut whisper = whisper
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let never = AtomicBool::new(false);
    let heard = whisper
        .hear(samples, hint, abandoned.unwrap_or(&never))
        .and_then(|heard| heard.ok_or_else(|| VoiceError::Model("given up".into())));
    let (text, tokens, reused) = match heard {
        Ok(heard) => (Ok(heard.text), heard.tokens, heard.reused),
        Err(e) => (Err(e), Vec::new(), 0),
    };
    Transcribed {
        text,
        ran: started.elapsed(),
        early: false,
        tokens,
        reused,
    }
}

/// Words an English sentence does not end on: articles, prepositions,
/// joining words, possessives and the sounds of someone thinking. A
/// transcript ending on one was cut mid-sentence, whatever Whisper's full
/// stop says.
const OPEN_ENDINGS: &[&str] = &[
    "a",
    "an",
    "the",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "with",
    "by",
    "into",
    "than",
    "per",
    "and",
    "or",
    "but",
    "because",
    "if",
    "so",
    "that",
    "my",
    "your",
    "our",
    "their",
    "plus",
    "minus",
    "divided",
    "multiplied",
    "um",
    "uh",
    "er",
    "erm",
    "hmm",
];

/// Whether `transcript` reads as a finished sentence: Whisper ended it with
/// a full stop, question mark or exclamation mark, and its last word is not
/// one a sentence goes on from ("what is 12 times?", "the time in?").
pub fn reads_finished(transcript: &str) -> bool {
    let text = crate::tools::numbers::in_digits(transcript.trim());
    let Some(body) = text.strip_suffix(['.', '?', '!']) else {
        return false;
    };
    if body.ends_with(['.', ',', '-', ':', ';']) {
        return false;
    }
    let words: Vec<String> = body
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let number = |w: &String| w.chars().any(|c| c.is_ascii_digit());
    match words.as_slice() {
        [] => false,
        [.., before, last] if last == "times" || last == "over" => !number(before),
        [.., last] => !OPEN_ENDINGS.contains(&last.as_str()),
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

#[cfg(test)]
mod tests {
    use super::reads_finished;

    #[test]
    fn a_transcript_reads_finished_when_punctuated_and_not_cut_mid_sentence() {
        for finished in [
            "What time is it in Tokyo?",
            "Why is the sky blue?",
            "What is the weather like?",
            "How many times?",
            "Is it over?",
            "Set a timer for 10 minutes.",
            "Stop!",
            "What is seventeen times twenty three?",
        ] {
            assert!(reads_finished(finished), "{finished:?}");
        }
        for open in [
            "What is 12 times?",
            "What is twelve times?",
            "What's the capital of?",
            "What time is it in",
            "Set a timer for...",
            "What is 20 divided by",
            "Um.",
            "Tell me about, um.",
            "How far is it from here to the",
            "",
        ] {
            assert!(!reads_finished(open), "{open:?}");
        }
    }
}

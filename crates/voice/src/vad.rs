//! Where an utterance starts and ends, with a voice detector on 16 ms
//! frames of 16 kHz audio (earshot's by default, or another
//! [`VoiceDetector`] such as Silero VAD): speech starts after a few voiced
//! frames in a row and ends after a stretch of silence, or at a maximum
//! length. With a [`TurnJudge`], a short silence is enough when the judge
//! hears a finished turn, and a pause it hears as unfinished is waited out
//! longer.

use super::VoiceError;
use earshot::Detector;
use std::sync::Arc;

/// Samples per frame the detector takes (16 ms at 16 kHz).
pub const FRAME: usize = 256;
/// Sample rate the detector hears.
pub const RATE: usize = 16_000;

/// A frame scoring this or more is voiced (earshot's detector).
const THRESHOLD: f32 = 0.5;
/// Voiced frames in a row that start an utterance with earshot's detector
/// (48 ms).
const START_FRAMES: usize = 3;
/// Audio kept from before the start, so the first syllable is not cut (240 ms).
const PRE_ROLL_FRAMES: usize = 15;

/// When an utterance is over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Endpointing {
    /// Silence after speech that ends the utterance, in milliseconds.
    pub trailing_silence_ms: u32,
    /// Longest utterance, in milliseconds.
    pub max_utterance_ms: u32,
}

impl Default for Endpointing {
    fn default() -> Self {
        Endpointing {
            trailing_silence_ms: 480,
            max_utterance_ms: 15_000,
        }
    }
}

/// Scores one stream's frames for speech; it may keep state from frame to
/// frame, so each stream has its own.
pub trait VoiceScorer: Send {
    /// The probability that the next frame ([`FRAME`] samples) holds speech.
    fn score(&mut self, frame: &[f32]) -> Result<f32, VoiceError>;

    /// Where this detector's scores start speech and end it.
    fn thresholds(&self) -> Thresholds;
}

/// Where a detector's scores divide speech from silence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// A frame scoring this or more is voiced while nobody speaks.
    pub start: f32,
    /// Voiced frames in a row that start speech.
    pub start_frames: usize,
    /// During speech, a frame scoring less than this is silence.
    pub stay: f32,
}

/// A voice detector: makes a scorer for each stream heard.
pub trait VoiceDetector: Send + Sync + std::fmt::Debug {
    /// A scorer for a new stream.
    fn scorer(&self) -> Box<dyn VoiceScorer>;
}

/// earshot's detector, built in: needs no model file.
struct Earshot(Box<Detector>);

impl Earshot {
    fn new() -> Earshot {
        Earshot(Detector::default_boxed())
    }
}

impl VoiceScorer for Earshot {
    fn score(&mut self, frame: &[f32]) -> Result<f32, VoiceError> {
        Ok(self.0.predict_f32(frame))
    }

    fn thresholds(&self) -> Thresholds {
        Thresholds {
            start: THRESHOLD,
            start_frames: START_FRAMES,
            stay: THRESHOLD,
        }
    }
}

/// Hears whether an utterance is a whole turn (the speaker has finished).
pub trait TurnJudge: Send + Sync + std::fmt::Debug {
    /// The probability that `speech` (16 kHz, from just before the speaker
    /// began to now) is a whole turn.
    fn complete(&self, speech: &[f32]) -> Result<f32, VoiceError>;
}

/// When the judge is asked, and how long an unfinished turn is waited for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judging {
    /// Silence after speech before the judge is asked, in milliseconds.
    pub ask_after_ms: u32,
    /// Silence that ends a turn the judge heard as unfinished.
    pub patience_ms: u32,
}

impl Default for Judging {
    fn default() -> Self {
        Judging {
            ask_after_ms: 160,
            patience_ms: 1200,
        }
    }
}

/// A judge with its rules and what it has heard.
struct Judge {
    judge: Arc<dyn TurnJudge>,
    rules: Judging,
    /// The utterance under way (with pre-roll), or the last frames while
    /// nobody speaks.
    heard: Vec<f32>,
    /// Asked since the last voiced frame.
    asked: bool,
    /// The words of the pause under way read as a finished sentence.
    worded: bool,
}

/// One utterance found in a stream, as sample offsets from the stream's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utterance {
    /// The first sample to transcribe (with pre-roll).
    pub start: usize,
    /// Just after the last voiced frame.
    pub end: usize,
    /// Where the detector decided the utterance was over: `end` plus the
    /// trailing silence, or the maximum length, or the end of the stream.
    pub decided: usize,
}

impl Utterance {
    /// How long the detector waited after the speech ended, in milliseconds.
    pub fn endpoint_delay_ms(&self) -> f64 {
        (self.decided - self.end) as f64 * 1000.0 / RATE as f64
    }
}

/// The utterance under way while its speaker is silent, before the
/// endpointer has decided whether the silence ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// The utterance so far: what would be transcribed if it ended now
    /// (`decided` is where the pause has reached).
    pub so_far: Utterance,
    /// The silence since the last voiced frame, in milliseconds.
    pub silent_ms: u32,
}

/// Finds utterances in a stream of 16 kHz samples fed in any sizes.
pub struct Endpointer {
    scorer: Box<dyn VoiceScorer>,
    rules: Endpointing,
    /// Samples not yet a whole frame.
    partial: Vec<f32>,
    /// Frames seen so far.
    frames: usize,
    /// Voiced frames in a row.
    voiced_run: usize,
    /// The utterance under way: its first frame and the frame after its
    /// last voiced one.
    speech: Option<(usize, usize)>,
    /// The first voiced frame of the utterance under way.
    onset: usize,
    /// Asked when a short silence follows speech, if any.
    judge: Option<Judge>,
}

impl Endpointer {
    /// An endpointer with these rules.
    pub fn new(rules: Endpointing) -> Endpointer {
        Endpointer {
            scorer: Box::new(Earshot::new()),
            rules,
            partial: Vec::with_capacity(FRAME),
            frames: 0,
            voiced_run: 0,
            speech: None,
            onset: 0,
            judge: None,
        }
    }

    /// An endpointer that asks `judge` whether a turn is over once a short
    /// silence follows speech: a finished turn ends then, an unfinished one
    /// after `rules.patience_ms` of silence.
    pub fn judged(rules: Endpointing, judge: Arc<dyn TurnJudge>, judging: Judging) -> Endpointer {
        Endpointer {
            judge: Some(Judge {
                judge,
                rules: judging,
                heard: Vec::new(),
                asked: false,
                worded: false,
            }),
            ..Endpointer::new(rules)
        }
    }

    /// This endpointer hearing speech with `detector` instead of earshot's.
    pub fn hearing(self, detector: &dyn VoiceDetector) -> Endpointer {
        Endpointer {
            scorer: detector.scorer(),
            ..self
        }
    }

    /// Adds samples; returns the utterances they completed.
    pub fn push(&mut self, samples: &[f32]) -> Vec<Utterance> {
        let mut done = Vec::new();
        for &s in samples {
            self.partial.push(s);
            if self.partial.len() == FRAME {
                let frame = std::mem::take(&mut self.partial);
                done.extend(self.frame(&frame));
                self.partial = frame;
                self.partial.clear();
            }
        }
        done
    }

    /// The stream has ended: the utterance under way, if any, ends here.
    pub fn finish(&mut self) -> Option<Utterance> {
        let (start, last) = self.speech.take()?;
        let decided = self.frames * FRAME + self.partial.len();
        Some(self.utterance(start, last, decided))
    }

    /// Whether an utterance has started and not yet ended.
    pub fn in_speech(&self) -> bool {
        self.speech.is_some()
    }

    /// Where the utterance under way began to be voiced (its first voiced
    /// frame, without pre-roll), as a sample offset from the stream's start.
    pub fn speech_onset(&self) -> Option<usize> {
        self.speech.map(|_| self.onset * FRAME)
    }

    /// The utterance under way, if its last frame was silent: what the
    /// speech so far is, in case the pause turns out to end it.
    pub fn pause(&self) -> Option<Pause> {
        let (_, last) = self.speech?;
        let silent = self.frames.checked_sub(last).filter(|&n| n > 0)?;
        Some(Pause {
            so_far: self.so_far()?,
            silent_ms: (silent * FRAME * 1000 / RATE) as u32,
        })
    }

    /// The words heard before the pause under way read as a finished
    /// sentence (its transcript says so): if the judge hears the turn as
    /// unfinished, the ordinary trailing silence ends it instead of the
    /// judge's longer patience. Speech that goes on forgets it.
    pub fn words_finished(&mut self) {
        if self.pause().is_none() {
            return;
        }
        if let Some(judge) = &mut self.judge {
            judge.worded = true;
        }
    }

    /// The utterance under way, voiced or paused: the speech heard so far.
    pub fn so_far(&self) -> Option<Utterance> {
        let (start, last) = self.speech?;
        Some(self.utterance(start, last, self.frames * FRAME))
    }

    fn frame(&mut self, frame: &[f32]) -> Option<Utterance> {
        let voiced = self.voiced(frame);
        let start_frames = self.scorer.thresholds().start_frames;
        let index = self.frames;
        self.frames += 1;
        self.voiced_run = if voiced { self.voiced_run + 1 } else { 0 };
        let ms_per_frame = (FRAME * 1000 / RATE) as u32;
        if let Some(judge) = &mut self.judge {
            judge.heard.extend_from_slice(frame);
            if self.speech.is_none() {
                let keep = (PRE_ROLL_FRAMES + start_frames) * FRAME;
                let drop = judge.heard.len().saturating_sub(keep);
                judge.heard.drain(..drop);
            }
            if voiced {
                judge.asked = false;
                judge.worded = false;
            }
        }
        match &mut self.speech {
            None if self.voiced_run >= start_frames => {
                self.onset = index + 1 - start_frames;
                let first = self.onset.saturating_sub(PRE_ROLL_FRAMES);
                self.speech = Some((first, index + 1));
                None
            }
            None => None,
            Some((start, last)) => {
                if voiced {
                    *last = index + 1;
                }
                let (start, last) = (*start, *last);
                let silent_ms = (self.frames - last) as u32 * ms_per_frame;
                let length_ms = (self.frames - start) as u32 * ms_per_frame;
                let over = match self.turn_heard_over(silent_ms) {
                    Some(finished) => finished,
                    None => silent_ms >= self.rules.trailing_silence_ms,
                };
                if over || length_ms >= self.rules.max_utterance_ms {
                    self.speech = None;
                    if let Some(judge) = &mut self.judge {
                        judge.heard.clear();
                    }
                    Some(self.utterance(start, last, self.frames * FRAME))
                } else {
                    None
                }
            }
        }
    }

    /// Whether `frame` holds speech; a detector that fails is replaced by
    /// earshot's for the rest of the stream.
    fn voiced(&mut self, frame: &[f32]) -> bool {
        let score = self.scorer.score(frame).unwrap_or_else(|e| {
            tracing::warn!("the voice detector failed ({e}); hearing speech with earshot's");
            self.scorer = Box::new(Earshot::new());
            self.scorer.score(frame).unwrap_or(0.0)
        });
        let thresholds = self.scorer.thresholds();
        match self.speech {
            Some(_) => score >= thresholds.stay,
            None => score >= thresholds.start,
        }
    }

    /// With a judge: whether the turn is over after `silent_ms` of silence
    /// (asking the judge once per pause); `None` without one, or once it
    /// has failed (the fixed silence rule then holds).
    fn turn_heard_over(&mut self, silent_ms: u32) -> Option<bool> {
        let trailing_silence_ms = self.rules.trailing_silence_ms;
        let judge = self.judge.as_mut()?;
        if silent_ms >= judge.rules.patience_ms
            || (judge.worded && judge.asked && silent_ms >= trailing_silence_ms)
        {
            return Some(true);
        }
        if judge.asked || silent_ms < judge.rules.ask_after_ms {
            return Some(false);
        }
        judge.asked = true;
        match judge.judge.complete(&judge.heard) {
            Ok(probability) => {
                tracing::debug!("turn judge: {probability:.3} after {silent_ms} ms of silence");
                Some(probability > 0.5)
            }
            Err(e) => {
                tracing::warn!("the turn judge failed ({e}); ending turns by silence alone");
                self.judge = None;
                None
            }
        }
    }

    fn utterance(&self, start: usize, last: usize, decided: usize) -> Utterance {
        Utterance {
            start: start * FRAME,
            end: (last * FRAME).min(decided),
            decided,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A judge that hears every turn as finished, or none, and counts how
    /// often it was asked and how much it heard.
    #[derive(Debug)]
    struct Scripted {
        finished: bool,
        asked: Arc<std::sync::Mutex<Vec<usize>>>,
    }

    impl TurnJudge for Scripted {
        fn complete(&self, speech: &[f32]) -> Result<f32, VoiceError> {
            self.asked.lock().unwrap().push(speech.len());
            Ok(if self.finished { 0.9 } else { 0.1 })
        }
    }

    /// A second of a voiced sound: a vowel-like buzz the detector hears.
    fn voiced() -> Vec<f32> {
        (0..RATE)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let f0 = 140.0;
                (1..12)
                    .map(|h| (std::f32::consts::TAU * f0 * h as f32 * t).sin() / h as f32)
                    .sum::<f32>()
                    * 0.3
            })
            .collect()
    }

    fn ends(vad: &mut Endpointer) -> Option<Utterance> {
        let mut stream = voiced();
        stream.extend(vec![0.0; 2 * RATE]);
        let mut found = vad.push(&stream);
        assert!(found.len() <= 1, "{found:?}");
        found.pop()
    }

    #[test]
    fn a_judge_ends_a_finished_turn_early_and_waits_for_an_unfinished_one() {
        let rules = Endpointing::default();
        let mut plain = Endpointer::new(rules);
        let fixed = ends(&mut plain).expect("speech then silence is an utterance");
        let asked = Arc::default();
        let judge = |finished| Scripted {
            finished,
            asked: Arc::clone(&asked),
        };
        let mut quick = Endpointer::judged(rules, Arc::new(judge(true)), Judging::default());
        let early = ends(&mut quick).expect("an utterance");
        let mut patient = Endpointer::judged(rules, Arc::new(judge(false)), Judging::default());
        let late = ends(&mut patient).expect("an utterance");
        assert_eq!((early.start, early.end), (fixed.start, fixed.end));
        assert!(
            (fixed.endpoint_delay_ms() - 480.0).abs() < 17.0,
            "{fixed:?}"
        );
        assert!(
            (early.endpoint_delay_ms() - 160.0).abs() < 17.0,
            "{early:?}"
        );
        assert!((late.endpoint_delay_ms() - 1200.0).abs() < 17.0, "{late:?}");
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 2, "once per pause: {asked:?}");
        assert!(
            asked[0] >= RATE,
            "the judge hears the whole utterance: {asked:?}"
        );
    }

    #[test]
    fn finished_words_end_a_turn_the_judge_hears_as_unfinished_after_the_ordinary_silence() {
        let rules = Endpointing::default();
        let unsure = || Scripted {
            finished: false,
            asked: Arc::default(),
        };
        let pause_of = |ms: usize| vec![0.0; ms * RATE / 1000];
        let mut vad = Endpointer::judged(rules, Arc::new(unsure()), Judging::default());
        vad.words_finished();
        assert!(vad.push(&voiced()).is_empty());
        vad.words_finished();
        assert!(vad.push(&pause_of(100)).is_empty());
        vad.words_finished();
        let over = vad.push(&pause_of(1000)).pop().expect("an utterance");
        assert!(
            (over.endpoint_delay_ms() - 480.0).abs() < 17.0,
            "the ordinary silence ends it: {over:?}"
        );

        let mut vad = Endpointer::judged(rules, Arc::new(unsure()), Judging::default());
        vad.push(&voiced());
        vad.push(&pause_of(100));
        vad.words_finished();
        vad.push(&voiced());
        let over = vad.push(&pause_of(2000)).pop().expect("an utterance");
        assert!(
            (over.endpoint_delay_ms() - 1200.0).abs() < 17.0,
            "speech that went on forgot the words before it: {over:?}"
        );
    }

    /// A detector whose score for frame `n` is `scores[n]` (then 0), with
    /// Silero-like thresholds.
    #[derive(Debug)]
    struct Scores(Vec<f32>);

    struct Playing(Vec<f32>, usize);

    impl VoiceDetector for Scores {
        fn scorer(&self) -> Box<dyn VoiceScorer> {
            Box::new(Playing(self.0.clone(), 0))
        }
    }

    impl VoiceScorer for Playing {
        fn score(&mut self, _frame: &[f32]) -> Result<f32, VoiceError> {
            self.1 += 1;
            Ok(self.0.get(self.1 - 1).copied().unwrap_or(0.0))
        }

        fn thresholds(&self) -> Thresholds {
            Thresholds {
                start: 0.5,
                start_frames: 6,
                stay: 0.35,
            }
        }
    }

    #[test]
    fn a_detector_s_own_thresholds_start_and_keep_speech() {
        let rules = Endpointing::default();
        let frames = |scores: Vec<f32>| {
            let mut vad = Endpointer::new(rules).hearing(&Scores(scores));
            let mut found = vad.push(&vec![0.0; 100 * FRAME]);
            assert!(found.len() <= 1, "{found:?}");
            found.pop().map(|u| (u.start / FRAME, u.end / FRAME))
        };
        assert_eq!(frames(vec![0.9; 5]), None, "five voiced frames are too few");
        let mut scores = vec![0.0; 20];
        scores.extend([0.9; 6]);
        scores.extend([0.4; 30]);
        assert_eq!(
            frames(scores),
            Some((20 - PRE_ROLL_FRAMES, 56)),
            "speech starts after six voiced frames and stays while frames score 0.35 or more"
        );
    }

    #[test]
    fn a_pause_shows_the_utterance_so_far_until_the_silence_ends_it() {
        let mut vad = Endpointer::new(Endpointing::default());
        vad.push(&voiced());
        assert_eq!(vad.pause(), None, "no pause while voiced");
        vad.push(&vec![0.0; 10 * FRAME]);
        let pause = vad.pause().expect("a pause after speech");
        assert!((96..=160).contains(&pause.silent_ms), "{pause:?}");
        assert_eq!(
            pause.so_far.end + pause.silent_ms as usize * RATE / 1000,
            pause.so_far.decided,
            "the silence runs from the last voiced frame to now"
        );
        let over = ends(&mut Endpointer::new(Endpointing::default())).unwrap();
        assert_eq!(
            (pause.so_far.start, pause.so_far.end),
            (over.start, over.end)
        );
        let done = vad.push(&vec![0.0; RATE]);
        assert_eq!(done.len(), 1);
        assert_eq!((done[0].start, done[0].end), (over.start, over.end));
        assert_eq!(vad.pause(), None, "the utterance is over");
    }

    #[test]
    fn silence_holds_no_utterance() {
        let mut vad = Endpointer::new(Endpointing::default());
        assert!(vad.push(&vec![0.0; RATE * 2]).is_empty());
        assert!(!vad.in_speech());
        assert_eq!(vad.finish(), None);
    }
}

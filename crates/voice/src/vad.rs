//! Where an utterance starts and ends, with earshot's voice detector on
//! 16 ms frames of 16 kHz audio: speech starts after a few voiced frames in
//! a row and ends after a stretch of silence, or at a maximum length.

use earshot::Detector;

/// Samples per frame the detector takes (16 ms at 16 kHz).
pub const FRAME: usize = 256;
/// Sample rate the detector hears.
pub const RATE: usize = 16_000;

/// A frame scoring this or more is voiced.
const THRESHOLD: f32 = 0.5;
/// Voiced frames in a row that start an utterance (48 ms).
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

/// Finds utterances in a stream of 16 kHz samples fed in any sizes.
pub struct Endpointer {
    detector: Box<Detector>,
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
}

impl Endpointer {
    /// An endpointer with these rules.
    pub fn new(rules: Endpointing) -> Endpointer {
        Endpointer {
            detector: Detector::default_boxed(),
            rules,
            partial: Vec::with_capacity(FRAME),
            frames: 0,
            voiced_run: 0,
            speech: None,
            onset: 0,
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

    fn frame(&mut self, frame: &[f32]) -> Option<Utterance> {
        let voiced = self.detector.predict_f32(frame) >= THRESHOLD;
        let index = self.frames;
        self.frames += 1;
        self.voiced_run = if voiced { self.voiced_run + 1 } else { 0 };
        let ms_per_frame = (FRAME * 1000 / RATE) as u32;
        match &mut self.speech {
            None if self.voiced_run >= START_FRAMES => {
                self.onset = index + 1 - START_FRAMES;
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
                if silent_ms >= self.rules.trailing_silence_ms
                    || length_ms >= self.rules.max_utterance_ms
                {
                    self.speech = None;
                    Some(self.utterance(start, last, self.frames * FRAME))
                } else {
                    None
                }
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

    #[test]
    fn silence_holds_no_utterance() {
        let mut vad = Endpointer::new(Endpointing::default());
        assert!(vad.push(&vec![0.0; RATE * 2]).is_empty());
        assert!(!vad.in_speech());
        assert_eq!(vad.finish(), None);
    }
}

//! Cutting heard audio into questions: by voice (the endpointer), or by a
//! key held down (push-to-talk); and the recent audio they are cut from.

use crate::voice::vad::{
    Endpointer, Endpointing, Judging, Pause, TurnJudge, Utterance, VoiceDetector, RATE,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What one chunk of audio changed.
#[derive(Debug, Default)]
pub struct Segmented {
    /// Someone began to speak in this chunk, at this sample offset.
    pub onset: Option<usize>,
    /// Utterances this chunk completed.
    pub utterances: Vec<Utterance>,
}

/// Decides where questions start and end.
pub enum Segmenter {
    /// Speech starts and ends by itself (voice activity).
    Voice(Endpointer),
    /// Speech lasts as long as the switch is on (push-to-talk).
    PushToTalk {
        /// On while the user talks.
        talking: Arc<AtomicBool>,
        /// Where the utterance under way began.
        since: Option<usize>,
        /// Samples heard so far.
        heard: usize,
    },
}

impl Segmenter {
    /// Cuts by voice with these rules, hearing speech with `detector`
    /// (earshot's without one) and asking `judge` (if any) whether a pause
    /// ends the turn.
    pub fn voice(
        rules: Endpointing,
        detector: Option<&dyn VoiceDetector>,
        judge: Option<(Arc<dyn TurnJudge>, Judging)>,
    ) -> Segmenter {
        let endpointer = match judge {
            Some((judge, judging)) => Endpointer::judged(rules, judge, judging),
            None => Endpointer::new(rules),
        };
        Segmenter::Voice(match detector {
            Some(detector) => endpointer.hearing(detector),
            None => endpointer,
        })
    }

    /// Cuts where `talking` goes on and off.
    pub fn push_to_talk(talking: Arc<AtomicBool>) -> Segmenter {
        Segmenter::PushToTalk {
            talking,
            since: None,
            heard: 0,
        }
    }

    /// Adds the next chunk.
    pub fn push(&mut self, chunk: &[f32]) -> Segmented {
        match self {
            Segmenter::Voice(vad) => {
                let was_speaking = vad.in_speech();
                let utterances = vad.push(chunk);
                let onset = match (was_speaking, vad.speech_onset()) {
                    (false, Some(at)) => Some(at),
                    _ => None,
                };
                Segmented { onset, utterances }
            }
            Segmenter::PushToTalk {
                talking,
                since,
                heard,
            } => {
                let before = *heard;
                *heard += chunk.len();
                let mut out = Segmented::default();
                match (talking.load(Ordering::Relaxed), *since) {
                    (true, None) => {
                        *since = Some(before);
                        out.onset = Some(before);
                    }
                    (false, Some(start)) => {
                        *since = None;
                        out.utterances.push(Utterance {
                            start,
                            end: before,
                            decided: before,
                        });
                    }
                    _ => {}
                }
                out
            }
        }
    }

    /// The input has ended: the utterance under way, if any, ends here.
    pub fn finish(&mut self) -> Option<Utterance> {
        match self {
            Segmenter::Voice(vad) => vad.finish(),
            Segmenter::PushToTalk { since, heard, .. } => since.take().map(|start| Utterance {
                start,
                end: *heard,
                decided: *heard,
            }),
        }
    }

    /// The utterance under way while its speaker is silent (by voice
    /// only: a held key says when it ends).
    pub fn pause(&self) -> Option<Pause> {
        match self {
            Segmenter::Voice(vad) => vad.pause(),
            Segmenter::PushToTalk { .. } => None,
        }
    }

    /// The words before the pause under way read as a finished sentence
    /// (by voice only; see [`Endpointer::words_finished`]).
    pub fn words_finished(&mut self) {
        if let Segmenter::Voice(vad) = self {
            vad.words_finished();
        }
    }

    /// The speech heard so far of the utterance under way, by voice only
    /// (a held key's speech is transcribed when it is let go).
    pub fn so_far(&self) -> Option<Utterance> {
        match self {
            Segmenter::Voice(vad) => vad.so_far(),
            Segmenter::PushToTalk { .. } => None,
        }
    }

    /// Whether an utterance is under way.
    pub fn in_speech(&self) -> bool {
        match self {
            Segmenter::Voice(vad) => vad.in_speech(),
            Segmenter::PushToTalk { since, .. } => since.is_some(),
        }
    }
}

/// The latest heard audio, addressed by sample offsets from the start of
/// the input; between utterances only the last second is kept.
#[derive(Debug, Default)]
pub struct Recent {
    first: usize,
    samples: Vec<f32>,
}

impl Recent {
    /// Samples kept between utterances (one second: more than the pre-roll).
    const IDLE_KEEP: usize = RATE;

    /// Adds a chunk; drops old audio unless an utterance is under way.
    pub fn push(&mut self, chunk: &[f32], in_speech: bool) {
        self.samples.extend_from_slice(chunk);
        if !in_speech && self.samples.len() > 2 * Self::IDLE_KEEP {
            let drop = self.samples.len() - Self::IDLE_KEEP;
            self.samples.drain(..drop);
            self.first += drop;
        }
    }

    /// The samples of `utterance`, as far as they are still kept.
    pub fn of(&self, utterance: &Utterance) -> &[f32] {
        let start = utterance
            .start
            .saturating_sub(self.first)
            .min(self.samples.len());
        let end = utterance
            .end
            .saturating_sub(self.first)
            .min(self.samples.len());
        &self.samples[start..end.max(start)]
    }

    /// Samples heard so far, kept or not.
    pub fn heard(&self) -> usize {
        self.first + self.samples.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_to_talk_cuts_where_the_key_goes() {
        let talking = Arc::new(AtomicBool::new(false));
        let mut cut = Segmenter::push_to_talk(talking.clone());
        assert!(cut.push(&[0.0; 100]).onset.is_none());
        talking.store(true, Ordering::Relaxed);
        assert_eq!(cut.push(&[0.0; 100]).onset, Some(100));
        assert!(cut.in_speech());
        assert!(cut.push(&[0.0; 100]).utterances.is_empty());
        talking.store(false, Ordering::Relaxed);
        let done = cut.push(&[0.0; 100]);
        assert_eq!(
            done.utterances,
            vec![Utterance {
                start: 100,
                end: 300,
                decided: 300
            }]
        );
        assert_eq!(cut.finish(), None);
    }

    #[test]
    fn recent_audio_keeps_an_utterance_and_forgets_silence() {
        let mut recent = Recent::default();
        for i in 0..40 {
            recent.push(&vec![i as f32; 1000], false);
        }
        assert_eq!(recent.heard(), 40_000);
        assert!(recent.samples.len() <= 2 * RATE);
        let last = Utterance {
            start: 39_000,
            end: 40_000,
            decided: 40_000,
        };
        assert!(recent.of(&last).iter().all(|s| *s == 39.0));
        assert_eq!(recent.of(&last).len(), 1000);
        let gone = Utterance {
            start: 0,
            end: 1000,
            decided: 1000,
        };
        assert!(recent.of(&gone).is_empty());
        for _ in 0..40 {
            recent.push(&[1.0; 1000], true);
        }
        assert!(recent.samples.len() >= 40_000);
    }
}

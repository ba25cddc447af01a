//! What a transcript asks for: a question, a wake phrase alone (the next
//! utterance is the question), nothing addressed to loopd, or "stop".
//! For a while after an answer, speech needs no wake phrase: a follow-up
//! ("and in London?") is taken as the next question.

use std::time::{Duration, Instant};

/// How long after a bare wake phrase the next utterance needs none.
const AWAKE_FOR: Duration = Duration::from_secs(8);

/// Words that only ask loopd to be quiet.
const HUSH: &[&str] = &[
    "stop",
    "cancel",
    "quiet",
    "be quiet",
    "shut up",
    "never mind",
    "nevermind",
    "enough",
    "thats enough",
    "stop it",
    "stop talking",
];

/// What to do with a transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// Answer this.
    Question(String),
    /// The wake phrase alone: acknowledge and wait for the question.
    Woken,
    /// Be quiet; ask nothing.
    Hush,
    /// Not addressed to loopd (no wake phrase).
    Ignored,
}

/// Matches transcripts against an optional wake phrase.
#[derive(Debug, Clone)]
pub struct Addressing {
    wake: Option<Vec<String>>,
    awake_until: Option<Instant>,
}

/// Lower-case words, punctuation removed ("Hey, Loop!" → ["hey", "loop"]).
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| c.is_whitespace() || c == '-')
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

impl Addressing {
    /// Every utterance is a question (`wake: None`), or only those that
    /// begin with the wake phrase.
    pub fn new(wake: Option<&str>) -> Addressing {
        Addressing {
            wake: wake.map(words).filter(|w| !w.is_empty()),
            awake_until: None,
        }
    }

    /// An answer ended at `now`: what is said within `window` needs no
    /// wake phrase (a zero window turns follow-ups off).
    pub fn answered(&mut self, now: Instant, window: Duration) {
        if self.wake.is_some() && !window.is_zero() {
            self.awake_until = Some(now + window);
        }
    }

    /// What `transcript`, heard at `now`, asks for.
    pub fn classify(&mut self, transcript: &str, now: Instant) -> Heard {
        let said = words(transcript);
        if said.is_empty() {
            return Heard::Ignored;
        }
        let skip = match &self.wake {
            None => 0,
            Some(wake) if said.starts_with(wake) => {
                if said.len() == wake.len() {
                    self.awake_until = Some(now + AWAKE_FOR);
                    return Heard::Woken;
                }
                wake.len()
            }
            Some(_) if self.awake_until.is_some_and(|until| now <= until) => 0,
            Some(_) => return Heard::Ignored,
        };
        self.awake_until = None;
        if HUSH.contains(&said[skip..].join(" ").as_str()) {
            return Heard::Hush;
        }
        Heard::Question(question_text(transcript, skip))
    }
}

/// The transcript without its first `skip` words (the wake phrase) and the
/// punctuation that followed them.
fn question_text(transcript: &str, skip: usize) -> String {
    let mut rest = transcript.trim();
    for _ in 0..skip {
        rest = rest
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_start_matches(|c: char| c.is_alphanumeric() || c == '\'');
    }
    rest.trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_wake_phrase_everything_is_a_question() {
        let mut a = Addressing::new(None);
        let now = Instant::now();
        assert_eq!(
            a.classify(" What is 12 times 12?", now),
            Heard::Question("What is 12 times 12?".into())
        );
        assert_eq!(a.classify("Stop.", now), Heard::Hush);
        assert_eq!(a.classify("Never mind!", now), Heard::Hush);
        assert_eq!(a.classify("  ", now), Heard::Ignored);
    }

    #[test]
    fn a_wake_phrase_gates_and_is_cut_off() {
        let mut a = Addressing::new(Some("hey loop"));
        let now = Instant::now();
        assert_eq!(a.classify("What is 12 times 12?", now), Heard::Ignored);
        assert_eq!(
            a.classify("Hey, Loop! What is 12 times 12?", now),
            Heard::Question("What is 12 times 12?".into())
        );
        assert_eq!(a.classify("Hey loop.", now), Heard::Woken);
        assert_eq!(
            a.classify("What time is it?", now + Duration::from_secs(3)),
            Heard::Question("What time is it?".into())
        );
        assert_eq!(
            a.classify("What time is it?", now + Duration::from_secs(4)),
            Heard::Ignored
        );
        a.classify("hey loop", now);
        assert_eq!(
            a.classify("What time is it?", now + Duration::from_secs(9)),
            Heard::Ignored
        );
        assert_eq!(a.classify("Hey loop, stop.", now), Heard::Hush);
    }

    #[test]
    fn a_follow_up_soon_after_an_answer_needs_no_wake_phrase() {
        let mut a = Addressing::new(Some("hey loop"));
        let now = Instant::now();
        a.classify("Hey loop, what time is it in Paris?", now);
        a.answered(now + Duration::from_secs(2), Duration::from_secs(5));
        assert_eq!(
            a.classify("And in London?", now + Duration::from_secs(6)),
            Heard::Question("And in London?".into())
        );
        assert_eq!(
            a.classify("Nice weather today.", now + Duration::from_secs(7)),
            Heard::Ignored,
            "a follow-up is one question, not an open microphone"
        );
        a.answered(now + Duration::from_secs(8), Duration::from_secs(5));
        assert_eq!(
            a.classify("And in Rome?", now + Duration::from_secs(14)),
            Heard::Ignored
        );
        let mut off = Addressing::new(Some("hey loop"));
        off.classify("Hey loop, what time is it?", now);
        off.answered(now + Duration::from_secs(1), Duration::ZERO);
        assert_eq!(
            off.classify("And in Oslo?", now + Duration::from_secs(2)),
            Heard::Ignored
        );
    }
}

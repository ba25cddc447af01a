//! A time of day as people say or write it, read from the start of some
//! lower-case words: `7:30`, `19:30`, `7.30 pm`, `7pm`, `6 45 pm`, `seven
//! thirty five`, `2 in the afternoon`, `10 at night`, `seven oclock`, `noon`,
//! `midnight`. One reader for the clock's dates, the timers and the word
//! problems; each decides which of the forms it takes as a time.

use crate::numbers;
use chrono::NaiveTime;

/// The half of the day said with a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    /// `am`, `in the morning`, midnight.
    Am,
    /// `pm`, `in the afternoon`, `in the evening`, `at night`, noon.
    Pm,
}

/// A time of day read from words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockTime {
    /// The hour as said: 1-12 with a half, 0-23 without.
    pub hour: u32,
    /// Minutes past the hour.
    pub minute: u32,
    /// The half of the day, when it was said.
    pub half: Option<Half>,
    /// How the minutes were given: `None` for an hour alone.
    pub minutes: Option<Minutes>,
    /// How many of the words the time took.
    pub words: usize,
}

/// How the minutes of a time were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Minutes {
    /// In the same word as the hour: `7:30`, `7.30`.
    Joined,
    /// As a word of their own: `7 30`, `seven thirty`.
    Apart,
}

impl ClockTime {
    /// Reads a time from the start of `words`. An hour alone (`7`,
    /// `seven`) is read too, with neither minutes nor a half: whether that
    /// is a time is the caller's to say.
    pub fn read(words: &[&str]) -> Option<ClockTime> {
        let first = *words.first()?;
        match first {
            "noon" | "midday" => return Some(exact(12, Half::Pm)),
            "midnight" => return Some(exact(12, Half::Am)),
            _ => {}
        }
        let (first, half_in_word) = strip_half(first);
        let (hour, mut minute, mut minutes) = match first.split_once([':', '.']) {
            Some((h, m)) if m.len() == 2 => (digits(h)?, digits(m)?, Some(Minutes::Joined)),
            Some(_) => return None,
            None => (digits(first).or_else(|| word_number(first))?, 0, None),
        };
        let mut used = 1;
        if minutes.is_none() && half_in_word.is_none() {
            if let Some((m, n)) = minutes_word(&words[used..]) {
                (minute, minutes) = (m, Some(Minutes::Apart));
                used += n;
            }
        }
        if words.get(used) == Some(&"oclock") && minutes.is_none() {
            used += 1;
        }
        let half = match half_in_word {
            Some(half) => Some(half),
            None => half_after(&words[used..], hour).map(|(half, n)| {
                used += n;
                half
            }),
        };
        let valid = match half {
            Some(_) => (1..=12).contains(&hour),
            None => hour < 24,
        };
        (valid && minute < 60).then_some(ClockTime {
            hour,
            minute,
            half,
            minutes,
            words: used,
        })
    }

    /// The time on a 24-hour clock: the hour as said when no half was.
    pub fn time(&self) -> Option<NaiveTime> {
        let hour = match self.half {
            Some(Half::Am) => self.hour % 12,
            Some(Half::Pm) => self.hour % 12 + 12,
            None => self.hour,
        };
        NaiveTime::from_hms_opt(hour, self.minute, 0)
    }

    /// Hours after midnight, with the minutes as a fraction.
    pub fn hours(&self) -> Option<f64> {
        use chrono::Timelike;
        self.time()
            .map(|t| f64::from(t.hour()) + f64::from(t.minute()) / 60.0)
    }
}

fn exact(hour: u32, half: Half) -> ClockTime {
    ClockTime {
        hour,
        minute: 0,
        half: Some(half),
        minutes: None,
        words: 1,
    }
}

/// `7pm` → `7` and pm; `7:30am` → `7:30` and am.
fn strip_half(word: &str) -> (&str, Option<Half>) {
    for (suffix, half) in [
        ("a.m.", Half::Am),
        ("p.m.", Half::Pm),
        ("a.m", Half::Am),
        ("p.m", Half::Pm),
        ("am", Half::Am),
        ("pm", Half::Pm),
    ] {
        if let Some(rest) = word.strip_suffix(suffix) {
            if rest.ends_with(|c: char| c.is_ascii_digit()) {
                return (rest, Some(half));
            }
        }
    }
    (word, None)
}

/// One or two ASCII digits.
fn digits(text: &str) -> Option<u32> {
    (matches!(text.len(), 1 | 2) && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// An hour in words, `one` to `twelve`.
fn word_number(word: &str) -> Option<u32> {
    numbers::small(word)
        .map(|n| n as u32)
        .filter(|n| (1..=12).contains(n))
}

/// Minutes as words of their own at the start of `words`: `30`, `05`,
/// `thirty`, `thirty five`, `oh five`; with how many words they took.
fn minutes_word(words: &[&str]) -> Option<(u32, usize)> {
    let first = *words.first()?;
    if first.len() == 2 && first.bytes().all(|b| b.is_ascii_digit()) {
        return first.parse().ok().filter(|m| *m < 60).map(|m| (m, 1));
    }
    if matches!(first, "oh" | "o") {
        let ones = words.get(1).and_then(|w| numbers::small(w))?;
        return (1..10).contains(&ones).then_some((ones as u32, 2));
    }
    let tens = numbers::small(first).filter(|n| (10..60).contains(n))? as u32;
    match words.get(1).and_then(|w| numbers::small(w)) {
        Some(ones) if tens.is_multiple_of(10) && tens >= 20 && (1..10).contains(&ones) => {
            Some((tens + ones as u32, 2))
        }
        _ => Some((tens, 1)),
    }
}

/// The half of the day said after a time: `am`, `p.m.`, `p m`, `in the
/// morning`, `in the afternoon`, `in the evening`, `at night` (twelve to
/// three at night are after midnight).
fn half_after(words: &[&str], hour: u32) -> Option<(Half, usize)> {
    match words {
        ["am" | "a.m." | "a.m", ..] => Some((Half::Am, 1)),
        ["pm" | "p.m." | "p.m", ..] => Some((Half::Pm, 1)),
        ["a", "m", ..] => Some((Half::Am, 2)),
        ["p", "m", ..] => Some((Half::Pm, 2)),
        ["in", "the", "morning", ..] => Some((Half::Am, 3)),
        ["in", "the", "afternoon" | "evening", ..] => Some((Half::Pm, 3)),
        ["at", "night", ..] if hour == 12 || hour < 4 => Some((Half::Am, 2)),
        ["at", "night", ..] => Some((Half::Pm, 2)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<(String, Option<Half>, usize)> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let t = ClockTime::read(&words)?;
        Some((t.time()?.format("%H:%M").to_string(), t.half, t.words))
    }

    #[test]
    fn times_written_and_said() {
        assert_eq!(read("7:30"), Some(("07:30".into(), None, 1)));
        assert_eq!(read("19:30 tonight"), Some(("19:30".into(), None, 1)));
        assert_eq!(read("7.30 pm"), Some(("19:30".into(), Some(Half::Pm), 2)));
        assert_eq!(read("7pm"), Some(("19:00".into(), Some(Half::Pm), 1)));
        assert_eq!(read("6:45p.m."), Some(("18:45".into(), Some(Half::Pm), 1)));
        assert_eq!(read("6 45 pm"), Some(("18:45".into(), Some(Half::Pm), 3)));
        assert_eq!(read("7 p m"), Some(("19:00".into(), Some(Half::Pm), 3)));
        assert_eq!(
            read("seven thirty five am"),
            Some(("07:35".into(), Some(Half::Am), 4))
        );
        assert_eq!(read("seven oh five"), Some(("07:05".into(), None, 3)));
        assert_eq!(
            read("six thirty in the morning"),
            Some(("06:30".into(), Some(Half::Am), 5))
        );
        assert_eq!(
            read("2 in the afternoon"),
            Some(("14:00".into(), Some(Half::Pm), 4))
        );
        assert_eq!(
            read("ten oclock at night"),
            Some(("22:00".into(), Some(Half::Pm), 4))
        );
        assert_eq!(
            read("12 at night"),
            Some(("00:00".into(), Some(Half::Am), 3))
        );
        assert_eq!(
            read("2:15 at night"),
            Some(("02:15".into(), Some(Half::Am), 3))
        );
        assert_eq!(read("12 pm"), Some(("12:00".into(), Some(Half::Pm), 2)));
        assert_eq!(read("noon"), Some(("12:00".into(), Some(Half::Pm), 1)));
        assert_eq!(read("midnight"), Some(("00:00".into(), Some(Half::Am), 1)));
    }

    #[test]
    fn an_hour_alone_is_read_without_minutes_or_half() {
        let t = ClockTime::read(&["7", "tomorrow"]).unwrap();
        assert_eq!((t.hour, t.minutes, t.half, t.words), (7, None, None, 1));
    }

    #[test]
    fn what_is_no_time() {
        assert_eq!(read("13 pm"), None);
        assert_eq!(read("7:75"), None);
        assert_eq!(read("24:00"), None);
        assert_eq!(read("7.5 hours"), None);
        assert_eq!(read("120"), None);
        assert_eq!(read("twenty"), None);
        assert_eq!(read("$7pm"), None);
        assert_eq!(read(""), None);
    }
}

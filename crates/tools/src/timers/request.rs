//! Reading a timer or alarm request in words: whether it sets, lists or
//! cancels, for how long or until what time of day, and its label.

use super::Kind;
use crate::clock_time::{ClockTime, Half, Minutes};
use crate::numbers;
use chrono::{DateTime, Duration as Span, FixedOffset, NaiveTime};

/// A request in words, as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Set a timer or alarm; `due` is missing when the words gave no time.
    Set {
        /// Countdown or alarm.
        kind: Kind,
        /// When it rings.
        due: Option<DateTime<FixedOffset>>,
        /// What it is for.
        label: Option<String>,
    },
    /// Say what is set.
    List {
        /// Only timers, or only alarms.
        kind: Option<Kind>,
        /// Only the one with this label.
        label: Option<String>,
    },
    /// Cancel one, or all.
    Cancel {
        /// Only timers, or only alarms.
        kind: Option<Kind>,
        /// The one with this label.
        label: Option<String>,
        /// Every one that matches.
        all: bool,
    },
}

const CANCEL_WORDS: &[&str] = &[
    "cancel", "stop", "delete", "remove", "clear", "dismiss", "kill", "abort", "silence",
];
/// Words before `off` that cancel: "turn off the alarm".
const TURN_WORDS: &[&str] = &["turn", "switch", "shut"];
const LIST_WORDS: &[&str] = &[
    "how",
    "left",
    "remaining",
    "list",
    "what",
    "which",
    "any",
    "show",
    "check",
    "status",
    "when",
    "many",
    "whats",
];
/// Words that are never a label.
const NOT_LABELS: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "your",
    "this",
    "that",
    "all",
    "every",
    "another",
    "new",
    "set",
    "start",
    "make",
    "create",
    "add",
    "put",
    "please",
    "and",
    "for",
    "at",
    "in",
    "of",
    "on",
    "to",
    "me",
    "up",
    "wake",
    "i",
    "is",
    "it",
    "timer",
    "timers",
    "alarm",
    "alarms",
    "countdown",
    "can",
    "you",
    "could",
    "would",
    "will",
    "need",
    "want",
    "give",
    "hey",
    "ok",
    "okay",
    "now",
    "called",
    "named",
    "labelled",
    "labeled",
    "minute",
    "hour",
    "second",
    "tomorrow",
    "today",
    "morning",
    "evening",
    "tonight",
    "with",
    "by",
    "from",
    "about",
    "one",
    "some",
    "do",
    "have",
    "there",
    "are",
    "was",
    "be",
    "just",
    "quick",
    "short",
    "long",
];

/// Reads a timer or alarm request; `None` when the words are not one.
/// Times of day are read on the wall clock of `now`.
pub fn read(text: &str, now: DateTime<FixedOffset>) -> Option<Command> {
    let words = tokens(text);
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let timer = w
        .iter()
        .enumerate()
        .any(|(at, x)| (x.starts_with("timer") && !a_person_timer(&w, at)) || *x == "countdown");
    let wake = w
        .windows(2)
        .any(|p| p == ["wake", "me"] || p == ["wake", "up"]);
    let alarm = wake || w.iter().any(|x| x.starts_with("alarm"));
    let has = |list: &[&str]| w.iter().any(|x| list.contains(x));
    let reminder = !timer && !alarm && is_reminder(&w);
    if !timer && !alarm && !reminder {
        return None;
    }
    let kind = match (timer, alarm) {
        (true, false) => Some(Kind::Timer),
        (false, true) => Some(Kind::Alarm),
        _ => None,
    };
    let label = match reminder {
        true => reminder_label(&w),
        false => label(&w),
    };
    let turned_off = w
        .windows(2)
        .any(|p| TURN_WORDS.contains(&p[0]) && p[1] == "off");
    if (has(CANCEL_WORDS) || turned_off) && !wake {
        let all = w
            .iter()
            .any(|x| matches!(*x, "all" | "every" | "everything"));
        return Some(Command::Cancel { kind, label, all });
    }
    let length = length_s(&w);
    let at = time_of_day(&w).and_then(|time| {
        let tomorrow = w.contains(&"tomorrow");
        next_at(now, time, tomorrow)
    });
    let due = match (length, at) {
        (Some(seconds), _) => Some(now + Span::seconds(seconds)),
        (None, Some(at)) => Some(at),
        (None, None) => None,
    };
    if due.is_none() && has(LIST_WORDS) {
        return Some(Command::List { kind, label });
    }
    let kind = match (length, at, alarm) {
        (None, Some(_), _) | (_, _, true) => Kind::Alarm,
        _ => Kind::Timer,
    };
    Some(Command::Set { kind, due, label })
}

/// Whether the words ask for a reminder: "remind me in 10 minutes to …",
/// "remind me at 6 pm", "cancel my reminder", "what reminders do I have".
/// "Remind me what 5 times 4 is" is none.
fn is_reminder(w: &[&str]) -> bool {
    let remind = w.iter().any(|x| x.starts_with("remind"));
    let noun = w.iter().any(|x| x.starts_with("reminder"));
    let has = |list: &[&str]| w.iter().any(|x| list.contains(x));
    remind
        && (length_s(w).is_some()
            || time_of_day(w).is_some()
            || (noun && (has(CANCEL_WORDS) || has(LIST_WORDS))))
}

/// What a reminder is for: the words after its `to` ("remind me in 10
/// minutes to check the oven" → "check the oven"), up to a time.
fn reminder_label(w: &[&str]) -> Option<String> {
    let remind = w.iter().position(|x| x.starts_with("remind"))?;
    let to = remind + 1 + w[remind + 1..].iter().position(|x| *x == "to")?;
    let words: Vec<&str> = w[to + 1..]
        .iter()
        .take_while(|x| {
            !matches!(**x, "in" | "at" | "on" | "tomorrow" | "tonight" | "for")
                && x.parse::<f64>().is_err()
                && number_word(x).is_none()
                && !x.contains(':')
        })
        .take(5)
        .copied()
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Lower-case words: `7:30`, `1.5` and `10` kept whole, `a.m.` as `am`,
/// `10-minute` and `10min` split.
pub(super) fn tokens(text: &str) -> Vec<String> {
    let lower = text
        .to_lowercase()
        .replace(['\'', '’'], "")
        .replace("a.m.", "am")
        .replace("p.m.", "pm")
        .replace("a.m", "am")
        .replace("p.m", "pm");
    let mut words = Vec::new();
    for raw in
        lower.split(|c: char| c.is_whitespace() || matches!(c, ',' | '!' | '?' | ';' | '-' | '"'))
    {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != ':');
        if word.is_empty() {
            continue;
        }
        let digits = word
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
            .unwrap_or(word.len());
        let (number, rest) = word.split_at(digits);
        if digits > 0 && !rest.is_empty() && unit_seconds(rest).is_some() {
            words.push(number.to_string());
            words.push(rest.to_string());
        } else {
            words.push(word.to_string());
        }
    }
    words
}

/// Seconds in one of a unit word: `minutes` → 60.
fn unit_seconds(word: &str) -> Option<f64> {
    Some(match word {
        "s" | "sec" | "secs" | "second" | "seconds" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600.0,
        _ => return None,
    })
}

/// A count at `words[i..]`: digits, number words up to 99, `a`/`an`,
/// `a couple of`; with `and a half` after it. Returns it and the words used.
fn count(words: &[&str], i: usize) -> Option<(f64, usize)> {
    let word = *words.get(i)?;
    let (mut n, mut used) = if let Ok(n) = word.parse::<f64>() {
        (n, 1)
    } else if matches!(word, "a" | "an") {
        (1.0, 1)
    } else if word == "couple" {
        (2.0, 1 + usize::from(words.get(i + 1) == Some(&"of")))
    } else {
        let n = number_word(word)?;
        match words.get(i + 1).and_then(|w| number_word(w)) {
            Some(ones) if n >= 20 && n % 10 == 0 && ones < 10 => ((n + ones) as f64, 2),
            _ => (n as f64, 1),
        }
    };
    if words.get(i + used..i + used + 3) == Some(&["and", "a", "half"][..]) {
        n += 0.5;
        used += 3;
    }
    Some((n, used))
}

fn number_word(word: &str) -> Option<i64> {
    numbers::small(word).map(|n| n as i64)
}

/// The length of time the words give, in whole seconds: `10 minutes`,
/// `1 hour and 30 minutes`, `an hour and a half`, `half an hour`,
/// `90 seconds`, `a quarter of an hour`.
fn length_s(words: &[&str]) -> Option<i64> {
    let mut total = 0.0;
    let mut found = false;
    let mut i = 0;
    while i < words.len() {
        let fraction = match words[i] {
            "half" => Some(0.5),
            "quarter" => Some(0.25),
            _ => None,
        };
        if let Some(fraction) = fraction {
            let rest = words.get(i + 1..).unwrap_or_default();
            let skip = rest
                .iter()
                .take_while(|w| matches!(**w, "an" | "a" | "of"))
                .count();
            if let Some(unit) = rest.get(skip).and_then(|u| unit_seconds(u)) {
                total += fraction * unit;
                found = true;
                i += skip + 2;
                continue;
            }
        }
        if let Some((n, used)) = count(words, i) {
            if let Some(unit) = words.get(i + used).and_then(|u| unit_seconds(u)) {
                let mut seconds = n * unit;
                let mut step = used + 1;
                if words.get(i + step..i + step + 3) == Some(&["and", "a", "half"][..]) {
                    seconds += 0.5 * unit;
                    step += 3;
                }
                total += seconds;
                found = true;
                i += step;
                continue;
            }
        }
        i += 1;
    }
    let total = total.round() as i64;
    (found && total > 0).then_some(total)
}

/// A time of day after `at`, `for` or `to`: `7:30`, `7 am`, `seven thirty
/// pm`, `noon`, a bare hour (`at 7`: its next occurrence, or the evening's
/// when `tonight` is said).
fn time_of_day(words: &[&str]) -> Option<When> {
    for (i, word) in words.iter().enumerate() {
        if !matches!(*word, "at" | "for" | "to" | "until" | "till") {
            continue;
        }
        let rest = &words[i + 1..];
        let Some(mut time) = ClockTime::read(rest) else {
            continue;
        };
        if rest
            .get(time.words)
            .is_some_and(|w| unit_seconds(w).is_some())
        {
            continue;
        }
        if time.half.is_none() && (1..=12).contains(&time.hour) && words.contains(&"tonight") {
            time.half = Some(Half::Pm);
        }
        let joined = time.minutes == Some(Minutes::Joined);
        return match time.half {
            Some(_) => time.time().map(When::Exact),
            None if joined && (time.hour == 0 || time.hour > 12) => time.time().map(When::Exact),
            None if (1..=12).contains(&time.hour) => time.time().map(When::EitherHalf),
            None => None,
        };
    }
    None
}

/// A time of day read from words.
#[derive(Debug, Clone, Copy)]
enum When {
    /// Exactly this time.
    Exact(NaiveTime),
    /// This time in the morning or in the evening, whichever comes first.
    EitherHalf(NaiveTime),
}

/// The next moment at `time` on `now`'s clock (tomorrow's when asked).
fn next_at(
    now: DateTime<FixedOffset>,
    time: When,
    tomorrow: bool,
) -> Option<DateTime<FixedOffset>> {
    let candidates = match time {
        When::Exact(t) => vec![t],
        When::EitherHalf(t) => vec![t, t.overflowing_add_signed(Span::hours(12)).0],
    };
    let offset = *now.offset();
    let start = if tomorrow {
        now.date_naive().succ_opt()?.and_time(NaiveTime::MIN)
    } else {
        now.naive_local()
    };
    (0..2)
        .flat_map(|day| {
            candidates.iter().filter_map(move |t| {
                Some(
                    start
                        .date()
                        .checked_add_days(chrono::Days::new(day))?
                        .and_time(*t),
                )
            })
        })
        .filter(|at| *at > start || (tomorrow && *at >= start))
        .min()
        .and_then(|at| at.and_local_timezone(offset).single())
}

/// The label the words give: `called pasta`, `for the eggs`, `pasta timer`.
fn label(words: &[&str]) -> Option<String> {
    let is_label = |w: &&str| {
        !NOT_LABELS.contains(w)
            && unit_seconds(w).is_none()
            && count(&[w], 0).is_none()
            && !w.contains(':')
            && !matches!(*w, "am" | "pm" | "noon" | "midnight" | "half" | "quarter")
            && !CANCEL_WORDS.contains(w)
            && !LIST_WORDS.contains(w)
    };
    let take = |from: &[&str]| {
        let words: Vec<&str> = from
            .iter()
            .skip_while(|w| matches!(**w, "the" | "my" | "a"))
            .take_while(|w| is_label(w))
            .take(3)
            .copied()
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    };
    for (i, word) in words.iter().enumerate() {
        if matches!(*word, "called" | "named" | "labelled" | "labeled") {
            if let Some(label) = take(&words[i + 1..]) {
                return Some(label);
            }
        }
    }
    let noun = words
        .iter()
        .position(|w| w.starts_with("timer") || w.starts_with("alarm"))?;
    let before: Vec<&str> = words[..noun]
        .iter()
        .rev()
        .take_while(|w| is_label(w))
        .take(2)
        .copied()
        .collect();
    if !before.is_empty() {
        return Some(before.into_iter().rev().collect::<Vec<_>>().join(" "));
    }
    words[noun + 1..]
        .iter()
        .enumerate()
        .filter(|(_, w)| **w == "for")
        .find_map(|(i, _)| take(&words[noun + 2 + i..]))
}

/// Whether the word at `at` ("timer") is a person: a part timer, an old
/// timer.
fn a_person_timer(w: &[&str], at: usize) -> bool {
    at > 0 && matches!(w[at - 1], "part" | "full" | "old" | "first" | "small")
}

/// Whether the words name a timer, an alarm or a reminder, or ask to be
/// woken.
pub(super) fn names_a_timer(w: &[&str]) -> bool {
    w.iter().enumerate().any(|(at, x)| {
        (x.starts_with("timer") && !a_person_timer(w, at))
            || x.starts_with("alarm")
            || x.starts_with("remind")
            || *x == "countdown"
    }) || w
        .windows(2)
        .any(|p| p == ["wake", "me"] || p == ["wake", "up"])
}

//! The `timers` toolbox: timers and alarms, set, listed and cancelled in
//! words ("set a pasta timer for 10 minutes", "wake me up at 7 am", "how
//! long is left on my timer", "cancel the alarm").
//!
//! Timers live in one [`Timers`] the daemon keeps ([`Timers::keep`] rings
//! each when it is due) and are saved to a file, so they outlast a
//! restart. Each belongs to the caller that set it: a caller lists and
//! cancels only its own, and it rings only to that caller's front end.
//! Front ends that can ring say so ([`Timers::rings_for`]); a timer asked
//! for where none can ring is refused in words, never set to go off
//! unheard.

use super::clock::{local_at, spoken_time};
use super::clock_time::{ClockTime, Half, Minutes};
use super::numbers;
use super::{typed_tool, Tool, ToolConfig, ToolError};
use chrono::{DateTime, Duration as Span, FixedOffset, NaiveTime, Timelike, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::{broadcast, Notify};
use tokio_util::sync::CancellationToken;

/// Most timers and alarms one caller may have at once.
pub const MAX_PER_CALLER: usize = 20;
/// Most timers and alarms kept at once, all callers together.
pub const MAX_TIMERS: usize = 500;
/// The longest timer, in seconds (a day).
pub const LONGEST_TIMER_S: i64 = 24 * 3600;
/// How far ahead an alarm may be set, in seconds (a week).
pub const FURTHEST_ALARM_S: i64 = 7 * 24 * 3600;
/// Longest label, in characters.
const MAX_LABEL_CHARS: usize = 40;
/// A timer that rings this much after it was due went off while loopd was
/// stopped, and says so.
const LATE_S: i64 = 30;
/// Rings waiting for a slow front end.
const RING_BACKLOG: usize = 64;

/// Where the current instant comes from (the system clock, or a fixed one in tests).
type Now = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// A countdown or a time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Rings after a length of time.
    Timer,
    /// Rings at a time of day.
    Alarm,
}

/// One timer or alarm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timer {
    /// Its number, unique in this store.
    pub id: u64,
    /// The caller that set it (the daemon's caller name).
    pub owner: String,
    /// Countdown or alarm.
    pub kind: Kind,
    /// What it is for ("pasta"), when the user said.
    pub label: Option<String>,
    /// When it was set.
    pub set_at: DateTime<Utc>,
    /// When it rings.
    pub due: DateTime<Utc>,
}

/// A timer that went off, for its owner's front end.
#[derive(Debug, Clone, PartialEq)]
pub struct Rang {
    /// The timer.
    pub timer: Timer,
    /// It went off while loopd was stopped; it rings now, late.
    pub late: bool,
    /// What to say: "Your pasta timer is done."
    pub spoken: String,
}

impl Timer {
    /// How long it runs from when it was set, to the nearest second.
    pub fn length_s(&self) -> i64 {
        ((self.due - self.set_at).num_milliseconds() + 500).div_euclid(1000)
    }
}

impl Rang {
    /// The timer as front ends report it: `id`, `kind`, `label`, `due`
    /// (RFC 3339), `late` and `spoken`.
    pub fn details(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.timer.id,
            "kind": self.timer.kind,
            "label": self.timer.label,
            "due": self.timer.due.to_rfc3339(),
            "late": self.late,
            "spoken": self.spoken,
        })
    }
}

/// What is saved to the file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Saved {
    next_id: u64,
    timers: Vec<Timer>,
}

/// Every caller's timers and alarms, kept by the daemon.
pub struct Timers {
    saved: Mutex<Saved>,
    file: Option<PathBuf>,
    changed: Notify,
    rang: broadcast::Sender<Rang>,
    bells: Mutex<Vec<String>>,
    timezone: Option<String>,
    now: Now,
}

impl std::fmt::Debug for Timers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timers")
            .field("file", &self.file)
            .field("count", &lock(&self.saved).timers.len())
            .finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Timers {
    /// The timers saved in `file` (none yet when it does not exist), saved
    /// there again on every change; alarm times are read in `timezone`
    /// (else the system's zone). A file that cannot be read as timers is
    /// kept beside, as `<file>.bad`, and loopd starts with none.
    pub fn open(file: Option<PathBuf>, timezone: Option<String>) -> Arc<Timers> {
        Self::with_clock(file, timezone, Arc::new(Utc::now))
    }

    fn with_clock(file: Option<PathBuf>, timezone: Option<String>, now: Now) -> Arc<Timers> {
        let saved = file.as_deref().map(load).unwrap_or_default();
        Arc::new(Timers {
            saved: Mutex::new(saved),
            file,
            changed: Notify::new(),
            rang: broadcast::channel(RING_BACKLOG).0,
            bells: Mutex::default(),
            timezone,
            now,
        })
    }

    /// A front end rings timers for callers whose name is `caller`, or
    /// starts with it when it ends in `:` (`dbus-uid:`).
    pub fn rings_for(&self, caller: &str) {
        lock(&self.bells).push(caller.to_string());
    }

    /// Undoes one [`Timers::rings_for`] of `caller` (a connection that
    /// could hear rings closed).
    pub fn stops_ringing_for(&self, caller: &str) {
        let mut bells = lock(&self.bells);
        if let Some(at) = bells.iter().position(|bell| bell == caller) {
            bells.remove(at);
        }
    }

    /// Whether some front end rings timers for `owner`.
    pub fn can_ring(&self, owner: &str) -> bool {
        lock(&self.bells)
            .iter()
            .any(|bell| bell == owner || (bell.ends_with(':') && owner.starts_with(bell.as_str())))
    }

    /// Every timer as it goes off; each front end keeps those of its callers.
    pub fn subscribe(&self) -> broadcast::Receiver<Rang> {
        self.rang.subscribe()
    }

    /// Rings each timer when it is due until `stop`; timers that went off
    /// while loopd was stopped ring at once, late.
    pub async fn keep(&self, stop: CancellationToken) {
        loop {
            for rang in self.take_due() {
                tracing::info!("timers: {} rang ({})", rang.timer.id, rang.spoken);
                let _ = self.rang.send(rang);
            }
            let wait = self
                .next_due()
                .map(|due| (due - (self.now)()).to_std().unwrap_or_default())
                .unwrap_or(std::time::Duration::from_secs(3600))
                .min(std::time::Duration::from_secs(60));
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = self.changed.notified() => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    fn next_due(&self) -> Option<DateTime<Utc>> {
        lock(&self.saved).timers.iter().map(|t| t.due).min()
    }

    /// Takes the timers that are due out of the store.
    fn take_due(&self) -> Vec<Rang> {
        let now = (self.now)();
        let mut saved = lock(&self.saved);
        let (due, waiting): (Vec<Timer>, Vec<Timer>) =
            saved.timers.drain(..).partition(|t| t.due <= now);
        saved.timers = waiting;
        if due.is_empty() {
            return Vec::new();
        }
        self.save(&saved);
        due.into_iter()
            .map(|timer| {
                let late = (now - timer.due).num_seconds() > LATE_S;
                let spoken = self.ring_words(&timer, late);
                Rang {
                    timer,
                    late,
                    spoken,
                }
            })
            .collect()
    }

    /// The timers and alarms of `owner`, soonest first.
    pub fn of(&self, owner: &str) -> Vec<Timer> {
        let mut mine: Vec<Timer> = lock(&self.saved)
            .timers
            .iter()
            .filter(|t| t.owner == owner)
            .cloned()
            .collect();
        mine.sort_by_key(|t| t.due);
        mine
    }

    /// Sets a timer for `owner`; refused past the bounds.
    pub fn set(
        &self,
        owner: &str,
        kind: Kind,
        due: DateTime<Utc>,
        label: Option<String>,
    ) -> Result<Timer, String> {
        let now = (self.now)();
        let ahead = (due - now).num_milliseconds().div_euclid(1000);
        let furthest = match kind {
            Kind::Timer => LONGEST_TIMER_S,
            Kind::Alarm => FURTHEST_ALARM_S,
        };
        if (due - now).num_milliseconds() < 500 {
            return Err("That time has already passed.".into());
        }
        if ahead > furthest {
            return Err(match kind {
                Kind::Timer => "A timer can run for at most a day.".into(),
                Kind::Alarm => "An alarm can be set at most a week ahead.".into(),
            });
        }
        let mut saved = lock(&self.saved);
        let mine = saved.timers.iter().filter(|t| t.owner == owner).count();
        if mine >= MAX_PER_CALLER || saved.timers.len() >= MAX_TIMERS {
            return Err(format!("You already have {mine} timers; cancel one first."));
        }
        saved.next_id += 1;
        let timer = Timer {
            id: saved.next_id,
            owner: owner.to_string(),
            kind,
            label: label.map(|l| l.chars().take(MAX_LABEL_CHARS).collect()),
            set_at: now,
            due,
        };
        saved.timers.push(timer.clone());
        self.save(&saved);
        drop(saved);
        self.changed.notify_one();
        Ok(timer)
    }

    /// Cancels these timers of `owner`; returns those it had.
    pub fn cancel(&self, owner: &str, ids: &[u64]) -> Vec<Timer> {
        let mut saved = lock(&self.saved);
        let (gone, kept): (Vec<Timer>, Vec<Timer>) = saved
            .timers
            .drain(..)
            .partition(|t| t.owner == owner && ids.contains(&t.id));
        saved.timers = kept;
        if !gone.is_empty() {
            self.save(&saved);
        }
        drop(saved);
        self.changed.notify_one();
        gone
    }

    fn save(&self, saved: &Saved) {
        let Some(file) = &self.file else { return };
        if let Err(e) = write_atomically(file, saved) {
            tracing::error!("timers: cannot save {}: {e}", file.display());
        }
    }

    fn local(&self, instant: DateTime<Utc>) -> DateTime<FixedOffset> {
        local_at(self.timezone.as_deref(), instant)
    }

    /// What is said when `timer` goes off.
    fn ring_words(&self, timer: &Timer, late: bool) -> String {
        let name = self.name(timer);
        if late {
            let at = self.local(timer.due);
            return format!(
                "Your {name} went off at {}, while I was stopped.",
                spoken_time(at.hour(), at.minute())
            );
        }
        match timer.kind {
            Kind::Timer => format!("Your {name} is done."),
            Kind::Alarm => {
                let at = self.local(timer.due);
                format!(
                    "It is {}: your {name} is ringing.",
                    spoken_time(at.hour(), at.minute())
                )
            }
        }
    }

    /// How a timer is named aloud: "pasta timer", "10 minute timer", "alarm".
    fn name(&self, timer: &Timer) -> String {
        let noun = match timer.kind {
            Kind::Timer => "timer",
            Kind::Alarm => "alarm",
        };
        match (&timer.label, timer.kind) {
            (Some(label), _) => format!("{label} {noun}"),
            (None, Kind::Timer) => {
                let length = spoken_length(timer.length_s(), true);
                format!("{length} timer")
            }
            (None, Kind::Alarm) => noun.to_string(),
        }
    }

    /// Where a timer stands, in words: "the pasta timer has 3 minutes and
    /// 10 seconds left", "the alarm is set for 7:00 in the morning".
    fn standing(&self, timer: &Timer) -> String {
        let name = self.name(timer);
        match timer.kind {
            Kind::Timer => {
                let left = (timer.due - (self.now)()).num_seconds().max(0);
                format!("the {name} has {} left", spoken_length(left, false))
            }
            Kind::Alarm => format!("the {name} is set for {}", self.when(timer.due)),
        }
    }

    /// A time of day, with "tomorrow" or the weekday when it is not today.
    fn when(&self, instant: DateTime<Utc>) -> String {
        let at = self.local(instant);
        let today = self.local((self.now)()).date_naive();
        let time = spoken_time(at.hour(), at.minute());
        match (at.date_naive() - today).num_days() {
            0 => time,
            1 => format!("{time} tomorrow"),
            _ => format!("{time} on {}", at.format("%A")),
        }
    }
}

/// Largest timers file read: 500 timers take about 100 kB.
const MAX_FILE_BYTES: u64 = 1 << 20;

fn load(file: &Path) -> Saved {
    let read = match std::fs::metadata(file) {
        Ok(meta) if meta.len() > MAX_FILE_BYTES => Ok(format!("{} bytes", meta.len())),
        _ => std::fs::read_to_string(file),
    };
    let text = match read {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Saved::default(),
        Err(e) => {
            tracing::error!(
                "timers: cannot read {}: {e}; starting with none",
                file.display()
            );
            return Saved::default();
        }
    };
    match serde_json::from_str::<Saved>(&text) {
        Ok(saved) => {
            tracing::info!(
                "timers: {} kept from {}",
                saved.timers.len(),
                file.display()
            );
            saved
        }
        Err(e) => {
            let bad = file.with_extension("json.bad");
            let kept = std::fs::rename(file, &bad).is_ok();
            tracing::error!(
                "timers: {} is not a timers file ({e}); starting with none{}",
                file.display(),
                if kept {
                    format!(", the file kept as {}", bad.display())
                } else {
                    String::new()
                }
            );
            Saved::default()
        }
    }
}

fn write_atomically(file: &Path, saved: &Saved) -> std::io::Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let temporary = file.with_extension("json.new");
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&temporary)?
        .write_all(&serde_json::to_vec_pretty(saved)?)?;
    std::fs::rename(&temporary, file)
}

/// A length of time as people say it: "10 minutes", "1 hour and 30
/// minutes", "2 minutes and 5 seconds"; as a modifier ("10 minute
/// timer") the units stay singular.
fn spoken_length(seconds: i64, modifier: bool) -> String {
    let (hours, minutes, seconds) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    let parts: Vec<(i64, &str)> = if hours > 0 {
        vec![(hours, "hour"), (minutes, "minute")]
    } else if minutes >= 10 {
        vec![(minutes + i64::from(seconds >= 30), "minute")]
    } else {
        vec![(minutes, "minute"), (seconds, "second")]
    };
    let words: Vec<String> = parts
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| match (n, modifier) {
            (1, _) | (_, true) => format!("{n} {unit}"),
            _ => format!("{n} {unit}s"),
        })
        .collect();
    match words.as_slice() {
        [] if modifier => "0 second".into(),
        [] => "0 seconds".into(),
        [one] => one.clone(),
        [first, second] if modifier => format!("{first} {second}"),
        [first, second] => format!("{first} and {second}"),
        _ => words.join(", "),
    }
}

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
fn tokens(text: &str) -> Vec<String> {
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

/// Arguments of `timer`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimerArgs {
    /// The request, in words: "set a timer for 10 minutes", "wake me up at 7 am", "cancel the pasta timer".
    #[schemars(extend("x-question" = true))]
    pub request: String,
}

/// One timer, as `timer` reports it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TimerEntry {
    /// Its label, if it has one.
    pub label: Option<String>,
    /// Countdown or alarm.
    pub kind: Kind,
    /// When it rings, HH:MM on the local clock.
    pub rings_at: String,
    /// Seconds until it rings.
    pub seconds_left: i64,
}

/// Result of `timer`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TimerAnswer {
    /// What to tell the user.
    pub answer: String,
    /// The caller's timers and alarms now.
    pub timers: Vec<TimerEntry>,
}

/// The tools of the `timers` toolbox: `timer`. Timers ring only where the
/// daemon keeps them (`config.timers`) for the caller of the request.
pub fn tools(config: &ToolConfig) -> Vec<Arc<dyn Tool>> {
    let desk = Desk {
        timers: config.timers.clone(),
        owner: config.caller.clone().unwrap_or_else(|| "local".into()),
    };
    let timers = desk.timers.clone();
    let tool = typed_tool(
        "timer",
        "Sets, lists or cancels timers and alarms, in words: set a timer for 10 minutes, \
         wake me up at 7 am, how long is left on the pasta timer, cancel my alarm. \
         Pass the request as it was said.",
        move |args: TimerArgs| desk.handle(&args.request),
    );
    vec![Arc::new(TimerTool { tool, timers })]
}

/// The `timer` tool, which says which requests would set or cancel a timer.
struct TimerTool {
    tool: Arc<dyn Tool>,
    timers: Option<Arc<Timers>>,
}

impl Tool for TimerTool {
    fn spec(&self) -> &crate::ToolSpec {
        self.tool.spec()
    }

    fn call(&self, arguments: serde_json::Value) -> Result<serde_json::Value, ToolError> {
        self.tool.call(arguments)
    }

    fn changes_things(&self, arguments: &serde_json::Value) -> bool {
        let Some(request) = arguments["request"].as_str() else {
            return true;
        };
        let now = match &self.timers {
            Some(timers) => timers.local((timers.now)()),
            None => local_at(None, Utc::now()),
        };
        matches!(
            read(request, now),
            Some(Command::Set { .. } | Command::Cancel { .. })
        )
    }

    fn asked_for(&self, said: &str) -> bool {
        let words = tokens(said);
        let w: Vec<&str> = words.iter().map(String::as_str).collect();
        names_a_timer(&w)
    }
}

/// Whether the word at `at` ("timer") is a person: a part timer, an old
/// timer.
fn a_person_timer(w: &[&str], at: usize) -> bool {
    at > 0 && matches!(w[at - 1], "part" | "full" | "old" | "first" | "small")
}

/// Whether the words name a timer, an alarm or a reminder, or ask to be
/// woken.
fn names_a_timer(w: &[&str]) -> bool {
    w.iter().enumerate().any(|(at, x)| {
        (x.starts_with("timer") && !a_person_timer(w, at))
            || x.starts_with("alarm")
            || x.starts_with("remind")
            || *x == "countdown"
    }) || w
        .windows(2)
        .any(|p| p == ["wake", "me"] || p == ["wake", "up"])
}

/// The timers of one caller.
struct Desk {
    timers: Option<Arc<Timers>>,
    owner: String,
}

impl Desk {
    fn handle(&self, request: &str) -> Result<TimerAnswer, ToolError> {
        let words_only = |answer: &str| TimerAnswer {
            answer: answer.to_string(),
            timers: Vec::new(),
        };
        let Some(timers) = &self.timers else {
            let now = local_at(None, Utc::now());
            read(request, now).ok_or_else(not_understood)?;
            return Ok(words_only(
                "I can only keep timers while loopd runs as a service (loopd serve or \
                 loopd listen); this command ends with its answer.",
            ));
        };
        let now = timers.local((timers.now)());
        let command = read(request, now).ok_or_else(not_understood)?;
        let answer = match command {
            Command::Set { kind, due, label } => {
                let Some(due) = due else {
                    let noun = match kind {
                        Kind::Timer => {
                            "For how long? Say, for example: set a timer for 10 minutes."
                        }
                        Kind::Alarm => "For what time? Say, for example: set an alarm for 7 am.",
                    };
                    return Ok(words_only(noun));
                };
                if !timers.can_ring(&self.owner) {
                    return Ok(words_only(
                        "I cannot ring a timer through this connection; ask me by voice, \
                         on the message bus or over D-Bus.",
                    ));
                }
                match timers.set(&self.owner, kind, due.to_utc(), label) {
                    Ok(timer) => self.confirm(timers, &timer),
                    Err(refused) => refused,
                }
            }
            Command::List { kind, label } => {
                let mine = self.matching(timers, kind, label.as_deref());
                match mine.as_slice() {
                    [] => format!("You have no {}.", plural(kind)),
                    [one] => capitalized(&format!("{}.", timers.standing(one))),
                    many => capitalized(&format!(
                        "you have {} {}: {}.",
                        many.len(),
                        plural(kind),
                        many.iter()
                            .map(|t| timers.standing(t))
                            .collect::<Vec<_>>()
                            .join("; ")
                    )),
                }
            }
            Command::Cancel { kind, label, all } => {
                let mine = self.matching(timers, kind, label.as_deref());
                match (mine.as_slice(), all) {
                    ([], _) => match &label {
                        Some(label) => format!("You have no {label} {}.", noun(kind)),
                        None => format!("You have no {} to cancel.", plural(kind)),
                    },
                    ([one], false) => {
                        timers.cancel(&self.owner, &[one.id]);
                        capitalized(&format!("{} cancelled.", timers.name(one)))
                    }
                    (many, true) => {
                        let ids: Vec<u64> = many.iter().map(|t| t.id).collect();
                        let gone = timers.cancel(&self.owner, &ids);
                        format!("Cancelled {} {}.", gone.len(), plural(kind))
                    }
                    (many, false) => format!(
                        "Which one? You have {}.",
                        many.iter()
                            .map(|t| format!("the {}", timers.name(t)))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                }
            }
        };
        Ok(TimerAnswer {
            answer,
            timers: self.entries(timers),
        })
    }

    fn confirm(&self, timers: &Timers, timer: &Timer) -> String {
        match timer.kind {
            Kind::Timer => {
                let length = spoken_length(timer.length_s(), false);
                let noun = match &timer.label {
                    Some(label) => capitalized(&format!("{label} timer")),
                    None => "Timer".into(),
                };
                format!("{noun} set for {length}.")
            }
            Kind::Alarm => {
                let noun = match &timer.label {
                    Some(label) => capitalized(&format!("{label} alarm")),
                    None => "Alarm".into(),
                };
                let left = timer.length_s();
                if left < 3600 && timer.label.is_none() {
                    format!(
                        "{noun} set for {}, in {}.",
                        timers.when(timer.due),
                        spoken_length(left, false)
                    )
                } else {
                    format!("{noun} set for {}.", timers.when(timer.due))
                }
            }
        }
    }

    /// The caller's timers of `kind`, and with `label` when one is named.
    fn matching(&self, timers: &Timers, kind: Option<Kind>, label: Option<&str>) -> Vec<Timer> {
        let named = |t: &Timer| match (label, t.label.as_deref()) {
            (None, _) => true,
            (Some(asked), Some(own)) => own.contains(asked) || asked.contains(own),
            (Some(_), None) => false,
        };
        timers
            .of(&self.owner)
            .into_iter()
            .filter(|t| kind.is_none_or(|k| t.kind == k) && named(t))
            .collect()
    }

    fn entries(&self, timers: &Timers) -> Vec<TimerEntry> {
        let now = (timers.now)();
        timers
            .of(&self.owner)
            .into_iter()
            .map(|t| TimerEntry {
                rings_at: timers.local(t.due).format("%H:%M").to_string(),
                seconds_left: (t.due - now).num_seconds().max(0),
                label: t.label,
                kind: t.kind,
            })
            .collect()
    }
}

fn not_understood() -> ToolError {
    ToolError::Failed(
        "not a timer or alarm request I can read; say, for example: set a timer for 10 \
         minutes, set an alarm for 7 am, how long is left on my timer, cancel the pasta timer"
            .into(),
    )
}

fn noun(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::Alarm) => "alarm",
        _ => "timer",
    }
}

fn plural(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::Timer) => "timers",
        Some(Kind::Alarm) => "alarms",
        None => "timers or alarms",
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use std::sync::atomic::{AtomicI64, Ordering};

    /// 10:00 on a Friday, UTC.
    fn ten_o_clock() -> DateTime<FixedOffset> {
        Utc.with_ymd_and_hms(2026, 11, 27, 10, 0, 0)
            .unwrap()
            .fixed_offset()
    }

    fn set_for(text: &str) -> (Kind, i64, Option<String>) {
        match read(text, ten_o_clock()) {
            Some(Command::Set {
                kind,
                due: Some(due),
                label,
            }) => (kind, (due - ten_o_clock()).num_seconds(), label),
            other => panic!("{text:?} read as {other:?}"),
        }
    }

    #[test]
    fn lengths_and_times_are_read_as_people_say_them() {
        let timer = |s: i64| (Kind::Timer, s, None);
        let alarm = |s: i64| (Kind::Alarm, s, None);
        let cases = [
            ("Set a timer for 10 minutes.", timer(600)),
            ("set a timer for ten minutes", timer(600)),
            ("Timer for twenty five seconds", timer(25)),
            ("start a 5-minute timer", timer(300)),
            ("set a timer for 1 hour and 30 minutes", timer(5400)),
            ("set a timer for an hour and a half", timer(5400)),
            ("set a timer for half an hour", timer(1800)),
            ("set a timer for one and a half minutes", timer(90)),
            ("countdown 90 seconds", timer(90)),
            ("set a timer for 2 mins", timer(120)),
            ("timer 10min", timer(600)),
            ("Set a timer for a quarter of an hour", timer(900)),
            ("set a timer for a couple of minutes", timer(120)),
            ("Wake me up at 7 am.", alarm(21 * 3600)),
            ("set an alarm for 6:30 pm", alarm(8 * 3600 + 1800)),
            ("set an alarm for 18:30", alarm(8 * 3600 + 1800)),
            ("set an alarm for 11", alarm(3600)),
            ("set an alarm for seven thirty", alarm(9 * 3600 + 1800)),
            ("set an alarm for 7 a.m. tomorrow", alarm(21 * 3600)),
            ("set an alarm for noon", alarm(2 * 3600)),
            ("Wake me up at 6 in the morning", alarm(20 * 3600)),
            ("set an alarm for 10 minutes", alarm(600)),
            ("wake me up at 7pm", alarm(9 * 3600)),
            (
                "set an alarm for seven oh five am tomorrow",
                alarm(21 * 3600 + 300),
            ),
            ("set an alarm for ten oclock tonight", alarm(12 * 3600)),
            ("set an alarm for 19:30 tonight", alarm(9 * 3600 + 1800)),
        ];
        for (text, expected) in cases {
            assert_eq!(set_for(text), expected, "{text:?}");
        }
    }

    #[test]
    fn labels_come_from_the_words_around_the_timer() {
        let label = |text: &str| set_for(text).2;
        assert_eq!(
            label("set a pasta timer for 10 minutes").as_deref(),
            Some("pasta")
        );
        assert_eq!(
            label("set a 10 minute timer for the eggs").as_deref(),
            Some("eggs")
        );
        assert_eq!(
            label("set a timer for 5 minutes for the eggs").as_deref(),
            Some("eggs")
        );
        assert_eq!(
            label("set a timer called tea for 3 minutes").as_deref(),
            Some("tea")
        );
        assert_eq!(
            label("set an alarm for 7 am called work").as_deref(),
            Some("work")
        );
        assert_eq!(label("set a timer for 10 minutes"), None);
        assert_eq!(label("wake me up at 7 am"), None);
    }

    #[test]
    fn listing_cancelling_and_other_questions() {
        let now = ten_o_clock();
        let cancel = |text: &str| read(text, now);
        assert_eq!(
            cancel("cancel the pasta timer"),
            Some(Command::Cancel {
                kind: Some(Kind::Timer),
                label: Some("pasta".into()),
                all: false
            })
        );
        assert_eq!(
            cancel("Cancel all timers."),
            Some(Command::Cancel {
                kind: Some(Kind::Timer),
                label: None,
                all: true
            })
        );
        assert_eq!(
            cancel("turn off the alarm"),
            Some(Command::Cancel {
                kind: Some(Kind::Alarm),
                label: None,
                all: false
            })
        );
        assert_eq!(
            cancel("How much time is left on the pasta timer?"),
            Some(Command::List {
                kind: Some(Kind::Timer),
                label: Some("pasta".into())
            })
        );
        assert_eq!(
            cancel("when does my alarm go off"),
            Some(Command::List {
                kind: Some(Kind::Alarm),
                label: None
            })
        );
        assert_eq!(
            cancel("set a timer"),
            Some(Command::Set {
                kind: Kind::Timer,
                due: None,
                label: None
            })
        );
        for other in [
            "What time is it?",
            "What is 12 times 12?",
            "How many minutes are in 3 hours?",
            "Remind me to call mum",
            "",
        ] {
            assert_eq!(read(other, now), None, "{other:?}");
        }
    }

    #[test]
    fn reminders_with_a_time_are_timers_and_alarms() {
        assert_eq!(
            set_for("Remind me in 10 minutes to check the oven."),
            (Kind::Timer, 600, Some("check the oven".into()))
        );
        assert_eq!(
            set_for("remind me to take my pills at 6 pm"),
            (Kind::Alarm, 8 * 3600, Some("take my pills".into()))
        );
        assert_eq!(
            read("cancel my reminder", ten_o_clock()),
            Some(Command::Cancel {
                kind: None,
                label: None,
                all: false
            })
        );
        for other in [
            "Remind me what 5 times 4 is.",
            "Can you remind me who wrote Hamlet?",
        ] {
            assert_eq!(read(other, ten_o_clock()), None, "{other:?}");
        }
    }

    #[test]
    fn a_timer_is_asked_for_only_in_words_that_name_one() {
        let tool = &tools(&ToolConfig::default())[0];
        for asked in [
            "Set a timer for 10 minutes.",
            "wake me up at 7",
            "Remind me in an hour.",
            "cancel the alarm",
        ] {
            assert!(tool.asked_for(asked), "{asked:?}");
        }
        for not_asked in [
            "Hey, WhatsApp Maria and tell her I'll be there in 10 minutes.",
            "How many players are on the field for 1 soccer team?",
            "Boil the eggs for 7 minutes, right?",
            "um my part timer gets twelve pounds sixty an hour and she does twenty two hours a week",
        ] {
            assert!(!tool.asked_for(not_asked), "{not_asked:?}");
            assert!(read(not_asked, ten_o_clock()).is_none(), "{not_asked:?}");
        }
    }

    /// A store on a clock the test moves.
    fn store(file: Option<PathBuf>) -> (Arc<Timers>, Arc<AtomicI64>) {
        let offset = Arc::new(AtomicI64::new(0));
        let moved = offset.clone();
        let start = ten_o_clock().to_utc();
        let now: Now = Arc::new(move || start + Span::seconds(moved.load(Ordering::Relaxed)));
        let timers = Timers::with_clock(file, Some("UTC".into()), now);
        timers.rings_for("local");
        timers.rings_for("dbus-uid:");
        (timers, offset)
    }

    fn ask(timers: &Arc<Timers>, owner: &str, request: &str) -> String {
        let desk = Desk {
            timers: Some(timers.clone()),
            owner: owner.into(),
        };
        desk.handle(request).unwrap().answer
    }

    #[test]
    fn only_setting_and_cancelling_change_things() {
        let (timers, _) = store(None);
        let config = ToolConfig {
            timers: Some(timers.clone()),
            ..ToolConfig::default()
        };
        let tool = tools(&config).remove(0);
        let changes =
            |request: &str| tool.changes_things(&serde_json::json!({ "request": request }));
        assert!(changes("set a timer for 5 minutes"));
        assert!(
            changes("set a timer for"),
            "a timer asked for without a time yet"
        );
        assert!(changes("cancel my alarm"));
        assert!(!changes("how long is left on my timers"));
        assert!(!changes("What is the capital of France?"));
        assert!(timers.of("local").is_empty(), "asking sets nothing");
        let without_a_store = tools(&ToolConfig::default()).remove(0);
        let asks_a_change = |request: &str| {
            without_a_store.changes_things(&serde_json::json!({ "request": request }))
        };
        assert!(
            asks_a_change("set a timer for 5 minutes"),
            "read the same without a store, so that a change nobody asked for is refused"
        );
        assert!(!asks_a_change("how long is left on my timers"));
    }

    #[test]
    fn each_caller_sets_lists_and_cancels_its_own_timers() {
        let (timers, clock) = store(None);
        assert_eq!(
            ask(&timers, "local", "set a pasta timer for 10 minutes"),
            "Pasta timer set for 10 minutes."
        );
        assert_eq!(
            ask(&timers, "local", "set a timer for 90 seconds"),
            "Timer set for 1 minute and 30 seconds."
        );
        assert_eq!(
            ask(&timers, "dbus-uid:1000", "wake me up at 7 am"),
            "Alarm set for 7:00 in the morning tomorrow."
        );
        assert_eq!(
            ask(&timers, "http", "set a timer for 5 minutes"),
            "I cannot ring a timer through this connection; ask me by voice, on the message bus or over D-Bus."
        );
        clock.store(30, Ordering::Relaxed);
        assert_eq!(
            ask(&timers, "local", "how long is left on my timers"),
            "You have 2 timers: the 1 minute 30 second timer has 1 minute left; the pasta timer has 9 minutes and 30 seconds left."
        );
        assert_eq!(
            ask(&timers, "dbus-uid:1000", "what timers do I have"),
            "You have no timers."
        );
        assert_eq!(
            ask(&timers, "dbus-uid:1000", "cancel the pasta timer"),
            "You have no pasta timer."
        );
        assert_eq!(
            ask(&timers, "local", "cancel the timer"),
            "Which one? You have the 1 minute 30 second timer and the pasta timer."
        );
        assert_eq!(
            ask(&timers, "local", "cancel the pasta timer"),
            "Pasta timer cancelled."
        );
        assert_eq!(timers.of("local").len(), 1);
        assert_eq!(
            ask(&timers, "dbus-uid:1000", "cancel my alarm"),
            "Alarm cancelled."
        );
        assert!(timers.of("dbus-uid:1000").is_empty());
    }

    #[test]
    fn bounds_are_kept() {
        let (timers, _) = store(None);
        assert_eq!(
            ask(&timers, "local", "set a timer for 25 hours"),
            "A timer can run for at most a day."
        );
        for n in 0..MAX_PER_CALLER {
            ask(
                &timers,
                "local",
                &format!("set a timer for {} minutes", n + 1),
            );
        }
        assert_eq!(
            ask(&timers, "local", "set a timer for 3 hours"),
            "You already have 20 timers; cancel one first."
        );
        assert_eq!(
            ask(&timers, "local", "cancel all timers"),
            "Cancelled 20 timers."
        );
    }

    #[test]
    fn timers_ring_when_due_and_outlast_a_restart() {
        let dir = std::env::temp_dir().join(format!("loopd-timers-{}", std::process::id()));
        let file = dir.join("timers.json");
        let _ = std::fs::remove_dir_all(&dir);
        let (timers, clock) = store(Some(file.clone()));
        ask(&timers, "local", "set an egg timer for 1 minute");
        ask(&timers, "local", "set a timer for 2 minutes");
        clock.store(61, Ordering::Relaxed);
        let rang = timers.take_due();
        assert_eq!(rang.len(), 1);
        assert_eq!(rang[0].spoken, "Your egg timer is done.");
        assert!(!rang[0].late);
        drop(timers);

        let (again, clock) = store(Some(file.clone()));
        assert_eq!(again.of("local").len(), 1, "the 2 minute timer was kept");
        clock.store(300, Ordering::Relaxed);
        let rang = again.take_due();
        assert_eq!(
            rang[0].spoken,
            "Your 2 minute timer went off at 10:02 in the morning, while I was stopped."
        );
        assert!(rang[0].late);

        std::fs::write(&file, "not json").unwrap();
        let (fresh, _) = store(Some(file.clone()));
        assert!(fresh.of("local").is_empty());
        assert_eq!(
            std::fs::read_to_string(file.with_extension("json.bad")).unwrap(),
            "not json"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn the_keeper_rings_subscribers() {
        let timers = Timers::open(None, Some("UTC".into()));
        timers.rings_for("bus");
        let mut rings = timers.subscribe();
        let stop = CancellationToken::new();
        let keeper = tokio::spawn({
            let timers = timers.clone();
            let stop = stop.clone();
            async move { timers.keep(stop).await }
        });
        let due = Utc::now() + Span::milliseconds(1200);
        timers
            .set("bus", Kind::Timer, due, Some("tea".into()))
            .unwrap();
        let rang = tokio::time::timeout(std::time::Duration::from_secs(5), rings.recv())
            .await
            .expect("the timer rang")
            .unwrap();
        assert_eq!(rang.spoken, "Your tea timer is done.");
        assert!(Utc::now() >= due);
        stop.cancel();
        keeper.await.unwrap();
    }
}

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

mod request;
mod tool;

pub use request::{read, Command};
pub use tool::{tools, TimerAnswer, TimerArgs, TimerEntry};

use super::clock::{local_at, spoken_time};
use chrono::{DateTime, FixedOffset, Timelike, Utc};
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

#[cfg(test)]
mod tests;

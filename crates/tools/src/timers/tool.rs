//! The `timer` tool: a request in words carried out for the caller that
//! made it, and the answer to say back.

use super::request::{names_a_timer, read, tokens, Command};
use super::{spoken_length, Kind, Timer, Timers};
use crate::clock::local_at;
use crate::{typed_tool, Tool, ToolConfig, ToolError};
use chrono::Utc;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

/// The timers of one caller.
pub(super) struct Desk {
    pub(super) timers: Option<Arc<Timers>>,
    pub(super) owner: String,
}

impl Desk {
    pub(super) fn handle(&self, request: &str) -> Result<TimerAnswer, ToolError> {
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

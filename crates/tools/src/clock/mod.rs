//! The `clock` toolbox: the current date and time in any IANA timezone, and
//! calendar questions in words ([`calendar`]); the `dates` toolbox: exact
//! calendar arithmetic (adding to a date, the time between two dates, the
//! weekday of a date) with structured arguments.

mod places;
mod question;
mod spoken;
mod zone;

pub use places::knows_place;
pub use spoken::{spoken_date, spoken_time};

use super::calendar;
use super::when::{self, Moment, DATE_FORMATS};
use super::{typed_tool, Tool, ToolConfig, ToolError};
use chrono::{DateTime, FixedOffset, NaiveDate, SecondsFormat, TimeDelta, Timelike, Utc};
use places::{place_named_in, place_said};
use question::{asks_difference, asks_time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spoken::{spoken_moment, spoken_span};
use std::sync::Arc;
use zone::{find_zone, system_zone, Zone};

/// Where the current instant comes from (the system clock, or a fixed one in tests).
type Now = Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>;

/// The tools of the `clock` toolbox: `current_time`, `date_add`, `date_diff`,
/// `weekday`.
/// Without a `timezone` argument they use `config.timezone`, else the
/// system's zone.
pub fn tools(config: &ToolConfig) -> Vec<Arc<dyn Tool>> {
    with_clock(config, Arc::new(Utc::now))
}

fn with_clock(config: &ToolConfig, now: Now) -> Vec<Arc<dyn Tool>> {
    let clock = Arc::new(Clock {
        default_zone: config.timezone.clone(),
        now,
    });
    vec![typed_tool(
        "clock",
        "Answers a question about the time or the calendar, in words: the time now, here \
         or in a city; today's date, weekday, month or year; the days until a date or \
         holiday, or between two dates; the weekday of a date; the date some days or \
         weeks away; a time of day plus some hours. Pass the question as it was asked.",
        move |args| clock.clock(args),
    )]
}

/// The tools of the `dates` toolbox, for exact time and date arithmetic
/// with structured arguments: `current_time`, `date_add`, `date_diff`,
/// `weekday`.
pub fn date_tools(config: &ToolConfig) -> Vec<Arc<dyn Tool>> {
    dates_with_clock(config, Arc::new(Utc::now))
}

fn dates_with_clock(config: &ToolConfig, now: Now) -> Vec<Arc<dyn Tool>> {
    let clock = Arc::new(Clock {
        default_zone: config.timezone.clone(),
        now,
    });
    let (a, b, c, d) = (clock.clone(), clock.clone(), clock.clone(), clock);
    vec![
        typed_tool(
            "current_time",
            "Gives the current time, date and weekday here, or in another city or timezone.",
            move |args| a.current_time(args),
        ),
        typed_tool(
            "date_add",
            "Adds (or with negative numbers subtracts) days, weeks, hours and minutes to a \
             date or time (now, unless a start is given), e.g. the date in some days, or \
             the time some hours after a time of day; gives the result and its weekday.",
            move |args| b.date_add(args),
        ),
        typed_tool(
            "date_diff",
            "Counts the days from one date to another (from today, unless a start is \
             given), e.g. the days until a holiday or between two dates. Dates may be \
             written as words: a holiday's name, next Friday, March 1 or July 4 1776.",
            move |args| c.date_diff(args),
        ),
        typed_tool(
            "weekday",
            "Gives the day of the week of a date, written as YYYY-MM-DD or as words \
             (a holiday's name, tomorrow, in 10 days, July 4 1776).",
            move |args| d.weekday(args),
        ),
    ]
}

/// Arguments of `clock`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockArgs {
    /// The question, in words: "what time is it in Tokyo", "how many days until Christmas".
    #[schemars(extend("x-question" = true))]
    pub question: String,
}

/// Arguments of `current_time`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurrentTimeArgs {
    /// IANA timezone or city, e.g. "Europe/Paris", "Tokyo" or "UTC" (default: the local zone).
    pub timezone: Option<String>,
}

/// Result of `current_time`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CurrentTimeOutput {
    /// The time and date as people say them: "4:48 in the morning, Thursday 26 November 2026".
    pub spoken: String,
    /// Date, YYYY-MM-DD.
    pub date: String,
    /// Time of day, HH:MM (24-hour).
    pub time: String,
    /// Day of the week, e.g. "Thursday".
    pub weekday: String,
    /// The timezone used.
    pub timezone: String,
    /// Offset from UTC, e.g. "-04:00".
    pub utc_offset: String,
}

/// Arguments of `date_add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateAddArgs {
    /// Date or time to start from: "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "now", "today", "7:30 pm", "Christmas" (default: now).
    pub start: Option<String>,
    /// Calendar days to add (negative: go back).
    pub days: Option<i64>,
    /// Weeks to add (negative: go back).
    pub weeks: Option<i64>,
    /// Hours to add (negative: go back).
    pub hours: Option<i64>,
    /// Minutes to add (negative: go back).
    pub minutes: Option<i64>,
    /// IANA timezone or city for the start and the result (default: the local zone).
    pub timezone: Option<String>,
}

/// A point in time as `date_add` reports it; a plain date when only days were
/// added to a plain date.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MomentOutput {
    /// The result as people say it: "Friday 4 December 2026", with the time of day when it has one.
    pub spoken: String,
    /// Date, YYYY-MM-DD.
    pub date: String,
    /// Day of the week, e.g. "Friday".
    pub weekday: String,
    /// Time of day, HH:MM (24-hour); absent for a plain date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// ISO 8601 date and time with UTC offset; absent for a plain date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datetime: Option<String>,
    /// The timezone used; absent for a plain date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

/// Arguments of `weekday`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeekdayArgs {
    /// The date: "YYYY-MM-DD", "today", "tomorrow", "in 10 days", "Christmas", "July 4 1776"…
    pub date: String,
}

/// Result of `weekday`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WeekdayOutput {
    /// The date as people say it, weekday first: "Thursday 4 July 1776".
    pub spoken: String,
    /// Date, YYYY-MM-DD.
    pub date: String,
    /// Day of the week, e.g. "Thursday".
    pub weekday: String,
}

/// Arguments of `date_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateDiffArgs {
    /// Start: "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "now", "today", "March 1 2024"… (default: now, or today when `to` is a date).
    pub from: Option<String>,
    /// End: "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "Christmas", "New Year", "next Friday", "June 1 2024"…
    pub to: String,
    /// IANA timezone or city the dates are in (default: the local zone).
    pub timezone: Option<String>,
}

/// Result of `date_diff`: `to - from` as whole days, hours and minutes
/// (negative when `to` is earlier).
#[derive(Debug, Serialize, JsonSchema)]
pub struct DateDiffOutput {
    /// The difference as people say it: "30 days, from Wednesday 25 November 2026 to Friday 25 December 2026".
    pub spoken: String,
    /// The start used.
    pub from: String,
    /// Day of the week of the start, e.g. "Monday".
    pub from_weekday: String,
    /// The end used.
    pub to: String,
    /// Day of the week of the end.
    pub to_weekday: String,
    /// Whole days.
    pub days: i64,
    /// Hours beyond the whole days.
    pub hours: i64,
    /// Minutes beyond the whole hours.
    pub minutes: i64,
    /// The whole difference in hours.
    pub total_hours: f64,
}

/// The clock the three tools share.
struct Clock {
    default_zone: Option<String>,
    now: Now,
}

impl Clock {
    fn zone(&self, asked: Option<&str>) -> Result<Zone, ToolError> {
        match (asked, &self.default_zone) {
            (Some(name), _) => find_zone(name),
            (None, Some(name)) => find_zone(name).map_err(|e| {
                ToolError::Failed(format!("the configured default timezone is wrong: {e}"))
            }),
            (None, None) => Ok(system_zone()),
        }
    }

    fn now_in(&self, zone: Zone) -> DateTime<FixedOffset> {
        zone.at((self.now)())
    }

    fn current_time(&self, args: CurrentTimeArgs) -> Result<CurrentTimeOutput, ToolError> {
        let zone = self.zone(args.timezone.as_deref())?;
        let now = self.now_in(zone);
        Ok(CurrentTimeOutput {
            spoken: spoken_moment(&now, true),
            date: now.format("%Y-%m-%d").to_string(),
            time: now.format("%H:%M").to_string(),
            weekday: now.format("%A").to_string(),
            timezone: zone.name(),
            utc_offset: now.format("%:z").to_string(),
        })
    }

    fn date_add(&self, args: DateAddArgs) -> Result<MomentOutput, ToolError> {
        let zone = self.zone(args.timezone.as_deref())?;
        let start = parse_moment(args.start.as_deref().unwrap_or("now"), self.now_in(zone))?;
        let days = args
            .weeks
            .unwrap_or(0)
            .checked_mul(7)
            .and_then(|w| w.checked_add(args.days.unwrap_or(0)))
            .ok_or_else(out_of_range)?;
        let elapsed = args.hours.unwrap_or(0).checked_mul(60).and_then(|h| {
            h.checked_add(args.minutes.unwrap_or(0))
                .and_then(TimeDelta::try_minutes)
        });
        let elapsed = elapsed.ok_or_else(out_of_range)?;
        if let (Moment::Date(date), true) = (start, elapsed.is_zero()) {
            let date = date
                .checked_add_signed(TimeDelta::try_days(days).ok_or_else(out_of_range)?)
                .ok_or_else(out_of_range)?;
            return Ok(MomentOutput {
                spoken: spoken_date(date),
                date: date.format("%Y-%m-%d").to_string(),
                weekday: date.format("%A").to_string(),
                time: None,
                datetime: None,
                timezone: None,
            });
        }
        let start = start.in_zone(zone)?;
        let shifted = start
            .naive_local()
            .checked_add_signed(TimeDelta::try_days(days).ok_or_else(out_of_range)?)
            .ok_or_else(out_of_range)?;
        let result = zone
            .localize(shifted)
            .and_then(|t| t.checked_add_signed(elapsed))
            .ok_or_else(out_of_range)?;
        let result = zone.at(result.to_utc());
        Ok(MomentOutput {
            spoken: spoken_moment(&result, true),
            date: result.format("%Y-%m-%d").to_string(),
            weekday: result.format("%A").to_string(),
            time: Some(result.format("%H:%M").to_string()),
            datetime: Some(iso(&result)),
            timezone: Some(zone.name()),
        })
    }

    /// A question in words: the time now (here, or in the place named
    /// after "in"), else a calendar question ([`calendar::answer`]).
    fn clock(&self, args: ClockArgs) -> Result<calendar::CalendarAnswer, ToolError> {
        if let Some((first, second)) = asks_difference(&args.question) {
            return self.difference(&first, &second);
        }
        let bare_place = find_zone(args.question.trim().trim_end_matches(['?', '.']))
            .ok()
            .map(|_| {
                Some(
                    args.question
                        .trim()
                        .trim_end_matches(['?', '.'])
                        .to_string(),
                )
            });
        if let Some(place) = asks_time(&args.question).or(bare_place) {
            let (zone, named) = match place {
                Some(place) => self
                    .zone(Some(&place))
                    .map(|zone| (zone, place.clone()))
                    .or_else(|e| match place_named_in(&args.question) {
                        Some(named) => self.zone(Some(&named)).map(|zone| (zone, named)),
                        None => Err(e),
                    })
                    .map_err(|_| {
                        ToolError::Failed(format!(
                            "unknown place `{place}`: name a city with a timezone of its own, \
                         such as Paris, New York or Tokyo"
                        ))
                    })?,
                None => (self.zone(None)?, String::new()),
            };
            let now = self.now_in(zone);
            let place = match zone {
                Zone::Named(tz) => format!(" in {}", place_said(&named, tz.name())),
                Zone::Fixed(_) => format!(" at {}", zone.name()),
                Zone::System => String::new(),
            };
            let here = self.zone(None).is_ok_and(|local| local == zone);
            let place = if here { String::new() } else { place };
            return Ok(calendar::CalendarAnswer {
                answer: format!(
                    "It is {}{place}, {}.",
                    spoken_time(now.hour(), now.minute()),
                    now.format("%A %-d %B")
                ),
                days: None,
                date: Some(now.format("%Y-%m-%d").to_string()),
                weekday: Some(now.format("%A").to_string()),
                time: Some(now.format("%H:%M").to_string()),
            });
        }
        let zone = self.zone(None)?;
        calendar::answer(&args.question, self.now_in(zone)).map_err(ToolError::Failed)
    }

    /// How far the clocks of two places are apart now: `London is 5
    /// hours ahead of New York.`
    fn difference(&self, first: &str, second: &str) -> Result<calendar::CalendarAnswer, ToolError> {
        let place = |name: &str| {
            find_zone(name).map_err(|_| {
                ToolError::Failed(format!(
                    "unknown place `{name}`: name a city with a timezone of its own, such as \
                     Paris, New York or Tokyo"
                ))
            })
        };
        let (a, b) = (place(first)?, place(second)?);
        let instant = (self.now)();
        let offset = |zone: Zone| i64::from(zone.at(instant).offset().local_minus_utc()) / 60;
        let minutes = offset(a) - offset(b);
        let span = spoken_span(0, minutes.abs() / 60, minutes.abs() % 60);
        let answer = match minutes.cmp(&0) {
            std::cmp::Ordering::Equal => format!("{first} and {second} keep the same time now."),
            std::cmp::Ordering::Greater => format!("{first} is {span} ahead of {second}."),
            std::cmp::Ordering::Less => format!("{first} is {span} behind {second}."),
        };
        let here = self.now_in(a);
        Ok(calendar::CalendarAnswer {
            answer,
            days: None,
            date: Some(here.format("%Y-%m-%d").to_string()),
            weekday: None,
            time: Some(here.format("%H:%M").to_string()),
        })
    }

    fn weekday(&self, args: WeekdayArgs) -> Result<WeekdayOutput, ToolError> {
        let moment = self.date_add(DateAddArgs {
            start: Some(args.date),
            days: None,
            weeks: None,
            hours: None,
            minutes: None,
            timezone: None,
        })?;
        let date =
            NaiveDate::parse_from_str(&moment.date, "%Y-%m-%d").map_err(|_| out_of_range())?;
        Ok(WeekdayOutput {
            spoken: spoken_date(date),
            date: moment.date,
            weekday: moment.weekday,
        })
    }

    fn date_diff(&self, args: DateDiffArgs) -> Result<DateDiffOutput, ToolError> {
        let zone = self.zone(args.timezone.as_deref())?;
        let now = self.now_in(zone);
        let to = parse_moment(&args.to, now)?;
        let default_from = if matches!(to, Moment::Date(_)) {
            "today"
        } else {
            "now"
        };
        let from = parse_moment(args.from.as_deref().unwrap_or(default_from), now)?;
        if let (Moment::Date(a), Moment::Date(b)) = (from, to) {
            let days = (b - a).num_days();
            return Ok(DateDiffOutput {
                spoken: format!(
                    "{}, from {} to {}",
                    spoken_span(days, 0, 0),
                    spoken_date(a),
                    spoken_date(b)
                ),
                from: a.format("%Y-%m-%d").to_string(),
                from_weekday: a.format("%A").to_string(),
                to: b.format("%Y-%m-%d").to_string(),
                to_weekday: b.format("%A").to_string(),
                days,
                hours: 0,
                minutes: 0,
                total_hours: (days * 24) as f64,
            });
        }
        let (a, b) = (from.in_zone(zone)?, to.in_zone(zone)?);
        let delta = b - a;
        let (days, hours, minutes) = (
            delta.num_days(),
            delta.num_hours() % 24,
            delta.num_minutes() % 60,
        );
        Ok(DateDiffOutput {
            spoken: format!(
                "{}, from {} to {}",
                spoken_span(days, hours, minutes),
                spoken_moment(&a, true),
                spoken_moment(&b, true)
            ),
            from: iso(&a),
            from_weekday: a.format("%A").to_string(),
            to: iso(&b),
            to_weekday: b.format("%A").to_string(),
            days,
            hours,
            minutes,
            total_hours: (delta.num_seconds() as f64 / 36.0).round() / 100.0,
        })
    }
}

fn out_of_range() -> ToolError {
    ToolError::Failed("the date is out of range".into())
}

fn iso(time: &DateTime<FixedOffset>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl Moment {
    fn in_zone(self, zone: Zone) -> Result<DateTime<FixedOffset>, ToolError> {
        match self {
            Moment::Date(date) => zone.localize(date.and_time(chrono::NaiveTime::MIN)),
            Moment::Local(naive) => zone.localize(naive),
            Moment::Exact(time) => Some(zone.at(time.to_utc())),
        }
        .ok_or_else(out_of_range)
    }
}

fn parse_moment(text: &str, now: DateTime<FixedOffset>) -> Result<Moment, ToolError> {
    when::moment(text, now).ok_or_else(|| {
        ToolError::Failed(format!(
            "cannot read the date `{}`: {DATE_FORMATS}",
            text.trim()
        ))
    })
}

/// `instant` on the wall clock of `timezone` (an IANA name, a city or an
/// offset), else of the system's zone.
pub(crate) fn local_at(timezone: Option<&str>, instant: DateTime<Utc>) -> DateTime<FixedOffset> {
    let zone = timezone
        .and_then(|name| find_zone(name).ok())
        .unwrap_or_else(system_zone);
    zone.at(instant)
}

#[cfg(test)]
mod tests;

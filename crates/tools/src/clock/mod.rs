//! The `clock` toolbox: the current date and time in any IANA timezone, and
//! calendar questions in words ([`calendar`]); the `dates` toolbox: exact
//! calendar arithmetic (adding to a date, the time between two dates, the
//! weekday of a date) with structured arguments.

use super::calendar;
use super::when::{self, Moment, DATE_FORMATS};
use super::{typed_tool, Tool, ToolConfig, ToolError};
use chrono::{
    DateTime, Datelike, FixedOffset, Local, NaiveDate, NaiveDateTime, SecondsFormat, TimeDelta,
    TimeZone, Timelike, Utc,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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

/// A timezone: a named IANA zone, a fixed offset from UTC ("UTC-05:00"), or
/// the system's zone when it has no known name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Zone {
    Named(Named),
    Fixed(FixedOffset),
    System,
}

impl Zone {
    fn name(self) -> String {
        match self {
            Zone::Named(tz) => tz.name().to_string(),
            Zone::Fixed(offset) => format!("UTC{offset}"),
            Zone::System => "local".to_string(),
        }
    }

    fn at(self, instant: DateTime<Utc>) -> DateTime<FixedOffset> {
        match self {
            Zone::Named(tz) => instant.with_timezone(&tz.offset_at(instant)),
            Zone::Fixed(offset) => instant.with_timezone(&offset),
            Zone::System => instant.with_timezone(&Local).fixed_offset(),
        }
    }

    /// A wall-clock time in this zone: the earlier one when the clocks go
    /// back, shifted past the gap when they go forward.
    fn localize(self, naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
        match self {
            Zone::Named(tz) => tz.localize(naive),
            Zone::Fixed(offset) => localize_in(&offset, naive),
            Zone::System => localize_in(&Local, naive),
        }
    }
}

/// A zone of the IANA database built into loopd (jiff's bundled copy: its
/// rules are bytes read when a zone is first used, not tables the loader
/// relocates into every process's memory).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Named(&'static str);

/// The names of the built-in database's zones, sorted.
static ZONE_NAMES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    let mut names: Vec<String> = jiff::tz::db()
        .available()
        .map(|name| name.as_str().to_string())
        .collect();
    names.sort_unstable();
    names
});

impl Named {
    /// The zone of this IANA name, in any case.
    fn get(name: &str) -> Option<Named> {
        let exact = ZONE_NAMES.binary_search_by(|zone| zone.as_str().cmp(name));
        let zone = match exact {
            Ok(i) => Some(&ZONE_NAMES[i]),
            Err(_) => ZONE_NAMES
                .iter()
                .find(|zone| zone.eq_ignore_ascii_case(name)),
        };
        zone.map(|zone| Named(zone.as_str()))
    }

    /// Every zone of the database.
    fn all() -> impl Iterator<Item = Named> {
        ZONE_NAMES.iter().map(|zone| Named(zone.as_str()))
    }

    fn name(self) -> &'static str {
        self.0
    }

    fn rules(self) -> jiff::tz::TimeZone {
        jiff::tz::db()
            .get(self.0)
            .unwrap_or(jiff::tz::TimeZone::UTC)
    }

    /// The zone's offset from UTC at `instant`.
    fn offset_at(self, instant: DateTime<Utc>) -> FixedOffset {
        let second = instant.timestamp().clamp(
            jiff::Timestamp::MIN.as_second(),
            jiff::Timestamp::MAX.as_second(),
        );
        let timestamp = jiff::Timestamp::from_second(second).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        FixedOffset::east_opt(self.rules().to_offset(timestamp).seconds())
            .unwrap_or(FixedOffset::east_opt(0).expect("UTC is an offset"))
    }

    /// A wall-clock time in this zone, as [`Zone::localize`].
    fn localize(self, naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
        let civil = jiff::civil::DateTime::new(
            i16::try_from(naive.year()).ok()?,
            naive.month() as i8,
            naive.day() as i8,
            naive.hour() as i8,
            naive.minute() as i8,
            naive.second() as i8,
            naive.nanosecond().min(999_999_999) as i32,
        )
        .ok()?;
        let timestamp = self
            .rules()
            .to_ambiguous_timestamp(civil)
            .compatible()
            .ok()?;
        let utc =
            DateTime::from_timestamp(timestamp.as_second(), timestamp.subsec_nanosecond() as u32)?;
        Some(utc.with_timezone(&self.offset_at(utc)))
    }
}

fn localize_in<Z: TimeZone>(zone: &Z, naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
    let earliest = |n: NaiveDateTime| {
        zone.from_local_datetime(&n)
            .earliest()
            .map(|t| t.fixed_offset())
    };
    earliest(naive).or_else(|| earliest(naive.checked_add_signed(TimeDelta::hours(1))?))
}

/// A zone by IANA name (any case), by city ("Paris", "new york"), or as an
/// offset from UTC ("UTC+2", "GMT-05:00", "+05:30").
fn find_zone(name: &str) -> Result<Zone, ToolError> {
    let wanted = without_accents(name.trim());
    let wanted = wanted.as_str();
    if let Some(tz) = Named::get(wanted) {
        return Ok(Zone::Named(tz));
    }
    if let Some(offset) = utc_offset(wanted) {
        return Ok(Zone::Fixed(offset));
    }
    let city = wanted.replace(' ', "_");
    let alias = CITIES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
        .and_then(|(_, zone)| Named::get(zone));
    if let Some(tz) = alias.or_else(|| city_zone(wanted)) {
        return Ok(Zone::Named(tz));
    }
    Named::all()
        .find(|tz| {
            tz.name()
                .rsplit('/')
                .next()
                .is_some_and(|last| last.eq_ignore_ascii_case(&city))
        })
        .map(Zone::Named)
        .ok_or_else(|| {
            ToolError::Failed(format!(
                "unknown timezone `{name}`: use an IANA name such as Europe/Paris, \
                 America/New_York, Asia/Tokyo or UTC"
            ))
        })
}

/// Large cities whose timezone is named after another city, countries
/// with one timezone, states and provinces, and holiday islands and
/// regions.
const CITIES: &[(&str, &str)] = &[
    ("Mumbai", "Asia/Kolkata"),
    ("Bombay", "Asia/Kolkata"),
    ("Delhi", "Asia/Kolkata"),
    ("New Delhi", "Asia/Kolkata"),
    ("Bangalore", "Asia/Kolkata"),
    ("Bengaluru", "Asia/Kolkata"),
    ("Chennai", "Asia/Kolkata"),
    ("Hyderabad", "Asia/Kolkata"),
    ("India", "Asia/Kolkata"),
    ("Beijing", "Asia/Shanghai"),
    ("China", "Asia/Shanghai"),
    ("Osaka", "Asia/Tokyo"),
    ("Kyoto", "Asia/Tokyo"),
    ("Japan", "Asia/Tokyo"),
    ("Washington", "America/New_York"),
    ("Boston", "America/New_York"),
    ("Miami", "America/New_York"),
    ("Atlanta", "America/New_York"),
    ("Philadelphia", "America/New_York"),
    ("San Francisco", "America/Los_Angeles"),
    ("Seattle", "America/Los_Angeles"),
    ("San Diego", "America/Los_Angeles"),
    ("Las Vegas", "America/Los_Angeles"),
    ("Houston", "America/Chicago"),
    ("Dallas", "America/Chicago"),
    ("Austin", "America/Chicago"),
    ("Montreal", "America/Toronto"),
    ("Ottawa", "America/Toronto"),
    ("Rio de Janeiro", "America/Sao_Paulo"),
    ("Brazil", "America/Sao_Paulo"),
    ("Barcelona", "Europe/Madrid"),
    ("Spain", "Europe/Madrid"),
    ("Munich", "Europe/Berlin"),
    ("Frankfurt", "Europe/Berlin"),
    ("Hamburg", "Europe/Berlin"),
    ("Germany", "Europe/Berlin"),
    ("France", "Europe/Paris"),
    ("Italy", "Europe/Rome"),
    ("Milan", "Europe/Rome"),
    ("Edinburgh", "Europe/London"),
    ("Manchester", "Europe/London"),
    ("England", "Europe/London"),
    ("UK", "Europe/London"),
    ("Geneva", "Europe/Zurich"),
    ("St Petersburg", "Europe/Moscow"),
    ("Russia", "Europe/Moscow"),
    ("Abu Dhabi", "Asia/Dubai"),
    ("Cape Town", "Africa/Johannesburg"),
    ("Melbourne", "Australia/Melbourne"),
    ("Canberra", "Australia/Sydney"),
    ("Wellington", "Pacific/Auckland"),
    ("New Zealand", "Pacific/Auckland"),
    ("Hanoi", "Asia/Bangkok"),
    ("Thailand", "Asia/Bangkok"),
    ("Korea", "Asia/Seoul"),
    ("Taipei", "Asia/Taipei"),
    ("Manila", "Asia/Manila"),
    ("Rio", "America/Sao_Paulo"),
    ("Krakow", "Europe/Warsaw"),
    ("Kraków", "Europe/Warsaw"),
    ("Calgary", "America/Edmonton"),
    ("Quebec", "America/Toronto"),
    ("Glasgow", "Europe/London"),
    ("Liverpool", "Europe/London"),
    ("Birmingham", "Europe/London"),
    ("Scotland", "Europe/London"),
    ("Wales", "Europe/London"),
    ("Venice", "Europe/Rome"),
    ("Florence", "Europe/Rome"),
    ("Naples", "Europe/Rome"),
    ("Lyon", "Europe/Paris"),
    ("Marseille", "Europe/Paris"),
    ("Porto", "Europe/Lisbon"),
    ("Portugal", "Europe/Lisbon"),
    ("Seville", "Europe/Madrid"),
    ("Valencia", "Europe/Madrid"),
    ("Cologne", "Europe/Berlin"),
    ("Salzburg", "Europe/Vienna"),
    ("Austria", "Europe/Vienna"),
    ("Poland", "Europe/Warsaw"),
    ("Greece", "Europe/Athens"),
    ("Turkey", "Europe/Istanbul"),
    ("Ireland", "Europe/Dublin"),
    ("Netherlands", "Europe/Amsterdam"),
    ("Holland", "Europe/Amsterdam"),
    ("Belgium", "Europe/Brussels"),
    ("Switzerland", "Europe/Zurich"),
    ("Sweden", "Europe/Stockholm"),
    ("Norway", "Europe/Oslo"),
    ("Denmark", "Europe/Copenhagen"),
    ("Finland", "Europe/Helsinki"),
    ("Iceland", "Atlantic/Reykjavik"),
    ("Durban", "Africa/Johannesburg"),
    ("South Africa", "Africa/Johannesburg"),
    ("Kenya", "Africa/Nairobi"),
    ("Nigeria", "Africa/Lagos"),
    ("Egypt", "Africa/Cairo"),
    ("Morocco", "Africa/Casablanca"),
    ("Ghana", "Africa/Accra"),
    ("Orlando", "America/New_York"),
    ("New Orleans", "America/Chicago"),
    ("Portland", "America/Los_Angeles"),
    // States and provinces, by their most populous zone: "Portland, Maine"
    // is read as its last place.
    ("Alabama", "America/Chicago"),
    ("Alaska", "America/Anchorage"),
    ("Arizona", "America/Phoenix"),
    ("Arkansas", "America/Chicago"),
    ("California", "America/Los_Angeles"),
    ("Colorado", "America/Denver"),
    ("Connecticut", "America/New_York"),
    ("Delaware", "America/New_York"),
    ("Florida", "America/New_York"),
    ("Idaho", "America/Boise"),
    ("Illinois", "America/Chicago"),
    ("Indiana", "America/Indiana/Indianapolis"),
    ("Iowa", "America/Chicago"),
    ("Kansas", "America/Chicago"),
    ("Kentucky", "America/New_York"),
    ("Louisiana", "America/Chicago"),
    ("Maine", "America/New_York"),
    ("Maryland", "America/New_York"),
    ("Massachusetts", "America/New_York"),
    ("Michigan", "America/Detroit"),
    ("Minnesota", "America/Chicago"),
    ("Mississippi", "America/Chicago"),
    ("Missouri", "America/Chicago"),
    ("Montana", "America/Denver"),
    ("Nebraska", "America/Chicago"),
    ("Nevada", "America/Los_Angeles"),
    ("New Hampshire", "America/New_York"),
    ("New Jersey", "America/New_York"),
    ("New Mexico", "America/Denver"),
    ("North Carolina", "America/New_York"),
    ("North Dakota", "America/Chicago"),
    ("Ohio", "America/New_York"),
    ("Oklahoma", "America/Chicago"),
    ("Oregon", "America/Los_Angeles"),
    ("Pennsylvania", "America/New_York"),
    ("Rhode Island", "America/New_York"),
    ("South Carolina", "America/New_York"),
    ("South Dakota", "America/Chicago"),
    ("Tennessee", "America/Chicago"),
    ("Texas", "America/Chicago"),
    ("Utah", "America/Denver"),
    ("Vermont", "America/New_York"),
    ("Virginia", "America/New_York"),
    ("West Virginia", "America/New_York"),
    ("Wisconsin", "America/Chicago"),
    ("Wyoming", "America/Denver"),
    ("Ontario", "America/Toronto"),
    ("British Columbia", "America/Vancouver"),
    ("Alberta", "America/Edmonton"),
    ("Manitoba", "America/Winnipeg"),
    ("Saskatchewan", "America/Regina"),
    ("Nova Scotia", "America/Halifax"),
    ("New Brunswick", "America/Moncton"),
    ("Newfoundland", "America/St_Johns"),
    ("Prince Edward Island", "America/Halifax"),
    ("PEI", "America/Halifax"),
    ("Yukon", "America/Whitehorse"),
    ("Queensland", "Australia/Brisbane"),
    ("New South Wales", "Australia/Sydney"),
    ("Tasmania", "Australia/Hobart"),
    ("South Australia", "Australia/Adelaide"),
    ("Western Australia", "Australia/Perth"),
    ("Northern Territory", "Australia/Darwin"),
    ("Honolulu", "Pacific/Honolulu"),
    ("Bahamas", "America/Nassau"),
    ("Trinidad", "America/Port_of_Spain"),
    ("Trinidad and Tobago", "America/Port_of_Spain"),
    ("Tobago", "America/Port_of_Spain"),
    ("Cuba", "America/Havana"),
    ("Haiti", "America/Port-au-Prince"),
    ("Dominican Republic", "America/Santo_Domingo"),
    ("Cayman Islands", "America/Cayman"),
    ("Grand Cayman", "America/Cayman"),
    ("Hawaii", "Pacific/Honolulu"),
    ("Mexico", "America/Mexico_City"),
    ("Peru", "America/Lima"),
    ("Argentina", "America/Argentina/Buenos_Aires"),
    ("Buenos Aires", "America/Argentina/Buenos_Aires"),
    ("Chile", "America/Santiago"),
    ("Colombia", "America/Bogota"),
    ("Shenzhen", "Asia/Shanghai"),
    ("Guangzhou", "Asia/Shanghai"),
    ("Kolkata", "Asia/Kolkata"),
    ("Goa", "Asia/Kolkata"),
    ("Lahore", "Asia/Karachi"),
    ("Islamabad", "Asia/Karachi"),
    ("Pakistan", "Asia/Karachi"),
    ("Bangladesh", "Asia/Dhaka"),
    ("Nepal", "Asia/Kathmandu"),
    ("Sri Lanka", "Asia/Colombo"),
    ("Tel Aviv", "Asia/Jerusalem"),
    ("Israel", "Asia/Jerusalem"),
    ("UAE", "Asia/Dubai"),
    ("Saudi Arabia", "Asia/Riyadh"),
    ("Mecca", "Asia/Riyadh"),
    ("Vietnam", "Asia/Ho_Chi_Minh"),
    ("Saigon", "Asia/Ho_Chi_Minh"),
    ("Ho Chi Minh City", "Asia/Ho_Chi_Minh"),
    ("Indonesia", "Asia/Jakarta"),
    ("Bali", "Asia/Makassar"),
    ("Philippines", "Asia/Manila"),
    ("Malaysia", "Asia/Kuala_Lumpur"),
    ("Tenerife", "Atlantic/Canary"),
    ("Gran Canaria", "Atlantic/Canary"),
    ("Lanzarote", "Atlantic/Canary"),
    ("Fuerteventura", "Atlantic/Canary"),
    ("Canary Islands", "Atlantic/Canary"),
    ("Majorca", "Europe/Madrid"),
    ("Mallorca", "Europe/Madrid"),
    ("Ibiza", "Europe/Madrid"),
    ("Menorca", "Europe/Madrid"),
    ("Algarve", "Europe/Lisbon"),
    ("Faro", "Europe/Lisbon"),
    ("Crete", "Europe/Athens"),
    ("Corfu", "Europe/Athens"),
    ("Sicily", "Europe/Rome"),
    ("Sardinia", "Europe/Rome"),
    ("Corsica", "Europe/Paris"),
];

/// The cities of 200,000 people or more, with their timezones (GeoNames,
/// made by `data/make-cities.py`), by [`gazetteer_key`]; of two cities
/// of one name, the first listed (the most populous).
static GAZETTEER: std::sync::LazyLock<std::collections::HashMap<String, Named>> =
    std::sync::LazyLock::new(|| {
        let mut cities = std::collections::HashMap::new();
        let rows = include_str!("../data/cities.tsv")
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let (city, zone) = line.split_once('\t')?;
                Some((gazetteer_key(city), Named::get(zone)?))
            });
        for (city, zone) in rows {
            cities.entry(city).or_insert(zone);
        }
        cities
    });

/// The timezone of a city of the gazetteer, its name without accents.
fn city_zone(name: &str) -> Option<Named> {
    GAZETTEER.get(&gazetteer_key(name)).copied()
}

/// A city's name as the gazetteer is searched by: lower case, without
/// stops or apostrophes, `saint` as `st` (`St. John's`, `st johns`,
/// `Saint John's` alike).
fn gazetteer_key(name: &str) -> String {
    let key: String = name
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, '.' | '\'' | '’'))
        .collect();
    match key.strip_prefix("saint ") {
        Some(rest) => format!("st {rest}"),
        None => key,
    }
}

/// City names of timezones that are also everyday words: never taken as
/// a place when a question is searched for one.
const NOT_PLACES: &[&str] = &[
    "christmas",
    "wake",
    "east",
    "west",
    "north",
    "south",
    "general",
    "central",
    "eastern",
    "pacific",
    "mountain",
    "canary",
    "easter",
    "midway",
    "continental",
    "acre",
    "knox",
    "universal",
    "zulu",
    "navajo",
    "greenwich",
    "jersey",
    "stanley",
    "regina",
    "troll",
    "vatican",
    "samoa",
    "truk",
    "yap",
    "chuuk",
    "mahe",
    "nome",
    "thule",
    "marengo",
    "monticello",
    "vevay",
    "winamac",
    "petersburg",
    "center",
    "salem",
    "beulah",
    "metlakatla",
];

/// Words of [`NOT_PLACES`] that are other words too (a name, a garment)
/// but places after `in`, `to`, `from`, `by` and the like ("moved to
/// Regina").
const NAMES_OF_PLACES: &[&str] = &["regina", "stanley", "jersey"];

/// The last place named in `text` that is a city or country with a
/// timezone (`… aunt mei in kuala lumpur after dinner what time is it
/// there` → `kuala lumpur`), read without punctuation or capitals; a city
/// of the gazetteer only after `in`, `outside`, `near`, `around`, `to`,
/// `from` or `by` (`the tech line is in Stuttgart`, `retired out to
/// Alicante`), as some of their names are words too.
fn place_named_in(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    for end in (1..=words.len()).rev() {
        for n in (1..=end.min(4)).rev() {
            let candidate = words[end - n..end].join(" ");
            let after_in = end > n
                && ["in", "outside", "near", "around", "to", "from", "by"]
                    .iter()
                    .any(|at| words[end - n - 1].eq_ignore_ascii_case(at));
            let a_name_for_a_place = NAMES_OF_PLACES.contains(&candidate.to_lowercase().as_str());
            if is_a_place(&candidate)
                || (after_in && (a_gazetteer_city(&candidate) || a_name_for_a_place))
            {
                return Some(candidate);
            }
        }
    }
    None
}

/// Whether `name` (any case) names a place the clock knows the timezone
/// of: a city or country of [`is_a_place`], or a city of the gazetteer
/// whose name is no everyday word.
pub fn knows_place(name: &str) -> bool {
    let name = name.trim();
    is_a_place(name) || a_gazetteer_city(name)
}

/// Whether `name` is a city of the gazetteer whose name is no everyday
/// word ([`NOT_PLACES`]).
fn a_gazetteer_city(name: &str) -> bool {
    name.len() >= 4
        && !NOT_PLACES.contains(&name.to_lowercase().as_str())
        && city_zone(&without_accents(name)).is_some()
}

/// Whether `name` is a city or country with a timezone: a known alias, or
/// the city of a zone in a continent's list (not one of [`NOT_PLACES`]).
fn is_a_place(name: &str) -> bool {
    let name = without_accents(name);
    let name = name.as_str();
    if name.len() < 3 || NOT_PLACES.contains(&name.to_lowercase().as_str()) {
        return false;
    }
    let city = name.replace(' ', "_");
    CITIES
        .iter()
        .any(|(alias, _)| alias.eq_ignore_ascii_case(name))
        || Named::all().any(|tz| {
            let zone = tz.name();
            let continent = zone.split('/').next().unwrap_or_default();
            matches!(
                continent,
                "Africa"
                    | "America"
                    | "Asia"
                    | "Atlantic"
                    | "Australia"
                    | "Europe"
                    | "Indian"
                    | "Pacific"
            ) && zone
                .rsplit('/')
                .next()
                .is_some_and(|last| last.eq_ignore_ascii_case(&city))
        })
}

/// `name` with the accents of Latin letters dropped (`São Paulo` → `Sao
/// Paulo`, `Bogotá` → `Bogota`), as timezone names write places.
fn without_accents(name: &str) -> String {
    const FOLDS: [(&str, char); 12] = [
        ("àáâãäåā", 'a'),
        ("ÀÁÂÃÄÅĀ", 'A'),
        ("èéêëē", 'e'),
        ("ÈÉÊËĒ", 'E'),
        ("ìíîïī", 'i'),
        ("ÌÍÎÏĪ", 'I'),
        ("òóôõöøō", 'o'),
        ("ÒÓÔÕÖØŌ", 'O'),
        ("ùúûüū", 'u'),
        ("ÙÚÛÜŪ", 'U'),
        ("çćč", 'c'),
        ("ñń", 'n'),
    ];
    name.chars()
        .map(|c| {
            FOLDS
                .iter()
                .find(|(accented, _)| accented.contains(c))
                .map_or(c, |(_, plain)| *plain)
        })
        .collect()
}

/// An offset from UTC written as "UTC+2", "UTC-05:00", "GMT+5:30" or "+0530".
fn utc_offset(text: &str) -> Option<FixedOffset> {
    let upper = text.to_ascii_uppercase();
    let rest = ["UTC", "GMT"]
        .iter()
        .find_map(|prefix| upper.strip_prefix(prefix))
        .unwrap_or(&upper)
        .trim();
    let (sign, digits) = match rest.chars().next()? {
        '+' => (1, &rest[1..]),
        '-' => (-1, &rest[1..]),
        _ => return None,
    };
    let (hours, minutes) = match digits.split_once(':') {
        Some((h, m)) => (h, m),
        None if digits.len() == 4 => digits.split_at(2),
        None => (digits, "0"),
    };
    let (hours, minutes): (i32, i32) = (hours.trim().parse().ok()?, minutes.trim().parse().ok()?);
    if hours > 14 || minutes >= 60 {
        return None;
    }
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

/// The system's zone by name (`TZ`, else what `iana-time-zone` finds),
/// else the unnamed system zone.
fn system_zone() -> Zone {
    let name = match std::env::var("TZ") {
        Ok(tz) => {
            let tz = tz.trim().trim_start_matches(':');
            tz.split_once("zoneinfo/")
                .map_or(tz, |(_, name)| name)
                .to_string()
        }
        Err(_) => iana_time_zone::get_timezone().unwrap_or_default(),
    };
    Named::get(name.trim()).map_or(Zone::System, Zone::Named)
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

/// The two places a question about their time difference names: `the
/// time difference between London and New York`, `how many hours ahead is
/// Tokyo of Paris`.
fn asks_difference(question: &str) -> Option<(String, String)> {
    static BETWEEN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\btime\s+difference\s+(?:between|from)\s+(.+?)\s+(?:and|to)\s+(.+?)\s*[?.!]*\s*$",
        )
        .expect("a valid regex")
    });
    static AHEAD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\bhow\s+(?:many\s+hours|far)\s+(?:ahead|behind)\s+is\s+(.+?)\s+(?:of|from|than)\s+(.+?)\s*[?.!]*\s*$",
        )
        .expect("a valid regex")
    });
    let found = BETWEEN
        .captures(question)
        .or_else(|| AHEAD.captures(question))?;
    let place = |i: usize| {
        found[i]
            .trim()
            .trim_start_matches("the ")
            .trim_end_matches(" now")
            .trim_end_matches(" right")
            .to_string()
    };
    Some((place(1), place(2)))
}

/// Whether `question` asks for the time now, and where: `Some(None)` for
/// here, `Some(Some(place))` for the place after "in".
fn asks_time(question: &str) -> Option<Option<String>> {
    let lower = question
        .to_lowercase()
        .replace(" at the minute", " now")
        .replace(" at the moment", " now");
    let asks = [
        "what time",
        "the time",
        "time is it",
        "current time",
        "local time",
        "time now",
        "time in ",
        "clock in ",
    ]
    .iter()
    .any(|phrase| lower.contains(phrase))
        && !lower.contains("time zone")
        && !lower.contains("timer")
        && !lower.contains("alarm");
    let spans = [" days", " minute", " hour"];
    let counted_after = lower.contains(" after ") && lower.contains(|c: char| c.is_ascii_digit());
    if !asks || counted_after || spans.iter().any(|span| lower.contains(span)) {
        return None;
    }
    let body = lower.trim_end_matches(['?', '.', '!', ' ']);
    let (before, asked) = match body.rfind(['.', '!', '?']) {
        Some(end) => (&body[..end], &body[end + 1..]),
        None => ("", body),
    };
    let there = asked
        .split_whitespace()
        .any(|w| matches!(w, "there" | "they're" | "their"));
    let after_in = match asked.rsplit_once(" in ") {
        Some((_, after)) => Some(after),
        None if there => before
            .rsplit_once(" in ")
            .map(|(_, after)| after.split(['.', '!', '?']).next().unwrap_or(after)),
        None => None,
    };
    let place = after_in.map(|after| {
        let after = after
            .trim()
            .trim_end_matches(" right now")
            .trim_end_matches(" now")
            .trim();
        // `portland, maine`: the state or country named after the comma
        // tells which of the places so called.
        match after.split_once(',') {
            Some((_, region)) if knows_place(region.trim()) => region.trim().to_string(),
            Some((city, _)) => city.trim().to_string(),
            None => after.to_string(),
        }
    });
    Some(
        place
            .filter(|p| !p.is_empty())
            .or_else(|| place_named_in(question)),
    )
}

/// How to name a place in an answer: as the user named it when the clock
/// knows it by that name (`Texas`, `Benidorm`, whose clocks are named
/// after Chicago and Madrid), else the city of its zone.
fn place_said(named: &str, zone: &str) -> String {
    let plain = named
        .chars()
        .all(|c| c.is_alphabetic() || matches!(c, ' ' | '\'' | '-' | '.'));
    if !plain || !knows_place(named) {
        return city_of(zone);
    }
    if named.len() <= 3 {
        return named.to_uppercase();
    }
    named
        .split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) if word.chars().all(|c| c.is_lowercase() || !c.is_alphabetic()) => {
                    first.to_uppercase().chain(chars).collect()
                }
                _ => word.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The city part of an IANA name: `America/New_York` → `New York`.
fn city_of(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).replace('_', " ")
}

/// `instant` on the wall clock of `timezone` (an IANA name, a city or an
/// offset), else of the system's zone.
pub(crate) fn local_at(timezone: Option<&str>, instant: DateTime<Utc>) -> DateTime<FixedOffset> {
    let zone = timezone
        .and_then(|name| find_zone(name).ok())
        .unwrap_or_else(system_zone);
    zone.at(instant)
}

/// A time of day as people say it: `4:48 in the morning`, `noon`,
/// `12:30 at night`.
pub fn spoken_time(hour: u32, minute: u32) -> String {
    match (hour, minute) {
        (0, 0) => return "midnight".into(),
        (12, 0) => return "noon".into(),
        _ => {}
    }
    let part = match hour {
        4..=11 => "in the morning",
        12..=16 => "in the afternoon",
        17..=21 => "in the evening",
        _ => "at night",
    };
    let twelve = match hour % 12 {
        0 => 12,
        h => h,
    };
    format!("{twelve}:{minute:02} {part}")
}

/// A date as people say it: `Thursday 26 November 2026`.
pub fn spoken_date(date: NaiveDate) -> String {
    date.format("%A %-d %B %Y").to_string()
}

/// A span as people say it: `30 days`, `2 days, 3 hours and 5 minutes`,
/// `3 days back` when it runs backwards.
fn spoken_span(days: i64, hours: i64, minutes: i64) -> String {
    let unit = |n: i64, one: &str| match n.abs() {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    let mut parts: Vec<String> = [(days, "day"), (hours, "hour"), (minutes, "minute")]
        .iter()
        .filter(|(n, _)| *n != 0)
        .map(|(n, one)| unit(*n, one))
        .collect();
    if parts.is_empty() {
        parts.push("0 days".into());
    }
    let last = parts.pop().unwrap_or_default();
    let span = if parts.is_empty() {
        last
    } else {
        format!("{} and {last}", parts.join(", "))
    };
    if days < 0 || hours < 0 || minutes < 0 {
        format!("{span} back")
    } else {
        span
    }
}

/// A moment as people say it: the time of day (when it has one) and the date.
fn spoken_moment(time: &DateTime<FixedOffset>, with_time: bool) -> String {
    let date = spoken_date(time.date_naive());
    if with_time {
        format!("{}, {date}", spoken_time(time.hour(), time.minute()))
    } else {
        date
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// 2024-07-04T12:00:00Z, a Thursday.
    fn fixed_now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2024, 7, 4, 12, 0, 0).unwrap()
    }

    fn call(tool: &str, timezone: Option<&str>, args: Value) -> Result<Value, ToolError> {
        let config = ToolConfig {
            timezone: timezone.map(String::from),
            ..ToolConfig::default()
        };
        let mut tools = with_clock(&config, Arc::new(fixed_now));
        tools.extend(dates_with_clock(&config, Arc::new(fixed_now)));
        let tool = tools.iter().find(|t| t.spec().name == tool).unwrap();
        tool.call(args)
    }

    fn failure(result: Result<Value, ToolError>) -> String {
        match result {
            Err(ToolError::Failed(message)) => message,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn wall_clock_times_follow_the_zones_rules_across_a_change_of_clocks() {
        let london = Named::get("europe/london").unwrap();
        assert_eq!(london.name(), "Europe/London");
        let at = |y, mo, d, h, mi| {
            london
                .localize(
                    NaiveDate::from_ymd_opt(y, mo, d)
                        .unwrap()
                        .and_hms_opt(h, mi, 0)
                        .unwrap(),
                )
                .unwrap()
                .to_rfc3339()
        };
        assert_eq!(at(2026, 1, 15, 9, 0), "2026-01-15T09:00:00+00:00");
        assert_eq!(at(2026, 7, 15, 9, 0), "2026-07-15T09:00:00+01:00");
        // The clocks go forward at 01:00 on 29 March: 01:30 is past the gap.
        assert_eq!(at(2026, 3, 29, 1, 30), "2026-03-29T02:30:00+01:00");
        // They go back at 02:00 on 25 October: 01:30 happens twice, the first is taken.
        assert_eq!(at(2026, 10, 25, 1, 30), "2026-10-25T01:30:00+01:00");
        let kolkata = Named::get("Asia/Kolkata").unwrap();
        assert_eq!(
            kolkata.offset_at(fixed_now()),
            FixedOffset::east_opt(5 * 3600 + 30 * 60).unwrap()
        );
        assert!(Named::get("Mars/Olympus_Mons").is_none());
    }

    #[test]
    fn the_clock_answers_time_and_calendar_questions_in_words() {
        let ask = |question: &str| {
            call(
                "clock",
                Some("Europe/Paris"),
                json!({ "question": question }),
            )
            .unwrap()
        };
        assert_eq!(
            ask("What time is it in Tokyo?")["answer"],
            "It is 9:00 in the evening in Tokyo, Thursday 4 July."
        );
        assert_eq!(
            ask("What time is it?")["answer"],
            "It is 2:00 in the afternoon, Thursday 4 July."
        );
        assert_eq!(
            ask("what's the time in new york right now")["time"],
            "08:00"
        );
        assert_eq!(ask("What time is it now in Mumbai?")["time"], "17:30");
        assert_eq!(
            ask("whats the time in texas right now")["answer"],
            "It is 7:00 in the morning in Texas, Thursday 4 July."
        );
        assert_eq!(
            ask("One of the boys is on holiday in Benidorm. What time is it over there?")["answer"],
            "It is 2:00 in the afternoon in Benidorm, Thursday 4 July."
        );
        assert!(ask("what time is it in the uae")["answer"]
            .as_str()
            .is_some_and(|a| a.contains("in UAE") || a.contains("in Dubai")));
        assert_eq!(
            ask("My son is studying abroad in Madrid. What time is it there now?")["answer"],
            "It is 2:00 in the afternoon in Madrid, Thursday 4 July."
        );
        assert_eq!(
            ask("Grandma lives in Tokyo. What's the local time they're right now?")["time"],
            "21:00"
        );
        assert_eq!(ask("London")["time"], "13:00");
        for (said, time) in [
            (
                "we're ringing aunt mei in kuala lumpur after dinner what time is it there",
                "20:00",
            ),
            (
                "auntie rosa lives in rio is it too late to call her what time is it there",
                "09:00",
            ),
            (
                "Before I phone the yard in Calgary, what time is it over there?",
                "06:00",
            ),
            (
                "one of my lads wants to ring home what time is it in krakow",
                "14:00",
            ),
            (
                "What's the current time in St. John's, Newfoundland? My roommate's parents live there.",
                "09:30",
            ),
            (
                "my brother just landed in johannesburg whats the time there",
                "14:00",
            ),
            (
                "What time is it in Portland, Maine right now? I need to call a dealer down there.",
                "08:00",
            ),
            ("whats the time in texas", "07:00"),
            ("ey check the clock in edmonton", "06:00"),
            ("what time is it in the bahamas", "08:00"),
            (
                "Tell me the current time in São Paulo - need to ring the bean importer.",
                "09:00",
            ),
            (
                "My coffee supplier is in Bogotá. What time is it there?",
                "07:00",
            ),
            (
                "The boiler manufacturer's tech line is in Stuttgart. What time is it over there now?",
                "14:00",
            ),
            ("what time is it in Nagoya", "21:00"),
            (
                "Before I ring the campsite outside Bilbao to confirm our booking, what time is it there?",
                "14:00",
            ),
            (
                "were thinking of flying nan out to tenerife to meet us what time is it in tenerife",
                "13:00",
            ),
            ("What's the time in Adelaide?", "21:30"),
            (
                "We've got friends who retired out to Alicante. What's the time over there now?",
                "14:00",
            ),
            (
                "My cousin just moved to Regina for work. What time is it there right now?",
                "06:00",
            ),
            (
                "An old rodeo buddy of mine ranches up by Regina, Saskatchewan. What time is it up there now?",
                "06:00",
            ),
            (
                "um my granddaughter called from okinawa where shes with the marines whats the time over there",
                "21:00",
            ),
        ] {
            assert_eq!(ask(said)["time"], time, "{said}");
        }
        assert_eq!(ask("How many days until Christmas?")["days"], 174);
        assert_eq!(ask("What year is it?")["date"], "2024-07-04");
        assert_eq!(
            ask("What's the time difference between London and New York?")["answer"],
            "London is 5 hours ahead of New York."
        );
        assert_eq!(
            ask("How many hours ahead is Tokyo of Paris?")["answer"],
            "Tokyo is 7 hours ahead of Paris."
        );
        assert_eq!(
            ask("time difference between Mumbai and London")["answer"],
            "Mumbai is 4 hours and 30 minutes ahead of London."
        );
        let unknown = call(
            "clock",
            None,
            json!({"question": "What time is it in Narnia?"}),
        );
        assert!(failure(unknown).starts_with("unknown place `narnia`"));
    }

    #[test]
    fn current_time_in_an_asked_zone() {
        let out = call(
            "current_time",
            Some("Europe/Paris"),
            json!({"timezone": "America/New_York"}),
        )
        .unwrap();
        assert_eq!(
            out,
            json!({
                "spoken": "8:00 in the morning, Thursday 4 July 2024",
                "date": "2024-07-04",
                "time": "08:00",
                "weekday": "Thursday",
                "timezone": "America/New_York",
                "utc_offset": "-04:00"
            })
        );
    }

    #[test]
    fn current_time_uses_the_configured_zone_and_finds_cities() {
        let out = call("current_time", Some("Asia/Tokyo"), json!({})).unwrap();
        assert_eq!(
            (out["time"].as_str(), out["utc_offset"].as_str()),
            (Some("21:00"), Some("+09:00"))
        );
        assert_eq!(out["timezone"], "Asia/Tokyo");
        let out = call("current_time", None, json!({"timezone": "new york"})).unwrap();
        assert_eq!(out["timezone"], "America/New_York");
        let out = call("current_time", None, json!({"timezone": "europe/london"})).unwrap();
        assert_eq!(
            (out["time"].as_str(), out["utc_offset"].as_str()),
            (Some("13:00"), Some("+01:00"))
        );
    }

    #[test]
    fn unknown_timezones_are_explained() {
        let message = failure(call(
            "current_time",
            None,
            json!({"timezone": "Mars/Olympus"}),
        ));
        assert_eq!(
            message,
            "unknown timezone `Mars/Olympus`: use an IANA name such as Europe/Paris, \
             America/New_York, Asia/Tokyo or UTC"
        );
        let message = failure(call("current_time", Some("Nowhere"), json!({})));
        assert!(
            message.starts_with(
                "the configured default timezone is wrong: unknown timezone `Nowhere`"
            ),
            "{message}"
        );
    }

    #[test]
    fn date_add_crosses_month_and_year_ends() {
        let out = call("date_add", None, json!({"start": "2024-01-31", "days": 1})).unwrap();
        assert_eq!(
            out,
            json!({"spoken": "Thursday 1 February 2024", "date": "2024-02-01", "weekday": "Thursday"})
        );
        let out = call("date_add", None, json!({"start": "2024-02-28", "days": 1})).unwrap();
        assert_eq!(out["date"], "2024-02-29");
        let out = call("date_add", None, json!({"start": "2025-01-02", "days": -3})).unwrap();
        assert_eq!(out["spoken"], "Monday 30 December 2024");
        let out = call("date_add", None, json!({"start": "today", "days": 30})).unwrap();
        assert_eq!(out["date"], "2024-08-03");
        let out = call(
            "date_add",
            None,
            json!({"start": "7:30 pm", "hours": 2, "minutes": 15}),
        )
        .unwrap();
        assert_eq!(out["spoken"], "9:45 in the evening, Thursday 4 July 2024");
        let out = call("date_add", None, json!({"weeks": 2, "days": 1})).unwrap();
        assert_eq!(out["date"], "2024-07-19");
    }

    #[test]
    fn date_add_keeps_wall_time_for_days_and_elapsed_time_for_hours_across_dst() {
        let paris = Some("Europe/Paris");
        let out = call(
            "date_add",
            paris,
            json!({"start": "2024-03-30 12:00", "days": 1}),
        )
        .unwrap();
        assert_eq!(
            out,
            json!({
                "spoken": "noon, Sunday 31 March 2024",
                "date": "2024-03-31",
                "weekday": "Sunday",
                "time": "12:00",
                "datetime": "2024-03-31T12:00:00+02:00",
                "timezone": "Europe/Paris"
            })
        );
        let out = call(
            "date_add",
            paris,
            json!({"start": "2024-03-30 12:00", "hours": 24}),
        )
        .unwrap();
        assert_eq!(out["datetime"], "2024-03-31T13:00:00+02:00");
        let out = call(
            "date_add",
            paris,
            json!({"start": "2024-03-31T01:30", "minutes": 45}),
        )
        .unwrap();
        assert_eq!(out["datetime"], "2024-03-31T03:15:00+02:00");
        let out = call("date_add", paris, json!({"hours": -3})).unwrap();
        assert_eq!(out["datetime"], "2024-07-04T11:00:00+02:00");
    }

    #[test]
    fn weekday_names_the_day_of_a_date() {
        let out = call("weekday", None, json!({"date": "1991-01-01"})).unwrap();
        assert_eq!(
            out,
            json!({"spoken": "Tuesday 1 January 1991", "date": "1991-01-01", "weekday": "Tuesday"})
        );
        let out = call("weekday", None, json!({"date": "July 4th, 1776"})).unwrap();
        assert_eq!(out["weekday"], "Thursday");
        let out = call("weekday", Some("UTC"), json!({"date": "tomorrow"})).unwrap();
        assert_eq!(out["weekday"], "Friday");
        assert!(call("weekday", None, json!({"date": "someday"})).is_err());
    }

    #[test]
    fn date_add_rejects_unreadable_dates() {
        let message = failure(call(
            "date_add",
            None,
            json!({"start": "31/01/2024", "days": 1}),
        ));
        assert_eq!(
            message,
            format!("cannot read the date `31/01/2024`: {DATE_FORMATS}")
        );
        let message = failure(call("date_add", None, json!({"start": "2024-02-30"})));
        assert!(message.starts_with("cannot read the date `2024-02-30`"));
        let message = failure(call(
            "date_add",
            None,
            json!({"start": "2024-01-01", "days": i64::MAX}),
        ));
        assert_eq!(message, "the date is out of range");
    }

    #[test]
    fn utc_offsets_are_zones() {
        let out = call("current_time", None, json!({"timezone": "UTC-05:00"})).unwrap();
        assert_eq!(
            (out["time"].clone(), out["timezone"].clone()),
            (json!("07:00"), json!("UTC-05:00"))
        );
        let out = call("current_time", None, json!({"timezone": "gmt+5:30"})).unwrap();
        assert_eq!(out["time"], "17:30");
        let out = call("current_time", None, json!({"timezone": "+0200"})).unwrap();
        assert_eq!(out["utc_offset"], "+02:00");
        for wrong in ["UTC+25", "GMT+5:75", "+", "UTC-x"] {
            let message = failure(call("current_time", None, json!({"timezone": wrong})));
            assert!(
                message.starts_with("unknown timezone"),
                "{wrong}: {message}"
            );
        }
    }

    #[test]
    fn date_diff_counts_calendar_days_and_elapsed_hours() {
        let out = call(
            "date_diff",
            None,
            json!({"from": "2024-01-01", "to": "2024-12-25"}),
        )
        .unwrap();
        assert_eq!(
            out,
            json!({"spoken": "359 days, from Monday 1 January 2024 to Wednesday 25 December 2024",
                   "from": "2024-01-01", "from_weekday": "Monday", "to": "2024-12-25",
                   "to_weekday": "Wednesday", "days": 359, "hours": 0,
                   "minutes": 0, "total_hours": 8616.0})
        );
        let out = call("date_diff", None, json!({"to": "2024-12-25"})).unwrap();
        assert_eq!(
            (out["from"].clone(), out["days"].clone()),
            (json!("2024-07-04"), json!(174))
        );
        let out = call("date_diff", None, json!({"to": "Christmas"})).unwrap();
        assert_eq!(out["days"], 174);
        let out = call(
            "date_diff",
            None,
            json!({"from": "March 1, 2024", "to": "June 1, 2024"}),
        )
        .unwrap();
        assert_eq!(out["days"], 92);
        let out = call("date_diff", None, json!({"to": "3 days ago"})).unwrap();
        assert_eq!(
            out["spoken"],
            "3 days back, from Thursday 4 July 2024 to Monday 1 July 2024"
        );
        let out = call(
            "date_diff",
            Some("Europe/Paris"),
            json!({"from": "2024-03-30 12:00", "to": "2024-03-31 12:30"}),
        )
        .unwrap();
        assert_eq!(
            (
                out["days"].clone(),
                out["hours"].clone(),
                out["minutes"].clone(),
                out["total_hours"].clone()
            ),
            (json!(0), json!(23), json!(30), json!(23.5))
        );
        let out = call(
            "date_diff",
            Some("UTC"),
            json!({"from": "2024-07-06 00:00", "to": "now"}),
        )
        .unwrap();
        assert_eq!(
            (out["days"].clone(), out["hours"].clone()),
            (json!(-1), json!(-12))
        );
    }
}

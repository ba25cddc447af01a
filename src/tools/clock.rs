//! The `clock` toolbox: the current date and time in any IANA timezone, and
//! calendar arithmetic (adding to a date, the time between two dates).

use super::{typed_tool, Tool, ToolConfig, ToolError};
use chrono::{
    DateTime, FixedOffset, Local, NaiveDate, NaiveDateTime, SecondsFormat, TimeDelta, TimeZone, Utc,
};
use chrono_tz::Tz;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What every date argument accepts, for error messages.
const DATE_FORMATS: &str =
    "use YYYY-MM-DD, YYYY-MM-DD HH:MM, YYYY-MM-DDTHH:MM:SS+02:00, now, today, tomorrow or yesterday";

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
    let (a, b, c, d) = (clock.clone(), clock.clone(), clock.clone(), clock);
    vec![
        typed_tool(
            "current_time",
            "Gives the current date, time and weekday, optionally in another timezone.",
            move |args| a.current_time(args),
        ),
        typed_tool(
            "date_add",
            "Adds (or with negative numbers subtracts) days, hours and minutes to a date \
             or time, e.g. the date 30 days from today; gives the result and its weekday.",
            move |args| b.date_add(args),
        ),
        typed_tool(
            "date_diff",
            "Counts the days, hours and minutes from one date or time to another, \
             e.g. how many days until 2025-12-25.",
            move |args| c.date_diff(args),
        ),
        typed_tool(
            "weekday",
            "Gives the day of the week of a date, e.g. which weekday 2024-07-04 was.",
            move |args| d.weekday(args),
        ),
    ]
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
    /// ISO 8601 date and time with UTC offset, e.g. "2024-07-04T08:00:00-04:00".
    pub datetime: String,
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
    /// Seconds since 1970-01-01 UTC.
    pub unix: i64,
}

/// Arguments of `date_add`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateAddArgs {
    /// Date or time to start from: "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "now" or "today" (default: now).
    pub start: Option<String>,
    /// Calendar days to add (negative: go back).
    pub days: Option<i64>,
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
    /// The date: "YYYY-MM-DD", "today", "tomorrow" or "yesterday".
    pub date: String,
}

/// Result of `weekday`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WeekdayOutput {
    /// Date, YYYY-MM-DD.
    pub date: String,
    /// Day of the week, e.g. "Thursday".
    pub weekday: String,
}

/// Arguments of `date_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DateDiffArgs {
    /// Start: "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "now" or "today" (default: now, or today when `to` is a date).
    pub from: Option<String>,
    /// End: "YYYY-MM-DD" or "YYYY-MM-DD HH:MM".
    pub to: String,
    /// IANA timezone or city the dates are in (default: the local zone).
    pub timezone: Option<String>,
}

/// Result of `date_diff`: `to - from` as whole days, hours and minutes
/// (negative when `to` is earlier).
#[derive(Debug, Serialize, JsonSchema)]
pub struct DateDiffOutput {
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
            datetime: iso(&now),
            date: now.format("%Y-%m-%d").to_string(),
            time: now.format("%H:%M").to_string(),
            weekday: now.format("%A").to_string(),
            timezone: zone.name(),
            utc_offset: now.format("%:z").to_string(),
            unix: now.timestamp(),
        })
    }

    fn date_add(&self, args: DateAddArgs) -> Result<MomentOutput, ToolError> {
        let zone = self.zone(args.timezone.as_deref())?;
        let start = parse_moment(args.start.as_deref().unwrap_or("now"), self.now_in(zone))?;
        let days = args.days.unwrap_or(0);
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
            date: result.format("%Y-%m-%d").to_string(),
            weekday: result.format("%A").to_string(),
            time: Some(result.format("%H:%M").to_string()),
            datetime: Some(iso(&result)),
            timezone: Some(zone.name()),
        })
    }

    fn weekday(&self, args: WeekdayArgs) -> Result<WeekdayOutput, ToolError> {
        let moment = self.date_add(DateAddArgs {
            start: Some(args.date),
            days: None,
            hours: None,
            minutes: None,
            timezone: None,
        })?;
        Ok(WeekdayOutput {
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
        Ok(DateDiffOutput {
            from: iso(&a),
            from_weekday: a.format("%A").to_string(),
            to: iso(&b),
            to_weekday: b.format("%A").to_string(),
            days: delta.num_days(),
            hours: delta.num_hours() % 24,
            minutes: delta.num_minutes() % 60,
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
    Named(Tz),
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
            Zone::Named(tz) => instant.with_timezone(&tz).fixed_offset(),
            Zone::Fixed(offset) => instant.with_timezone(&offset),
            Zone::System => instant.with_timezone(&Local).fixed_offset(),
        }
    }

    /// A wall-clock time in this zone: the earlier one when the clocks go
    /// back, shifted past the gap when they go forward.
    fn localize(self, naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
        match self {
            Zone::Named(tz) => localize_in(&tz, naive),
            Zone::Fixed(offset) => localize_in(&offset, naive),
            Zone::System => localize_in(&Local, naive),
        }
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
    let wanted = name.trim();
    if let Ok(tz) = wanted.parse::<Tz>() {
        return Ok(Zone::Named(tz));
    }
    if let Some(offset) = utc_offset(wanted) {
        return Ok(Zone::Fixed(offset));
    }
    let city = wanted.replace(' ', "_");
    chrono_tz::TZ_VARIANTS
        .iter()
        .find(|tz| tz.name().eq_ignore_ascii_case(wanted))
        .or_else(|| {
            chrono_tz::TZ_VARIANTS.iter().find(|tz| {
                tz.name()
                    .rsplit('/')
                    .next()
                    .is_some_and(|last| last.eq_ignore_ascii_case(&city))
            })
        })
        .map(|tz| Zone::Named(*tz))
        .ok_or_else(|| {
            ToolError::Failed(format!(
                "unknown timezone `{name}`: use an IANA name such as Europe/Paris, \
                 America/New_York, Asia/Tokyo or UTC"
            ))
        })
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
    name.trim().parse().map_or(Zone::System, Zone::Named)
}

/// A date argument as written: a calendar date, a wall-clock time, or an
/// exact instant (with an offset, or "now").
#[derive(Debug, Clone, Copy)]
enum Moment {
    Date(NaiveDate),
    Local(NaiveDateTime),
    Exact(DateTime<FixedOffset>),
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
    let text = text.trim();
    let today = now.date_naive();
    let relative = match text.to_ascii_lowercase().as_str() {
        "now" => Some(Moment::Exact(now)),
        "today" => Some(Moment::Date(today)),
        "tomorrow" => today.succ_opt().map(Moment::Date),
        "yesterday" => today.pred_opt().map(Moment::Date),
        _ => None,
    };
    if let Some(moment) = relative {
        return Ok(moment);
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(Moment::Date(date));
    }
    let local = [
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok());
    if let Some(naive) = local {
        return Ok(Moment::Local(naive));
    }
    DateTime::parse_from_rfc3339(text)
        .map(Moment::Exact)
        .map_err(|_| ToolError::Failed(format!("cannot read the date `{text}`: {DATE_FORMATS}")))
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
        let tools = with_clock(&config, Arc::new(fixed_now));
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
                "datetime": "2024-07-04T08:00:00-04:00",
                "date": "2024-07-04",
                "time": "08:00",
                "weekday": "Thursday",
                "timezone": "America/New_York",
                "utc_offset": "-04:00",
                "unix": 1720094400
            })
        );
    }

    #[test]
    fn current_time_uses_the_configured_zone_and_finds_cities() {
        let out = call("current_time", Some("Asia/Tokyo"), json!({})).unwrap();
        assert_eq!(out["datetime"], "2024-07-04T21:00:00+09:00");
        assert_eq!(out["timezone"], "Asia/Tokyo");
        let out = call("current_time", None, json!({"timezone": "new york"})).unwrap();
        assert_eq!(out["timezone"], "America/New_York");
        let out = call("current_time", None, json!({"timezone": "europe/london"})).unwrap();
        assert_eq!(out["datetime"], "2024-07-04T13:00:00+01:00");
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
        assert_eq!(out, json!({"date": "2024-02-01", "weekday": "Thursday"}));
        let out = call("date_add", None, json!({"start": "2024-02-28", "days": 1})).unwrap();
        assert_eq!(out, json!({"date": "2024-02-29", "weekday": "Thursday"}));
        let out = call("date_add", None, json!({"start": "2025-01-02", "days": -3})).unwrap();
        assert_eq!(out, json!({"date": "2024-12-30", "weekday": "Monday"}));
        let out = call("date_add", None, json!({"start": "today", "days": 30})).unwrap();
        assert_eq!(out, json!({"date": "2024-08-03", "weekday": "Saturday"}));
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
        assert_eq!(out, json!({"date": "1991-01-01", "weekday": "Tuesday"}));
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
            json!({"from": "2024-01-01", "from_weekday": "Monday", "to": "2024-12-25",
                   "to_weekday": "Wednesday", "days": 359, "hours": 0,
                   "minutes": 0, "total_hours": 8616.0})
        );
        let out = call("date_diff", None, json!({"to": "2024-12-25"})).unwrap();
        assert_eq!(
            (out["from"].clone(), out["days"].clone()),
            (json!("2024-07-04"), json!(174))
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

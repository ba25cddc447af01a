//! Finding a timezone by what it is called: an IANA name, a city or
//! country, or an offset from UTC; and reading a wall-clock time in it.

use super::places::{city_zone, CITIES};
use super::ToolError;
use chrono::{
    DateTime, Datelike, FixedOffset, Local, NaiveDateTime, TimeDelta, TimeZone, Timelike, Utc,
};

/// A timezone: a named IANA zone, a fixed offset from UTC ("UTC-05:00"), or
/// the system's zone when it has no known name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Zone {
    Named(Named),
    Fixed(FixedOffset),
    System,
}

impl Zone {
    pub(super) fn name(self) -> String {
        match self {
            Zone::Named(tz) => tz.name().to_string(),
            Zone::Fixed(offset) => format!("UTC{offset}"),
            Zone::System => "local".to_string(),
        }
    }

    pub(super) fn at(self, instant: DateTime<Utc>) -> DateTime<FixedOffset> {
        match self {
            Zone::Named(tz) => instant.with_timezone(&tz.offset_at(instant)),
            Zone::Fixed(offset) => instant.with_timezone(&offset),
            Zone::System => instant.with_timezone(&Local).fixed_offset(),
        }
    }

    /// A wall-clock time in this zone: the earlier one when the clocks go
    /// back, shifted past the gap when they go forward.
    pub(super) fn localize(self, naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
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
pub(super) struct Named(&'static str);

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
    pub(super) fn get(name: &str) -> Option<Named> {
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
    pub(super) fn all() -> impl Iterator<Item = Named> {
        ZONE_NAMES.iter().map(|zone| Named(zone.as_str()))
    }

    pub(super) fn name(self) -> &'static str {
        self.0
    }

    fn rules(self) -> jiff::tz::TimeZone {
        jiff::tz::db()
            .get(self.0)
            .unwrap_or(jiff::tz::TimeZone::UTC)
    }

    /// The zone's offset from UTC at `instant`.
    pub(super) fn offset_at(self, instant: DateTime<Utc>) -> FixedOffset {
        let second = instant.timestamp().clamp(
            jiff::Timestamp::MIN.as_second(),
            jiff::Timestamp::MAX.as_second(),
        );
        let timestamp = jiff::Timestamp::from_second(second).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        FixedOffset::east_opt(self.rules().to_offset(timestamp).seconds())
            .unwrap_or(FixedOffset::east_opt(0).expect("UTC is an offset"))
    }

    /// A wall-clock time in this zone, as [`Zone::localize`].
    pub(super) fn localize(self, naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
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
pub(super) fn find_zone(name: &str) -> Result<Zone, ToolError> {
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

/// `name` with the accents of Latin letters dropped (`São Paulo` → `Sao
/// Paulo`, `Bogotá` → `Bogota`), as timezone names write places.
pub(super) fn without_accents(name: &str) -> String {
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
pub(super) fn system_zone() -> Zone {
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

use super::zone::Named;
use super::*;
use chrono::TimeZone;
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
        ask("what does the clock say in tokyo right now my granddaughter teaches english over there")
            ["time"],
        "21:00"
    );
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
        ask("Is it a decent hour in Madrid yet? What's the time there now? My sister's an early riser.")["answer"],
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
    let out = call("current_time", None, json!({"timezone": "alice springs"})).unwrap();
    assert_eq!(out["timezone"], "Australia/Darwin");
    let out = call("current_time", None, json!({"timezone": "cebu"})).unwrap();
    assert_eq!(out["timezone"], "Asia/Manila");
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
        message.starts_with("the configured default timezone is wrong: unknown timezone `Nowhere`"),
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

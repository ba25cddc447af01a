use super::*;
use chrono::TimeZone;

/// Wednesday 25 November 2026, 21:00 UTC.
fn now() -> DateTime<FixedOffset> {
    FixedOffset::east_opt(0)
        .unwrap()
        .with_ymd_and_hms(2026, 11, 25, 21, 0, 0)
        .unwrap()
}

fn ask(question: &str) -> CalendarAnswer {
    answer(question, now()).unwrap_or_else(|e| panic!("{question}: {e}"))
}

#[test]
fn the_year_something_happened_is_history() {
    let confederation =
        "In what year did Canadian Confederation happen? The one we celebrate on Canada Day.";
    assert!(answer(confederation, now()).is_err());
    assert!(answer("which year was the eiffel tower built", now()).is_err());
    assert!(ask("what year was it 30 years ago").answer.contains("1996"));
    let juneteenth = "juneteenth is when the news about freedom got read out in galveston \
         what year was that";
    assert!(answer(juneteenth, now()).is_err());
    for history in [
        "okay so what year trinidad and tobago get independence from britain",
        "what year jamaica get independence",
        "which year the berlin wall come down",
    ] {
        assert!(answer(history, now()).is_err(), "{history}");
    }
    let cooked = ask("Three weeks of driving nights up the Pilbara and my head's cooked. Is it a Tuesday or what? What day is it today?");
    assert!(cooked.answer.starts_with("Today is"), "{}", cooked.answer);
    let puebla = "um the holiday that remembers the battle of puebla what do you call it my abuela says people always mix it up with mexican independence day";
    assert!(answer(puebla, now()).is_err());
    let track = ask("Between band launch meetings and the cart I losing track. Which day of the week we reach today?");
    assert!(
        track.answer.starts_with("Today is Wednesday"),
        "{}",
        track.answer
    );
    let named_twice =
        ask("um the twenty fourth of october independence day how many days is that from today");
    assert!(
        named_twice.answer.contains("333 days"),
        "{}",
        named_twice.answer
    );
    for today in [
        "what year is it",
        "what year we in now",
        "what year it is now",
    ] {
        assert!(ask(today).answer.contains("2026"), "{today}");
    }
}

#[test]
fn arithmetic_is_not_a_question_about_dates() {
    let milk = "Tell me 64 x 4.35 - 64 crates of milk this month at 4.35 a crate.";
    assert!(answer(milk, now()).is_err());
    assert!(answer("What's 12 * 3 this year?", now()).is_err());
    let sale = "Boxing Day flyer says 35% off a $420 stand mixer. What would the sale price be?";
    assert!(answer(sale, now()).is_err());
    for wages in [
        "Jess worked 7:15 to 3:45 today with a 30-minute unpaid break, at $28.40 an hour. \
         How much does she earn for the shift?",
        "Saturday roster: three baristas on 6 hours each at $31.50 an hour. What's the \
         total wage bill for the day?",
        "i worked 6.5 hours on friday and 8 hours on saturday at 17.20 an hour how much \
         did i make before tax",
    ] {
        assert!(answer(wages, now()).is_err(), "{wages}");
    }
    let fee = "my daughters school fee is eighteen thousand pesos for the year and they add a \
               five hundred installment fee if we pay in ten equal monthly payments how much is \
               each payment";
    assert!(answer(fee, now()).is_err());
    assert_eq!(
        ask("What's the date 2026-12-05?").date.as_deref(),
        Some("2026-12-05")
    );
}

#[test]
fn days_until_a_date_or_holiday() {
    let christmas = ask("How many days are left until Christmas?");
    assert_eq!(christmas.days, Some(30));
    assert_eq!(
        christmas.answer,
        "There are 30 days until Friday 25 December 2026."
    );
    assert_eq!(ask("how many days until New Year's Day").days, Some(37));
    assert_eq!(ask("Days until Halloween?").days, Some(340));
    assert_eq!(ask("How many days till the 4th of July?").days, Some(221));
    assert_eq!(ask("how many days until march 1").days, Some(96));
    assert_eq!(ask("How many weeks until Christmas?").days, Some(30));
    for named_with_its_date in [
        "how many days is it till the twenty fifth of january thats burns night",
        "um how many days until christmas the twenty fifth of december",
    ] {
        assert_ne!(
            ask(named_with_its_date).days,
            Some(0),
            "{named_with_its_date}"
        );
    }
    assert_eq!(
        ask("how many days until christmas the twenty fifth of december").days,
        Some(30)
    );
    assert_eq!(
        ask("how many days until independence day june twelve").days,
        Some(199)
    );
    assert_eq!(
        ask("how many more days till march second texas independence day we always do a cookout")
            .days,
        Some(97)
    );
}

#[test]
fn a_span_joined_to_its_unit_counts_ahead() {
    let due = ask("The fleet customer pays on 30-day terms from today. What date will that be?");
    assert_eq!(due.date.as_deref(), Some("2026-12-25"));
}

#[test]
fn which_thing_other_than_a_date_is_not_the_calendar() {
    let stonehenge =
        "quick one which county is stonehenge in the year fives are going on a trip there after christmas";
    assert!(answer(stonehenge, now()).is_err());
    assert!(ask("which day is christmas this year")
        .answer
        .contains("Friday"));
    assert!(ask("which day of the week is christmas")
        .answer
        .contains("Friday"));
    let masses = "Simbang Gabi starts on December 16 this year. How many dawn masses are there \
                  in the whole novena?";
    assert!(answer(masses, now()).is_err());
    for span in [
        "how many more sleeps until christmas",
        "how many sundays until christmas",
        "how many school days until december 18",
    ] {
        assert!(answer(span, now()).is_ok(), "{span}");
    }
}

#[test]
fn a_day_of_the_month_said_alone_is_its_next_one() {
    let sixteenth = ask("how many days until the day of reconciliation on the sixteenth");
    assert_eq!(sixteenth.date.as_deref(), Some("2026-12-16"));
    assert_eq!(
        ask("how many days till the 3rd").date.as_deref(),
        Some("2026-12-03")
    );
    assert_eq!(
        ask("what day of the week is it on the twenty first")
            .date
            .as_deref(),
        Some("2026-12-21")
    );
    assert!(answer("how many days until the 16", now()).is_err());
}

#[test]
fn days_between_two_dates() {
    let between = ask("How many days are there between March 1, 2024 and June 1, 2024?");
    assert_eq!(between.days, Some(92));
    assert_eq!(
        ask("How many days from January 15, 2025 to February 20, 2025?").days,
        Some(36)
    );
    assert_eq!(
        ask("days between 2024-01-01 and 2024-12-25").days,
        Some(359)
    );
    assert_eq!(
        ask("How many days are there between March 1 and April 15, 2025?").days,
        Some(45)
    );
    assert_eq!(
        ask("How many days from December 20 to January 5, 2025?").days,
        Some(16)
    );
    assert_eq!(
        ask("How many days from January 15, 2025 to March 1?").days,
        Some(45)
    );
}

#[test]
fn the_days_of_a_month() {
    let february = ask("How many days are in February 2028?");
    assert_eq!(february.days, Some(29));
    assert_eq!(february.answer, "February 2028 has 29 days.");
    assert_eq!(ask("how many days does April have").days, Some(30));
    assert_eq!(
        ask("How many days did February 2000 have?").answer,
        "February 2000 had 29 days."
    );
    assert_eq!(
        ask("How many days are there in February?").answer,
        "February 2027 has 28 days."
    );
}

#[test]
fn a_year_something_happened_in_is_not_this_year() {
    assert!(answer("In what year did World War II end?", now()).is_err());
    assert!(answer("What year was the Eiffel Tower built?", now()).is_err());
    assert!(answer("What's on my calendar today?", now()).is_err());
    assert_eq!(
        ask("How many days until the meeting on March 3?").days,
        Some(98)
    );
    assert!(answer("When is sunset today?", now()).is_err());
    assert!(ask("How many days until my birthday?")
        .answer
        .starts_with("I don't know the date of your birthday."));
    assert_eq!(
        ask("How many days until my birthday on March 3?").days,
        Some(98)
    );
    assert_eq!(
        ask("When is Christmas?").date.as_deref(),
        Some("2026-12-25")
    );
    assert_eq!(ask("What's the month?").date.as_deref(), Some("2026-11-25"));
    assert_eq!(ask("What year is it?").date.as_deref(), Some("2026-11-25"));
}

#[test]
fn the_weekday_of_a_date() {
    assert_eq!(
        ask("What day of the week was July 4th, 1776?")
            .weekday
            .as_deref(),
        Some("Thursday")
    );
    assert_eq!(
        ask("The caravan club's planning meeting is this coming Wednesday. What's the date?")
            .date
            .as_deref(),
        Some("2026-12-02")
    );
    assert_eq!(
        ask("The charity shop's Christmas carol morning is on the 20th of December. What day of the week is that this year?")
            .date
            .as_deref(),
        Some("2026-12-20")
    );
    assert_eq!(
        ask("What day of the week is it? Doing back-to-back Saturdays has scrambled my head.")
            .weekday
            .as_deref(),
        Some("Wednesday")
    );
    assert_eq!(
        ask("What day of the week is Christmas this year?")
            .weekday
            .as_deref(),
        Some("Friday")
    );
    assert_eq!(
        ask("What day of the week will it be in 10 days?")
            .weekday
            .as_deref(),
        Some("Saturday")
    );
    assert_eq!(
        ask("what day was it 3 days ago").weekday.as_deref(),
        Some("Sunday")
    );
    assert_eq!(
        ask("What day of the week is New Year's Day next year?")
            .date
            .as_deref(),
        Some("2027-01-01")
    );
    let today = ask("What day is it today?");
    assert_eq!(today.answer, "Today is Wednesday, 25 November 2026.");
    assert_eq!(
        ask("December 25, 2030 weekday").weekday.as_deref(),
        Some("Wednesday")
    );
}

#[test]
fn the_date_some_days_away() {
    assert_eq!(
        ask("What's the date 30 days from now?").date.as_deref(),
        Some("2026-12-25")
    );
    assert_eq!(
        ask("What will the date be in 2 weeks?").date.as_deref(),
        Some("2026-12-09")
    );
    assert_eq!(
        ask("What's the date next Friday?").date.as_deref(),
        Some("2026-11-27")
    );
    assert_eq!(
        ask("What was the date a week ago?").date.as_deref(),
        Some("2026-11-18")
    );
    assert_eq!(
        ask("in 10 days").answer,
        "In 10 days it will be Saturday 5 December 2026."
    );
    assert_eq!(
        ask("My invoices are on 28 day terms. If I send one out today, what date is it due?")
            .date
            .as_deref(),
        Some("2026-12-23")
    );
    assert_eq!(
        ask("the floor screed needs eleven days before i can tile it what day of the week will that be")
            .weekday
            .as_deref(),
        Some("Sunday")
    );
    assert_eq!(
        ask("What's the date this coming Wednesday? We're doing a bake sale.")
            .date
            .as_deref(),
        Some("2026-12-02")
    );
    assert_eq!(
        ask("Sports day is June 20th. Which day of the week does it land on this year?")
            .date
            .as_deref(),
        Some("2026-06-20")
    );
    assert_eq!(
        ask("I'm signing a certificate. What's the current year?")
            .date
            .as_deref(),
        Some("2026-11-25")
    );
    assert_eq!(
        ask("is it tuesday or wednesday today ive lost track")
            .weekday
            .as_deref(),
        Some("Wednesday")
    );
}

#[test]
fn leap_years() {
    assert_eq!(
        ask("Is 2028 a leap year?").answer,
        "Yes, 2028 is a leap year."
    );
    assert_eq!(
        ask("Was 1900 a leap year?").answer,
        "No, 1900 was not a leap year."
    );
    assert_eq!(
        ask("Was 2000 a leap year?").answer,
        "Yes, 2000 was a leap year."
    );
    assert_eq!(
        ask("Is 2027 a leap year?").answer,
        "No, 2027 is not a leap year."
    );
    assert_eq!(
        ask("When is the next leap year?").answer,
        "The next leap year is 2028."
    );
    assert_eq!(
        ask("Is this year a leap year?").answer,
        "No, 2026 is not a leap year."
    );
}

#[test]
fn an_amount_over_a_time_is_not_a_date_question() {
    let now = now();
    for question in [
        "I walk 4 kilometers a day. How far do I walk in a week?",
        "I drink 2 liters of water a day. How much is that in a week?",
        "If I save 5 dollars per day, how much will I have in 30 days?",
    ] {
        assert!(answer(question, now).is_err(), "{question}");
    }
    assert_eq!(
        ask("What day is it in a week?").weekday.as_deref(),
        Some("Wednesday")
    );
}

#[test]
fn a_time_of_day_plus_hours_and_minutes() {
    let movie = ask("If a movie starts at 7:30 pm and lasts 2 hours 15 minutes, when does it end?");
    assert_eq!(movie.time.as_deref(), Some("21:45"));
    assert_eq!(
        movie.answer,
        "2 hours 15 minutes after 7:30 in the evening it is 9:45 in the evening."
    );
    assert_eq!(ask("11 pm plus 90 minutes").time.as_deref(), Some("00:30"));
    for (asked, end) in [
        (
            "I put the roast in at 5:20 pm and it needs an hour and a half. When is it done?",
            "18:50",
        ),
        (
            "The bus leaves at 8:15 am and takes 2 and a half hours. When does it arrive?",
            "10:45",
        ),
        ("It is 6 pm. What time is it in half an hour?", "18:30"),
        (
            "Dinner is at 7 pm and lasts a half hour. When is it over?",
            "19:30",
        ),
        (
            "The meeting is at 9.45 and runs an hour and twenty minutes. When does it end?",
            "11:05",
        ),
        (
            "I've got a 2:40 pm train and it takes me 25 minutes to walk to the station. \
             What time should I leave?",
            "14:15",
        ),
        (
            "The school bus comes at 7:50 am and the kids need 35 minutes to get ready. \
             What time should they get up?",
            "07:15",
        ),
        (
            "If we leave at 8:30 in the morning and it's 420 miles at 60 miles an hour, \
             what time do we get there?",
            "15:30",
        ),
        (
            "We set off at 9 am to drive 150 km at 100 km per hour. When do we arrive?",
            "10:30",
        ),
    ] {
        assert_eq!(ask(asked).time.as_deref(), Some(end), "{asked}");
    }
}

#[test]
fn a_question_with_no_date_to_count_to_is_explained() {
    let error = answer("how many days until the thing", now()).unwrap_err();
    assert!(error.starts_with("no date found"), "{error}");
    for other in [
        "What is 15 percent of 80?",
        "What's the weather like today?",
        "Will it rain tomorrow?",
        "Who wrote Hamlet?",
        "What color do you get when you mix blue and yellow?",
        "If I save 50 dollars a week, how much will I have after a year?",
        "the bill for my moms birthday dinner is 92.50 whats an 18 percent tip",
    ] {
        let error = answer(other, now()).unwrap_err();
        assert!(
            error.contains("is not about the time or the calendar"),
            "{other}: {error}"
        );
    }
    assert_eq!(ask("What month is it?").date.as_deref(), Some("2026-11-25"));
    assert!(
        ask("quick what month is it im doing my schedule request and i cant think straight")
            .answer
            .contains("November")
    );
    assert!(answer("What's on my schedule this month?", now()).is_err());
}

#[test]
fn sleeps_are_days_and_todays_year_is_asked_at_the_end() {
    assert!(
        ask("um how many sleeps till christmas now the kids are doing my head in")
            .answer
            .starts_with("There are 30 days until")
    );
    assert!(
        ask("um what year do i write on the spray record sheet what year is it")
            .answer
            .contains("2026")
    );
}

#[test]
fn arithmetic_said_in_words_is_not_the_calendar() {
    assert!(answer(
        "the rent for the year is seven thousand two hundred euros whats that divided by twelve",
        now()
    )
    .is_err());
}

#[test]
fn is_it_already_a_weekday_asks_today() {
    assert!(ask(
        "quick one is it already tuesday or what day is it na after all that fiesta drinking"
    )
    .answer
    .contains("Wednesday"));
}

#[test]
fn is_it_a_month_already_asks_today() {
    for question in [
        "um are we still in november or is it december already",
        "is it december already",
        "are we still in november",
    ] {
        assert_eq!(
            ask(question).answer,
            "Today is Wednesday, 25 November 2026."
        );
    }
    assert!(answer("is it cold in december", now()).is_err());
    assert!(answer("and what day of the week is that", now()).is_err());
    assert!(answer("what day will that be?", now()).is_err());
}

use super::*;

fn asked(before: &str, question: &str) -> Option<String> {
    in_context(&[
        Message::user(before),
        Message::assistant("…"),
        Message::user(question),
    ])
}

#[test]
fn a_place_said_in_lower_case_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked(
            "what time is it in los angeles right now my brother just moved out there",
            "and what about chicago"
        )
        .as_deref(),
        Some("what time is it in chicago right now my brother just moved out there")
    );
    assert_eq!(
        asked(
            "my pen pal class is in seoul what time is it there right now",
            "and what about beijing"
        )
        .as_deref(),
        Some("my pen pal class is in beijing what time is it there right now")
    );
    assert_eq!(
        asked("What time is it in Los Angeles?", "and what about chicago").as_deref(),
        Some("What time is it in chicago?")
    );
}

#[test]
fn a_place_named_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked(
            "I'm about to ring my friend in Lima. What time is it there?",
            "And what about Kathmandu?"
        )
        .as_deref(),
        Some("I'm about to ring my friend in Kathmandu. What time is it there?")
    );
    assert_eq!(
        asked(
            "What's the time in New York right now?",
            "What about Buenos Aires?"
        )
        .as_deref(),
        Some("What's the time in Buenos Aires right now?")
    );
    assert_eq!(asked("What is 5 plus 5?", "And Paris?"), None);
    assert_eq!(
        asked(
            "My coffee supplier is in Bogotá. What time is it there?",
            "And Santiago in Chile?"
        )
        .as_deref(),
        Some("My coffee supplier is in Santiago in Chile. What time is it there?")
    );
    assert_eq!(
        asked(
            "we're ringing aunt mei in kuala lumpur after dinner what time is it there",
            "and in sydney"
        )
        .as_deref(),
        Some("we're ringing aunt mei in sydney what time is it there")
    );
}

#[test]
fn a_place_date_or_thing_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked(
            "For my grandson's homework, what's three eighths as a decimal?",
            "And as a percentage?"
        )
        .as_deref(),
        Some("What's three eighths as a percentage?")
    );
    assert_eq!(
        asked("What time is it in Tokyo right now?", "And in London?").as_deref(),
        Some("What time is it in London?")
    );
    assert_eq!(
        asked(
            "How many days until Christmas?",
            "And until New Year's Day?"
        )
        .as_deref(),
        Some("How many days until New Year's Day?")
    );
    assert_eq!(
        asked("What is the capital of Spain?", "And of Portugal?").as_deref(),
        Some("What is the capital of Portugal?")
    );
}

#[test]
fn an_amount_in_the_same_unit_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked("How many kilometers is 10 miles?", "And 20 miles?").as_deref(),
        Some("How many kilometers is 20 miles?")
    );
    assert_eq!(
        asked(
            "What is 50 degrees Fahrenheit in Celsius?",
            "And 86 degrees?"
        )
        .as_deref(),
        Some("What is 86 degrees Fahrenheit in Celsius?")
    );
    assert_eq!(
        asked("What is 15 percent of 200?", "and 20 percent?").as_deref(),
        Some("What is 20 percent of 200?")
    );
    assert_eq!(
        asked("What's 25 kilometers in miles?", "And 42?").as_deref(),
        Some("What's 42 kilometers in miles?")
    );
    assert_eq!(asked("What is 15 percent of 200?", "And 30?"), None);
    assert_eq!(
        asked(
            "How many grams is a stick of butter?",
            "And two and a half sticks?"
        )
        .as_deref(),
        Some("How many grams is 2.5 sticks of butter?")
    );
    assert_eq!(
        asked(
            "if i claim forty five p a mile whats one thousand three hundred and eighty business miles worth",
            "and two thousand one hundred and fifty miles"
        )
        .as_deref(),
        Some("if i claim 45 p a mile whats 2150 business miles worth")
    );
    assert_eq!(
        asked(
            "hey how many miles is a hundred and sixty kilometres",
            "what about two hundred and forty"
        )
        .as_deref(),
        Some("How many miles is 240 kilometres?")
    );
    assert_eq!(
        asked(
            "My birthday's September 23. What day of the week does it fall on this year?",
            "And next year?"
        )
        .as_deref(),
        Some("My birthday's September 23. What day of the week does it fall on next year?")
    );
    assert_eq!(
        asked("Um, what's eighteen times twelve?", "And times thirteen?").as_deref(),
        Some("What is eighteen times thirteen?")
    );
    assert_eq!(
        asked(
            "What's 45 degrees Fahrenheit in Celsius?",
            "And what about sixty?"
        )
        .as_deref(),
        Some("What's 60 degrees Fahrenheit in Celsius?")
    );
}

#[test]
fn that_is_the_value_asked_for_before() {
    assert_eq!(
        asked("What is 25 times 4?", "And what is that divided by 8?").as_deref(),
        Some("what is (25 times 4) divided by 8?")
    );
    assert_eq!(
        asked("What's 1234 plus 5678?", "What's half of it?").as_deref(),
        Some("What's half of (1234 plus 5678)?")
    );
    assert_eq!(
        asked(
            "What is the capital of France?",
            "And what is that in German?"
        ),
        None
    );
    assert_eq!(
        asked("What is 25 times 4?", "And what is this about?"),
        None
    );
    assert_eq!(
        asked("What is 15 times 4?", "And plus 40?").as_deref(),
        Some("What is (15 times 4) plus 40?")
    );
    assert_eq!(
        asked("What's 90 minus 18?", "Divided by 3?").as_deref(),
        Some("What is (90 minus 18) Divided by 3?")
    );
    assert_eq!(
        asked("What is the capital of France?", "And plus 40?"),
        None
    );
}

#[test]
fn a_count_said_anew_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked(
            "The villa costs 1540 euros for the fortnight, split between the 4 of us. How much each?",
            "And if Tom and Jess come too, so there are 6 of us?"
        )
        .as_deref(),
        Some("The villa costs 1540 euros for the fortnight, split between the 6 of us. How much each?")
    );
    assert_eq!(
        asked(
            "Pizza for 8 people needs 3 pizzas, how many slices each?",
            "And if 2 more people come?"
        ),
        None
    );
    assert_eq!(
        asked(
            "The walking group's Christmas meal is £23.50 a head and 14 have booked. What's the total?",
            "And if another 5 join?"
        )
        .as_deref(),
        Some("The walking group's Christmas meal is £23.50 a head and 19 have booked. What's the total?")
    );
    assert_eq!(
        asked(
            "The taxi is 90 dollars and 4 of us are going. How much each?",
            "And if 2 more come?"
        )
        .as_deref(),
        Some("The taxi is 90 dollars and 6 of us are going. How much each?"),
        "an amount with its currency after it is no count"
    );
    assert_eq!(
        asked(
            "Tickets are £18 each and 34 pupils are going. What's the total?",
            "what if three more sign up"
        )
        .as_deref(),
        Some("Tickets are £18 each and 37 pupils are going. What's the total?")
    );
    assert_eq!(
        asked(
            "We need 24 scones and each one takes 45 grams of butter. How much butter is that?",
            "And if they want 36 scones instead?"
        )
        .as_deref(),
        Some("We need 36 scones and each one takes 45 grams of butter. How much butter is that?")
    );
    assert_eq!(
        asked(
            "I'm feeding 3 bales of silage a day. How many days will 180 bales last?",
            "And if I go up to 4 bales a day?"
        )
        .as_deref(),
        Some("I'm feeding 4 bales of silage a day. How many days will 180 bales last?")
    );
    assert_eq!(
        asked(
            "whats 25 dollars an hour times 38 hours",
            "and what if she gets bumped up to 27.50 an hour"
        )
        .as_deref(),
        Some("whats 27.50 dollars an hour times 38 hours")
    );
    assert_eq!(
        asked(
            "Mangoes are $4.40 a kilo and I grabbed 1.75 kilos. How much is that?",
            "and what if i got two and a half kilos instead"
        )
        .as_deref(),
        Some("Mangoes are $4.40 a kilo and I grabbed 2.5 kilos. How much is that?")
    );
}

#[test]
fn a_thing_named_by_its_price_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked(
            "Everything on the winter coat rail is 30 percent off. What's a £14 coat now?",
            "And the £22 one?"
        )
        .as_deref(),
        Some("Everything on the winter coat rail is 30 percent off. What's a £22 coat now?")
    );
    assert_eq!(
        asked("Is £14 or £20 the better deal?", "And the £22 one?"),
        None
    );
}

#[test]
fn an_opener_is_dropped_only_as_written() {
    assert_eq!(without_opener("And plus 40?"), "plus 40?");
    assert_eq!(without_opener("what about that"), "that");
    assert_eq!(without_opener("Andorra?"), "Andorra?");
    assert_eq!(without_opener("\u{212A}nd plus"), "\u{212A}nd plus");
}

#[test]
fn a_percentage_goes_on_the_answer_before() {
    let conversation = [
        Message::user("I'm billing 14.5 hours at £48 an hour. What does that come to?"),
        Message::assistant("That comes to £696."),
        Message::user("And with 20 percent VAT on top?"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 696 with 20 percent VAT on top?")
    );
    let conversation = [
        Message::user("24 shirts at $13.50 each. What's the total?"),
        Message::assistant("The total cost of 24 T-shirts at $13.50 each is $324.00."),
        Message::user("And what is it with 8.25 percent sales tax?"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 324 with 8.25 percent sales tax?")
    );
    let conversation = [
        Message::user(
            "I drove 42 miles and my car gets 28 miles per gallon. How many gallons did I burn?",
        ),
        Message::assistant("You burned 1.5 gallons."),
        Message::user("and at 3.29 a gallon what did that cost me"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 1.5 times 3.29?")
    );
    let conversation = [
        Message::user("i need 2.4 kilo of pork for one pot of soup how much for three pots"),
        Message::assistant("You need 7.2 kilos of pork."),
        Message::user("and if pork is 12.80 a kilo how much does that cost"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 7.2 times 12.80?")
    );
    let conversation = [
        Message::user("We've got 420 cows averaging 1.8 kg of milk solids a day each. How many kilos is that a day for the herd?"),
        Message::assistant("The herd produces 756 kg of milk solids per day."),
        Message::user("And at $7.90 a kilo, what's that worth a day?"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 756 times 7.90?")
    );
}

#[test]
fn an_amount_told_anew_without_an_opener_after_a_conversion() {
    assert_eq!(
        asked(
            "It's 102 degrees in Houston today. What's that in Celsius?",
            "my daughter says it's only forty five in denver"
        )
        .as_deref(),
        Some("It's 45 degrees in Houston today. What's that in Celsius?")
    );
}

#[test]
fn an_amount_said_anew_takes_the_place_of_the_one_of_its_kind() {
    assert_eq!(
        asked(
            "so the final exam is out of eighty marks how many marks do i need to get seventy percent",
            "okay and for eighty five percent"
        )
        .as_deref(),
        Some("The final exam is out of 80 marks how many marks do i need to get 85 percent?")
    );
    assert_eq!(
        asked(
            "The forecast said 41 degrees tomorrow. My cousin wants to know what that is in Fahrenheit.",
            "And the overnight low of 24?"
        )
        .as_deref(),
        Some("The forecast said 24 degrees tomorrow. My cousin wants to know what that is in Fahrenheit.")
    );
    assert_eq!(
        asked(
            "My sister says it's 41 Fahrenheit there today. What's that in Celsius?",
            "And tomorrow? She says it will be 50."
        )
        .as_deref(),
        Some("My sister says it's 50 Fahrenheit there today. What's that in Celsius?")
    );
    assert_eq!(
        asked(
            "I walked 12 miles and 3 more the day after. How far?",
            "And 20?"
        ),
        None
    );
    assert_eq!(
        asked(
            "I'm looking at a $1,460 welder at the farm store. With 8.25% sales tax, what's the total?",
            "And if I get the $1,200 one instead?"
        )
        .as_deref(),
        Some("I'm looking at a $1,200 welder at the farm store. With 8.25% sales tax, what's the total?")
    );
    assert_eq!(
        asked(
            "What's 20% off €12.50 for the last of the crab meat?",
            "And if I knock 30% off instead?"
        )
        .as_deref(),
        Some("What's 30% off €12.50 for the last of the crab meat?")
    );
    assert_eq!(
        asked(
            "A $40 jacket and a $25 hat, what's the total?",
            "And if I get the $30 one instead?"
        ),
        None,
        "two prices: which one is swapped is not said"
    );
}

#[test]
fn a_count_said_anew_after_what_if() {
    assert_eq!(
        asked(
            "The staff lunch bill is J$9,360 split between 6 of us. How much each?",
            "What if it's 8 of us instead?"
        )
        .as_deref(),
        Some("The staff lunch bill is J$9,360 split between 8 of us. How much each?")
    );
}

#[test]
fn a_bare_count_said_anew_after_if() {
    assert_eq!(
        asked(
            "Tidy, a half head of foils is £65. I've got 4 booked this week, what's that in total?",
            "and if i get seven"
        )
        .as_deref(),
        Some(
            "Tidy, a half head of foils is £65. I've got 7 booked this week, what's that in total?"
        )
    );
    assert_eq!(
        asked(
            "I walked 12 miles and 3 more the day after. How far?",
            "And if I get 20?"
        ),
        None,
        "two counts: which one is not said"
    );
}

#[test]
fn a_count_said_as_an_ordinal_and_a_discount_said_as_a_condition() {
    assert_eq!(
        asked(
            "I need 3 rolls of wallpaper at £14.99 each. How much is that?",
            "And if I get a fourth roll to be safe?"
        )
        .as_deref(),
        Some("I need 4 rolls of wallpaper at £14.99 each. How much is that?")
    );
    assert_eq!(
        asked(
            "A customer is buying GH₵900 worth of lace and wants 10% off. How much will she pay?",
            "And if I give her 15% off?"
        )
        .as_deref(),
        Some("A customer is buying GH₵900 worth of lace and wants 15% off. How much will she pay?")
    );
    let conversation = [
        Message::user("kaju katli is 650 rupees a kilo and she wants 3.5 kilos how much is that"),
        Message::assistant("That is 2275 rupees."),
        Message::user("and if i give her ten percent discount"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 2275 less 10 percent off?")
    );
}

#[test]
fn a_sharing_said_anew_divides_the_one_amount_before() {
    assert_eq!(
        asked(
            "Groceries after shift came to $86.40 and my roommate and I split it evenly. What's my share?",
            "And if my cousin chips in too and we split it three ways?"
        )
        .as_deref(),
        Some("What is 86.40 divided by 3?")
    );
    assert_eq!(
        asked(
            "The bach at Kaikōura is $420 for the weekend, split four ways. How much each?",
            "And if my daughter comes too, so five of us?"
        )
        .as_deref(),
        Some("What is 420 divided by 5?")
    );
    assert_eq!(
        asked(
            "The bach is $420 for the weekend.",
            "And if five of us come?"
        ),
        None
    );
}

#[test]
fn an_amount_after_a_frame_the_question_before_lacks() {
    assert_eq!(
        asked(
            "The vial is 40 mg per mL and the order is 60 mg. How many mL do I draw up?",
            "What about for a 100 mg dose?"
        )
        .as_deref(),
        Some("The vial is 40 mg per mL and the order is 100 mg. How many mL do I draw up?")
    );
    assert_eq!(
        asked(
            "hey what time is it in manila right now i wanna call my mom",
            "okay and what about honolulu"
        )
        .as_deref(),
        Some("What time is it in honolulu right now i wanna call my mom?")
    );
}

#[test]
fn a_place_with_a_clause_after_it_takes_the_place_of_the_one_before() {
    assert_eq!(
        asked(
            "what time is it in london my brothers over there",
            "and in singapore hes got a stopover there on the way home"
        )
        .as_deref(),
        Some("what time is it in singapore")
    );
}

#[test]
fn other_questions_are_left_alone() {
    assert_eq!(
        asked("What time is it in Tokyo?", "What is 2 plus 2?"),
        None
    );
    assert_eq!(asked("What time is it in Tokyo?", "And 20 miles?"), None);
    assert_eq!(asked("What is 5 plus 5?", "And in London?"), None);
    assert_eq!(
        asked(
            "Hi",
            "And then tell me a very long story about dragons and knights please"
        ),
        None
    );
    assert_eq!(in_context(&[Message::user("And in London?")]), None);
}

#[test]
fn a_number_said_anew_beside_a_place_is_what_is_asked() {
    assert_eq!(
        asked(
            "okay its minus fifteen out here in toronto whats that in fahrenheit",
            "and my cousin in calgary says its minus twenty five there"
        )
        .as_deref(),
        Some("Its minus 25 out here in toronto whats that in fahrenheit?")
    );
}

#[test]
fn a_price_read_out_stays_one_amount_when_the_count_changes() {
    assert_eq!(
        asked(
            "okay so we made one twenty eight fifty in tips tonight split evenly between five of us how much does each person get",
            "and if only four of us split it"
        )
        .as_deref(),
        Some("We made 128.50 in tips tonight split evenly between 4 of us how much does each person get?")
    );
}

#[test]
fn a_frame_with_a_number_after_a_conversion_is_the_number_said_anew() {
    assert_eq!(
        asked(
            "its thirty six degrees celsius in manila today whats that in fahrenheit",
            "and in baguio its only eighteen"
        )
        .as_deref(),
        Some("its 18 degrees celsius in manila today whats that in fahrenheit")
    );
}

#[test]
fn the_total_with_the_percentage_asked_before() {
    assert_eq!(
        asked(
            "How much is 12% VAT on ₱1,500?",
            "And what's the total with the VAT?"
        )
        .as_deref(),
        Some("What is 1500 with 12% vat?")
    );
    assert_eq!(
        asked(
            "How much is 12% VAT on ₱1,500?",
            "And what's the total for 3?"
        ),
        None
    );
    assert_eq!(
        asked(
            "um me and the fellas had lunch for sixty five dollars how much is eighteen percent on that for the waitress",
            "okay so what do we pay all in with that"
        )
        .as_deref(),
        Some("What is 65 with 18% tip?")
    );
    assert_eq!(
        asked(
            "um how much is seven point five percent vat on sixty four thousand naira",
            "so how much will the customer pay altogether with the vat"
        )
        .as_deref(),
        Some("What is 64000 with 7.5% vat?")
    );
}

#[test]
fn a_count_in_a_frame_with_a_price_after_it() {
    assert_eq!(
        asked(
            "How much for 3 yards of lace at ₦7,500 a yard?",
            "And for 5 yards?"
        )
        .as_deref(),
        Some("How much for 5 yards of lace at ₦7,500 a yard?")
    );
}

#[test]
fn a_count_in_a_frame_keeps_what_it_counts() {
    assert_eq!(
        asked(
            "A sachet of 3-in-1 coffee is ₱7. How much for 35 sachets?",
            "And for 50?"
        )
        .as_deref(),
        Some("A sachet of 3-in-1 coffee is ₱7. How much for 50 sachets?")
    );
}

#[test]
fn half_a_unit_in_a_frame_is_the_amount() {
    assert_eq!(
        asked(
            "how many pounds is a three kilo bag of tapioca pearls",
            "what about the half kilo bag"
        )
        .as_deref(),
        Some("how many pounds is a 0.5 kilo bag of tapioca pearls")
    );
}

#[test]
fn a_place_said_with_more_of_it_and_a_bare_count() {
    assert_eq!(
        asked(
            "whats the time over in sydney now i want to give me brother a bell",
            "and what about manchester where me daughter is"
        )
        .as_deref(),
        Some("whats the time over in manchester now i want to give me brother a bell")
    );
    assert_eq!(
        asked(
            "A pint at the Bell is £5.80. How much for a round of six?",
            "And for nine?"
        )
        .as_deref(),
        Some("A pint at the Bell is £5.80. How much for a round of 9?")
    );
}

#[test]
fn one_more_number_for_the_list_before() {
    assert_eq!(
        asked(
            "Cups of boba we sold in the first four hours: 12, 15, 9 and 20. What's the average per hour?",
            "And if the fifth hour was 24?"
        )
        .as_deref(),
        Some("Cups of boba we sold in the first 4 hours: 12, 15, 9, 20 and 24. What's the average per hour?")
    );
    assert_eq!(
        asked(
            "My test scores were 88, 92 and 79. What's my average?",
            "and if I add 95"
        )
        .as_deref(),
        Some("My test scores were 88, 92, 79 and 95. What's my average?")
    );
}

#[test]
fn a_number_said_anew_without_minus_drops_the_minus_before() {
    let asked_now = asked(
        "It's minus 3 outside this morning. What's that in Fahrenheit?",
        "And the kitchen's 21?",
    );
    let asked_now = asked_now.as_deref().unwrap_or_default();
    assert!(!asked_now.contains("minus"), "{asked_now}");
    assert!(asked_now.contains("21"), "{asked_now}");
}

#[test]
fn a_number_said_anew_with_minus_keeps_it() {
    assert_eq!(
        asked(
            "It's 14 degrees Fahrenheit on the porch thermometer. What's that in Celsius?",
            "and they say it'll drop to minus five tonight"
        )
        .as_deref(),
        Some("It's minus 5 degrees Fahrenheit on the porch thermometer. What's that in Celsius?")
    );
}

#[test]
fn so_many_periods_take_the_answer_for_one() {
    let got = in_context(&[
        Message::user(
            "school dinners are two pound seventy five a day how much is that for a five day week",
        ),
        Message::assistant("That's 13.75 pounds."),
        Message::user("and for the thirty eight weeks of the school year"),
    ]);
    assert_eq!(got.as_deref(), Some("What is 13.75 times 38?"));
    let unasked = in_context(&[
        Message::user("What is 12 times 4?"),
        Message::assistant("48."),
        Message::user("and for 3 weeks"),
    ]);
    assert_eq!(unasked, None);
}

#[test]
fn an_amount_said_anew_with_a_half() {
    assert_eq!(
        asked(
            "my sister's baby weighed seven pounds how many kilos is that",
            "and the twin was six and a half pounds"
        )
        .as_deref(),
        Some("my sister's baby weighed 6.5 pounds how many kilos is that")
    );
}

#[test]
fn a_place_with_a_clause_after_it_is_the_place() {
    assert_eq!(
        asked(
            "my boy works on a fishing boat out of juneau alaska what time is it there",
            "and what about out in boise where my sister lives"
        )
        .as_deref(),
        Some("What time is it in boise?")
    );
    assert_eq!(
        asked(
            "what time is it in whitehorse my aunt retired up there",
            "and what about moncton thats where my cousin is"
        )
        .as_deref(),
        Some("what time is it in moncton my aunt retired up there")
    );
}

#[test]
fn an_amount_joined_to_its_unit_is_said_anew() {
    for question in ["And a 90-pound one?", "and a ninety pound one"] {
        assert_eq!(
            asked("How many kilos is a 40-pound box of herring?", question).as_deref(),
            Some("How many kilos is a 90-pound box of herring?"),
            "{question}"
        );
    }
}

#[test]
fn a_count_that_gets_in_and_a_place_with_who_is_there() {
    assert_eq!(
        asked(
            "the fare from alex to town is twenty one rand how much for fifteen passengers",
            "and if only nine get in"
        )
        .as_deref(),
        Some("the fare from alex to town is 21 rand how much for 9 passengers")
    );
    assert_eq!(
        asked(
            "What's the time in Lagos right now? One of my regulars is flying there.",
            "okay and what about cairo my brother is working there"
        )
        .as_deref(),
        Some("What's the time in cairo right now? One of my regulars is flying there")
    );
}

#[test]
fn a_split_said_anew_and_the_total_with_a_tax_asked_before() {
    assert_eq!(
        asked(
            "the staff christmas meal is four hundred and twenty quid for the whole room split between fourteen of us how much each",
            "and if its split sixteen ways"
        )
        .as_deref(),
        Some("the staff christmas meal is 420 quid for the whole room split between 16 of us how much each")
    );
    assert_eq!(
        asked(
            "um how much is the vat on three hundred and sixty dollars at twelve point five percent",
            "so how much is the total with the vat"
        )
        .as_deref(),
        Some("What is 360 with 12.5% vat?")
    );
}

#[test]
fn a_follow_up_said_in_patois() {
    assert_eq!(
        asked(
            "what time it is in nassau bahamas right now mi auntie live deh",
            "an what bout london mi son deh deh"
        )
        .as_deref(),
        Some("What time is it in london right now mi auntie live deh?")
    );
    assert_eq!(
        asked(
            "quick one twenty five pound a chicken how many kilos dat",
            "an fifty pound"
        )
        .as_deref(),
        Some("50 pound a chicken how many kilos dat?")
    );
    assert_eq!(asked("How much is an apple?", "an orange"), None);
}
#[test]
fn a_dozen_a_unit_and_a_half_and_a_tip_on_that_are_read_in_follow_ups() {
    let flour = "A bag of self-raising flour is £1.35. How much for 7 bags?";
    assert_eq!(
        asked(flour, "What about a dozen bags?").as_deref(),
        Some("A bag of self-raising flour is £1.35. How much for 12 bags?")
    );
    let sultanas = "my christmas cake needs two pound of sultanas whats that in grams";
    assert_eq!(
        asked(sultanas, "and a pound and a half of currants").as_deref(),
        Some("my christmas cake needs 1.5 pound of sultanas whats that in grams")
    );
    let lunch = "The Sunday lunch at the hotel came to £86.40. What's a 15% tip on that?";
    assert_eq!(
        asked(lunch, "So what do I hand over altogether, tip included?").as_deref(),
        Some("What is 86.40 with 15% tip?")
    );
}

#[test]
fn another_figure_of_the_same_numbers() {
    let before = "my son exam marks seventy eight eighty five sixty two ninety one sixty nine whats his average";
    assert_eq!(
        asked(before, "how about the middle mark the median one").as_deref(),
        Some("my son exam marks seventy eight eighty five sixty two ninety one sixty nine whats his median")
    );
    assert_eq!(
        asked("What's the mean of 4, 8 and 15?", "And the range?").as_deref(),
        Some("What's the range of 4, 8 and 15?")
    );
    assert_eq!(
        asked("What's the mean of 4, 8 and 15?", "And the mean?"),
        None
    );
}

#[test]
fn an_amount_supposed_takes_the_place_of_the_one_in_its_unit() {
    let before = "I'm putting out 85 kg of MAP a hectare over 240 hectares. How many tonnes of fertiliser is that?";
    assert_eq!(
        asked(before, "And if I bump it up to 100 kg a hectare?").as_deref(),
        Some("I'm putting out 100 kg of MAP a hectare over 240 hectares. How many tonnes of fertiliser is that?")
    );
    assert_eq!(
        asked(before, "what if it's 300 hectares").as_deref(),
        Some("I'm putting out 85 kg of MAP a hectare over 300 hectares. How many tonnes of fertiliser is that?")
    );
    assert_eq!(asked(before, "And if I spread it in spring?"), None);
    assert_eq!(
        asked(
            "My education loan is ₹4,80,000 at 9.5% simple interest. What's the interest for one year?",
            "What if the rate was 8.75% instead?"
        )
        .as_deref(),
        Some("My education loan is ₹4,80,000 at 8.75% simple interest. What's the interest for 1 year?")
    );
}

#[test]
fn all_the_seats_full_and_a_filler_before_the_opener() {
    assert_eq!(
        asked(
            "Fare to Ngong is KSh 120. How much do I collect from 11 passengers?",
            "And if all 14 seats are full?"
        )
        .as_deref(),
        Some("Fare to Ngong is 120 shillings. How much do I collect from 14 passengers?")
    );
    assert_eq!(
        asked(
            "my brother drives a taxi in dubai whats the time over there",
            "sawa what about doha"
        )
        .as_deref(),
        Some("my brother drives a taxi in doha whats the time over there")
    );
}

#[test]
fn a_bare_number_for_the_count_of_priced_things_and_tax_on_what_that_comes_to() {
    assert_eq!(
        asked(
            "A galão is €1.60. How much for 14 of them?",
            "What about 25? The office up the street wants them for a meeting."
        )
        .as_deref(),
        Some("A galão is €1.60. How much for 25 of them?")
    );
    assert_eq!(
        asked(
            "whits the time in new york",
            "and whit about sydney thats where wee gary stays"
        )
        .as_deref(),
        Some("whits the time in sydney")
    );
    let conversation = [
        Message::user("A motel in Fargo is $129 US a night. How much for 3 nights?"),
        Message::assistant("That's $387."),
        Message::user("What's that come to with the 13% tax?"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 387 with 13% tax?")
    );
}

#[test]
fn the_price_paid_after_the_amount_off() {
    assert_eq!(
        asked(
            "There's 20% off a £72 dress. How much is that off?",
            "And what do I pay for it then?"
        )
        .as_deref(),
        Some("What is 72 less 20 percent off?")
    );
    assert_eq!(
        the_price_after_it("And what do I pay?", "What is 15 percent of 200?"),
        None
    );
    assert_eq!(
        the_price_after_it(
            "And what do I pay?",
            "20% off a £72 dress and a £30 scarf. How much off?"
        ),
        None
    );
}

#[test]
fn the_weekday_of_the_day_counted_to_before() {
    assert_eq!(
        asked(
            "um how many days until my daughters birthday on the twentieth of january",
            "and what day of the week is that"
        )
        .as_deref(),
        Some("What day of the week is my daughters birthday on the twentieth of january?")
    );
    assert_eq!(
        asked("How many days until Christmas?", "What day will that be?").as_deref(),
        Some("What day of the week is Christmas?")
    );
    assert_eq!(
        the_weekday_of_the_day_before("and what day is that", "What is the capital of France?"),
        None
    );
}

#[test]
fn a_new_count_of_sharers_or_a_whole_year_of_months_after_an_answer() {
    let conversation = [
        Message::user(
            "Lunch for five of us at the chop bar came to GH₵287.50. How much is that each?",
        ),
        Message::assistant("Each lunch costs ₵57.50."),
        Message::user("And if my son eats with us, so six people?"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 287.50 divided by 6?")
    );
    let conversation = [
        Message::user("um the school van is seven thousand five hundred rupees a month each for my two kids how much is that per month"),
        Message::assistant("The school van costs Rs. 15000 per month."),
        Message::user("and for the whole year twelve months"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 15000 times 12?")
    );
    let conversation = [
        Message::user("I did 18 deliveries today at ₱55 each. How much is that?"),
        Message::assistant("That's ₱990."),
        Message::user("And if I do that every day for 26 days?"),
    ];
    assert_eq!(
        in_context(&conversation).as_deref(),
        Some("What is 990 times 26?")
    );
}

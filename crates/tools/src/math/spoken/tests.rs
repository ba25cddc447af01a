use super::*;

fn plain(text: &str) -> Result<f64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("not a number: {text}"))
}

fn read(text: &str) -> String {
    as_arithmetic(text, plain).unwrap()
}

#[test]
fn operator_words_become_operators() {
    assert_eq!(read("17 times 23"), "17 * 23");
    assert_eq!(
        read("um fourteen lots of two pound eighty five"),
        "14 * 2.85"
    );
    assert_eq!(read("What is 1234 plus 5678?"), "1234 + 5678");
    assert_eq!(read("144 divided by 12"), "144 / 12");
    assert_eq!(read("15 squared"), "15^2");
    assert_eq!(read("(2+3) cubed"), "(2+3)^3");
    assert_eq!(read("square root of 169"), "sqrt(169)");
    assert_eq!(read("sqrt 2"), "sqrt(2)");
    assert_eq!(read("2 to the 10th power"), "2 ^10");
    assert_eq!(read("9 to the power of 3"), "9 ^ 3");
    assert_eq!(read("half of 350"), "(1/2) * 350");
    assert_eq!(read("What is a third of 90?"), "(1/3) * 90");
    assert_eq!(read("Two fifths of 200"), "(2/5) * 200");
    assert_eq!(read("three quarters of 48"), "(3/4) * 48");
    assert_eq!(read("Multiply 125 by 16."), "125 * 16");
    assert_eq!(read("Divide 144 by 12"), "144 / 12");
    assert_eq!(read("Subtract 58 from 230."), "230 - 58");
    assert_eq!(read("Add 15 to 27"), "15 + 27");
    assert_eq!(
        read("the kids in swim class are eight six nine seven and eleven years old whats the median age"),
        "8"
    );
    for (said, written) in [
        ("Quick question, how many times does 35 go into 1,470?", "1470 / 35"),
        (
            "the lego castle is sixty dollars and it's thirty five percent off how much do we save",
            "60*35/100",
        ),
        (
            "customer wants five percent off for paying cash on a two thousand three hundred invoice how much does that knock off",
            "2300*5/100",
        ),
        (
            "our weekly food shop went from 160 to 184 dollars whats the percent increase",
            "abs(184-160)/160*100",
        ),
        (
            "uh whats the vat on six hundred and forty pounds at twenty percent",
            "640*20/100",
        ),
        (
            "my invoice total is one thousand four hundred and forty including twenty percent vat whats it before vat",
            "1440/(1+20/100)",
        ),
    ] {
        assert_eq!(read(said), written, "{said}");
    }
    assert_eq!(
        read(
            "The muffin recipe makes 12 and uses 250 grams of flour. \
             How much flour do I need for 18 muffins?"
        ),
        "250 * 18 / 12"
    );
    assert_eq!(
        read(
            "Pancakes for the flat: the recipe uses two eggs for every four people. \
             How many eggs for ten people?"
        ),
        "2 * 10 / 4"
    );
    assert_eq!(
        read(
            "The doctor said two tablets three times a day for ten days. \
             How many tablets is that altogether?"
        ),
        "2 * 3 * 10"
    );
    assert_eq!(
        read("One pill twice a day for 2 weeks: how many pills?"),
        "1 * 2 * 2 * 7"
    );
    assert_eq!(
        read("if i claim forty five p a mile whats one thousand three hundred and eighty business miles worth"),
        "1380 * 45/100"
    );
    assert_eq!(
        read("At 3.45 a gallon, what will 12 gallons cost?"),
        "12 * 3.45"
    );
    assert_eq!(
        read("My car does 32 miles per gallon. How much is 380 miles?"),
        "My car does 32 miles per gallon. How much is 380 miles"
    );
    assert_eq!(
        read("My car uses 6 liters per 100 km. How much fuel for 250 km?"),
        "6 * 250 / 100"
    );
    assert_ne!(
        read("I bake 3 trays of 12 cookies. How many cookies for 4 trays?"),
        "12 * 4 / 3"
    );
    assert_eq!(
        read("What's the range of my exam marks: 62, 88, 71, 55 and 79?"),
        "33"
    );
    assert_eq!(read("what's three eighths as a decimal?"), "(3/8)");
    assert_eq!(read("Two thirds as a percentage"), "(2/3)*100");
    assert_eq!(
        read("what's a twenty percent tip on fifty-eight dollars and seventy-five cents?"),
        "20% of 58.75"
    );
    assert_eq!(
        read("Hey, I got 57 out of 75 on my chemistry mock. What percentage is that?"),
        "(57)/(75)*100"
    );
    assert_eq!(
        read("What do you get if you take 1,789 away from 4,096?"),
        "4096 - 1789"
    );
    assert_eq!(
        read("Lily has to write down thirteen cubed. What's the answer?"),
        "13^3"
    );
    assert_eq!(
        read("The homework asks for three eighths of six hundred and eighty. What is it?"),
        "(3/8) * 680"
    );
    assert_eq!(read("Split 120 dollars three ways."), "120 / 3");
    assert_eq!(read("split $85 between 5 people"), "85 / 5");
    assert_eq!(read("What percent of 50 is 10?"), "(10)/(50)*100");
    assert_eq!(read("12 is what percentage of 48?"), "(12)/(48)*100");
    assert_eq!(
        read("What is 200 increased by 15 percent?"),
        "200*(1+15/100)"
    );
    assert_eq!(read("Reduce 80 by 25%"), "80*(1-25/100)");
    assert_eq!(read("What's 5 factorial?"), "factorial(5)");
    assert_eq!(read("What 43 times 17?"), "43 * 17");
    assert_eq!(read("What's 19 square?"), "19^2");
    assert_eq!(read("What's 3.5 times 6.2."), "3.5 * 6.2");
    assert_eq!(
        read("We just finished dinner and the bill is 73.40. What's an 18 percent tip?"),
        "73.40*18/100"
    );
    assert_eq!(
        read("The boots are 120 dollars. What's 40% off?"),
        "120*(1-40/100)"
    );
    assert_eq!(read("What's 12% on 450?"), "12 % of 450");
    assert_eq!(read("What's 1 and a half times 8?"), "1.5 * 8");
    assert_eq!(read("2 and three quarters plus 1"), "2.75 + 1");
    assert_eq!(
        read("Work out seventeen and a half percent of two hundred"),
        "17.5 % of 200"
    );
    assert_eq!(read("What is 5 to the third power?"), "5 ^3");
    assert_eq!(read("6!"), "factorial(6)");
    assert_eq!(
        read("Round 3.14159 to two decimal places."),
        "round(3.14159*10^2)/10^2"
    );
    assert_eq!(
        read("round 17.6 to the nearest whole number"),
        "round(17.6)"
    );
    assert_eq!(
        read("round 1234 to the nearest hundred"),
        "round(1234/100)*100"
    );
    assert_eq!(
        read("A 60 dollar meal with a 15 percent tip comes to how much?"),
        "60*(1+15/100)"
    );
    assert_eq!(
        read("If a 40 dollar shirt is 25 percent off, what does it cost?"),
        "40*(1-25/100)"
    );
    assert_eq!(read("15 percent of 80"), "15 % of 80");
    assert_eq!(read("3 x 4"), "3 * 4");
    assert_eq!(read("$1,234.50 + 2,000"), "1234.50 + 2000");
    assert_eq!(read("How much is 48 times 52?"), "48 * 52");
    assert_eq!(read("What a 17 times 23"), "17 * 23");
    assert_eq!(read("Whats 9 minus 4?"), "9 - 4");
    assert_eq!(read("What is 500 take away 125?"), "500 - 125");
    assert_eq!(read("Add 345, 678 and 912."), "1935");
    assert_eq!(read("What percent is 30 of 120?"), "(30)/(120)*100");
    assert_eq!(read("25% off 88 dollars"), "88*(1-25/100)");
    assert_eq!(read("5 percent of 1 million"), "5 % of 1000000");
    assert_eq!(read("what is (25 times 4) divided by 8?"), "(25 * 4) / 8");
    assert_eq!(
        read("What's half of (1234 plus 5678)?"),
        "(1/2) * (1234 + 5678)"
    );
}

#[test]
fn answers_to_questions_in_words_are_said() {
    assert!(in_words("What is 3 percent of 900?"));
    assert!(in_words("17 times 23"));
    assert!(!in_words("17*23"));
    assert!(!in_words("sqrt(16) + round(2.5)"));
    assert!(!in_words("3 m in ft"));
    assert!(about_percent("What is 3 percent of 900?"));
    assert!(about_percent("25% off 88"));
    assert!(!about_percent("What is 17 times 23?"));
    assert_eq!(number(27.0), "27");
    assert_eq!(number(86.333333), "86.33");
    assert_eq!(number(0.004567), "0.00457");
    assert_eq!(result("What is 3 percent of 900?", 27.0), "It's 27.");
    assert_eq!(
        result("What percent of 50 is 10?", 20.0),
        "It's 20 percent."
    );
    assert_eq!(
        result("Split 120 dollars three ways.", 40.0),
        "It's 40 dollars."
    );
    assert_eq!(result("What's 20% of $5?", 1.0), "It's 1 dollar.");
    assert_eq!(
        list_answer("98 then 125 then 89 whats the median", 98.0).as_deref(),
        Some("The median is 98.")
    );
    assert_eq!(list_answer("What is 17 times 23?", 391.0), None);
    assert_eq!(list_answer("the mean and the median of 1, 2", 1.5), None);
    assert_eq!(
        result("What's an 18 percent tip on 60 dollars?", 10.8),
        "It's 10.80 dollars."
    );
}

#[test]
fn arithmetic_and_nothing_else_is_said_with_its_value() {
    let said = |question: &str, value: f64| bare_arithmetic(question, value);
    assert_eq!(
        said("What is seventeen times twenty three?", 391.0).as_deref(),
        Some("17 times 23 is 391.")
    );
    assert_eq!(
        said("what's 120 divided by 8", 15.0).as_deref(),
        Some("120 divided by 8 is 15.")
    );
    assert_eq!(
        said("How much is 2.5 multiplied by 4?", 10.0).as_deref(),
        Some("2.5 multiplied by 4 is 10.")
    );
    assert_eq!(
        said("Calculate 12 squared please.", 144.0).as_deref(),
        Some("12 squared is 144.")
    );
    assert_eq!(
        said("17 plus 5 minus 2", 20.0).as_deref(),
        Some("17 plus 5 minus 2 is 20.")
    );
    assert_eq!(
        said("What is 12 times? 13.", 156.0).as_deref(),
        Some("12 times 13 is 156."),
        "a pause after the operator, written as a question mark"
    );
    assert_eq!(
        said(
            "okay how much is three hundred and sixty five lots of twenty four",
            8760.0
        )
        .as_deref(),
        Some("365 lots of 24 is 8760.")
    );
    assert_eq!(
        said("um fourteen lots of twelve", 168.0).as_deref(),
        Some("14 lots of 12 is 168.")
    );
    assert_eq!(said("What is 17?", 17.0), None);
    assert_eq!(said("What is the 5?", 5.0), None);
    assert_eq!(
        said("What is 1 divided by 3?", 1.0 / 3.0).as_deref(),
        Some("1 divided by 3 is about 0.33.")
    );
    assert_eq!(
        said("What is 1234567 times 7654321?", 9449772114010.0),
        None,
        "past 12 digits the calculator's value is rounded"
    );
    assert_eq!(said("What is 2 to 5?", 5.0), None);
    assert_eq!(
        said("What is 3 x 4?", 12.0).as_deref(),
        Some("3 x 4 is 12.")
    );
    assert_eq!(said("What is 3 percent of 900?", 27.0), None);
    assert_eq!(
        said(
            "Tom has 58 pencils and gives away 7. How many are left?",
            51.0
        ),
        None
    );
    assert_eq!(said("What is the cost of 3 coffees at 4.50?", 13.5), None);
    assert_eq!(said("What is 5 apples times 3?", 15.0), None);
}

#[test]
fn conversions_asked_in_words_are_said_in_their_words() {
    let say = |question: &str, result: f64| converted(&conversion(question).unwrap(), result);
    assert_eq!(
        say(
            "How many imperial gallons fit in the 20-litre soup boiler?",
            4.39938
        ),
        "20 litres is 4.4 imperial gallons."
    );
    assert_eq!(
        say(
            "what ninety five kilometres an hour is in his miles per hour",
            59.0303
        ),
        "95 kilometres per hour is 59.03 miles per hour."
    );
    assert_eq!(
        conversion("forty five litres of diesel convert that to american gallons for me")
            .map(|asked| asked.to),
        Some("gallons".to_string())
    );
    assert_eq!(
        say("How many feet are in a mile?", 5280.0),
        "1 mile is 5280 feet."
    );
    assert_eq!(
        say("What is 70 degrees Fahrenheit in Celsius?", 21.1111),
        "70 degrees Fahrenheit is 21.11 degrees Celsius."
    );
    assert_eq!(
        say("How many liters is 1000 milliliters?", 1.0),
        "1000 milliliters is 1 liter."
    );
    assert_eq!(
        say("How many inches in 2.54 cm?", 1.0),
        "2.54 cm is 1 inch."
    );
    assert_eq!(
        say("What is 2 and a half hours in minutes?", 150.0),
        "2.5 hours is 150 minutes."
    );
    assert_eq!(
        say("How many minutes are in an hour and a half?", 90.0),
        "1.5 hours is 90 minutes."
    );
    assert_eq!(
        say("How many inches is a foot and a half?", 18.0),
        "1.5 feet is 18 inches."
    );
    assert_eq!(
        say("What is minus 40 degrees Celsius in Fahrenheit?", -40.0),
        "-40 degrees Celsius is -40 degrees Fahrenheit."
    );
}

#[test]
fn list_functions_are_computed() {
    assert_eq!(read("mean(4, 8, 15, 16, 23, 42)"), "18");
    assert_eq!(read("avg(1,2) + 1"), "1.5 + 1");
    assert_eq!(read("SUM(12, 45, 33, 10)"), "100");
    assert_eq!(read("max(17, 42, 8) - min(3, 9)"), "42 - 3");
    assert_eq!(read("median(3, 9, 1, 7, 5)"), "5");
    assert_eq!(read("median(10, 20, 30, 40)"), "25");
    assert_eq!(read("range(5, 18, 11, 2)"), "16");
    assert_eq!(read("Average these: 100, 200, 300, 400."), "250");
    assert_eq!(
        read("My test scores were 88, 92 and 79. What's my average?"),
        "86.33333333333333"
    );
    assert_eq!(read("average(max(1, 5), 3)"), "4");
    assert_eq!(read("Which is the largest: 0.8, 0.75, 0.09 or 0.6?"), "0.8");
    assert_eq!(read("What is the smallest number, 12, 7 or 9?"), "7");
    assert!(as_arithmetic("mean()", plain)
        .unwrap_err()
        .contains("at least one"));
    assert!(as_arithmetic("mean(a, b)", plain).is_err());
}

#[test]
fn lists_with_thousands_and_lists_said_in_turn_are_read() {
    assert_eq!(
        read("What's the median of my last 7 paychecks: 1,480, 1,620, 1,395, 1,710, 1,550, 1,480 and 1,640?"),
        "1550"
    );
    assert_eq!(
        read("ok so the hotels we looked at are ninety eight then a hundred and twenty five then eighty nine then a hundred and forty and a hundred and ten a night whats the median"),
        "110"
    );
}

#[test]
fn rates_are_taken_over_amounts_and_periods() {
    assert_eq!(read("4,380 divided by 12 is what?"), "4380 / 12");
    assert_eq!(
        read("um the hire car uses about six litres per hundred kilometres and were driving nine hundred kilometres how many litres is that"),
        "6 * 900 / 100"
    );
    assert_eq!(
        read("The sprayer takes 3 scoops per 2 litres. How many scoops for a 10 litre tank?"),
        "3 * 10 / 2"
    );
    assert_eq!(
        read("my hens lay four eggs a day between them how many eggs is that in a fortnight"),
        "4 * 14"
    );
    assert_eq!(
        read("The dog gets 2 walks a day. How many walks over 3 weeks?"),
        "2 * 7 * 3"
    );
    assert_eq!(
        read("I walk the dog 2.5 miles every morning. How many miles is that over a fortnight?"),
        "2.5 * 14"
    );
    assert_eq!(
        read("The villa costs 1540 euros for the fortnight, split between the 6 of us. How much each?"),
        "1540 / 6"
    );
    assert_eq!(
        read("Dinner was 96 dollars, shared among 4 friends. How much does each pay?"),
        "96 / 4"
    );
    assert_eq!(
        read("a table of four from italy want to split the bill evenly its fifty seven euros sixty how much each"),
        "57.60 / 4"
    );
    assert_eq!(
        read("um my part timer gets twelve pounds sixty an hour and she does twenty two hours a week what does that come to"),
        "22 * 12.60"
    );
    assert_eq!(
        read("whats a twelve and a half percent service charge on a bill of sixty four pounds"),
        "12.5% of 64"
    );
    assert_eq!(
        read("ok so takings the last five saturdays were eleven hundred and twenty then nine hundred and eighty then fourteen hundred and five then twelve hundred and ten and then a thousand and ninety whats the median"),
        "1120"
    );
    assert_eq!(
        read("The flapjack recipe makes 12 bars with 250 g of oats. How many grams of oats for 30 bars for the form bake sale?"),
        "250 * 30 / 12"
    );
    assert_eq!(
        read("ok so we budgeted three thousand for the trip and weve spent eighteen hundred what percent is that"),
        "1800 / 3000 * 100"
    );
    assert!(!read(
        "My 6 hens could have laid 42 eggs but I collected 31. What percentage laying rate is that?"
    )
    .contains(" / "));
    assert_eq!(
        read("hey if a dollar is about a hundred and fifty yen how many dollars is twelve thousand yen"),
        "12000 / 150"
    );
    assert_eq!(
        read("If one pound gets you 1.15 euros, how many euros do I get for 400 pounds?"),
        "400 * 1.15"
    );
    assert_eq!(
        read("a bag of layers pellets is thirty two pounds fifty and its twenty percent off what do i pay"),
        "32.50*(1-20/100)"
    );
    assert_eq!(
        read("right so the coach trip to whitby is twenty eight pounds fifty a head and theres nine of us going whats the total"),
        "28.50 * 9"
    );
    assert_eq!(
        read("The walking group's Christmas meal is £23.50 a head and 19 have booked. What's the total?"),
        "23.50 * 19"
    );
    assert_eq!(
        read("um our state pension is going up four point eight percent from two hundred and thirty pounds twenty five a week what will it be"),
        "230.25*(1+4.8/100)"
    );
    assert_eq!(
        read("the boilers two thousand one hundred and fifty plus vat at twenty percent whats the total"),
        "2150*(1+20/100)"
    );
    assert_eq!(
        read("i spent three hundred and sixty on diesel out of four thousand eight hundred takings this month what percent is that"),
        "(360)/(4800)*100"
    );
    assert_eq!(
        read("I charge £55 an hour labour and the job took six and three quarter hours. What's the labour bill?"),
        "6.75 * 55"
    );
    assert_eq!(read("erm whats seventeen times forty three"), "17 * 43");
    assert_eq!(read("What's 15% off a 486 euro week?"), "486*(1-15/100)");
    assert_eq!(
        read(
            "The co-op gives 12% off fencing wire to members. How much do I save on a €385 order?"
        ),
        "385*12/100"
    );
    assert_eq!(
        read("the shop took five thousand euro in october and four thousand three hundred in november whats the percentage drop"),
        "abs(4300-5000)/5000*100"
    );
    assert_eq!(
        read("I'm feeding 3 bales of silage a day. How many days will 180 bales last?"),
        "180 / 3"
    );
    assert_eq!(
        read("ok so weve done one thousand three hundred and sixty kilometres of the two thousand one hundred and twenty five down to the algarve what percent is that"),
        "(1360)/(2125)*100"
    );
    assert_eq!(
        read(
            "The new caravan awning was £395 including 20% VAT. How much of that £395 was the VAT?"
        ),
        "395-395/(1+20/100)"
    );
    assert_eq!(
        read("A new quad bike is $14,950 including GST at 15%. How much of that price is GST?"),
        "14950-14950/(1+15/100)"
    );
    assert_eq!(
        read("A customer's bill is ₹2,360 including 18% GST. What was the amount before GST?"),
        "2360/(1+18/100)"
    );
    assert_eq!(
        read("um one lakh twenty thousand minus eighty seven thousand five hundred"),
        "120000 - 87500"
    );
    assert_eq!(
        read("um spanish iva on the campsite is ten percent and the pitch is thirty eight euros a night before iva whats it with iva"),
        "38*(1+10/100)"
    );
    assert_eq!(
        read("the site in brittany has gone up from twenty nine euros a night last year to thirty three euros fifty what percentage increase is that"),
        "abs(33.50-29)/29*100"
    );
    assert_eq!(
        read("um weve driven two thousand four hundred and sixty kilometres and the car does nine point two litres per hundred kilometres when its towing how many litres is that"),
        "9.2 * 2460 / 100"
    );
    assert_eq!(
        read("The ferry is £1,320 for the car, the caravan and the four of us. How much is that per person?"),
        "1320 / 4"
    );
    assert_eq!(
        read("What is 696 with 20 percent VAT on top?"),
        "696*(1+20/100)"
    );
    assert_eq!(
        read("What is 80 less 15 percent discount?"),
        "80*(1-15/100)"
    );
}

#[test]
fn runaway_numbers_are_refused() {
    let long = format!("128/16{}", "0".repeat(90));
    assert!(as_arithmetic(&long, plain)
        .unwrap_err()
        .contains("92 digits"));
    assert!(as_arithmetic("123456789012345 + 1", plain).is_ok());
}

#[test]
fn the_area_of_two_sides_is_converted() {
    let asked =
        conversion("the backyard is sixty feet by forty five feet how many square meters is that")
            .unwrap();
    assert_eq!((asked.value, asked.from.as_str()), (2700.0, "square feet"));
    assert!(asked.to.contains("meters"), "{asked:?}");
    assert_eq!(conversion("a 60 feet by 45 feet yard in meters"), None);
}

#[test]
fn conversions_are_recognised() {
    assert_eq!(
        conversion("3 m in ft"),
        Some(Conversion {
            value: 3.0,
            from: "m".into(),
            to: "ft".into()
        })
    );
    assert_eq!(
        conversion("26.2 miles to kilometers"),
        Some(Conversion {
            value: 26.2,
            from: "miles".into(),
            to: "kilometers".into()
        })
    );
    assert_eq!(
        conversion("1,000 fl oz into liters"),
        Some(Conversion {
            value: 1000.0,
            from: "fl oz".into(),
            to: "liters".into()
        })
    );
    let asked = |text: &str| {
        let c = conversion(text).unwrap_or_else(|| panic!("{text}"));
        (c.value, c.from, c.to)
    };
    let units = |text: &str| {
        let c = conversion(text).unwrap_or_else(|| panic!("{text}"));
        (c.value, c.from.to_lowercase(), c.to.to_lowercase())
    };
    assert_eq!(
        units("i want the oven at two hundred and thirty celsius for the sourdough but the dial only does fahrenheit what number do i set"),
        (230.0, "celsius".into(), "fahrenheit".into())
    );
    assert_eq!(
        units("Our allotment plots are 250 m² each. Roughly how many sq ft does that come to?"),
        (250.0, "m²".into(), "sq ft".into())
    );
    assert_eq!(
        units("The fridge should be below 40°F. What's that in Celsius?"),
        (40.0, "f".into(), "celsius".into())
    );
    assert_eq!(
        units("An American customer wants a 12 US fl oz latte. How many ml is that?"),
        (12.0, "fl oz".into(), "ml".into())
    );
    assert_eq!(
        units("My son wants to know: the speed of sound is about 343 metres per second. What's that in km/h?"),
        (343.0, "metres per second".into(), "km/h".into())
    );
    assert_eq!(
        units("How many tbsp in 3/4 of a US cup?"),
        (0.75, "cup".into(), "tbsp".into())
    );
    assert_eq!(
        units("20 kg sack of layers pellets in pounds?"),
        (20.0, "kg".into(), "pounds".into())
    );
    assert_eq!(
        asked("Our granddaughter weighs 2 stone 9 pounds. How many kilograms is that?"),
        (37.0, "pounds".into(), "kilograms".into())
    );
    assert_eq!(
        asked("how many millilitres is three imperial pints"),
        (3.0, "imperial pints".into(), "millilitres".into())
    );
    assert_eq!(
        asked("It's meant to be minus 3 Celsius for tomorrow morning's ride. What's that in Fahrenheit?"),
        (-3.0, "Celsius".into(), "Fahrenheit".into())
    );
    assert_eq!(
        asked("My mother's Christmas cake recipe wants a pound and a quarter of currants. How many grams is that?"),
        (1.25, "pounds".into(), "grams".into())
    );
    assert_eq!(
        asked("um whats fifty six miles in kilometres thats our longest day on the coast to coast"),
        (56.0, "miles".into(), "kilometres".into())
    );
    assert_eq!(
        asked("its a hundred and four degrees outside today whats that in celsius my cousin wont believe it"),
        (104.0, "fahrenheit".into(), "celsius".into())
    );
    assert_eq!(
        asked("The forecast said 41 degrees tomorrow. What is that in Fahrenheit?"),
        (41.0, "celsius".into(), "Fahrenheit".into())
    );
    assert_eq!(
        asked("A rider from Germany asked me what 55 mph is in kilometers per hour. What is it?"),
        (55.0, "mph".into(), "kilometers per hour".into())
    );
    assert_eq!(
        asked("How many cups are in a gallon?"),
        (1.0, "gallon".into(), "cups".into())
    );
    assert_eq!(
        asked("how many ounces in 2 pounds"),
        (2.0, "pounds".into(), "ounces".into())
    );
    assert_eq!(
        asked("How many kilometers is 26.2 miles?"),
        (26.2, "miles".into(), "kilometers".into())
    );
    assert_eq!(
        asked("What is 70 degrees Fahrenheit in Celsius?"),
        (70.0, "degrees Fahrenheit".into(), "Celsius".into())
    );
    assert_eq!(
        asked("Convert 3 meters to feet."),
        (3.0, "meters".into(), "feet".into())
    );
    assert_eq!(
        asked("How tall is 180 centimeters in feet?"),
        (180.0, "centimeters".into(), "feet".into())
    );
    assert_eq!(
        asked("How many seconds are there in a day"),
        (1.0, "day".into(), "seconds".into())
    );
    assert_eq!(
        asked("How many minutes is 2 and a half hours?"),
        (2.5, "hours".into(), "minutes".into())
    );
    assert_eq!(
        asked("How many tablespoons are in a quarter cup?"),
        (0.25, "cup".into(), "tablespoons".into())
    );
    assert_eq!(
        asked("How many teaspoons are in three quarters of a cup?"),
        (0.75, "cup".into(), "teaspoons".into())
    );
    assert_eq!(
        asked("How many minutes are in half an hour?"),
        (0.5, "hour".into(), "minutes".into())
    );
    assert_eq!(
        asked("How many centimeters is 5 foot 10?"),
        (70.0, "inches".into(), "centimeters".into())
    );
    assert_eq!(
        asked("What is 6 feet 2 inches in meters?"),
        (74.0, "inches".into(), "meters".into())
    );
    assert_eq!(
        asked("How many liters is half a gallon of milk?"),
        (0.5, "gallon".into(), "liters".into())
    );
    assert_eq!(
        asked("How many milliliters is a 12 ounce can of soda?"),
        (12.0, "ounce".into(), "milliliters".into())
    );
    assert_eq!(
        asked("My suitcase weighs 23 kilograms. How many pounds is that?"),
        (23.0, "kilograms".into(), "pounds".into())
    );
    assert_eq!(
        asked("It's 30 degrees Celsius outside. What's that in Fahrenheit?"),
        (30.0, "degrees Celsius".into(), "Fahrenheit".into())
    );
    assert_eq!(
        asked("The nurse said the baby weighs 3.4 kilograms. How many pounds is that?"),
        (3.4, "kilograms".into(), "pounds".into())
    );
    assert_eq!(
        asked("I'm 5 foot 4. What's that in centimeters?"),
        (64.0, "inches".into(), "centimeters".into())
    );
    assert_eq!(
        asked("The limit is 130 kilometers per hour. How fast is that in miles per hour?"),
        (130.0, "kilometers per hour".into(), "miles per hour".into())
    );
    assert_eq!(
        conversion("I sleep 7 hours a night. How many hours is that in a week?"),
        None
    );
    assert_eq!(
        conversion("I have 3 hours and 45 minutes left. How many minutes is that?"),
        None
    );
    assert_eq!(
        conversion("I worked 7.5 hours a day for 5 days. How many hours is that?"),
        None
    );
    assert_eq!(
        conversion("I have three hours and 45 minutes left. How many minutes is that?"),
        None
    );
    assert_eq!(
        asked("What's 11 pounds and kilograms?"),
        (11.0, "pounds".into(), "kilograms".into())
    );
    for (question, from, to) in [
        (
            "The lasagne recipe wants 450 grams of mince. Roughly how many pounds is that?",
            (450.0, "grams"),
            "pounds",
        ),
        (
            "Our oven only shows Celsius. What's 425 Fahrenheit in Celsius?",
            (425.0, "Fahrenheit"),
            "Celsius",
        ),
        (
            "so I deadlift a hundred kilos, what's that in pounds",
            (100.0, "kilos"),
            "pounds",
        ),
        (
            "The new vegetable bed is 120 square feet. How many square meters is that?",
            (120.0, "square feet"),
            "square meters",
        ),
        (
            "The speed limit is 110 kilometers an hour. What's that in miles per hour?",
            (110.0, "kilometers per hour"),
            "miles per hour",
        ),
        (
            "How many milliliters is two and a quarter US cups?",
            (2.25, "cups"),
            "milliliters",
        ),
        ("How far is a 15K race in miles?", (15.0, "km"), "miles"),
        (
            "my bag is 23 kilos how many pounds is that",
            (23.0, "kilos"),
            "pounds",
        ),
        (
            "the yard is fifty square metres how many square feet that",
            (50.0, "square metres"),
            "square feet",
        ),
        (
            "A pallet of concrete blocks is 1,200 kilos. How many pounds is that?",
            (1200.0, "kilos"),
            "pounds",
        ),
    ] {
        assert_eq!(
            conversion(question),
            Some(Conversion {
                value: from.0,
                from: from.1.into(),
                to: to.into()
            }),
            "{question}"
        );
    }
    assert_eq!(
        conversion("How many grams is a stick of butter?"),
        Some(Conversion {
            value: 1.0,
            from: "stick".into(),
            to: "grams".into()
        })
    );
    for not_one in [
        "How many months have 31 days?",
        "I ran 5 miles in 40 minutes. How many kilometers an hour is that?",
        "A recipe for 4 uses 2 cups of flour. How many cups for 6 people?",
    ] {
        assert_eq!(conversion(not_one), None, "{not_one}");
    }
    assert_eq!(conversion("17 times 23"), None);
    assert_eq!(
        conversion("how many apples are in 3 baskets"),
        Some(Conversion {
            value: 3.0,
            from: "baskets".into(),
            to: "apples".into()
        })
    );
    assert_eq!(conversion("15 percent of 80"), None);
    assert_eq!(conversion("2 + 3"), None);
}

#[test]
fn imperial_said_apart_from_the_unit_makes_it_imperial() {
    let units = |text: &str| {
        let c = conversion(text).unwrap_or_else(|| panic!("{text}"));
        (c.value, c.from.to_lowercase(), c.to.to_lowercase())
    };
    assert_eq!(
        units("how many litres is 250 gallons, imperial"),
        (250.0, "imperial gallons".into(), "litres".into())
    );
    assert_eq!(
        units("we're in the UK, how many litres is 5 gallons"),
        (5.0, "imperial gallons".into(), "litres".into())
    );
    assert_eq!(
        units("how many litres is 250 gallons"),
        (250.0, "gallons".into(), "litres".into())
    );
    assert_eq!(
        units("how many litres is a four pint carton of milk thats imperial pints"),
        (4.0, "imperial pint".into(), "litres".into())
    );
    assert_eq!(
        units("how many litres is 250 US gallons, not imperial"),
        (250.0, "gallons".into(), "litres".into())
    );
}

#[test]
fn shifts_are_counted_from_start_to_end_less_an_unpaid_break() {
    assert_eq!(
        read("okay so i clocked in at six forty five pm and clocked out at seven fifteen am and i took a thirty minute unpaid break how many hours do i get paid for"),
        "(31.25 - 18.75 - 30/60)"
    );
    assert_eq!(
        read("Jess worked 7:15 to 3:45 today with a 30-minute unpaid break, at $28.40 an hour. How much does she earn for the shift?"),
        "(15.75 - 7.25 - 30/60) * 28.40"
    );
    assert_eq!(
        read("my helper work from six thirty in the morning until two in the afternoon with half hour break how many hours she work"),
        "(14 - 6.5 - 30/60)"
    );
    assert_eq!(
        read("I worked 9:00 to 17:30 with a paid break. How many hours is that?"),
        "(17.5 - 9 - 0/60)"
    );
    assert_eq!(
        read("on from 10 at night till 6.30 in the morning, how many hours is that shift"),
        "(30.5 - 22 - 0/60)"
    );
}

#[test]
fn a_percentage_of_an_amount_with_the_reason_after_it() {
    assert_eq!(
        read("hey whats twelve percent of eight hundred and fifty rand i want to leave a tip at the braai place"),
        "12% of 850"
    );
}

#[test]
fn a_tax_included_said_before_the_price() {
    assert_eq!(
        read("the supplier price already include nine percent gst its three hundred and twenty seven dollars how much before gst"),
        "327/(1+9/100)"
    );
}

#[test]
fn a_percentage_off_or_on_a_price_said_apart() {
    assert_eq!(
        read("okay so the mixer grinder mrp is three thousand two hundred and im giving fifteen percent diwali discount what will the customer pay"),
        "3200*(1-15/100)"
    );
    assert_eq!(
        read("The jacket is $120 and there's 13% HST. What will it cost me?"),
        "120*(1+13/100)"
    );
}

#[test]
fn readings_said_short_are_hundreds_in_a_list() {
    assert_eq!(
        read("my blood pressure top numbers this week were one thirty eight one forty two one thirty five one forty and one thirty nine whats the median"),
        "139"
    );
    assert_eq!(
        read("okay so my patients temps tonight were ninety eight point six a hundred one point two ninety nine point four a hundred point eight and ninety seven point nine whats the range"),
        "3.299999999999997"
    );
    assert_eq!(
        read("um whats the median of forty two thirty eight fifty one forty five and thirty nine"),
        "42"
    );
    assert_eq!(
        read("okay so pieces of ankara i sold this week twelve nine fifteen seven eleven twenty fourteen whats the median"),
        "12"
    );
}

#[test]
fn a_list_said_without_commas_is_a_list() {
    assert_eq!(read("12 9 15 7 11 20 14 whats the median"), "12");
    assert_eq!(read("what is the average of 4 8 15"), "9");
}

#[test]
fn the_change_from_what_was_paid() {
    assert_eq!(
        read("okay so bait and ice came to thirty seven eighty four and i gave the man a hundred dollar bill how much change do i get"),
        "100 - 37.84"
    );
    assert_eq!(
        read("one customer bought three yards of lace at eight thousand two hundred naira a yard and gave me thirty thousand how much change i go give her"),
        "30000 - 3*8200"
    );
}

#[test]
fn an_amount_split_some_ways() {
    assert_eq!(read("Split $186.40 evenly 8 ways for me."), "186.40 / 8");
    assert_eq!(
        read("um ninety six hundred divided up thirty two ways"),
        "9600 / 32"
    );
}

#[test]
fn a_tax_named_by_its_place_or_with_the() {
    assert_eq!(
        read("What's the 8.875% NYC sales tax on a $64 pair of sneakers?"),
        read("What's the 8.875% sales tax on a $64 pair of sneakers?")
    );
    assert_eq!(
        read("What is 41.1 with the 8.875% sales tax?"),
        read("What is 41.1 with 8.875% sales tax?")
    );
}

#[test]
fn a_pack_priced_asked_per_thing() {
    assert_eq!(
        read("ok so a sleeve of fifty plastic cups is twelve dollars and fifty cents how much is that per cup"),
        "12.50 / 50"
    );
}

#[test]
fn a_container_priced_asked_per_one_of_what_it_holds() {
    assert_eq!(
        read("A case of 24 Red Stripe costs me J$6,720. How much is that per bottle?"),
        "6720 / 24"
    );
    assert_eq!(
        read("a crate of thirty eggs is two hundred and forty rand how much for one egg"),
        "240 / 30"
    );
    assert_ne!(read("A case of 24 costs $30, how much a case"), "30 / 24");
}

#[test]
fn the_profit_on_many_sold_at_a_price_each_costing_less_to_make() {
    assert_eq!(
        read("I sell a quarter chicken for J$900 and it costs me J$520 to make. If I sell 45 quarters today, what's my profit?"),
        "45 * (900 - 520)"
    );
}

#[test]
fn a_number_taken_and_then_worked_on() {
    assert_eq!(
        read("so if i take nineteen thousand three hundred and twenty and divide it by twenty three what do i get"),
        "19320 / 23"
    );
    assert_eq!(read("take 45 and multiply it by 12"), "45 * 12");
}

#[test]
fn a_part_of_a_whole_named_in_percent() {
    assert_eq!(
        read("I took R1,150 on Saturday and R4,600 for the whole week. What percent of the week's money came on Saturday?"),
        "1150 / 4600 * 100"
    );
    assert_eq!(
        read("lekker i do school transport too fourteen kids at four hundred and fifty rand a month each how much is that a month"),
        "14 * 450"
    );
}

#[test]
fn shares_products_and_parts_said_around_other_words() {
    for (said, read_as) in [
        ("share out five thousand six hundred and twenty five by fifteen for me", "5625 / 15"),
        ("okay so eight thousand three hundred and sixteen shared between thirty six", "8316 / 36"),
        ("go on then what do you get if you times five hundred and seventy four by nineteen", "574 * 19"),
        ("uh out of eight hundred doubles one hundred and twenty was with no pepper that is what percentage", "(120)/(800)*100"),
        ("The pepper jars came to TT$337.50, VAT-inclusive at 12.5%. Strip out the VAT for me, what was the base amount?", "337.50/(1+12.5/100)"),
        ("the new industrial mixer is one thousand and eighty quid including vat at twenty percent whats the price without the vat", "1080/(1+20/100)"),
    ] {
        assert_eq!(read(said), read_as, "{said}");
    }
}

#[test]
fn a_price_paid_off_in_equal_parts() {
    assert_eq!(
        read("The new combi oven is £3,600. If we pay it off over 36 months, how much is that a month?"),
        "3600 / 36"
    );
    assert_eq!(read("If a doubles is TT$6, how much for 14?"), "14 * 6");
    assert_eq!(
        read("the fare from alex to town is twenty one rand how much for fifteen passengers"),
        "15 * 21",
        "a fare is paid a head"
    );
    assert_eq!(
        read("The mango is 5 cedis, how much for 12 mangoes?"),
        "12 * 5"
    );
    assert_ne!(
        read("The bill is 80 dollars, how much each for 4 people?"),
        "4 * 80",
        "a bill is not paid a head"
    );
}

#[test]
fn a_list_of_temperatures_with_their_signs() {
    assert_eq!(
        read("Hot cupboard readings: 68°C, 72°C, 65°C, 74°C, 70°C and 63°C. What's the range?"),
        "11"
    );
}

#[test]
fn a_share_of_what_is_earned() {
    assert_eq!(
        read("my share of rent is nine hundred fifty a month and i make two thousand five hundred a month what percent of my pay goes to rent"),
        "950 / 2500 * 100"
    );
}

#[test]
fn notes_and_pence_by_their_names() {
    assert_eq!(
        read("okay so a score plus a tenner plus three fivers how much is that then"),
        "20 + 10 + (3*5)"
    );
    assert_eq!(
        read("passenger gave me three twenties for a forty three pound sixty fare how much change do i give him"),
        "(3*20) - 43.60"
    );
    assert_eq!(
        read("Diesel prices I've seen this week: 151.9p, 148.7p, 156.3p and 149.9p a litre. What's the range?"),
        "7.600000000000023"
    );
    assert_eq!(read("£7.45 times 16, go on then."), "7.45 * 16");
}

#[test]
fn what_is_left_of_an_amount_taken_in() {
    assert_eq!(
        read("okay so took one thousand two hundred and forty quid this week diesel was two hundred and fifteen insurance thirty eight and the app took sixty two whats left for me"),
        "1240 - 215 - 38 - 62"
    );
}

#[test]
fn a_round_of_so_many_at_the_price_of_one() {
    assert_eq!(
        read("A pint at the Bell is £5.80. How much for a round of six?"),
        "6 * 5.80"
    );
}

#[test]
fn amounts_for_each_of_a_family_and_two_bills_shared() {
    assert_eq!(
        read("School fees are ₦185,000 per term for each of my two children. I have paid ₦250,000 so far this term. How much do I still owe?"),
        "185000*2 - 250000"
    );
    assert_eq!(
        read("Rent is $3,450 for our 3-bedroom and utilities are $165, both split evenly three ways. What's my total share?"),
        "(3450+165)/3"
    );
}

#[test]
fn how_much_be_asks_like_how_much_is() {
    assert_eq!(
        read("how much be two thousand three hundred and fifty times fourteen"),
        "2350 * 14"
    );
}

#[test]
fn a_unit_said_after_each_number_of_a_list() {
    assert_eq!(
        read("five eggs weigh sixty two grams fifty eight grams sixty five grams sixty grams and fifty nine grams whats the median weight"),
        "60"
    );
    assert_eq!(read("Work out (920 - 345) x 6 please."), "(920 - 345) * 6");
}

#[test]
fn amounts_signed_by_letters() {
    assert_eq!(
        read("The mechanic's quote is R3,795 including 15% VAT. What's the amount before VAT?"),
        "3795/(1+15/100)"
    );
    assert_eq!(
        read("My takings this week were R3,100, R2,850, R3,400, R2,950 and R3,200. What's the average per day?"),
        "3100"
    );
    assert_eq!(
        crate::numbers::letter_signs_named("takings were R3,100, R2,850 and RM 12.50"),
        "takings were 3,100 rand, 2,850 rand and 12.50 ringgit"
    );
    assert_eq!(
        crate::numbers::letter_signs_named("sold 100 heaps at K9 a heap"),
        "sold 100 heaps at 9 kwacha a heap"
    );
    assert_eq!(
        crate::numbers::letter_signs_named("how tall is K2 in feet"),
        "how tall is K2 in feet"
    );
    assert_eq!(
        crate::numbers::letter_signs_named("Add up S/ 12.50, S/8.90 and S/. 5.60"),
        "Add up 12.50 soles, 8.90 soles and 5.60 soles"
    );
    assert_eq!(
        result(
            "Petrol is 23.40 rand a litre and I put in 55 litres",
            1287.0
        ),
        "It's 1287 rand."
    );
}

#[test]
fn overtime_at_time_and_a_half() {
    assert_eq!(
        read("I worked three 12-hour shifts plus 4 hours of overtime this week. Base pay is $42 an hour and overtime is time and a half. What's my gross pay for the week?"),
        "3 * 12 * 42 + 4 * 42 * 1.5"
    );
    assert_eq!(
        read("okay so my base rate is forty four an hour whats time and a half on that"),
        "44 * 1.5"
    );
    assert_eq!(
        read("I did 40 hours and 6 hours overtime at double time. I get 20 dollars an hour. How much did I make?"),
        "40 * 20 + 6 * 20 * 2"
    );
}

#[test]
fn how_many_of_a_measure_an_amount_takes() {
    assert_eq!(
        read("The vial is 40 mg per mL and the order is 100 mg. How many mL do I draw up?"),
        "100 / 40"
    );
    assert_eq!(
        read("the syrup is 5 mg in 5 ml and she needs 12 mg how many ml is that"),
        "12 * 5 / 5"
    );
}

#[test]
fn fuel_costs_and_how_long_things_last() {
    assert_eq!(
        read("the van does eight point five litres per hundred kilometres and diesel is 1.62 a litre what will a three hundred and forty kilometre trip cost"),
        "340 * 8.5 / 100 * 1.62"
    );
    assert_eq!(
        read("my scooter gives forty five kilometres a litre and petrol is one hundred and two rupees a litre i ride thirty kilometres every day how much do i spend on petrol in a thirty day month"),
        "30 / 45 * 30 * 102"
    );
    assert_eq!(
        read("A gas cartridge lasts 3 hours on the camping stove and we cook for 40 minutes a day. How many days does one cartridge last?"),
        "3 * 60 / (40 * 1)"
    );
}

#[test]
fn fuel_for_a_distance_at_an_economy() {
    assert_eq!(
        read("okay so its four hundred and twenty miles to my sisters in london and the car does forty five miles to the gallon how many gallons is that one way"),
        "420 / 45"
    );
    assert_eq!(
        read("The ute does 12 km per litre. How many litres for the 300 km trip?"),
        "300 / 12"
    );
    assert_eq!(
        read("It's 180 miles each way to Grandma's and the car does 45 miles per gallon. How many gallons do we need for the round trip?"),
        "2 * 180 / 45"
    );
}

#[test]
fn a_conversion_in_its_own_sentence() {
    let asked = conversion("Convert 34 degrees Celsius to Fahrenheit. An American passenger asked me how hot it is today.")
        .expect("a conversion");
    assert_eq!(asked.value, 34.0);
    assert!(
        asked.to.to_lowercase().contains("fahrenheit"),
        "{}",
        asked.to
    );
}

#[test]
fn a_weight_asked_for_what_to_weigh_out() {
    let asked = conversion(
        "An NRI customer wants 3 pounds of basmati rice. How many kilos should I weigh out?",
    )
    .expect("a conversion");
    assert_eq!(
        (asked.value, asked.from.as_str(), asked.to.as_str()),
        (3.0, "pounds", "kilos")
    );
}

#[test]
fn readings_of_a_fishmonger_a_mechanic_and_a_dairy_farmer() {
    for (said, read_as) in [
        (
            "i put eight grand in the credit union at two and a quarter percent for a year how much interest will i get",
            "8000 * 2.25 / 100 * 1",
        ),
        (
            "The bank's offering 4.35% a year on a $12,000 term deposit. What's the interest after twelve months?",
            "12000 * 4.35 / 100 * 1",
        ),
        (
            "I bought a 10 kilo box of prawns for €145 and sold the lot at €22 a kilo. What's my profit on the box?",
            "10 * 22 - 145",
        ),
        (
            "parking is four euro twenty a day and im in six days a week how much is that over a fortnight",
            "4.20 * 6 * 2",
        ),
        ("What's 20% off €12.50 for the last of the crab meat?", "12.50*(1-20/100)"),
        ("quick one sixty three dollars forty times nine", "63.40 * 9"),
        (
            "okay so a lady paid with a hundred dollar note for a thirty five dollar puncture repair and a twenty eight fifty set of wiper blades how much change do i give her",
            "100 - (35 + 28.50)",
        ),
        (
            "i sold eighteen hundred bushels of corn at four dollars and twelve cents a bushel and trucking cost me two hundred forty dollars how much did i clear",
            "1800 * 4.12 - 240",
        ),
        (
            "The skid steer loan was $24,000 with no interest and I've made 14 monthly payments of $850. How much is still owed?",
            "24000 - 14 * 850",
        ),
        (
            "okay so my hired man works eight and a half hours a day five days a week at seventeen fifty an hour whats his pay for the week",
            "8.5 * 17.50 * 5 * 1",
        ),
        (
            "Milk's paying $19.20 a hundredweight. What's that for 850 hundredweight?",
            "850 * 19.20",
        ),
    ] {
        assert_eq!(read(said), read_as, "{said}");
    }
    for (said, read_as) in [
        ("sebo please whats four thousand seven hundred and fifty times eighteen", "4750 * 18"),
        (
            "we had forty seven of our sixty rooms booked last night what percent occupancy is that the manager wants it",
            "(47)/(60)*100",
        ),
        (
            "Rent is 650k for the month. I sent 200k on mobile money on Monday and 275k today. How much do I still owe the landlord?",
            "650000 - 200000 - 275000",
        ),
        ("can you times two hundred and sixty five by twelve for me", "265 * 12"),
        ("What is 507.50 with 10% GST added on?", "507.50*(1+10/100)"),
        ("One jerk chicken leg quarter is J$750. How much for 22?", "22 * 750"),
        (
            "um boda to work is three thousand and the same back home i work six days a week how much do i spend in a week",
            "3000 * 2 * 6 * 1",
        ),
        ("One rolex at the stage is UGX 3,000. How much for 11?", "11 * 3000"),
        (
            "I bought 5 litres of developer for £40 and each colour uses 150 ml. What does the developer cost me per colour?",
            "40 * 150 / 5000",
        ),
        (
            "a 2 kilo bag of coffee beans cost me 38 dollars and each cup takes 18 grams how much is that per cup",
            "38 * 18 / 2000",
        ),
        (
            "the bill is 2300 dollars and the 15% GCT is already in it, how much before GCT",
            "2300/(1+15/100)",
        ),
        (
            "okay so three hundred and twelve quid plus eighty seven pound fifty plus a hundred and forty quid what does that come to",
            "312 + 87.50 + 140",
        ),
        (
            "im doing fifteen percent off for nhs staff this month how much do they pay for a seventy two pound colour",
            "72*(1-15/100)",
        ),
        (
            "The lamb cheque came to $38,420, then freight to the saleyards was $1,860 and yard dues were $742. How much is left after those two costs?",
            "38420 - 1860 - 742",
        ),
        (
            "the rural store has fifteen percent off fencing gear and ive got three hundred and sixty dollars worth in the trolley what do i pay after the discount",
            "360*(1-15/100)",
        ),
    ] {
        assert_eq!(read(said), read_as, "{said}");
    }
    assert!(
        !read("i got 15 percent off and paid 360 dollars what was the original price")
            .contains("(1-15/100)")
    );
    // A list of thousands said in words, its last item after `and`.
    assert_eq!(
        read("boda fares i paid this week six thousand four thousand seven thousand five thousand three thousand five hundred and eight thousand whats the median"),
        "5500"
    );
    // Numbers said one `then` another, each pair joined.
    assert_eq!(
        read("twelve then nineteen then seven then twenty three then fifteen whats the median"),
        "15"
    );
    assert_eq!(
        read("what's a grand total of 5 and 6"),
        "grand 11",
        "a grand total is no 1000"
    );
}

#[test]
fn coins_are_counted_by_their_names() {
    assert_eq!(
        read("okay so i got seven toonies nine loonies and three quarters in the cup holder how much is that altogether"),
        "7*2 + 9*1 + 3*0.25"
    );
    assert_eq!(
        read("how much is 12 quarters, 5 dimes and a nickel"),
        "12*0.25 + 5*0.10 + 1*0.05"
    );
    assert_eq!(read("what is three quarters of 80"), "(3/4) * 80");
}

#[test]
fn doses_by_weight_and_costs_for_each_in_a_period() {
    assert_eq!(
        read("The order is 15 mg per kg and the kid weighs 44 pounds. How many mg is the dose?"),
        "15 * 44 * 0.45359237"
    );
    assert_eq!(
        read("the dose is 0.1 ml per kg and she weighs 18 kilos how much do i give"),
        "0.1 * 18"
    );
    assert_eq!(
        read("The order is amoxicillin 25 mg per kg per day split into two equal doses. The child weighs 18 kg. How many mg is each dose?"),
        "25 * 18 / 2"
    );
    assert_eq!(
        read(
            "25 mg per kg per day split into two equal doses, she weighs 18 kg, how many mg a day"
        ),
        "25 * 18"
    );
    assert_eq!(
        read("My parking pass at the hospital is $115 a month and I work 13 shifts a month. How much does parking cost me per shift?"),
        "115 / 13"
    );
}

#[test]
fn prices_each_and_speeds_over_times_are_read() {
    assert_eq!(
        read("a couple of pizzas at 12 pounds each, how much?"),
        "2 * 12"
    );
    assert_eq!(
        read("3 tickets for 25 dollars each, what's the total"),
        "3 * 25"
    );
    assert_eq!(
        read("we're driving at 80 km/h for 2.5 hours, how far is that"),
        "80 * 2.5"
    );
    assert_eq!(
        read("I walk at 5 km an hour for 45 minutes, how far do I get"),
        "5 * 45 / 60"
    );
    assert_eq!(
        read("how long will it take to drive 150 miles at 60 mph"),
        "150 / 60"
    );
    assert_eq!(
        read("how many minutes to cycle 12 km at 18 km/h"),
        "12 / 18 * 60"
    );
    assert_eq!(
        read("if we average 60 mph, how far is 150 miles and how long"),
        "if we average 60 mph, how far is 150 miles and how long"
    );
}

#[test]
fn prices_taxes_and_lists_as_people_say_them() {
    for (said, written) in [
        ("hey whats an eighteen percent tip on sixty four fifty", "18% of 64.50"),
        (
            "righto whats ten percent gst on four hundred and eighty five dollars fifty",
            "10% of 485.50",
        ),
        (
            "how much is thirteen percent hst on sixty four dollars and fifty cents",
            "13% of 64.50",
        ),
        (
            "whats an eighteen percent tip on a hundred and twelve dollar dinner bill",
            "18% of 112",
        ),
        ("whats twenty five dollars an hour times thirty eight hours", "25 * 38"),
        ("What is 324 with 8.25 percent sales tax?", "324*(1+8.25/100)"),
        (
            "Chicken thighs are $13.20 a kilo at work. What's that per pound?",
            "13.20 * 0.453592",
        ),
        (
            "the check is $62.40. What's a 20% tip on that?",
            "62.40*20/100",
        ),
        (
            "okay so the bill for my moms birthday dinner is ninety two fifty whats an eighteen percent tip",
            "92.50*18/100",
        ),
        ("yo whats eleven hundred forty divided by fifteen", "1140 / 15"),
        (
            "If I save 50 dollars a week, how much will I have after a year?",
            "50 * 52",
        ),
        ("Tickets are 14 dollars each. How much for a family of 4?", "14 * 4"),
        (
            "We need 36 scones and each one takes 45 grams of butter. How much butter is that?",
            "36 * 45",
        ),
        (
            "okay our internet is eighty nine ninety nine a month plus thirteen percent tax split three ways what does each of us pay",
            "89.99*(1+13/100)/3",
        ),
        (
            "i worked six and a half hours on friday and eight hours on saturday at seventeen twenty an hour how much did i make",
            "(6.5+8)*17.20",
        ),
        (
            "if a winter jacket is eighty nine ninety nine and its twenty five percent off whats the sale price",
            "89.99*(1-25/100)",
        ),
        (
            "so like whats nine thousand four hundred minus two thousand eight hundred fifty five",
            "9400 - 2855",
        ),
    ] {
        assert_eq!(read(said), written, "{said}");
    }
    assert!(!read("whats nineteen eighty four minus nineteen fifty").contains('.'));
    assert_eq!(
        read("whats the range of these milk orders 42 38 55 and 47 litres"),
        "17"
    );
}

#[test]
fn then_computes_what_came_before_it_first() {
    assert_eq!(
        read("okay so three hundred and forty five times twelve then plus eight hundred"),
        "(345 * 12) + 800"
    );
    assert_eq!(
        read("5 plus 3 then times 2 then minus 1"),
        "((5 + 3) * 2) - 1"
    );
}

#[test]
fn one_said_for_a_thing_is_no_number() {
    assert_eq!(read("Quick one: what's 1,350 times 18?"), "1350 * 18");
    assert_eq!(
        crate::numbers::in_digits("I like the red one and this one costs five"),
        "I like the red 1 and this one costs 5"
    );
    assert_eq!(read("one hundred and five minus forty-two"), "105 - 42");
}

#[test]
fn a_percentage_asked_of_a_change_from_one_amount_to_another() {
    assert_eq!(
        read("diesel went from one hundred and sixty to one hundred and eighty shillings a litre by what percent did it go up"),
        "abs(180-160)/160*100"
    );
}

#[test]
fn prices_read_out_with_the_hundreds_short_and_in_shillings() {
    assert_eq!(
        read("okay so we made one twenty eight fifty in tips tonight split evenly between five of us how much does each person get"),
        "128.50 / 5"
    );
    assert_eq!(
        read("i put sixty five litres of diesel at one hundred and seventy one bob fifty cents a litre how much is that"),
        "65 * 171.50"
    );
}

#[test]
fn a_temperature_with_no_scale_is_on_the_other_one() {
    let asked = |text: &str| conversion(text).map(|c| (c.value, c.from, c.to));
    assert_eq!(
        asked("okay its minus fifteen out here in toronto whats that in fahrenheit"),
        Some((-15.0, "celsius".into(), "fahrenheit".into()))
    );
    assert_eq!(
        asked("it's 86 out, what's that in Celsius?"),
        Some((86.0, "fahrenheit".into(), "Celsius".into()))
    );
    assert_eq!(
        asked("its 5 kilometres to town whats that in fahrenheit"),
        None
    );
    assert_eq!(
        asked("My tyre gauge only reads in psi. Convert 65 psi to bar."),
        Some((65.0, "psi".into(), "bar".into()))
    );
}

#[test]
fn a_share_taken_of_an_amount_said_elsewhere() {
    assert_eq!(
        read("The sacco takes 12% of my daily collection. I collected KSh 9,500 today, so how much goes to the sacco?"),
        "9500*12/100"
    );
    assert_ne!(
        read("The sacco takes 12% of my daily collection. I collected KSh 9,500 today, so how much do I keep?"),
        "9500*12/100"
    );
    assert_ne!(
        read("I save 10 percent of my pay and I earn 3000 a month, how much do I save in a year?"),
        "3000*10/100"
    );
}

#[test]
fn pesos_and_particles_around_a_sum() {
    assert_eq!(read("Calculate 48 times 35 po."), "48 * 35");
    assert_eq!(
        read("okay so twelve pesos and fifty centavos times eighteen"),
        "12.50 * 18"
    );
    assert_eq!(read("What is 1500 with 12% vat?"), "1500*(1+12/100)");
    assert_eq!(
        read("sige whats seven thousand five hundred sixty divided by forty five"),
        "7560 / 45"
    );
    assert_eq!(
        read("A sachet of 3-in-1 coffee is ₱7. How much for 35 sachets?"),
        "35 * 7"
    );
    assert_eq!(
        read("My sales this week: ₱2,350, ₱1,980, ₱2,640, ₱2,100, ₱3,050, ₱3,420 and ₱2,760. What's my average daily sales?"),
        "2614.285714285714"
    );
}

#[test]
fn many_at_the_price_of_one_said_before() {
    assert_eq!(read("A coffee is $4. How much for 6 coffees?"), "6 * 4");
    assert_ne!(read("A coffee is $4. How much for 6 muffins?"), "6 * 4");
}
#[test]
fn change_from_a_note_given_for_things_at_their_prices() {
    assert_eq!(
        read("i gave the wee lad in the shop a twenty pound note for a magazine at four pound twenty and sweeties at three pound sixty five how much change should i get"),
        "20 - (4.20 + 3.65)"
    );
    assert_ne!(
        read("i gave him a twenty for two magazines at 4.20 each how much change"),
        "20 - (4.20)",
        "a price of each is not the price of all"
    );
}

#[test]
fn the_tax_inside_a_price_named_twice() {
    assert_eq!(
        read("The wholesaler charged me K696 for a carton of cooking oil, with 16% VAT already included. How much of that K696 is the VAT itself?"),
        "696-696/(1+16/100)"
    );
}
#[test]
fn one_thing_weighed_is_converted() {
    let asked = super::conversion(
        "one bale of salaula is forty five kilos how many pounds is that my supplier in america only talks in pounds",
    )
    .expect("a conversion");
    assert_eq!(
        (asked.value, asked.from.as_str(), asked.to.as_str()),
        (45.0, "kilos", "pounds")
    );
}

#[test]
fn the_tax_on_an_amount_said_before_its_rate() {
    assert_eq!(
        read("okay so the hardware shop bill is one thousand two hundred and forty kwacha before vat whats the vat on it at sixteen percent"),
        "1240 * 16/100"
    );
}
#[test]
fn owed_cleared_and_a_temperature_wanted_in_another_scale() {
    assert_eq!(
        read("owe forty eight thousand six hundred on the prime mover loan and ive paid three thousand two hundred and fifty a month for six months how much is still owing"),
        "48600 - 3250 * 6"
    );
    assert_eq!(
        read("The Hedland run pays $9,800. Diesel was $3,420, tucker $180 and a new tyre $650, and there were no other costs. How much did I clear?"),
        "9800 - 3420 - 180 - 650"
    );
    let hot =
        super::conversion("newman hit forty four this arvo a yank mate wants it in fahrenheit")
            .expect("a conversion");
    assert_eq!((hot.value, hot.to.as_str()), (44.0, "fahrenheit"));
}
#[test]
fn a_bill_split_so_many_ways_counted_twice() {
    assert_eq!(
        read("four of us got tacos at the truck on cesar chavez and the bill came to fifty seven dollars and twenty cents split it four ways for me"),
        "57.20 / 4"
    );
}
#[test]
fn kwacha_prices_and_a_monthly_amount_over_a_whole_year() {
    assert_eq!(
        read("A pocket of potatoes is K85. How much for 6 pockets?"),
        "6 * 85"
    );
    assert_eq!(
        read("My stall rent is K520 a month. How much is that for a whole year?"),
        "520 * 12"
    );
}

#[test]
fn the_price_to_sell_each_at_for_a_profit_on_each() {
    assert_eq!(
        read("okay so a sack of twenty five cabbages cost me one hundred and seventy five kwacha and i want to make three kwacha profit on each cabbage what price should i sell each one"),
        "175 / 25 + 3"
    );
}

#[test]
fn a_conversion_before_a_clause_that_says_why() {
    let asked = super::conversion(
        "whats ninety kilometres an hour in miles an hour a yank asked me what a road train can do",
    )
    .expect("a conversion");
    assert_eq!(asked.value, 90.0);
    assert!(asked.to.contains("mile"), "{:?}", asked.to);
    assert!(!asked.to.contains("yank"), "{:?}", asked.to);
}
#[test]
fn amounts_added_to_what_was_had() {
    assert_eq!(
        read("I had $1,200 saved for tuition and put in $275, $340 and $185 this month. What's my total now?"),
        "1200 + 275 + 340 + 185"
    );
}

#[test]
fn how_many_of_a_unit_in_a_thing_measured_in_another() {
    let asked = super::conversion("um how many milliliters is a thirty two ounce agua fresca")
        .expect("a conversion");
    assert_eq!((asked.value, asked.to.as_str()), (32.0, "milliliters"));
    assert!(asked.from.starts_with("ounce"), "{:?}", asked.from);
}

#[test]
fn amounts_for_the_same_period_and_fares_there_and_back() {
    assert_eq!(
        read("stall rental is one thousand eight hundred a month plus electricity three hundred twenty every month how much is that for the whole year"),
        "(1800 + 320) * 12"
    );
    assert_eq!(
        read("okay so the dartmouth ferry is two dollars and seventy five cents a trip and i go over and back five days a week how much is that a week"),
        "2.75 * 2 * 5 * 1"
    );
    assert_ne!(
        read("the bus is 3 a day and i ride 5 days a week how much is that a week"),
        "3 * 2 * 5 * 1"
    );
}

#[test]
fn the_profit_on_a_lot_bought_for_one_total() {
    assert_eq!(
        read("I bought 50 pairs of earrings for GH₵400 in total and I sell each pair at GH₵15. What's my profit if I sell all 50?"),
        "50 * 15 - 400"
    );
    assert_eq!(
        read("I bought 50 pairs of earrings for 400 in total and I sell each pair at 15. What's my profit if I sell 30?"),
        "30 * 15 - 400"
    );
}

#[test]
fn the_part_of_a_pack_one_thing_takes() {
    assert_eq!(
        read("A pack of 100 glass beads costs GH₵35 and each bracelet uses 20 beads. How much do the beads for one bracelet cost me?"),
        "35 * 20 / 100"
    );
    assert_ne!(
        read("A pack of 100 glass beads costs 35 and each bracelet uses 20 charms. How much for one bracelet?"),
        "35 * 20 / 100"
    );
}

#[test]
fn a_temperature_without_its_scale_before_who_it_is_for() {
    let asked = super::conversion(
        "the car says minus seventeen outside how much is that in fahrenheit for my buddy in boston",
    )
    .unwrap();
    assert_eq!((asked.value, asked.from.as_str()), (-17.0, "celsius"));
}

#[test]
fn pounds_and_ounces_are_one_weight() {
    let asked = super::conversion(
        "A parcel from a customer in the US says 2 lb 6 oz. How many grams is that?",
    )
    .unwrap();
    assert_eq!((asked.value, asked.from.as_str()), (38.0, "ounces"));
}

#[test]
fn an_amount_said_of_things_counted_is_the_one_converted() {
    let asked =
        super::conversion("Two sticks of butter are 8 ounces. How many grams is that? My daughter-in-law's recipe is all in grams.").unwrap();
    assert_eq!((asked.value, asked.to.as_str()), (8.0, "grams"));
    assert!(
        super::conversion("I have 3 bags of 5 pounds each. How many kilograms is that?")
            .is_none_or(|asked| asked.value != 5.0)
    );
}

#[test]
fn miles_driven_some_times_a_week_over_weeks() {
    assert_eq!(
        read("okay so i drive into ames for water aerobics three times a week and its eighteen miles there and back how many miles is that in four weeks"),
        "3 * 18 * 4"
    );
    assert_eq!(
        read("I drive to work 5 days a week and it's 12 km each way. How many km is that in 3 weeks?"),
        "5 * 12 * 2 * 3"
    );
}

#[test]
fn a_list_said_with_and_between_each_two_numbers_is_read() {
    assert_eq!(
        read("the points cork got in the last five league matches were nineteen and twenty three and seventeen and twenty six and twenty one whats the median"),
        "21"
    );
    assert_eq!(read("12 and 30 and 18 whats the average"), "20");
}

#[test]
fn inches_of_mercury_are_one_unit() {
    let asked = super::conversion("the old barometer in the hall says twenty nine point eight inches of mercury whats that in millibars").unwrap();
    assert_eq!(
        (asked.value, asked.from.as_str(), asked.to.as_str()),
        (29.8, "inHg", "millibars")
    );
}

#[test]
fn a_conversion_asked_last_or_told_after_its_question() {
    let asked = |text: &str| {
        let c = super::conversion(text).unwrap();
        (c.value, c.from, c.to)
    };
    assert_eq!(
        asked("mechanic says put thirty five psi in the tyres but my gauge reads bar what is thirty five psi in bar"),
        (35.0, "psi".into(), "bar".into())
    );
    assert_eq!(
        asked("A passenger asked how many miles it is from Nairobi to Eldoret. It's about 310 km."),
        (310.0, "km".into(), "miles".into())
    );
}

#[test]
fn money_taken_out_and_fuel_for_one_trip() {
    assert_eq!(
        read("The matatu does 8 km per litre. A return trip Nairobi to Thika is 90 km and diesel is KSh 180 a litre. How much does the diesel for one return trip cost?"),
        "90 / 8 * 180"
    );
    assert_eq!(
        read("I withdrew KSh 50,000, then paid KSh 12,750 for the brake pads and KSh 8,400 for insurance. What's left?"),
        "50000 - 12750 - 8400"
    );
}

#[test]
fn amounts_in_peruvian_soles_are_read() {
    assert_eq!(
        read("Add up $12.50, $8.90, $23.40 and $5.60 for me."),
        "50.4"
    );
    assert_eq!(
        read("Add up S/ 12.50, S/ 8.90, S/ 23.40 and S/ 5.60 for me."),
        "50.4"
    );
    assert_eq!(
        read("If I sell 35 panetones at S/ 42 each, how much do I make?"),
        "35 * 42"
    );
}

#[test]
fn a_pack_said_by_its_count_money_lent_and_profit_when_all_sold() {
    assert_eq!(
        read("I bought a 12-pack of Maggi for ₹168. How much is that per packet?"),
        "168 / 12"
    );
    assert_eq!(
        read("i lent rohan two thousand five hundred rupees for the goa trip he gave back eight hundred last week and six hundred and fifty today how much does he still owe me"),
        "2500 - 800 - 650"
    );
    assert_eq!(
        read("for the college fest our stall made forty cups of cold coffee each cup cost us eighteen rupees to make and we sold all of them at forty rupees a cup whats our profit"),
        "40 * (40 - 18)"
    );
}

#[test]
fn a_total_up_pay_per_mile_a_ticket_there_and_back_and_a_numbered_tram() {
    assert_eq!(
        read("Total up my driving hours this week: 11.5, 9.75, 12.25, 10 and 8.5."),
        "52"
    );
    assert_eq!(
        read("I get paid 64 cents a mile. This week I drove 2,375 miles. What's my gross pay?"),
        "2375 * 64/100"
    );
    assert_eq!(
        read("okay so the tram ticket bought on board is three euros ten and i ride to the ribeira market and back five days a week how much is that a week"),
        "3.10 * 2 * 5 * 1"
    );
    let asked = super::conversion("okay so the twenty eight tram crawls along at about fifteen kilometres an hour whats that in miles per hour").unwrap();
    assert_eq!((asked.value, asked.to.as_str()), (15.0, "miles per hour"));
}

#[test]
fn a_list_with_a_unit_then_more_and_a_temperature_before_a_clock_time() {
    assert_eq!(
        read("my bingo winnings the last six weeks were twelve pound then thirty five then eight then twenty then fifteen and then forty whats the median"),
        "17.5"
    );
    let asked = super::conversion("The wee thermometer on the kitchen window said -4°C when I left for my work at six. What's that in Fahrenheit?").unwrap();
    assert_eq!((asked.value, asked.to.as_str()), (-4.0, "Fahrenheit"));
    let asked =
        super::conversion("The espresso machine brews at 9 bar. What's that in psi?").unwrap();
    assert_eq!((asked.value, asked.to.as_str()), (9.0, "psi"));
    let asked = super::conversion("gas for the tricycle i put in four liters earlier my balikbayan passenger asked how many us gallons that is").unwrap();
    assert_eq!((asked.value, asked.from.as_str()), (4.0, "liters"));
}

/// What the calculator gives for `text`.
fn calculated(text: &str) -> Result<f64, crate::ToolError> {
    crate::math::calculate(crate::math::CalculateArgs {
        expression: text.to_string(),
    })
    .map(|out| out.result)
}

#[test]
fn a_computation_among_words_of_another_tongue_is_read() {
    for (said, value) in [
        ("nine thousand six hundred divided by twelve berapa ah", 800.0),
        ("oya wetin be eighteen thousand five hundred minus nine thousand seven hundred and fifty", 8750.0),
        ("okay so three hundred forty five plus two hundred eighteen plus ninety seven berapa", 660.0),
    ] {
        assert_eq!(calculated(said).ok(), Some(value), "{said}");
    }
    assert_eq!(
        lone_computation("oya wetin be 18500 - 9750"),
        Some("18500 - 9750")
    );
    assert_eq!(lone_computation("10 - 2 and then double it"), None);
    assert_eq!(lone_computation("3 + 4 and 5 + 6"), None);
    assert_eq!(lone_computation("sqrt 16 + 2"), None);
    assert_eq!(
        lone_computation("shop is giving 4200*(1-15/100) battery. How much is the discount"),
        None
    );
}

#[test]
fn an_amount_then_how_many_of_another_unit_is_a_conversion() {
    for (said, from, to, value) in [
        (
            "the coconut milk recipe say eight ounces how many grams lah",
            "ounces",
            "grams",
            8.0,
        ),
        (
            "um fifteen pounds how many kilograms be that my brother dey weigh the box",
            "pounds",
            "kilograms",
            15.0,
        ),
        (
            "My son's new fish tank is 10 US gallons. How many litres of water do I need to fill it?",
            "gallons",
            "litres",
            10.0,
        ),
    ] {
        let asked = super::conversion(said).expect(said);
        assert_eq!(
            (asked.from.as_str(), asked.to.as_str(), asked.value),
            (from, to, value)
        );
    }
    assert!(super::conversion("8 ounces how many cups of tea i had").is_none());
}

#[test]
fn shares_markups_millions_and_packs_of_everyday_sums() {
    let read = |text: &str| calculated(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(
        read("I made R42,000 from catering this year and R10,500 of it came from weddings. What percentage is that?"),
        25.0
    );
    assert_eq!(
        read("a case of cooldrinks costs me one hundred and eighty rand and i put thirty five percent on top what must i sell the case for"),
        243.0
    );
    assert_eq!(
        read("my shop rent was eight hundred thousand naira now landlord wan collect one point one million wetin be the percentage increase"),
        37.5
    );
    assert_eq!(
        read("I'm catering a funeral for 180 people, 2 pieces of chicken each. The chicken comes in packs of 8 pieces. How many packs do I need?"),
        45.0
    );
    assert_eq!(
        read("We need 50 cups and they come in packs of 12. How many packs?"),
        5.0
    );
    let bills = read(
        "add up the kai bills for the week a hundred and twelve dollars forty eighty seven \
         dollars sixty five and sixty three dollars twenty",
    );
    assert!((bills - 263.25).abs() < 1e-9, "{bills}");
    let fuel = read(
        "Dunedin is 360 km each way from the farm. The ute does 9.5 L/100 km and diesel is \
         $2.15 a litre. What's the diesel cost for the round trip to see my daughter?",
    );
    assert!((fuel - 147.06).abs() < 0.01, "{fuel}");
    assert_eq!(
        share_of_two("My rent went from 1200 to 1350 what percent is that"),
        None
    );
}

#[test]
fn sums_shares_and_lists_said_among_a_days_words() {
    let read = |text: &str| calculated(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(
        read(
            "Morning temperatures this week were -8, -3, 5, -12, 2, -6 and 0 °F. What's the range?"
        ),
        17.0
    );
    assert_eq!(
        read("Kottu dinner with three friends after the cricket came to Rs. 4,320. Split between four of us, how much each?"),
        1080.0
    );
    assert_eq!(
        read(
            "Out of 80 pieces of cloth I sold this month, 28 were kente. What percent were kente?"
        ),
        35.0
    );
    assert_eq!(
        read("add these up for me a hundred twenty five plus eighty nine fifty plus two hundred ten plus sixty four"),
        488.5
    );
    assert_eq!(
        read("okay so add these for me ninety five cedis one hundred and twenty cedis sixty seven cedis fifty pesewas and two hundred and forty cedis"),
        522.5
    );
    assert_eq!(
        read("aney today i earned six thousand five hundred rupees petrol was one thousand four hundred and the lease payment is eight hundred a day how much is left for me"),
        4300.0
    );
    assert!(
        calculated("Out of 80 pieces of cloth, 28 were sold. What percent are left unsold?").ok()
            != Some(35.0)
    );
}

#[test]
fn a_question_told_then_asked_as_a_computation_is_the_computation() {
    assert_eq!(
        read("i sold eighteen juices at four fifty each how much is four fifty times eighteen"),
        "4.50 * 18"
    );
}

#[test]
fn the_discount_asked_for_is_the_amount_taken_off() {
    assert_eq!(
        read("The school fee is ₱18,500 and they give 5% off if we pay in full. How much is the discount?"),
        "18500*5/100"
    );
    assert_eq!(
        read(
            "The school fee is ₱18,500 and they give 5% off if we pay in full. How much do we pay?"
        ),
        "18500*(1-5/100)"
    );
}

#[test]
fn a_pack_sold_by_someone_else_by_the_piece() {
    assert_eq!(
        read("My wife buys a pack of 10 instant noodles for ₱135 and sells them at ₱16 each. What's her profit on the whole pack?"),
        "10 * 1 * 16 - 135"
    );
}

#[test]
fn batches_needed_for_a_count_are_rounded_up() {
    assert_eq!(
        read("One jug makes 8 glasses of juice. I need 150 glasses for my kids' school Christmas festival. How many jugs do I have to make?"),
        "19"
    );
    assert_eq!(
        read("each batch gives 24 cookies and we need 100 cookies how many batches should i bake"),
        "5"
    );
}

use super::*;

#[test]
fn thousands_said_short_or_in_a_list_are_written_out() {
    assert_eq!(
        in_digits("rent is 650k and 2.5K more"),
        "rent is 650000 and 2500 more"
    );
    assert_eq!(in_digits("a 15K race"), "a 15K race");
    assert_eq!(in_digits("eight grand"), "8000");
    assert_eq!(in_digits("i owe him a grand"), "i owe him 1000");
    assert_eq!(in_digits("the grand total"), "the grand total");
    assert_eq!(
        in_digits("how much does a grand piano weigh"),
        "how much does a grand piano weigh"
    );
    assert_eq!(in_digits("a grand a month"), "1000 a month");
    assert_eq!(
        in_digits("six thousand four thousand and three thousand five hundred"),
        "6000 4000 and 3500"
    );
    assert_eq!(
        in_digits("three thousand five hundred and eight thousand"),
        "3500 and 8000"
    );
    assert_eq!(in_digits("two million three hundred thousand"), "2300000");
    assert_eq!(in_digits("one point one million naira"), "1100000 naira");
    assert_eq!(in_digits("$2.75 billion"), "$2750000000");
    assert_eq!(
        in_digits("two thousand one hundred two thousand four hundred and fifty one thousand nine hundred and eighty and two thousand six hundred"),
        "2100 2450 1980 and 2600"
    );
    assert_eq!(
        in_digits("four hundred and fifty one thousand"),
        "451000",
        "a number's first scale takes all before it"
    );
}

#[test]
fn amounts_joined_to_their_unit_are_written_apart() {
    assert_eq!(amounts_apart("a 40-pound box"), "a 40 pound box");
    assert_eq!(amounts_apart("30-day terms"), "30 day terms");
    assert_eq!(amounts_apart("3-in-1 coffee"), "3-in-1 coffee");
}

#[test]
fn the_signs_are_those_of_the_currencies() {
    let mut of_currencies: Vec<char> = CURRENCIES
        .iter()
        .flat_map(|c| c.signs.iter().copied())
        .collect();
    let mut signs = CURRENCY_SIGNS.to_vec();
    of_currencies.sort_unstable();
    signs.sort_unstable();
    assert_eq!(of_currencies, signs);
}

#[test]
fn a_text_is_about_the_currency_it_names() {
    for (text, name) in [
        ("₦185,000 per term", Some("naira")),
        ("two thousand naira a yard", Some("naira")),
        ("20 bucks each", Some("dollars")),
        ("a 3 pound bag", Some("pounds")),
        ("15 percent off", None),
        ("the randy dog", None),
    ] {
        assert_eq!(currency_of(text).map(|c| c.many), name, "{text}");
    }
    assert!(is_currency("Naira") && is_currency("quid") && !is_currency("yard"));
    let names = Regex::new(&with_currencies(r"^(?:CURRENCIES)$")).unwrap();
    assert!(names.is_match("cedis") && names.is_match("dollar") && names.is_match("quid"));
    assert!(!names.is_match("won") && !names.is_match("pounds"));
}

#[test]
fn prices_read_out_are_written_in_digits() {
    for (said, written) in [
        (
            "an eighteen percent tip on sixty four fifty",
            "an eighteen percent tip on 64.50",
        ),
        (
            "a jacket on sale is eighty nine ninety nine",
            "a jacket on sale is 89.99",
        ),
        (
            "whats nineteen eighty four minus nineteen fifty",
            "whats nineteen eighty four minus nineteen fifty",
        ),
        ("at seventeen twenty an hour", "at 17.20 an hour"),
        (
            "at fifty two dollars and forty cents an hour",
            "at 52.40 dollars an hour",
        ),
        (
            "two dollars and three apples cost",
            "two dollars and three apples cost",
        ),
        (
            "fares were seven cedis fifty nine cedis eight cedis twenty",
            "fares were 7.50 cedis nine cedis 8.20 cedis",
        ),
        (
            "and at three twenty nine a gallon what did that cost me",
            "and at 3.29 a gallon what did that cost me",
        ),
        ("twenty seven fifty an hour?", "27.50 an hour?"),
        (
            "eighty seven pound fifty plus a hundred quid",
            "£87.50 plus a hundred quid",
        ),
        (
            "diesel went from three oh nine to three forty five a gallon",
            "diesel went from 3.09 to 3.45 a gallon",
        ),
        (
            "at nine oh five for 20 an hour",
            "at nine oh five for 20 an hour",
        ),
        (
            "from nine thirty to five fifteen at 20 dollars an hour",
            "from nine thirty to five fifteen at 20 dollars an hour",
        ),
        ("it cost four hundred and twelve thirty", "it cost 412.30"),
        (
            "start at nine thirty for 20 an hour",
            "start at nine thirty for 20 an hour",
        ),
        ("ten fifteen pm", "ten fifteen pm"),
        ("sixty four dollars", "sixty four dollars"),
        (
            "a bag is fourteen euro fifty and i go through nine bags a week",
            "a bag is 14.50 euro and i go through nine bags a week",
        ),
        (
            "it weighs five pounds twelve ounces each",
            "it weighs five pounds twelve ounces each",
        ),
        (
            "twenty five dollars an hour times thirty eight hours",
            "twenty five dollars an hour times thirty eight hours",
        ),
        (
            "forty two thirty eight fifty five",
            "forty two thirty eight fifty five",
        ),
        (
            "the trip is three twenty five and she handed me four hundred dollars how much change",
            "the trip is 325 and she handed me four hundred dollars how much change",
        ),
        (
            "a coffee is three twenty five and i paid with a hundred dollar bill whats my change",
            "a coffee is 3.25 and i paid with a hundred dollar bill whats my change",
        ),
        (
            "the trip is 3.25 and three twenty five and she handed me four hundred dollars change",
            "the trip is 3.25 and 325 and she handed me four hundred dollars change",
        ),
        (
            "lunch is four fifty a head and we have five hundred dollars how many can we feed",
            "lunch is 4.50 a head and we have five hundred dollars how many can we feed",
        ),
    ] {
        assert_eq!(prices_in_digits(said), written, "{said}");
    }
}

#[test]
fn years_said_in_pairs_are_written_in_digits() {
    assert_eq!(
        years_in_digits("Is twenty thirty-six a leap year"),
        "Is 2036 a leap year"
    );
    assert_eq!(
        years_in_digits("June 6th, nineteen forty four?"),
        "June 6th, 1944?"
    );
    assert_eq!(years_in_digits("in nineteen fifteen."), "in 1915.");
    assert_eq!(
        years_in_digits("in twenty five days"),
        "in twenty five days"
    );
    assert_eq!(years_in_digits("nineteen hundred"), "nineteen hundred");
}

#[test]
fn runs_of_number_words_are_written_in_digits() {
    let cases = [
        (
            "what is fifteen percent of eighty?",
            "what is 15 percent of 80?",
        ),
        ("Seventeen times twenty three", "17 times 23"),
        ("forty-two plus one hundred and five", "42 plus 105"),
        ("two thousand three hundred", "2300"),
        ("twelve thousand and one", "12001"),
        ("one lakh twenty thousand", "120000"),
        ("two crore fifty lakh", "25000000"),
        ("eighty seven thousand five hundred", "87500"),
        ("two point five times four", "2.5 times 4"),
        ("one, two, three", "1, 2, 3"),
        ("one two", "1 2"),
        ("the point is seven", "the point is 7"),
        ("a hundred kilos", "100 kilos"),
        (
            "the whole hundred and ninety two miles",
            "the whole 192 miles",
        ),
        ("hundred and", "hundred and"),
        ("a thousand and fifty", "1050"),
        ("a hundred point eight", "100.8"),
        (
            "three point five four point two two point eight and three point nine",
            "3.5 4.2 2.8 and 3.9",
        ),
        ("three point one four", "3.14"),
        (
            "two hundred and ten one hundred and eighty five two hundred and forty one hundred and ninety eight",
            "210 185 240 198",
        ),
        ("three hundred five hundred", "300 500"),
        ("two hundred and one hundred", "200 and 100"),
        ("twenty one hundred", "2100"),
        ("two thousand one hundred and five", "2105"),
        ("a hundred times a hundred", "100 times 100"),
        ("a few hundred", "a few hundred"),
        ("nothing to see", "nothing to see"),
        ("the twenty second of september", "the 22nd of september"),
        ("thirty-first of May?", "31st of May?"),
        ("twenty, first", "20, first"),
        (
            "six litres per hundred kilometres",
            "6 litres per 100 kilometres",
        ),
    ];
    for (said, written) in cases {
        assert_eq!(in_digits(said), written, "{said:?}");
    }
}

#[test]
fn a_whole_number_and_a_part_is_one_number() {
    for (said, written) in [
        ("6 and a half hours", "6.5 hours"),
        ("6 and 3 quarter hours", "6.75 hours"),
        ("2 and three quarters", "2.75"),
        ("1 and a quarter pounds", "1.25 pounds"),
        ("6 and 3 more", "6 and 3 more"),
        (
            "and a pound and a half of currants",
            "and 1.5 pound of currants",
        ),
        ("What about a dozen bags?", "What about 12 bags?"),
        ("half a dozen eggs", "6 eggs"),
        ("2 dozen rolls", "24 rolls"),
        ("eggs are £3 a dozen", "eggs are £3 a dozen"),
        ("eggs are 3 pounds a dozen", "eggs are 3 pounds a dozen"),
    ] {
        assert_eq!(with_parts(said), written, "{said:?}");
    }
}

#[test]
fn only_numbers_said_in_several_words_are_put_in_digits() {
    assert_eq!(
        long_numbers_in_digits("ive got three hundred and sixty dollars worth, the four of us"),
        "ive got 360 dollars worth, the four of us"
    );
    assert_eq!(
        long_numbers_in_digits("six nights at twenty five euros"),
        "six nights at 25 euros"
    );
    assert_eq!(
        long_numbers_in_digits("how much is seventeen times twenty three"),
        "how much is 17 times 23"
    );
    assert_eq!(
        long_numbers_in_digits("four fifty last fall and now three eighty seven"),
        "four fifty last fall and now three eighty seven"
    );
}

//! Conversions asked in words: an amount in a unit and the unit wanted,
//! as written (`3 m in ft`) or said (`How many cups are in a gallon?`,
//! `I weigh 70 kilograms. How many pounds is that?`), and the answer said
//! in the question's own words for the units.

use super::*;

/// A conversion written as an expression: `3 m in ft`, `26.2 miles to km`.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The amount.
    pub value: f64,
    /// The unit it is in.
    pub from: String,
    /// The unit wanted.
    pub to: String,
}

/// What a question about an amount starts with: dropped before reading it.
static QUESTION_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:(?:what|how\s+much|how\s+tall|how\s+far|how\s+long|how\s+heavy|how\s+big)\s+(?:is|are)|what's|convert|change|turn)\s+",
    )
    .expect("a valid regex")
});

/// `a 15K race`, `a 5k run`: kilometers.
static RACE_K: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*k\s+(race|run|walk|fun run)\b").expect("a valid regex")
});

/// `an hour and a half`, `a cup and a half`, `a pound and a quarter`,
/// `a mile and three quarters`: one of the unit and a part of another.
static ONE_AND_A_HALF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|an|one)\s+([a-z]+)\s+and\s+(a|three)\s+(half|quarters?)\b")
        .expect("a valid regex")
});

/// A unit's name for more than one of it: `foot` → `feet`, `hour` → `hours`.
fn plural_unit(unit: &str) -> String {
    match unit.to_lowercase().as_str() {
        "foot" => "feet".into(),
        "inch" => "inches".into(),
        lower if lower.ends_with('s') => unit.to_string(),
        _ => format!("{unit}s"),
    }
}

/// An amount that is a fraction of a unit: `a quarter cup`, `three
/// quarters of a cup`, `a third of a mile`.
/// `3/4 of a cup`, `1/2 cup`: a fraction written with a slash.
static SLASH_FRACTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)/(\d+)\s+(?:of\s+(?:a|an)\s+)?").expect("a valid regex")
});

static FRACTION_AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:({PARTS})\s+)({FRACTION})\s+(?:of\s+(?:a|an)\s+)?"
    ))
    .expect("a valid regex")
});

/// `minus 40 degrees`, `negative 3 meters`: an amount below zero.
static BELOW_ZERO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:minus|negative)\s+(\d)").expect("a valid regex"));

/// `half a cup`, `half an hour`.
static HALF_A: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bhalf\s+(?:a|an)\s+").expect("a valid regex"));

/// `3 m in ft`, `26.2 miles to kilometers`.
static AMOUNT_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(-?[\d,]*\.?\d+)\s*([a-zµ°/²³ .]+?)\s+(?:in|to|into|as|and)\s+([a-zµ°/²³ .]+?)\s*$",
    )
    .expect("a valid regex")
});

/// `how many cups are in a gallon`, `how many ounces in 2 pounds`, `how
/// many gallons fit in the 20 litre boiler`.
static HOW_MANY_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*how\s+many\s+([a-zµ°/²³ .]+?)\s+(?:are\s+there\s+|are\s+|is\s+|make\s+up\s+|(?:will\s+|would\s+|can\s+|do\s+)?(?:fit|go)\s+)?(?:in|into|per|to)\s+(?:(?:the|my|our|this|that)\s+)?(?:a|an|one|(-?[\d,]*\.?\d+))\s*([a-zµ°/²³ .]+?)\s*$",
    )
    .expect("a valid regex")
});

/// `how many kilometers is 26.2 miles`.
static HOW_MANY_IS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*how\s+many\s+([a-zµ°/²³ .]+?)\s+(?:is|are|makes?)\s+(?:(?:an?\s+)?(-?[\d,]*\.?\d+)|a|an|one)\s*([a-zµ°/²³ .]+?)\s*$",
    )
    .expect("a valid regex")
});

/// `5 foot 10`, `6 feet 2 inches`, `5 ft 4 in`: a height in inches.
static FEET_AND_INCHES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(\d+)\s*(?:foot|feet|ft)\s+(?:and\s+)?(\d+(?:\.\d+)?)(?:\s*(?:inches|inch|in)\b)?",
    )
    .expect("a valid regex")
});

/// `2 stone 9 pounds`, `15 stone 4`: a weight in pounds.
static STONE_AND_POUNDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s*(?:stone|st)\s+(?:and\s+)?(\d+(?:\.\d+)?)(?:\s*(?:pounds?|lbs?)\b)?")
        .expect("a valid regex")
});

/// `2 lb 6 oz`, `7 pounds 4 ounces`: a weight in ounces.
static POUNDS_AND_OUNCES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+)\s*(?:pounds?|lbs?)\s+(?:and\s+)?(\d+(?:\.\d+)?)\s*(?:ounces?|oz)\b")
        .expect("a valid regex")
});

/// `a 12 ounce can of soda`, `a 2 liter bottle`: the amount, without the
/// container it comes in.
static IN_A_CONTAINER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:a|an)\s+(\d+(?:\.\d+)?)[\s-]*([a-z]+)\s+(?:can|bottle|glass|carton|jar|bag|box|pack|jug|mug|tub|tin|package)\b")
        .expect("a valid regex")
});

/// `How many pounds is that?`, `What's that in miles?`: a question about
/// an amount given in the sentence before.
static THAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)^(.*[^\d.-])?(-?\d+(?:\.\d+)?)\s*°?\s*((?:{UNIT})(?:\s+(?:fahrenheit|celsius))?)(?:[^.!?]*[.!?]|[^.!?\d]*?[,;]?)\s+(?:how\s+many\s+([a-z/ ]+?)\s+(?:(?:is|are)\s+)?that(?:\s+(?:is|are|makes))?|(?:what|how\s+(?:much|fast|far|long|heavy|tall|big|hot|cold))(?:\s+is|'s)\s+that\s+in\s+([a-z/ ]+?))\s*$"))
        .expect("a valid regex")
});

/// `imperial`, `UK` or `British` said apart from a unit (`250 gallons,
/// imperial`).
static IMPERIAL_SAID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:imperial|uk|british)\b").expect("a valid regex"));

/// A gallon, quart, pint or fluid ounce, and the system it is said in.
static MEASURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b((?:us|imperial|uk|british)\s+)?(gallons?|quarts?|pints?|fluid\s+ounces?)\b")
        .expect("a valid regex")
});

/// `text` with its gallons, quarts, pints and fluid ounces made imperial
/// when it says `imperial` (or `UK`, `British`) anywhere, before one of
/// them or apart (`a four pint carton, that's imperial pints`), and `US`
/// before none: a gallon is a US gallon otherwise.
fn in_imperial_measures(text: &str) -> std::borrow::Cow<'_, str> {
    let us_said = MEASURE
        .captures_iter(text)
        .filter_map(|m| m.get(1))
        .any(|system| system.as_str().trim().eq_ignore_ascii_case("us"));
    if us_said || !IMPERIAL_SAID.is_match(text) {
        return text.into();
    }
    MEASURE.replace_all(text, |found: &Captures| match found.get(1) {
        Some(_) => found[0].to_string(),
        None => format!("imperial {}", &found[2]),
    })
}

/// `um`, `okay so`, `quick one`: sounds and words before a question.
static FILLERS_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)^\s*(?:{}[,\s]+)+", super::FILLER)).expect("a valid regex")
});

/// `one bale of salaula is 45 kilos`: `one` as an article before a thing
/// that is not a unit.
static ONE_THING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(\s*)one\s+([a-z]+)\b").expect("a valid regex"));

/// `in his miles per hour`: the unit wanted, named as someone's.
static OWNED_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bin\s+(?:his|her|my|our|their|your)\s+").expect("a valid regex")
});

/// `american gallons`: the US measures.
static AMERICAN_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bamerican\s+(gallons?|quarts?|pints?|cups?|fluid\s+ounces?|tons?)\b")
        .expect("a valid regex")
});

/// The conversion `text` asks for, if it is one: an amount in a unit to
/// another unit, as written (`3 m in ft`) or asked (`How many cups are in
/// a gallon?`, `What is 70 degrees Fahrenheit in Celsius?`, `I weigh 70
/// kilograms. How many pounds is that?`).
pub fn conversion(text: &str) -> Option<Conversion> {
    if let Some(at) = text.find('?') {
        let (asked, after) = text.split_at(at + 1);
        let told_after = !after.trim().is_empty()
            && !crate::numbers::in_digits(after).contains(|c: char| c.is_ascii_digit());
        if let Some(asked) = told_after.then(|| conversion(asked)).flatten() {
            return Some(asked);
        }
    }
    let text = FILLERS_FIRST.replace(text, "");
    let text = NUMBERED_NAME.replace_all(&text, |found: &Captures| {
        let number = crate::numbers::in_digits(found[1].trim());
        match number.parse::<f64>() {
            Ok(_) => format!("the {}", &found[2]),
            Err(_) => found[0].to_string(),
        }
    });
    let text = ONE_THING.replace(&text, |found: &Captures| match named_unit(&found[2]) {
        Some(_) => found[0].to_string(),
        None => format!("{}a {}", &found[1], &found[2]),
    });
    let text = OF_MERCURY.replace_all(&text, |found: &Captures| {
        match found[1].to_lowercase().starts_with("inch") {
            true => "inHg",
            false => "mmHg",
        }
    });
    let text = OWNED_UNIT.replace_all(&text, "in ");
    let text = AMERICAN_UNIT.replace_all(&text, "us $1");
    let text = crate::numbers::amounts_apart(&text);
    let text = text.as_str();
    let whole = as_a_whole(text);
    let known =
        |asked: &Conversion| named_unit(&asked.from).is_some() && named_unit(&asked.to).is_some();
    match whole {
        Some(asked) if known(&asked) => Some(asked),
        whole => asked_last(text)
            .or_else(|| asked_then_told(text))
            .or_else(|| in_its_own_sentence(text))
            .or_else(|| told_then_how_many(text))
            .or(whole)
            .or_else(|| {
                let digits = crate::numbers::in_digits(text);
                a_temperature_unnamed(
                    BELOW_ZERO
                        .replace_all(&digits, "-$1")
                        .trim_end_matches(['?', '.', '!']),
                )
            })
            .or_else(|| with_a_clause_after(text)),
    }
}

/// An amount told, then the unit wanted asked with "how many", and words
/// after it that only say why or who for (`the coconut milk recipe say
/// eight ounces how many grams lah`, `fifteen pounds how many kilograms be
/// that my brother dey weigh the box`).
static TOLD_THEN_HOW_MANY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(-?\d[\d,]*(?:\.\d+)?)\s*([a-z]+(?:\s+[a-z]+)?)[.,!?]?\s+how\s+many\s+([a-z]+(?:\s+[a-z]+)?)")
        .expect("a valid regex")
});

/// The conversion of [`TOLD_THEN_HOW_MANY`] in a text with one number:
/// each unit in two words or one, of one kind.
fn told_then_how_many(text: &str) -> Option<Conversion> {
    let digits = crate::numbers::in_digits(text);
    if NUMBER.find_iter(&digits).count() != 1 {
        return None;
    }
    let found = TOLD_THEN_HOW_MANY.captures(&digits)?;
    let value: f64 = found[1].replace(',', "").parse().ok()?;
    let (told, wanted) = (&found[2], &found[3]);
    let told = [Some(told), told.split_whitespace().last()];
    let wanted = [Some(wanted), wanted.split_whitespace().next()];
    told.iter().flatten().find_map(|from| {
        wanted.iter().flatten().find_map(|to| {
            let asked = Conversion {
                value,
                from: named_unit(from)?.said,
                to: named_unit(to)?.said,
            };
            of_one_kind(&asked).then_some(asked)
        })
    })
}

/// The conversion asked before a clause that says why, with no full stop
/// between (`whats 90 kilometres an hour in miles an hour a yank asked
/// me`): the text up to one to three words after an `in`, longest first,
/// whose two units are of one kind.
fn with_a_clause_after(text: &str) -> Option<Conversion> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .iter()
        .enumerate()
        .filter(|(_, word)| word.eq_ignore_ascii_case("in"))
        .find_map(|(at, _)| {
            (1..=3).rev().find_map(|n| {
                let end = at + 1 + n;
                (end < words.len())
                    .then(|| as_a_whole(&words[..end].join(" ")))
                    .flatten()
                    .filter(of_one_kind)
            })
        })
}

/// `inches of mercury`, `millimetres of mercury`: a pressure named in
/// three words, written as its one-word name (`inHg`, `mmHg`).
static OF_MERCURY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(inch(?:es)?|millimet(?:er|re)s?|mm)\s+of\s+mercury\b")
        .expect("a valid regex")
});

/// `the 28 tram`, `the twenty eight tram`, `the 9 bus`: a number that
/// names a thing, no amount (when the words before the thing are a
/// number).
static NUMBERED_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bthe\s+((?:[a-z0-9-]+\s+){1,3}?)(tram|bus|train|route|line|highway|platform|gate|flight)\b")
        .expect("a valid regex")
});

/// How a question begins: what it asks starts there.
static ASKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:what(?:'s|s|\s+is|\s+are)|how\s+(?:many|much)|convert)\s")
        .expect("a valid regex")
});

/// The conversion the last question of `text` asks, when words come
/// before it that tell the amount too (`mechanic says put thirty five psi
/// in the tyres but my gauge reads bar what is thirty five psi in bar`):
/// the question tells its amount, and both its units are known and of one
/// kind.
fn asked_last(text: &str) -> Option<Conversion> {
    let last = ASKING.find_iter(text).last()?;
    let asked = &text[last.start()..];
    let tells_an_amount = crate::numbers::in_digits(asked).contains(|c: char| c.is_ascii_digit());
    if last.start() == 0 || !tells_an_amount {
        return None;
    }
    as_a_whole(asked).filter(of_one_kind)
}

/// `how many miles … It's about 310 km`: a unit asked for, then the
/// amount told in another.
static ASKED_THEN_TOLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhow\s+many\s+([a-z]+)\b[^.?!]*[.?!]\s+(?:it'?s|it\s+is|that'?s|thats)\s+(?:(?:about|around|roughly|nearly|almost|over|under|just|some)\s+)*(-?\d[\d,]*(?:\.\d+)?)\s*([a-z]+)\b")
        .expect("a valid regex")
});

/// The conversion asked when a question names the unit it wants and the
/// sentence after it tells the amount in another (`A passenger asked how
/// many miles it is from Nairobi to Eldoret. It's about 310 km.`).
fn asked_then_told(text: &str) -> Option<Conversion> {
    let digits = crate::numbers::in_digits(text);
    let found = ASKED_THEN_TOLD.captures(&digits)?;
    let value = found[2].replace(',', "").parse().ok()?;
    let asked = Conversion {
        value,
        from: found[3].to_string(),
        to: found[1].to_string(),
    };
    of_one_kind(&asked).then_some(asked)
}

/// The end of a sentence, before the next.
static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[.!?]\s+").expect("a valid regex"));

/// The conversion the one sentence of `text` that holds its one number
/// asks for, when the others only say why (`Convert 34 degrees Celsius
/// to Fahrenheit. A passenger asked me how hot it is today.`).
fn in_its_own_sentence(text: &str) -> Option<Conversion> {
    let digits = crate::numbers::in_digits(text);
    let sentences: Vec<&str> = SENTENCE_END
        .split(&digits)
        .filter(|s| !s.trim().is_empty())
        .collect();
    if sentences.len() < 2 || NUMBER.find_iter(&digits).count() != 1 {
        return None;
    }
    let with_number = sentences
        .iter()
        .find(|s| NUMBER.is_match(s.trim_end_matches(['.', '?', '!'])))?;
    as_a_whole(with_number.trim())
}

/// `… what's that in Fahrenheit` (or Celsius) at the end of a text whose
/// one number has no unit, before a clause that says who for or why (`…
/// how much is that in fahrenheit for my buddy in boston`): a temperature
/// said on the other scale (`it's minus 15 out here in Toronto, what's
/// that in Fahrenheit`).
static TEMPERATURE_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:what(?:'s|s|\s+is)|how\s+(?:much|cold|hot|warm)\s+is|wants?|needs?|asked\s+for)\s+(?:that|it|this)\s+in\s+(?:degrees\s+)?(fahrenheit|celsius|centigrade)\b(?:\s+(?:for|so|because|cause|cos|since|as|my)\b[^0-9]*)?\s*$")
        .expect("a valid regex")
});

/// The conversion of [`TEMPERATURE_ASKED`].
fn a_temperature_unnamed(text: &str) -> Option<Conversion> {
    let to = TEMPERATURE_ASKED.captures(text)?[1].to_string();
    let mut numbers = NUMBER.find_iter(text);
    let (number, None) = (numbers.next()?, numbers.next()) else {
        return None;
    };
    let after = text[number.end()..].trim_start_matches(['°', ' ']);
    let unit_after = after
        .split_whitespace()
        .take(2)
        .map(|w| w.trim_end_matches(['.', ',', '?', '!', ';']))
        .find(|w| !w.starts_with("degree"))
        .is_some_and(|w| !w.eq_ignore_ascii_case("in") && named_unit(w).is_some());
    if unit_after {
        return None;
    }
    let negative = text[..number.start()].trim_end().ends_with('-');
    let value: f64 = number.as_str().parse().ok()?;
    let from = match to.to_lowercase().as_str() {
        "fahrenheit" => "celsius",
        _ => "fahrenheit",
    };
    Some(Conversion {
        value: if negative { -value } else { value },
        from: from.into(),
        to,
    })
}

/// `60 feet by 45 feet`, `4 m x 3 m`: the sides of a rectangle.
static SIDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s*(feet|foot|ft|yards?|yds?|meters?|metres?|m|inch|inches)?\s+(?:by|x|×)\s+(\d+(?:\.\d+)?)\s*(feet|foot|ft|yards?|yds?|meters?|metres?|m|inch|inches)\b")
        .expect("a valid regex")
});

/// Words that ask for an area.
static AREA_ASKED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:square|sq|area|acres?|hectares?)\b|m²|ft²").expect("a valid regex")
});

/// The conversion `text` asks for as a whole.
fn as_a_whole(text: &str) -> Option<Conversion> {
    let text = WHAT_IS_IT.replace(text, "");
    let text = crate::numbers::in_digits(&text);
    let text = THOUSANDS.replace_all(&text, |found: &Captures| found[1].replace(',', ""));
    let text = SLASH_FRACTION.replace_all(&text, |found: &Captures| {
        let (parts, whole): (f64, f64) = (
            found[1].parse().unwrap_or(0.0),
            found[2].parse().unwrap_or(0.0),
        );
        match whole > 0.0 {
            true => format!("{} ", parts / whole),
            false => found[0].to_string(),
        }
    });
    let text = in_imperial_measures(&text);
    let text = text.trim().trim_end_matches(['?', '.', '!']);
    let text = FEET_AND_INCHES.replace_all(text, |found: &Captures| {
        let feet: f64 = found[1].parse().unwrap_or(0.0);
        let inches: f64 = found[2].parse().unwrap_or(0.0);
        format!("{} inches", feet * 12.0 + inches)
    });
    let text = match AREA_ASKED.is_match(&text) {
        true => SIDES.replace_all(&text, |found: &Captures| {
            let a: f64 = found[1].parse().unwrap_or(0.0);
            let b: f64 = found[3].parse().unwrap_or(0.0);
            let unit = found.get(2).or(found.get(4)).map_or("", |u| u.as_str());
            let unit = match unit.to_lowercase().as_str() {
                "foot" | "feet" | "ft" => "feet",
                "yard" | "yards" | "yd" | "yds" => "yards",
                "inch" | "inches" | "in" => "inches",
                _ => "meters",
            };
            format!("{} square {unit}", a * b)
        }),
        false => text,
    };
    let text = STONE_AND_POUNDS.replace_all(&text, |found: &Captures| {
        let stone: f64 = found[1].parse().unwrap_or(0.0);
        let pounds: f64 = found[2].parse().unwrap_or(0.0);
        format!("{} pounds", stone * 14.0 + pounds)
    });
    let text = POUNDS_AND_OUNCES.replace_all(&text, |found: &Captures| {
        let pounds: f64 = found[1].parse().unwrap_or(0.0);
        let ounces: f64 = found[2].parse().unwrap_or(0.0);
        format!("{} ounces", pounds * 16.0 + ounces)
    });
    let text = BELOW_ZERO.replace_all(&text, "-$1");
    let text = text.as_ref();
    if let Some(found) = THAT.captures(text) {
        let digits = crate::numbers::in_digits(text);
        let words: Vec<&str> = digits.split(char::is_whitespace).collect();
        // `at 6`, `at 7:30`: a clock time, no amount (not `at 65 miles`).
        let a_time = |i: usize| {
            let hour = words[i].trim_end_matches(['.', ',', '?', '!']);
            let clock = hour.contains(':') || hour.parse::<u8>().is_ok_and(|h| h <= 12);
            let unit_after = words.get(i + 1).is_some_and(|next| {
                named_unit(next.trim_end_matches(['.', ',', '?', '!'])).is_some()
            });
            i > 0 && words[i - 1].eq_ignore_ascii_case("at") && clock && !unit_after
        };
        let given = words.iter().enumerate().filter(|(i, w)| {
            w.trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_digit())
                && !a_time(*i)
        });
        // `Two sticks of butter are 8 ounces`: the amount said of what
        // was counted.
        let said_of_a_count = found.get(1).is_some_and(|before| {
            let last = before.as_str().split_whitespace().last().unwrap_or("");
            matches!(
                last.to_lowercase().as_str(),
                "is" | "are" | "weighs" | "weigh" | "makes" | "make" | "equals" | "equal"
            )
        });
        let given = given.count();
        if given != 1 && !(given == 2 && said_of_a_count) {
            return None;
        }
        let to = found.get(4).or(found.get(5))?.as_str();
        let asked = conversion(&format!("{} {} in {to}", &found[2], &found[3]));
        if asked.as_ref().is_some_and(of_one_kind) {
            return asked;
        }
    }
    let text = IN_A_CONTAINER.replace_all(text, "$1 $2");
    let text = RACE_K.replace_all(&text, "$1 km $2");
    let text = crate::numbers::with_parts(&text);
    let text = ONE_AND_A_HALF.replace_all(&text, |found: &Captures| {
        let part = match (&found[2].to_lowercase()[..], &found[3].to_lowercase()[..]) {
            (_, "half") => 0.5,
            ("three", _) => 0.75,
            _ => 0.25,
        };
        format!("{} {}", 1.0 + part, plural_unit(&found[1]))
    });
    let text = FRACTION_AMOUNT.replace_all(&text, |found: &Captures| {
        let parts = found.get(1).map_or(Some(1), |n| numerator(n.as_str()));
        match parts {
            Some(parts) => format!(
                "{} ",
                parts as f64 / f64::from(fraction_denominator(&found[2]))
            ),
            None => found[0].to_string(),
        }
    });
    let text = HALF_A.replace_all(&text, "0.5 ");
    let text = QUESTION_START.replace(&text, "");
    let amount = |written: Option<regex::Match>| match written {
        Some(n) => n.as_str().replace(',', "").parse().ok(),
        None => Some(1.0),
    };
    let (value, from, to) = if let Some(found) = AMOUNT_IN.captures(&text) {
        (
            amount(found.get(1))?,
            found[2].to_string(),
            found[3].to_string(),
        )
    } else if let Some(found) = HOW_MANY_IN.captures(&text) {
        (
            amount(found.get(2))?,
            found[3].to_string(),
            found[1].to_string(),
        )
    } else if let Some(found) = HOW_MANY_IS.captures(&text) {
        (
            amount(found.get(2))?,
            a_unit_before_its_thing(&found[3]),
            found[1].to_string(),
        )
    } else {
        return loose(&text);
    };
    let (from, to) = (unit_words(&from), unit_words(&to));
    if from.eq_ignore_ascii_case("percent") || from.split_whitespace().any(is_operator_word) {
        return None;
    }
    let known = |said: String| named_unit(&said).map_or(said, |unit| unit.said);
    Some(Conversion {
        value,
        from: known(from),
        to: known(to),
    })
}

/// `ounce agua fresca` → `ounce`: the unit a thing is measured in, said
/// before the thing (`a 32 ounce agua fresca`); the words as they are
/// when no shorter run of them is a unit.
fn a_unit_before_its_thing(words: &str) -> String {
    if named_unit(words).is_some() {
        return words.to_string();
    }
    let all: Vec<&str> = words.split_whitespace().collect();
    (1..all.len())
        .rev()
        .map(|n| all[..n].join(" "))
        .find(|unit| named_unit(unit).is_some())
        .unwrap_or_else(|| words.to_string())
}

/// A last sentence that only asks for what the one before told (`… what
/// 55 mph is in kilometers per hour. What is it?`).
static WHAT_IS_IT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)[.!?]\s+(?:so\s+)?(?:what(?:'s|\s+is|s)|how\s+much\s+is)\s+(?:it|that)\s*\??\s*$",
    )
    .expect("a valid regex")
});

/// The unit a question wants, said anywhere: `how many pounds`, or `in
/// Celsius` or `how many metres per second` at its end.
static WANTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)(?:\bhow\s+many\s+({UNIT})\s+(?:is|are|was|were|would|will|does|do|should|could|can|shall|must|makes?|equals?|in|to)\b|\b(?:in|into|to)\s+({UNIT})\s*$|\bhow\s+many\s+({UNIT})\s*$)"
    ))
    .expect("a valid regex")
});

/// An amount in a unit: `450 grams`, `110 kilometers an hour`, `425
/// Fahrenheit`, `120 square feet`.
static AMOUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)(-?\d[\d,]*(?:\.\d+)?)\s*°?\s*({UNIT})")).expect("a valid regex")
});

/// A unit's name of one to four words (`US cups`, `miles per hour`,
/// `degrees Fahrenheit`, `kilometers an hour`).
const UNIT: &str = r"(?:degrees\s+)?(?:(?:square|sq\.?|cubic|cu\.?|fluid|fl\.?|us|imperial|british|uk|nautical)\s+){0,2}[a-z]+[²³]?(?:/[a-z]+|\s+(?:per|an|a)\s+[a-z]+)?";

/// A unit named in words: the longest reading first (`kilometers an hour`
/// as a speed before `kilometers`), without `US`.
pub(super) fn named_unit(words: &str) -> Option<NamedUnit> {
    let words = words.replace(" an ", " per ").replace(" a ", " per ");
    let words = match words.to_lowercase().starts_with("us ") {
        true => &words[3..],
        false => &words,
    };
    let mut said = words.to_string();
    loop {
        if let Some((dimension, unit)) = super::super::find_unit(&said) {
            return Some(NamedUnit {
                kind: dimension.name,
                symbol: unit.symbol,
                said,
            });
        }
        said = said.rsplit_once(' ')?.0.to_string();
    }
}

/// Whether both units of a conversion are known and of one kind.
fn of_one_kind(asked: &Conversion) -> bool {
    match (named_unit(&asked.from), named_unit(&asked.to)) {
        (Some(from), Some(to)) => from.kind == to.kind,
        _ => false,
    }
}

/// A unit found in words: its kind, its symbol, and the words that named it.
pub(super) struct NamedUnit {
    pub(super) kind: &'static str,
    pub(super) symbol: &'static str,
    said: String,
}

/// A conversion said loosely, when the text holds one number: an amount
/// in a unit anywhere (`The recipe wants 450 grams of mince.`) and the unit
/// wanted (`Roughly how many pounds is that?`, `What's 425 Fahrenheit in
/// Celsius?`), both units known and of one kind.
fn loose(text: &str) -> Option<Conversion> {
    if NUMBER.find_iter(text).count() != 1 {
        return None;
    }
    let found = AMOUNT.captures(text)?;
    if let Some(asked) = in_bare_degrees(text, &found[1], &found[2]) {
        return Some(asked);
    }
    let from = named_unit(&found[2])?;
    let wanted = WANTED
        .captures(text)
        .and_then(|wanted| named_unit(wanted.get(1).or(wanted.get(2)).or(wanted.get(3))?.as_str()));
    let to = match wanted {
        Some(unit) => unit,
        None => other_scale(text, &from).or_else(|| unit_asked_in(text, &from))?,
    };
    if from.kind != to.kind || from.symbol == to.symbol {
        return None;
    }
    Some(Conversion {
        value: found[1].replace(',', "").parse().ok()?,
        from: from.said,
        to: to.said,
    })
}

/// A temperature said in bare degrees, with one scale named elsewhere as
/// the one wanted (`it's 104 degrees outside, what's that in celsius`):
/// the amount is in the other scale.
fn in_bare_degrees(text: &str, amount: &str, unit: &str) -> Option<Conversion> {
    let unit = unit.to_ascii_lowercase();
    if !unit.starts_with("degree") || named_unit(&unit).is_some_and(|u| u.kind == "temperature") {
        return None;
    }
    let mut scales: Vec<NamedUnit> = scales_named(text).collect();
    scales.dedup_by(|a, b| a.symbol == b.symbol);
    let [to] = scales.as_slice() else {
        return None;
    };
    let from = match to.symbol {
        "C" => "fahrenheit",
        "F" => "celsius",
        _ => return None,
    };
    Some(Conversion {
        value: amount.replace(',', "").parse().ok()?,
        from: from.into(),
        to: to.said.clone(),
    })
}

/// `in UNIT` said before more words (`56 miles in kilometres, that's our
/// longest day`): the first unit of `said`'s kind and not `said` itself.
static IN_A_UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:in|into|to)\s+([a-z]+(?:\s+[a-z]+)?)").expect("a valid regex")
});

fn unit_asked_in(text: &str, said: &NamedUnit) -> Option<NamedUnit> {
    IN_A_UNIT
        .captures_iter(text)
        .filter_map(|found| named_unit(&found[1]))
        .find(|unit| unit.kind == said.kind && unit.symbol != said.symbol)
}

/// The other temperature scale `text` names, when `said` is a
/// temperature: `two hundred and thirty celsius … the dial only does
/// fahrenheit`.
fn other_scale(text: &str, said: &NamedUnit) -> Option<NamedUnit> {
    if said.kind != "temperature" {
        return None;
    }
    scales_named(text).find(|unit| unit.symbol != said.symbol)
}

/// The temperature scales `text` names by their whole names (`celsius`,
/// `fahrenheit`, `kelvin`), in order.
fn scales_named(text: &str) -> impl Iterator<Item = NamedUnit> + '_ {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|word| word.len() >= 6)
        .filter_map(named_unit)
        .filter(|unit| unit.kind == "temperature")
}

/// The answer to say for a conversion asked in words: `1 mile is 5280
/// feet.`, `70 degrees Fahrenheit is 21.11 degrees Celsius.`, in the
/// question's own words for the units.
pub fn converted(asked: &Conversion, result: f64) -> String {
    let degree = |unit: &str| unit.to_lowercase().starts_with("degree");
    let to = match degree(&asked.from) && !degree(&asked.to) {
        true => format!("degrees {}", asked.to),
        false => asked.to.clone(),
    };
    let said = number(result);
    let to = match said.as_str() {
        "1" => singular(&to),
        _ => to,
    };
    let from = match asked.value == 1.0 || !COUNTED_UNITS.contains(&asked.from.as_str()) {
        true => asked.from.clone(),
        false => plural_unit(&asked.from),
    };
    format!("{} {from} is {said} {to}.", number(asked.value))
}

/// Units said in the singular after an amount as an adjective (`a
/// 40-pound box`, `the 20-litre boiler`), said in the plural in an answer.
const COUNTED_UNITS: &[&str] = &[
    "litre",
    "liter",
    "pound",
    "kilo",
    "gallon",
    "mile",
    "foot",
    "inch",
    "ounce",
    "cup",
    "metre",
    "meter",
    "yard",
    "quart",
    "pint",
    "gram",
    "kilogram",
    "tonne",
    "ton",
    "acre",
    "hectare",
    "fathom",
    "furlong",
    "kilometre",
    "kilometer",
    "centimetre",
    "centimeter",
];

/// A unit's name for one of it: `feet` → `foot`, `cups` → `cup`.
pub(super) fn singular(unit: &str) -> String {
    let (head, last) = match unit.rsplit_once(' ') {
        Some((head, last)) => (format!("{head} "), last),
        None => (String::new(), unit),
    };
    let one = match last.to_lowercase().as_str() {
        "feet" => "foot".to_string(),
        "inches" => "inch".to_string(),
        "degrees" => "degree".to_string(),
        lower
            if [
                "ches", "shes", "xes", "sses", "zzes", "atoes", "ngoes", "eroes", "choes",
            ]
            .iter()
            .any(|end| lower.ends_with(end)) =>
        {
            last[..last.len() - 2].to_string()
        }
        lower
            if lower.len() > 3
                && lower.ends_with('s')
                && !lower.ends_with("ss")
                && !lower.ends_with("us") =>
        {
            last[..last.len() - 1].to_string()
        }
        _ => last.to_string(),
    };
    format!("{head}{one}")
}

/// A unit as named in a question, without the words around it
/// (`the`, `of`, `are there`).
fn unit_words(text: &str) -> String {
    let text = match text.to_ascii_lowercase().find(" of ") {
        Some(at) if at > 0 => &text[..at],
        _ => text,
    };
    text.split_whitespace()
        .filter(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "the" | "of" | "us" | "there"
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

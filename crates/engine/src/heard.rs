//! A spoken question as the tools that read questions want it: without
//! what people say around a request ("Um,", "Hey,", "Quick question,",
//! "Could you please", "I was wondering,", "please") and with an indirect
//! question put back in order ("can you tell me what time it is in Seoul"
//! asks "what time is it in Seoul"). Speech recognition writes all of it
//! down; none of it changes what is asked.

/// What may come before a request, longest first; each is dropped only
/// as whole words.
const OPENERS: &[&str] = &[
    "i was wondering",
    "kindly tell me",
    "please tell me",
    "do one thing",
    "kindly tell",
    "quick question",
    "quick one",
    "can you please tell me",
    "could you please tell me",
    "can you tell me",
    "could you tell me",
    "would you tell me",
    "do you know",
    "can you please",
    "could you please",
    "would you please",
    "can you",
    "could you",
    "would you",
    "i wonder",
    "excuse me",
    "alrighty",
    "alright",
    "righto",
    "right",
    "please",
    "kindly",
    "sorry",
    "okay",
    "hmm",
    "wait",
    "umm",
    "uhh",
    "erm",
    "g'day",
    "chale",
    "hiya",
    "like",
    "hey",
    "yo",
    "well",
    "so",
    "ok",
    "um",
    "uh",
    "er",
    "oh",
    "hi",
];

/// How a reason said after a request begins ("… minus forty two im
/// trying to see whats left after bills").
const REASONS: &[&str] = &[
    " im trying to ",
    " i'm trying to ",
    " i am trying to ",
    " i need it for ",
    " i need this for ",
    " i need to know for ",
    " because ",
    " cause ",
];

/// Someone the user speaks of after a request, in the same sentence, which
/// begins a reason ("… my daughter wants to check her homework", "… the
/// grandson wants to check his maths homework", "… thats
/// my grocery bills this week", "… my american coworker keeps asking").
static SOMEONE_AFTER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"[^.!?,:;]\s(?:(?:that'?s|it'?s\s+for)\s+my\s|(?:my|our|the)\s+(?:[a-z]+\s+)?(?:son|daughter|kids?|boy|girl|husband|wife|partner|boss|mum|mom|mam|mother|dad|father|teacher|friend|mate|sister|brother|grandson|granddaughter|grandkids?|nephew|niece|coworker|colleague|cousin|aunt|uncle|neighbou?r|roommate|passenger|customer)s?\s+(?:wants|needs|wanted|needed|asked|asks|keeps|says|say|said|told|is|was|has|had|reckons|thinks|swears)\b)")
        .expect("a valid regex")
});

/// What the user asks for, said after the request ("… for my maths
/// assignment", "… for my homework").
static FOR_MY_WORK: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\sfor\s+(?:my|our)\s+(?:[a-z]+\s+){0,2}(?:homework|assignment|exam|test|class|project|worksheet|report|essay|quiz)\b")
        .expect("a valid regex")
});

/// Checking an answer, said after the request ("… im double checking
/// the bake sale tally"): what follows says why, never what to compute,
/// even with a number in it (the "four h" club).
static CHECKING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\s(?:i'?m|i\s+am|just|only)\s+(?:double[- ]?)?check(?:ing)?\b")
        .expect("a valid regex")
});

/// `body` without a reason said after the request, when the reason gives
/// no number (a check of the answer aside) and the request keeps three
/// words or more.
fn without_a_reason(body: &str) -> Option<&str> {
    let lower = body.to_ascii_lowercase();
    let said_of_someone = SOMEONE_AFTER
        .find(&lower)
        .map(|found| found.start() + found.as_str().chars().next().map_or(0, char::len_utf8));
    let checking = CHECKING.find(&lower).map(|found| found.start());
    let at = REASONS
        .iter()
        .filter_map(|r| lower.find(r))
        .chain(said_of_someone)
        .chain(FOR_MY_WORK.find(&lower).map(|found| found.start()))
        .chain(checking)
        .min()?;
    let (kept, reason) = (&body[..at], &body[at..]);
    let numbered = |text: &str| {
        text.chars().any(|c| c.is_ascii_digit()) || !super::parse::number_words(text).is_empty()
    };
    let says_why = checking == Some(at) || !numbered(reason);
    (kept.split_whitespace().count() >= 3 && says_why).then_some(kept)
}

/// `text` without `suffix` at its end (ASCII case ignored), if it ends so.
fn without_suffix<'a>(text: &'a str, suffix: &str) -> Option<&'a str> {
    let at = text.len().checked_sub(suffix.len())?;
    let tail = text.get(at..)?;
    tail.eq_ignore_ascii_case(suffix).then(|| &text[..at])
}

/// A claim someone made, said after the question ("… my son reckons its
/// oxygen", "My roommate swears it's Brooklyn lol", "The young lad says
/// five.", "A customer from Manchester insists it's the Azores.").
static CLAIM_AFTER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?i)[\s,.;!?-]+(?:and\s+|but\s+|cos\s+|because\s+)?(?:my|our|the|a|an)\s+(?:[a-z']+\s+){0,4}?(?:reckons|says|said|thinks|swears|swore|insists|claims|bets|keeps\s+saying|is\s+convinced)\b[^?]*$")
        .expect("a valid regex")
});

/// `question` without a claim someone made, said after it, when three
/// words or more are left: a small model asked "what gas is most of the
/// air made of my son reckons its oxygen" repeats the claim.
pub fn without_a_claim(question: &str) -> Option<String> {
    let found = CLAIM_AFTER.find(question)?;
    let kept = question[..found.start()].trim();
    (kept.split_whitespace().count() >= 3).then(|| match kept.ends_with(['?', '.', '!']) {
        true => kept.to_string(),
        false => format!("{kept}?"),
    })
}

/// What may come after a request, each dropped only as whole words.
const TRAILERS: &[&str] = &[
    " can you tell me",
    " could you tell me",
    " thank you",
    " can you",
    " for me",
    " please",
    " thanks",
    " cheers",
    " ah",
    " eh",
    " love",
    " mate",
    " dear",
];

/// `question` without the words it opens with ("quick one", "okay",
/// "can you tell me").
pub fn without_openers(question: &str) -> &str {
    let mut rest = question.trim();
    'openers: loop {
        let lower = rest.to_lowercase();
        for opener in OPENERS {
            let whole_word = lower
                .strip_prefix(opener)
                .and_then(|after| after.chars().next())
                .is_some_and(|c| !c.is_alphanumeric() && c != '\'');
            if whole_word {
                rest = rest[opener.len()..].trim_start_matches([',', ' ', '.', '!', '-', '…']);
                continue 'openers;
            }
        }
        return rest;
    }
}

/// `question` without the words around the request, or `None` when it
/// has none (or nothing would be left).
pub fn request(question: &str) -> Option<String> {
    let question = question.trim();
    let mut rest = without_openers(question);
    let mut dropped = rest.len() != question.len();
    if let Some(asked) = after_a_preamble(rest) {
        rest = asked;
        dropped = true;
    }
    let end = rest.trim_end_matches(['?', '.', '!', ' ']);
    let mark = &rest[end.len()..];
    let mut body = end;
    if let Some(kept) = without_a_reason(body) {
        dropped = true;
        body = kept.trim_end_matches([',', ' ']);
    }
    while let Some(kept) = TRAILERS.iter().find_map(|t| without_suffix(body, t)) {
        dropped = true;
        body = kept.trim_end_matches([',', ' ']);
    }
    if let Some(kept) = without_a_reason(body) {
        dropped = true;
        body = kept;
    }
    let ordered = in_order(body);
    if (!dropped && ordered.is_none()) || body.is_empty() {
        return None;
    }
    let body = ordered.unwrap_or_else(|| body.to_string());
    let mark = if mark.trim().is_empty() {
        "?"
    } else {
        mark.trim()
    };
    let mut chars = body.chars();
    let first = chars.next()?.to_uppercase().collect::<String>();
    Some(format!("{first}{}{mark}", chars.as_str()))
}

/// Words of Caribbean and Scots speech that are no English word, with the
/// English word they stand for.
const DIALECT: &[(&str, &str)] = &[
    ("dat", "that"),
    ("dis", "this"),
    ("di", "the"),
    ("inna", "in"),
    ("wah", "what"),
    ("pon", "on"),
    ("wid", "with"),
    ("bout", "about"),
    ("whit", "what"),
    ("unsa", "what"),
    ("anong", "what"),
    ("oras", "time"),
];

/// `question` with the words of [`DIALECT`] said in English ("wah di time
/// inna grand cayman now" → "what the time in grand cayman now"), or
/// `None` when it has none. The tools that read questions are offered it
/// after the question as said.
pub fn in_plain_words(question: &str) -> Option<String> {
    let mut changed = false;
    let words: Vec<String> = question
        .split(' ')
        .map(|word| {
            let core = word.trim_matches(|c: char| !c.is_alphanumeric());
            let plain = DIALECT
                .iter()
                .find(|(said, _)| core.eq_ignore_ascii_case(said))
                .map(|(_, english)| *english);
            match plain {
                Some(english) if !core.is_empty() => {
                    changed = true;
                    word.replacen(core, english, 1)
                }
                _ => word.to_string(),
            }
        })
        .collect();
    changed.then(|| words.join(" "))
}

/// The one question of a text that also tells something in sentences
/// around it, when those sentences give no number the question does not
/// say itself: "Could you convert 12 feet to metres for me? That's my
/// new raised bed." asks the first; "I save 215 every payday. What's 215
/// x 26?" asks the second. `None` for a single sentence, several
/// questions, or told numbers the question needs.
pub fn asked_sentence(text: &str) -> Option<String> {
    let sentences = super::sentences::split_sentences(text);
    let mut questions = sentences.iter().filter(|s| s.ends_with('?'));
    let (Some(asked), None) = (questions.next(), questions.next()) else {
        return None;
    };
    if sentences.len() < 2 {
        return None;
    }
    let said = |sentence: &str| -> Vec<f64> {
        let digits = loopd_tools::numbers::in_digits(sentence);
        super::parse::numbers(&digits)
            .iter()
            .map(|n| n.value)
            .collect()
    };
    let in_question = said(asked);
    if in_question.is_empty() {
        return None;
    }
    let told_elsewhere = sentences
        .iter()
        .filter(|s| *s != asked)
        .flat_map(|s| said(s))
        .all(|n| in_question.contains(&n));
    told_elsewhere.then(|| asked.to_string())
}

/// The question after a clause that only says who asks or why, with no
/// number in it: "Grandpa wants to know, what's 6 to the power of 4?",
/// "My son's checking his homework: what's 5003 minus 2468?", "Quick one
/// while I'm doing the books: 27 times 48.".
fn after_a_preamble(text: &str) -> Option<&str> {
    let lower = text.to_lowercase();
    let starts_a_question = |at: usize| {
        let next = lower[at..].split_whitespace().next().unwrap_or("");
        let next = next.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        QUESTION_WORDS.contains(&next)
    };
    let sum_after = |at: usize| {
        let after = lower[at..].trim_start();
        let operator = after.split_whitespace().any(|w| {
            matches!(
                w,
                "times" | "plus" | "minus" | "divided" | "x" | "*" | "+" | "-" | "/"
            )
        });
        after.starts_with(|c: char| c.is_ascii_digit()) && operator
    };
    let marked = lower
        .match_indices([',', ':'])
        .find(|&(at, mark)| starts_a_question(at + 1) || (mark == ":" && sum_after(at + 1)))
        .map(|(at, _)| at);
    let unmarked = || {
        lower.match_indices(' ').map(|(at, _)| at).find(|&at| {
            let asks = lower[..at]
                .rsplit(' ')
                .next()
                .is_some_and(|w| ASKING.contains(&w));
            asks && starts_a_question(at + 1)
        })
    };
    let at = marked.or_else(unmarked)?;
    let preamble = &text[..at];
    let told = preamble.split_whitespace().count() >= 2 && !super::parse::has_numbers(preamble);
    told.then(|| text[at + 1..].trim_start())
}

/// The last word of a preamble said without a comma: "Leo wants to know
/// what …", "my daughter is asking how …".
const ASKING: &[&str] = &["know", "asking", "asks", "asked", "wondering", "wonders"];

/// How the question after a preamble begins.
const QUESTION_WORDS: &[&str] = &[
    "what", "what's", "whats", "how", "which", "who", "when", "where", "why",
];

/// An indirect question put back in order: "what time it is in Seoul" →
/// "what time is it in Seoul", "what 986 minus 499 is" → "what is 986
/// minus 499".
fn in_order(body: &str) -> Option<String> {
    let lower = body.to_lowercase();
    if !lower.starts_with("what ") {
        return None;
    }
    if lower.len() != body.len() {
        return None;
    }
    if let Some(at) = lower.find(" it is") {
        let after = &lower[at + " it is".len()..];
        if after.is_empty() || after.starts_with(' ') {
            return Some(format!(
                "{} is it{}",
                body.get(..at)?,
                body.get(at + " it is".len()..)?
            ));
        }
    }
    let asked = lower.strip_suffix(" is")?;
    let between = body.get("what ".len()..asked.len())?;
    (!between.trim().is_empty()).then(|| format!("What is {between}"))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_question_cut_short_is_no_indirect_question() {
        assert_eq!(super::in_order("What is"), None);
        assert_eq!(super::in_order("what is"), None);
        assert_eq!(super::in_order("what  is"), None);
        assert_eq!(super::in_order("What İs"), None);
        assert_eq!(
            super::in_order("what 986 minus 499 is").as_deref(),
            Some("What is 986 minus 499")
        );
    }

    #[test]
    fn dialect_words_are_said_in_english() {
        assert_eq!(
            in_plain_words("wah di time inna grand cayman now mi bredda work pon a boat out deh")
                .as_deref(),
            Some("what the time in grand cayman now mi bredda work on a boat out deh")
        );
        assert_eq!(
            in_plain_words("how many square feet dat?").as_deref(),
            Some("how many square feet that?")
        );
        assert_eq!(in_plain_words("What time is it in London?"), None);
        assert_eq!(in_plain_words("the distance in km"), None);
    }

    use super::*;

    #[test]
    fn words_after_a_request_are_dropped_whatever_comes_before_them() {
        assert_eq!(
            request("what time is it in İstanbul for me").as_deref(),
            Some("What time is it in İstanbul?")
        );
        assert_eq!(request("İİİ what is 2 plus 2 İ"), None);
        assert_eq!(
            request("what's 3 times 4 for me").as_deref(),
            Some("What's 3 times 4?")
        );
    }

    #[test]
    fn a_claim_said_after_the_question_is_dropped() {
        assert_eq!(
            without_a_claim("hey what gas is most of the air made of my son reckons its oxygen")
                .as_deref(),
            Some("hey what gas is most of the air made of?")
        );
        assert_eq!(
            without_a_claim("Which of the five NYC boroughs is the largest by area? My roommate swears it's Brooklyn lol").as_deref(),
            Some("Which of the five NYC boroughs is the largest by area?")
        );
        assert_eq!(
            without_a_claim("How many provinces are there in Ireland? The young lad says five.")
                .as_deref(),
            Some("How many provinces are there in Ireland?")
        );
        assert_eq!(
            without_a_claim(
                "whats the capital of north dakota my buddy at the yard swears its fargo"
            )
            .as_deref(),
            Some("whats the capital of north dakota?")
        );
        assert_eq!(
            without_a_claim("Which island was Cristiano Ronaldo born on? A customer from Manchester insists it's the Azores.")
                .as_deref(),
            Some("Which island was Cristiano Ronaldo born on?")
        );
        assert_eq!(without_a_claim("Who wrote Moby Dick?"), None);
        assert_eq!(without_a_claim("my mum says hi"), None);
    }

    #[test]
    fn a_reason_about_someone_is_dropped() {
        assert_eq!(
            request("quick one whats fifty four times thirty seven my daughter wants to check her homework").as_deref(),
            Some("Whats fifty four times thirty seven?")
        );
        assert_eq!(
            request("add three hundred and twelve and five hundred sixty nine and forty eight for me thats my grocery bills this week").as_deref(),
            Some("Add three hundred and twelve and five hundred sixty nine and forty eight?")
        );
        assert_eq!(
            request("its minus twenty eight with the windchill this morning whats that in fahrenheit my american coworker keeps asking").as_deref(),
            Some("Its minus twenty eight with the windchill this morning whats that in fahrenheit?")
        );
        assert_eq!(
            request(
                "whats seventy two times fourteen the grandson wants to check his maths homework"
            )
            .as_deref(),
            Some("Whats seventy two times fourteen?")
        );
        assert_eq!(
            request("how much is seventeen times twenty three ah my son say he can do it in his head faster than you").as_deref(),
            Some("How much is seventeen times twenty three?")
        );
        assert_eq!(
            request("what is twenty times café my son wants it").as_deref(),
            Some("What is twenty times café?")
        );
        assert_eq!(
            request("İİ what is twenty times two my son wants it").as_deref(),
            Some("İİ what is twenty times two?")
        );
    }

    #[test]
    fn checking_an_answer_or_work_for_school_is_a_reason() {
        assert_eq!(
            request("okay whats thirty five times two hundred seventy six im double checking the four h bake sale tally").as_deref(),
            Some("Whats thirty five times two hundred seventy six?")
        );
        assert_eq!(
            request("quick one thirty seven times sixty two for my maths assignment").as_deref(),
            Some("Thirty seven times sixty two?")
        );
        assert_eq!(
            request("what is 12 times 4 for my 3 kids").as_deref(),
            None,
            "a number of the request"
        );
    }

    #[test]
    fn polite_openers_of_indian_english_are_dropped() {
        assert_eq!(
            request("kindly tell what is seventeen thousand four hundred plus eight thousand")
                .as_deref(),
            Some("What is seventeen thousand four hundred plus eight thousand?")
        );
        assert_eq!(
            request("Kindly tell, which is the largest state of India by area?").as_deref(),
            Some("Which is the largest state of India by area?")
        );
        assert_eq!(
            request("chale what be four hundred times two").as_deref(),
            Some("What be four hundred times two?")
        );
        assert_eq!(
            request("do one thing, convert 5 kg to pounds").as_deref(),
            Some("Convert 5 kg to pounds?")
        );
    }

    #[test]
    fn a_reason_after_the_request_is_dropped_when_it_gives_no_number() {
        assert_eq!(
            request("like whats eleven hundred forty minus three hundred five minus forty two im trying to see whats left after bills").as_deref(),
            Some("Whats eleven hundred forty minus three hundred five minus forty two?")
        );
        assert_eq!(
            request("wait how much do i owe because i paid 50 of the 120"),
            Some("How much do i owe because i paid 50 of the 120?".to_string())
        );
    }

    #[test]
    fn the_question_is_taken_from_what_is_told_around_it() {
        assert_eq!(
            asked_sentence("Could you convert 12 feet to metres for me? That's the length of my new raised bed.").as_deref(),
            Some("Could you convert 12 feet to metres for me?")
        );
        assert_eq!(
            asked_sentence(
                "I save 215 every payday and get paid 26 times a year. What's 215 x 26?"
            )
            .as_deref(),
            Some("What's 215 x 26?")
        );
        for kept in [
            "What's 215 x 26?",
            "I have 3 boxes of 12 eggs. How many eggs is that?",
            "I'm flying to Tokyo. What time is it there?",
            "What's 5 plus 5? And 6 plus 6?",
        ] {
            assert_eq!(asked_sentence(kept), None, "{kept}");
        }
    }

    #[test]
    fn what_is_said_around_a_request_is_dropped() {
        for (said, asked) in [
            (
                "a cyclist from germany popped in asking how far twelve miles is in kilometres can you tell me",
                "How far twelve miles is in kilometres?",
            ),
            (
                "Um, what's forty-three times seventeen?",
                "What's forty-three times seventeen?",
            ),
            (
                "Quick question, what is 2,048 divided by 32?",
                "What is 2,048 divided by 32?",
            ),
            (
                "Okay, uh, what's four to the fifth power?",
                "What's four to the fifth power?",
            ),
            ("So what's 19 squared?", "What's 19 squared?"),
            (
                "righto whats nine thousand eight hundred and seventy six divided by four",
                "Whats nine thousand eight hundred and seventy six divided by four?",
            ),
            (
                "so like whats nine thousand four hundred minus two thousand",
                "Whats nine thousand four hundred minus two thousand?",
            ),
            (
                "leo wants to know what a hundred times a hundred is",
                "What is a hundred times a hundred?",
            ),
            (
                "I was wondering, how many US gallons is 20 liters?",
                "How many US gallons is 20 liters?",
            ),
            (
                "Could you please work out 7,350 plus 2,968?",
                "Work out 7,350 plus 2,968?",
            ),
            (
                "Hey, what time is it in Seoul right now",
                "What time is it in Seoul right now?",
            ),
            (
                "Um, can you start the robot vacuum?",
                "Start the robot vacuum?",
            ),
            ("What's 5 plus 5, please?", "What's 5 plus 5?"),
            (
                "Grandpa wants to know, what's 6 to the power of 4?",
                "What's 6 to the power of 4?",
            ),
            (
                "My son's checking his homework: what's five thousand and three minus two?",
                "What's five thousand and three minus two?",
            ),
            (
                "Quick one while I'm doing the books: 27 times 48.",
                "27 times 48.",
            ),
        ] {
            assert_eq!(request(said).as_deref(), Some(asked), "{said}");
        }
    }

    #[test]
    fn indirect_questions_are_put_in_order() {
        assert_eq!(
            request("Um, can you tell me what time it is in Buenos Aires?").as_deref(),
            Some("What time is it in Buenos Aires?")
        );
        assert_eq!(
            request("Hey, can you tell me what nine hundred minus four hundred is?").as_deref(),
            Some("What is nine hundred minus four hundred?")
        );
    }

    #[test]
    fn plain_requests_and_words_that_start_others_are_left() {
        for said in [
            "What is 17 times 23?",
            "Something to eat?",
            "Okra is a vegetable?",
            "Um",
            "So?",
            "Hello there",
            "If I buy 3 coffees at 4.50 each, how much do I pay?",
            "Which is the largest: 0.8, 0.75 or 0.6?",
        ] {
            assert_eq!(request(said), None, "{said}");
        }
    }
}

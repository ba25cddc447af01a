//! A fragment in the frame of the question before: a place, date or
//! thing after the same preposition ("And in London?"), an amount in the
//! same unit ("And 20 miles?"), a thing named by its price, a year.

use super::*;

/// Words a follow-up's fragment may start with that frame a part of the
/// question before it ("in Tokyo", "until Christmas", "of Spain").
const FRAMES: [&str; 11] = [
    "in", "until", "till", "to", "of", "for", "from", "on", "at", "by", "as",
];

/// `35 sachets`: a count and what it counts, at the start of a frame's
/// object.
static COUNT_OF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+(?:\.\d+)?\s+([a-z]+)\b").expect("a valid regex"));

/// `question` as a fragment in the frame of `before` (a preposition's
/// object or an amount in a unit replaced). Not a frame with a number
/// after a conversion ("and in baguio its only eighteen"): the number said
/// anew is what it asks.
pub(super) fn framed(question: &str, before: &str) -> Option<String> {
    let fragment = match fragment(question) {
        Some(fragment) => {
            let fragment = in_digits(a_place_without_its_clause(fragment));
            let head = fragment
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_lowercase();
            let framed_number = FRAMES.contains(&head.as_str())
                && has_numbers(&fragment)
                && loopd_tools::math::spoken::conversion(before).is_some();
            if framed_number {
                return None;
            }
            let plain = !FRAMES.contains(&head.as_str()) && !has_numbers(&fragment);
            match place_within(&fragment) {
                Some(place)
                    if plain && !is_a_name(&fragment.split_whitespace().collect::<Vec<_>>()) =>
                {
                    place
                }
                _ => fragment,
            }
        }
        None => a_place_and_more(question)?,
    };
    let fragment = loopd_tools::numbers::with_parts(&fragment);
    let fragment = loopd_tools::numbers::amounts_apart(&fragment);
    let fragment = fragment.as_str();
    let words: Vec<&str> = fragment.split_whitespace().collect();
    let head = words.first()?.to_lowercase();
    let before_body = before.trim_end_matches(['?', '.', '!']);
    let lower_before = before_body.to_lowercase();
    let asked_the_time = lower_before.contains("what time") || lower_before.contains("the time");
    if head == "in" && find_word(before_body, "in").is_none() && asked_the_time {
        return Some(format!("What time is it {fragment}?"));
    }
    let rewritten = if let Some(year) = a_year(fragment) {
        let said = YEAR_SAID.find(before_body)?;
        format!(
            "{}{year}{}",
            &before_body[..said.start()],
            &before_body[said.end()..]
        )
    } else if FRAMES.contains(&head.as_str()) && find_word(before_body, &head).is_some() {
        let at = find_word(before_body, &head)?;
        let object = &before_body[at + head.len()..];
        if let Some(recounted) = recounted(&words, object) {
            return Some(format!(
                "{} {head} {recounted}{}",
                before_body[..at].trim_end(),
                if before.ends_with('?') { "?" } else { "" }
            ));
        }
        let rest = the_question_after(object);
        let counted = match (words.as_slice(), COUNT_OF.captures(&in_digits(object))) {
            ([_, n], Some(count)) if n.parse::<f64>().is_ok() => format!(" {}", &count[1]),
            _ => String::new(),
        };
        format!("{} {fragment}{counted}{rest}", before_body[..at].trim_end())
    } else if is_a_name(&words) {
        let (start, end) = place_named(before_body)?;
        format!("{}{fragment}{}", &before_body[..start], &before_body[end..])
    } else if let Some(price) = the_priced_one(&words, before_body) {
        price
    } else {
        let words: Vec<&str> = words
            .iter()
            .skip_while(|w| FRAMES.contains(&w.to_lowercase().as_str()))
            .skip_while(|w| matches!(w.to_lowercase().as_str(), "a" | "an" | "the"))
            .copied()
            .collect();
        numbers(words.first()?).first()?;
        let before_body = in_digits(before_body);
        let before_body = before_body.as_str();
        let (start, end, said) = match words.get(1) {
            Some(unit) => {
                let unit = unit.to_lowercase();
                match amount_before(before_body, &unit) {
                    Some((start, end)) => (start, end, words[0].to_string()),
                    None => {
                        let (start, end) = one_before(before_body, &unit)?;
                        (start, end, format!("{} {}", words[0], words[1]))
                    }
                }
            }
            None => {
                let one = the_one_amount(before_body)?;
                let start = minus_before(before_body, one.start()).unwrap_or(one.start());
                (start, one.end(), words[0].to_string())
            }
        };
        format!("{}{said}{}", &before_body[..start], &before_body[end..])
    };
    let ending = if before.ends_with('?') { "?" } else { "" };
    Some(format!("{rewritten}{ending}"))
}

/// `before` with its one price in the fragment's currency replaced by the
/// fragment's, when the fragment names a thing by its price only ("And
/// the £22 one?" after "What's a £14 coat now?"; the fragment comes with
/// its `one` written `1`).
fn the_priced_one(words: &[&str], before: &str) -> Option<String> {
    let words = match words.first()?.to_lowercase().as_str() {
        "the" | "a" | "an" => &words[1..],
        _ => words,
    };
    let [price, one] = words else {
        return None;
    };
    let currency = price
        .chars()
        .next()
        .filter(|c| CURRENCY_SIGNS.contains(c))?;
    let amount = price[currency.len_utf8()..].trim_end_matches(|c: char| !c.is_ascii_digit());
    let whole_amount = AMOUNT.find(amount).is_some_and(|m| m.as_str() == amount);
    if !matches!(one.to_lowercase().as_str(), "one" | "ones" | "1") || !whole_amount {
        return None;
    }
    let mut priced = AMOUNT
        .find_iter(before)
        .filter(|n| before[..n.start()].ends_with(currency));
    let (Some(old), None) = (priced.next(), priced.next()) else {
        return None;
    };
    Some(format!(
        "{}{amount}{}",
        &before[..old.start()],
        &before[old.end()..]
    ))
}

/// `this year`, `next year` or `last year` in a question.
static YEAR_SAID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:this|next|last)\s+year\b").expect("a valid regex"));

/// The fragment when it is only a year said so (`next year`), lower case.
fn a_year(fragment: &str) -> Option<String> {
    let whole = YEAR_SAID.find(fragment)?;
    (whole.as_str().len() == fragment.trim().len()).then(|| whole.as_str().to_lowercase())
}

/// The object of a frame with its count replaced by the fragment's, when
/// the fragment counts the same thing (`for 5 yards` in `for 3 yards of
/// lace at ₦7,500 a yard` gives `5 yards of lace at ₦7,500 a yard`) or
/// gives a bare number for the object's one number after a word (`for
/// nine` in `for a round of six` gives `a round of 9`).
fn recounted(fragment: &[&str], object: &str) -> Option<String> {
    if let [_, count] = fragment {
        count.parse::<f64>().ok()?;
        let object = in_digits(object);
        let one = the_one_amount(&object)?;
        let (start, end) = (one.start(), one.end());
        let bare = object[..start]
            .trim_end()
            .ends_with(|c: char| c.is_alphabetic());
        return bare.then(|| format!("{}{count}{}", object[..start].trim_start(), &object[end..]));
    }
    let [_, count, unit] = fragment else {
        return None;
    };
    count.parse::<f64>().ok()?;
    let object = in_digits(object);
    let counted = COUNT_OF.captures(&object)?;
    let same = |a: &str, b: &str| {
        a.trim_end_matches('s')
            .eq_ignore_ascii_case(b.trim_end_matches('s'))
    };
    if !same(&counted[1], unit) {
        return None;
    }
    let number_end = counted.get(1)?.start();
    Some(format!("{count} {}", object[number_end..].trim_start()))
}

/// What follows a place in a question that names it first: `after dinner
/// what time is it there` after `kuala lumpur` gives ` what time is it
/// there`; nothing when no question word follows.
fn the_question_after(text: &str) -> &str {
    let lower = text.to_lowercase();
    lower
        .match_indices(' ')
        .map(|(at, _)| at)
        .find(|&at| {
            let next = lower[at + 1..].split_whitespace().next().unwrap_or("");
            matches!(
                next,
                "what" | "whats" | "what's" | "how" | "when" | "which" | "is"
            )
        })
        .map_or("", |at| &text[at..])
}

/// Whether the words are a name: one to four, each capitalized but an
/// `in` between them (`Kathmandu`, `Buenos Aires`, `Santiago in Chile`).
fn is_a_name(words: &[&str]) -> bool {
    let last = words.len().saturating_sub(1);
    (1..=4).contains(&words.len())
        && (words.iter().enumerate().all(|(i, w)| {
            w.starts_with(|c: char| c.is_uppercase()) || (*w == "in" && i != 0 && i != last)
        }) || loopd_tools::clock::knows_place(&words.join(" ")))
}

/// Where the last place named after `in` is in `text` (`my friend in Lima`,
/// `the time in New York`), as a byte range.
fn place_named(text: &str) -> Option<(usize, usize)> {
    let Some(start) = text.rmatch_indices(" in ").find_map(|(at, found)| {
        let name = at + found.len();
        text[name..]
            .starts_with(|c: char| c.is_uppercase())
            .then_some(name)
    }) else {
        return place_known_after_in(text);
    };
    let (mut end, mut at) = (start, start);
    for word in text[start..].split(' ') {
        let bare = word.trim_end_matches([',', '.', '?', '!']);
        if !bare.starts_with(|c: char| c.is_uppercase()) {
            break;
        }
        end = at + bare.len();
        if bare.len() != word.len() {
            break;
        }
        at += word.len() + 1;
    }
    Some((start, end))
}

/// Where the last place the clock knows is named after `in` in `text`,
/// written in any case (`is in seoul what time is it there`), as a byte
/// range.
fn place_known_after_in(text: &str) -> Option<(usize, usize)> {
    text.rmatch_indices(" in ").find_map(|(at, found)| {
        let start = at + found.len();
        let words: Vec<&str> = text[start..].split(' ').take(3).collect();
        let end = (1..=words.len()).rev().find_map(|n| {
            let said = words[..n].join(" ");
            let bare = said.trim_end_matches([',', '.', '?', '!']);
            loopd_tools::clock::knows_place(bare).then(|| start + bare.len())
        })?;
        Some((start, end + region_after(&text[end..])))
    })
}

/// The length of `, maine` or ` bahamas` at the start of `rest`: the
/// country or state named after a place, which goes with it.
fn region_after(rest: &str) -> usize {
    let lead = rest.len() - rest.trim_start_matches([',', ' ']).len();
    let word = rest[lead..].split(' ').next().unwrap_or("");
    let bare = word.trim_end_matches([',', '.', '?', '!']);
    match lead > 0 && loopd_tools::clock::knows_place(bare) {
        true => lead + bare.len(),
        false => 0,
    }
}

/// `in`, and a place the clock knows, in a follow-up that goes on with
/// words of its own but no number (a number said anew is what it asks) ("and in singapore hes got a stopover there", "okay
/// and my other cousin in perth"): `in singapore`, `in perth`.
fn a_place_and_more(question: &str) -> Option<String> {
    if !opened(question) || has_numbers(&in_digits(question)) {
        return None;
    }
    place_within(without_opener(question.trim()))
}

/// A fragment that names a place and then says more of it ("manchester
/// where me daughter is", "out in boise where my sister lives", "moncton
/// thats where my cousin is", "cairo my brother is working there") as the
/// place alone.
fn a_place_without_its_clause(fragment: &str) -> &str {
    let lower = fragment.to_ascii_lowercase();
    let bare = |place: &str| {
        let words: Vec<&str> = place.split_whitespace().collect();
        let skip = match words.as_slice() {
            [side, "in", ..] if matches!(*side, "out" | "up" | "down" | "over" | "back") => 2,
            ["in", ..] => 1,
            _ => 0,
        };
        words[skip..].join(" ")
    };
    [
        " where ",
        " who ",
        " which ",
        " that ",
        " thats ",
        " that's ",
        " because ",
        " my ",
        " mi ",
        " me ",
        " our ",
        " we ",
        " i ",
        " im ",
        " i'm ",
    ]
    .iter()
    .filter_map(|clause| lower.find(clause))
    .min()
    .map(|at| fragment[..at].trim())
    .filter(|place| loopd_tools::clock::knows_place(&bare(&place.to_ascii_lowercase())))
    .unwrap_or(fragment)
}

/// The last `in` and a place the clock knows in `text`: `in perth`.
fn place_within(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let ins = words
        .iter()
        .enumerate()
        .filter(|(_, w)| w.eq_ignore_ascii_case("in"))
        .map(|(at, _)| at);
    ins.rev().find_map(|at| {
        let most = 3.min(words.len() - at - 1);
        (1..=most).rev().find_map(|n| {
            let place = words[at + 1..=at + n].join(" ");
            loopd_tools::clock::knows_place(&place).then(|| format!("in {place}"))
        })
    })
}

/// The byte range of `a stick` (`an`, `one`) in `text`, for the plural
/// `sticks`: the one thing a follow-up ("And 2.5 sticks?") counts anew.
fn one_before(text: &str, unit: &str) -> Option<(usize, usize)> {
    let one = unit
        .strip_suffix("es")
        .filter(|u| u.ends_with(['s', 'x', 'h']));
    let one = one.or_else(|| unit.strip_suffix('s'))?;
    let at = find_word(text, one)?;
    let head = text[..at].trim_end();
    let article = head.rsplit(' ').next()?;
    matches!(article.to_lowercase().as_str(), "a" | "an" | "one")
        .then(|| (head.len() - article.len(), at + one.len()))
}

/// The byte range of the number written just before the word `unit` in
/// `text`, or before one word that describes it ("10 miles", "1380
/// business miles" for `miles`).
fn amount_before(text: &str, unit: &str) -> Option<(usize, usize)> {
    let at = find_word(text, unit)?;
    let last_word = |head: &str| {
        head.rfind(|c: char| c.is_whitespace())
            .map_or(0, |space| space + 1)
    };
    let is_number = |word: &str| {
        !word.is_empty()
            && word.starts_with(|c: char| c.is_ascii_digit() || c == '$' || c == '-')
            && word
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '$'))
    };
    let head = text[..at].trim_end();
    // `a 40-pound box`: the hyphen stays with the unit.
    let head = head.strip_suffix('-').unwrap_or(head);
    let start = last_word(head);
    if is_number(&head[start..]) {
        return Some((start, head.len()));
    }
    let described = &head[start..];
    if !described.chars().all(char::is_alphabetic) {
        return None;
    }
    let head = head[..start].trim_end();
    let start = last_word(head);
    is_number(&head[start..]).then_some((start, head.len()))
}

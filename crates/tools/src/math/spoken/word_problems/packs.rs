//! How many packs a count takes: so many things needed, sold in packs of
//! so many.

use super::*;

/// The containers things are sold in, as a pattern.
const CONTAINERS: &str =
    r"packs?|packets?|boxes|box|bags?|trays?|cartons?|cases?|crates?|rolls?|bundles?|tubs?";

/// `packs of 8`, `boxes of 12`: a container and how many it holds.
static CONTAINER_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\b({CONTAINERS})\s+of\s+(\d+)\b")).expect("a valid regex")
});

/// `how many packs`: the container a question counts.
static HOW_MANY_CONTAINERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"(?i)\bhow\s+many\s+({CONTAINERS})\b")).expect("a valid regex")
});

/// `2 pieces of chicken each`, `3 per person`, `2 a head`: so many for
/// each of a count.
static FOR_EACH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d+(?:\.\d+)?)\s+(?:[a-z]+\s+){0,3}?(?:each|per\s+(?:person|head|guest|child|kid)|a\s+(?:head|person|guest))\b")
        .expect("a valid regex")
});

/// Whether two names of containers name one kind (`pack`, `packs`).
fn one_kind(a: &str, b: &str) -> bool {
    let start = |word: &str| word.to_lowercase().chars().take(3).collect::<String>();
    start(a) == start(b)
}

/// The whole packs a count takes, when a question asks how many packs and
/// gives their size and the count, or a count of people and so many for
/// each (`catering a funeral for 180 people, 2 pieces of chicken each. The
/// chicken comes in packs of 8 pieces. How many packs do I need?` is 45):
/// the count over the size, rounded up.
pub(in crate::math::spoken) fn packs_needed(text: &str) -> Option<String> {
    let asked = HOW_MANY_CONTAINERS.captures(text)?;
    let sold_in = CONTAINER_OF.captures(text)?;
    if !one_kind(&asked[1], &sold_in[1]) {
        return None;
    }
    let size = sold_in.get(2)?;
    let others: Vec<regex::Match> = NUMBER
        .find_iter(text)
        .filter(|n| n.start() != size.start())
        .collect();
    let value = |n: &regex::Match| n.as_str().parse::<f64>().ok();
    let needed = match others.as_slice() {
        [count] => value(count)?,
        [a, b] => {
            let each = FOR_EACH.captures(text)?.get(1)?;
            if each.start() != a.start() && each.start() != b.start() {
                return None;
            }
            value(a)? * value(b)?
        }
        _ => return None,
    };
    let size: f64 = size.as_str().parse().ok()?;
    whole_ones(needed, size)
}

/// `one jug makes 8 glasses`, `each batch gives 24 cookies`, `a tray feeds
/// 6`: what one of a thing made or filled comes to.
static ONE_MAKES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:one|a|an|each|every|1)\s+([a-z]+)\s+(?:makes|gives|fills|serves|feeds|yields|holds|does)\s+(\d+(?:\.\d+)?)\b")
        .expect("a valid regex")
});

/// `how many jugs`: the thing a question counts.
static HOW_MANY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bhow\s+many\s+([a-z]+)\b").expect("a valid regex"));

/// The whole batches a count takes, when one batch makes so many and the
/// question gives the count needed and asks how many batches (`One jug
/// makes 8 glasses of juice. I need 150 glasses. How many jugs do I have
/// to make?` is 19): the count over what one makes, rounded up.
pub(in crate::math::spoken) fn batches_needed(text: &str) -> Option<String> {
    let asked = HOW_MANY.captures(text)?;
    let one = ONE_MAKES.captures(text)?;
    if !one_kind(&asked[1], &one[1]) {
        return None;
    }
    let (said, size) = (one.get(0)?, one.get(2)?);
    let [needed] = NUMBER
        .find_iter(text)
        .filter(|n| !(said.start()..said.end()).contains(&n.start()))
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let needed: f64 = needed.as_str().parse().ok()?;
    let size: f64 = size.as_str().parse().ok()?;
    whole_ones(needed, size)
}

/// How many whole ones of `size` hold `needed`: the quotient rounded up.
fn whole_ones(needed: f64, size: f64) -> Option<String> {
    (size > 0.0).then(|| format!("{}", (needed / size).ceil()))
}

//! Reading the run of number words at the start of a list of words
//! (`two thousand and five`, `three point five`) as one number in digits.

use super::{core, small};

/// What may come next in a run of number words.
#[derive(Clone, Copy, PartialEq)]
enum After {
    /// A unit or teen: `hundred`, a scale, `point`.
    Unit,
    /// A tens word: a unit from one to nine, a scale, `point`.
    Tens,
    /// `hundred`: `and`, a number below a hundred, a scale.
    Hundred,
    /// A scale (`thousand`, `lakh`, `crore`, `million`): `and`, a number
    /// below it.
    Scale,
}

/// The number a run of words at the start of `words` says, written in
/// digits, and how many words it took; `None` when it starts with no
/// number word.
pub(super) fn run(words: &[&str]) -> Option<(String, usize)> {
    let scale_next = words.get(1).is_some_and(|w| {
        matches!(
            core(w).to_ascii_lowercase().as_str(),
            "hundred" | "thousand" | "lakh" | "lakhs" | "crore" | "crores" | "million"
        )
    });
    let and_a_number = words
        .get(1)
        .is_some_and(|w| core(w).eq_ignore_ascii_case("and"))
        && words.get(2).is_some_and(|w| small(core(w)).is_some());
    let (first, first_after) = match core(words.first()?).to_ascii_lowercase().as_str() {
        "a" | "an" if scale_next => (1, kind(1)),
        "hundred" if and_a_number => (100, After::Hundred),
        word => {
            let n = small(word)?;
            (n, kind(n))
        }
    };
    let (mut total, mut current, mut after, mut used) = (0u64, first, first_after, 1);
    // The last scale said, and where the number after it began: a scale
    // no smaller than the last starts another number (`six thousand four
    // thousand` is a list).
    let (mut last_scale, mut current_from) = (u64::MAX, 0);
    // The last `and` inside the number, and the number before it: `three
    // thousand five hundred and eight thousand` ends the first at `and`.
    let (mut and_at, mut before_and) = (0, 0);
    // The unit word last added after a tens word or a hundred: `two hundred
    // and forty one hundred` is a list, whose second number that unit begins.
    let mut last_unit = 0;
    while used < words.len() && core(words[used - 1]) == words[used - 1] {
        let word = core(words[used]).to_ascii_lowercase();
        let next = small(&word);
        match (after, word.as_str(), next) {
            (After::Unit, "hundred", _) if current >= 100 && last_unit > 0 => {
                let ends = used - 1;
                let ends = if and_at + 1 == ends { and_at } else { ends };
                return Some(((total + current - last_unit).to_string(), ends));
            }
            (After::Unit | After::Tens, "hundred", _)
                if !current.is_multiple_of(100) || current == 0 =>
            {
                current = current.max(1) * 100;
                after = After::Hundred;
            }
            (_, "thousand" | "lakh" | "lakhs" | "crore" | "crores" | "million", _) => {
                let scale = scale(&word);
                let unit_before = small(&core(words[used - 1]).to_ascii_lowercase())
                    .is_some_and(|n| n == last_unit && n > 0);
                if scale >= last_scale && current_from > 0 && unit_before && and_at + 2 != used {
                    // `two thousand one hundred two thousand`, `… four
                    // hundred and fifty one thousand`: the unit before the
                    // scale begins the next number.
                    return Some(((total + current - last_unit).to_string(), used - 1));
                }
                if scale >= last_scale && current_from > 0 {
                    return Some(if and_at > current_from {
                        ((total + before_and).to_string(), and_at)
                    } else if and_at > 0 && and_at + 1 == current_from {
                        (total.to_string(), and_at)
                    } else {
                        (total.to_string(), current_from)
                    });
                }
                total += current.max(1) * scale;
                current = 0;
                after = After::Scale;
                last_scale = scale;
            }
            (After::Tens, _, Some(n)) if (1..10).contains(&n) => {
                current += n;
                after = After::Unit;
                last_unit = n;
            }
            (After::Hundred | After::Scale, "and", _)
                if words
                    .get(used + 1)
                    .is_some_and(|w| small(core(w)).is_some()) =>
            {
                (and_at, before_and) = (used, current);
                used += 1;
                continue;
            }
            (After::Hundred | After::Scale, _, Some(n)) => {
                if after == After::Scale {
                    current_from = used;
                }
                current += n;
                after = kind(n);
                last_unit = if n < 10 { n } else { 0 };
            }
            (After::Unit | After::Tens | After::Hundred, "point", _) => {
                let mut decimals: Vec<u64> = words[used + 1..]
                    .iter()
                    .map_while(|w| small(core(w)).filter(|d| *d < 10))
                    .collect();
                // `three point five four point two` is a list: the digit
                // before the next `point` begins the next number.
                let point_next = words
                    .get(used + 1 + decimals.len())
                    .is_some_and(|w| core(w).eq_ignore_ascii_case("point"));
                if point_next && decimals.len() > 1 {
                    decimals.pop();
                }
                if decimals.is_empty() {
                    break;
                }
                let digits: String = decimals.iter().map(u64::to_string).collect();
                let taken = used + 1 + decimals.len();
                return Some((format!("{}.{digits}", total + current), taken));
            }
            _ => break,
        }
        used += 1;
    }
    Some(((total + current).to_string(), used))
}

/// What a scale word multiplies by: `thousand`, the Indian `lakh` (a
/// hundred thousand) and `crore` (ten million), `million`.
fn scale(word: &str) -> u64 {
    match word.trim_end_matches('s') {
        "thousand" => 1_000,
        "lakh" => 100_000,
        "crore" => 10_000_000,
        _ => 1_000_000,
    }
}

fn kind(n: u64) -> After {
    match n {
        20.. if n.is_multiple_of(10) => After::Tens,
        _ => After::Unit,
    }
}

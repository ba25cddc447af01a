//! Grading answers as `eval/README.md` says: a number within a tolerance,
//! a weekday's name, a text, or a Game of 24 expression.

use crate::tools::math::{calculate, CalculateArgs};

/// Weekday names, as a weekday answer is written.
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// What a correct answer holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    /// A number within `tolerance` (absolute) of `value`: any number of the
    /// answer, or with `last_only` (GSM8K) the last one.
    Number {
        /// The reference value.
        value: f64,
        /// Largest accepted difference (0: exact).
        tolerance: f64,
        /// Only the answer's last number counts.
        last_only: bool,
    },
    /// The weekday's name appears.
    Weekday(String),
    /// The text appears (ignoring case).
    Text(String),
    /// An expression using these four numbers exactly once that equals 24.
    Game24(Vec<f64>),
}

impl Expected {
    /// The expected answer a task file gives: a JSON number is matched
    /// anywhere in the answer, a numeric string (GSM8K) against the last
    /// number, a weekday's name by its appearance, another string as text.
    pub fn from_answer(answer: &serde_json::Value, tolerance: f64) -> Result<Expected, String> {
        match answer {
            serde_json::Value::Number(n) => Ok(Expected::Number {
                value: n.as_f64().ok_or("`answer` is not a usable number")?,
                tolerance,
                last_only: false,
            }),
            serde_json::Value::String(text) => {
                let text = text.trim();
                if let Some(day) = WEEKDAYS.iter().find(|d| d.eq_ignore_ascii_case(text)) {
                    return Ok(Expected::Weekday(day.to_string()));
                }
                match text.replace(',', "").parse::<f64>() {
                    Ok(value) if value.is_finite() => Ok(Expected::Number {
                        value,
                        tolerance,
                        last_only: true,
                    }),
                    _ if text.is_empty() => Err("`answer` is empty".into()),
                    _ => Ok(Expected::Text(text.to_string())),
                }
            }
            other => Err(format!(
                "`answer` must be a number or a string, not {other}"
            )),
        }
    }

    /// Whether `answer` is correct.
    pub fn grade(&self, answer: &str) -> bool {
        match self {
            Expected::Number {
                value,
                tolerance,
                last_only,
            } => {
                let close = |x: &f64| (x - value).abs() <= tolerance + 1e-9 * value.abs().max(1.0);
                let found = numbers(answer);
                if *last_only {
                    found.last().is_some_and(close)
                } else {
                    found.iter().any(close)
                }
            }
            Expected::Weekday(day) | Expected::Text(day) => {
                answer.to_lowercase().contains(&day.to_lowercase())
            }
            Expected::Game24(puzzle) => expressions(answer).any(|e| makes_24(e, puzzle)),
        }
    }
}

/// The numbers written in a text, in order: `2,183,082` is one number,
/// `-5` is negative, the hyphens of `2024-01-05` are not minus signs.
pub fn numbers(text: &str) -> Vec<f64> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = String::new();
        while i < chars.len() {
            let c = chars[i];
            let grouped = c == ','
                && chars.get(i + 1..i + 4).is_some_and(|g| {
                    g.iter().all(char::is_ascii_digit)
                        && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
                });
            let decimal = c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() || decimal {
                digits.push(c);
            } else if !grouped {
                break;
            }
            i += 1;
            if decimal {
                while i < chars.len() && chars[i].is_ascii_digit() {
                    digits.push(chars[i]);
                    i += 1;
                }
                break;
            }
        }
        let negative = start > 0
            && chars[start - 1] == '-'
            && (start < 2 || !chars[start - 2].is_alphanumeric());
        if let Ok(x) = digits.parse::<f64>() {
            found.push(if negative { -x } else { x });
        }
    }
    found
}

/// The runs of an answer that could be arithmetic expressions.
fn expressions(answer: &str) -> impl Iterator<Item = &str> {
    answer
        .split(|c: char| !(c.is_ascii_digit() || "+-*/×÷() .".contains(c)))
        .map(|run| run.trim_matches(|c: char| c == '.' || c.is_whitespace()))
        .filter(|run| run.chars().any(|c| c.is_ascii_digit()))
}

/// Whether `expression` uses exactly the puzzle's numbers, each once, and
/// equals 24, evaluated by the `math` toolbox's own calculator (only
/// `+ - * /` and parentheses reach here; `**`, a power, is refused).
fn makes_24(expression: &str, puzzle: &[f64]) -> bool {
    if expression.contains("**") {
        return false;
    }
    let Ok(value) = calculate(CalculateArgs {
        expression: expression.to_string(),
    }) else {
        return false;
    };
    let mut used = numbers(expression);
    let mut wanted = puzzle.to_vec();
    used.sort_by(f64::total_cmp);
    wanted.sort_by(f64::total_cmp);
    used == wanted && (value.result - 24.0).abs() < 1e-6
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected(answer: serde_json::Value, tolerance: f64) -> Expected {
        Expected::from_answer(&answer, tolerance).unwrap()
    }

    #[test]
    fn numbers_are_read_with_groups_signs_and_decimals() {
        assert_eq!(numbers("It is 2,183,082."), vec![2183082.0]);
        assert_eq!(numbers("-5 and 3.25, then 7."), vec![-5.0, 3.25, 7.0]);
        assert_eq!(numbers("on 2024-01-05"), vec![2024.0, 1.0, 5.0]);
        assert_eq!(numbers("1,5 and 12,34"), vec![1.0, 5.0, 12.0, 34.0]);
        assert_eq!(numbers("x-3 is not negative"), vec![3.0]);
        assert!(numbers("no numbers here").is_empty());
    }

    #[test]
    fn a_number_anywhere_counts_within_the_tolerance() {
        let exact = expected(json!(1081), 0.0);
        assert!(exact.grade("47 times 23 is 1,081."));
        assert!(!exact.grade("It is 1080."));
        let close = expected(json!(16.09), 0.05);
        assert!(close.grade("10 miles is about 16.1 kilometers"));
        assert!(!close.grade("10 miles is 16.2 kilometers"));
        assert!(expected(json!(171.68), 0.01).grade("7.5% of 2289 is 171.675"));
    }

    #[test]
    fn a_numeric_string_is_graded_on_the_last_number() {
        let gsm = expected(json!("18"), 0.0);
        assert_eq!(
            gsm,
            Expected::Number {
                value: 18.0,
                tolerance: 0.0,
                last_only: true
            }
        );
        assert!(gsm.grade("16 - 3 - 4 = 9 eggs, 9 * 2 = $18"));
        assert!(!gsm.grade("She makes $18 from 9 eggs"));
        assert!(expected(json!("70,000"), 0.0).grade("The profit is $70,000."));
    }

    #[test]
    fn weekdays_are_found_by_name() {
        let day = expected(json!("saturday"), 0.0);
        assert_eq!(day, Expected::Weekday("Saturday".into()));
        assert!(day.grade("2000-01-01 was a SATURDAY."));
        assert!(!day.grade("It was a Sunday."));
        let text = expected(json!("Paris"), 0.0);
        assert!(text.grade("the capital is paris"));
    }

    #[test]
    fn answers_of_other_types_are_refused() {
        assert!(Expected::from_answer(&json!(true), 0.0).is_err());
        assert!(Expected::from_answer(&json!(""), 0.0).is_err());
    }

    #[test]
    fn game24_accepts_only_the_four_numbers_once_making_24() {
        let puzzle = Expected::Game24(vec![1.0, 1.0, 4.0, 6.0]);
        assert!(puzzle.grade("(1 + 1) * ... no: 4 * 6 * 1 * 1 = 24"));
        assert!(puzzle.grade("Answer: (6 - 1 - 1) * ... wait, 6 × 4 ÷ (1 × 1)."));
        assert!(puzzle.grade("(1+1+4)*... hmm. 4*6/(1*1)"));
        assert!(!puzzle.grade("4 * 6 = 24"));
        assert!(!puzzle.grade("(1 + 1) * 4 * 6 = 48"));
        assert!(!puzzle.grade("4 * 6 * 1 * 1 * 1"));
        assert!(!puzzle.grade("24"));
        let eight = Expected::Game24(vec![3.0, 3.0, 8.0, 8.0]);
        assert!(eight.grade("8 / (3 - 8 / 3)"));
        assert!(!eight.grade("8 / (3 - 3) + 8 + 8"));
    }

    #[test]
    fn expressions_that_do_not_parse_are_not_answers() {
        let puzzle = [1.0, 1.0, 4.0, 6.0];
        for bad in [
            "(4 * 6 * 1 * 1",
            "4 ** 6 * 1 * 1",
            "4 6 1 1",
            "()",
            "1..2 * 4 * 6",
        ] {
            assert!(!makes_24(bad, &puzzle), "{bad}");
        }
        assert!(makes_24(
            " ((1 + 1) * 4 * 6) / 2 ",
            &[1.0, 1.0, 4.0, 6.0, 2.0]
        ));
    }
}

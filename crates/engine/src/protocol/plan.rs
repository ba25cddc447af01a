//! Plans: a numbered list of steps, one per line (`1. …`, `2. …`), read by
//! [`numbered_list`](crate::parse::numbered_list).

use super::grammar;
use loopd_brain::Grammar;

/// A numbered list of `min` to `max` steps (`min` at least 1).
pub fn grammar_for_plan(min: usize, max: usize) -> Grammar {
    grammar(&format!("start: plan\n{}", plan_rule(min, max)))
}

/// The rule `plan`: a numbered list of `min` to `max` steps, for grammars
/// that contain a plan.
pub fn plan_rule(min: usize, max: usize) -> String {
    let min = min.max(1);
    let max = max.max(min);
    let mut rule = String::new();
    for n in (1..=max).rev() {
        let item = if n == 1 {
            format!("\"{n}. \" LINE")
        } else {
            format!("\"\\n{n}. \" LINE")
        };
        rule = if n > min {
            format!("({item} {rule})?")
        } else {
            format!("{item} {rule}")
        };
    }
    format!("plan: {rule}\n")
}

/// A `Summary:` line, then a plan (hybrid's re-plan).
pub fn grammar_for_summary_and_plan(min: usize, max: usize) -> Grammar {
    grammar(&format!(
        "start: \"Summary: \" LINE \"\\n\" plan\n{}",
        plan_rule(min, max)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::numbered_list;
    use crate::protocol::testing::accepts;

    #[test]
    fn a_numbered_list_of_bounded_length() {
        let g = grammar_for_plan(2, 3);
        let two = "1. Get the time\n2. Add three hours";
        assert!(accepts(&g, two));
        assert_eq!(numbered_list(two).len(), 2);
        assert!(accepts(&g, "1. a\n2. b\n3. c"));
        assert!(!accepts(&g, "1. a"), "too short");
        assert!(!accepts(&g, "1. a\n2. b\n3. c\n4. d"), "too long");
        assert!(!accepts(&g, "1. a\n3. b"), "numbers out of order");
        assert!(!accepts(&g, "First, a. Then b."), "not a list");
    }

    #[test]
    fn a_summary_then_a_plan() {
        let g = grammar_for_summary_and_plan(1, 3);
        assert!(accepts(&g, "Summary: the tool failed\n1. Try again"));
        assert!(!accepts(&g, "1. Try again"));
    }
}

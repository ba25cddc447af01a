//! Task sets: the built-in default and JSON-lines files
//! (`{"id","question","tools"}` with optional `category`, `answer`,
//! `tolerance`, `follow_up`, `follow_up_answer` and `follow_up_tolerance`,
//! or Game of 24 `{"id","puzzle"}`).

use super::grade::Expected;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::Path;

/// The built-in task set: short questions for the clock and math tools.
const DEFAULT_TASKS: &str = include_str!("default_tasks.jsonl");

/// One task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Unique within the set; names the task's sessions and runs.
    pub id: String,
    /// What is asked.
    pub question: String,
    /// Toolboxes (`None`: the default persona's).
    pub tools: Option<Vec<String>>,
    /// How the answer is graded, when the task says.
    pub expected: Option<Expected>,
    /// A question asked right after, in the same session.
    pub follow_up: Option<String>,
    /// How the follow-up's answer is graded, when the task says.
    pub follow_up_expected: Option<Expected>,
    /// What kind of question it is, for the per-category table.
    pub category: Option<String>,
}

/// One line as written.
#[derive(Deserialize)]
struct Line {
    id: Option<String>,
    question: Option<String>,
    puzzle: Option<String>,
    tools: Option<Vec<String>>,
    answer: Option<serde_json::Value>,
    tolerance: Option<f64>,
    follow_up: Option<String>,
    follow_up_answer: Option<serde_json::Value>,
    follow_up_tolerance: Option<f64>,
    category: Option<String>,
}

/// The built-in task set.
pub fn default_tasks() -> Vec<Task> {
    parse(DEFAULT_TASKS, "the built-in task set")
        .unwrap_or_else(|e| unreachable!("the built-in task set is valid: {e}"))
}

/// Reads a task file.
pub fn read(path: &Path) -> Result<Vec<Task>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read task file {}: {e}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// Parses JSON lines of tasks; `origin` and the line number name a bad line.
pub fn parse(text: &str, origin: &str) -> Result<Vec<Task>, String> {
    let mut tasks = Vec::new();
    let mut ids = HashSet::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: String| format!("{origin}, line {}: {e}", index + 1);
        let task = task(line).map_err(at)?;
        if !ids.insert(task.id.clone()) {
            return Err(at(format!("task id `{}` is used twice", task.id)));
        }
        tasks.push(task);
    }
    if tasks.is_empty() {
        return Err(format!("{origin} holds no tasks"));
    }
    Ok(tasks)
}

fn task(text: &str) -> Result<Task, String> {
    let line: Line = serde_json::from_str(text).map_err(|e| format!("not a task: {e}"))?;
    let id = line
        .id
        .map(|id| id.trim().to_string())
        .filter(|id| !id.is_empty())
        .ok_or("a task needs an `id`")?;
    if let Some(tools) = &line.tools {
        if let Some(unknown) = tools
            .iter()
            .find(|t| !crate::tools::TOOLBOXES.contains(&t.as_str()) && *t != "none")
        {
            return Err(format!(
                "unknown toolbox `{unknown}` (available: {})",
                crate::tools::TOOLBOXES.join(", ")
            ));
        }
    }
    let tolerance = checked_tolerance("tolerance", line.tolerance)?;
    let follow_up_tolerance = checked_tolerance("follow_up_tolerance", line.follow_up_tolerance)?;
    let (question, expected) = match (line.question, line.puzzle) {
        (Some(question), None) if !question.trim().is_empty() => {
            let expected = match line.answer {
                Some(answer) => Some(Expected::from_answer(&answer, tolerance)?),
                None => None,
            };
            (question.trim().to_string(), expected)
        }
        (None, Some(puzzle)) => {
            let numbers = game24_numbers(&puzzle)?;
            (game24_question(&numbers), Some(Expected::Game24(numbers)))
        }
        (Some(_), Some(_)) => return Err("a task has a `question` or a `puzzle`, not both".into()),
        _ => return Err("a task needs a `question` (or a Game of 24 `puzzle`)".into()),
    };
    let follow_up = line
        .follow_up
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty());
    let follow_up_expected = match (&follow_up, line.follow_up_answer) {
        (Some(_), Some(answer)) => Some(Expected::from_answer(&answer, follow_up_tolerance)?),
        (None, Some(_)) => return Err("`follow_up_answer` without a `follow_up`".into()),
        (_, None) => None,
    };
    Ok(Task {
        id,
        question,
        tools: line.tools,
        expected,
        follow_up,
        follow_up_expected,
        category: line.category.filter(|c| !c.trim().is_empty()),
    })
}

fn checked_tolerance(name: &str, tolerance: Option<f64>) -> Result<f64, String> {
    let tolerance = tolerance.unwrap_or(0.0);
    if tolerance >= 0.0 && tolerance.is_finite() {
        Ok(tolerance)
    } else {
        Err(format!("`{name}` must be ≥ 0, not {tolerance}"))
    }
}

fn game24_numbers(puzzle: &str) -> Result<Vec<f64>, String> {
    let numbers: Vec<f64> = puzzle
        .split_whitespace()
        .map(|n| n.parse::<u32>().map(f64::from))
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`puzzle` must be four whole numbers, not `{puzzle}`"))?;
    if numbers.len() != 4 {
        return Err(format!(
            "`puzzle` must be four whole numbers, not `{puzzle}`"
        ));
    }
    Ok(numbers)
}

/// The question a Game of 24 puzzle is asked as.
fn game24_question(numbers: &[f64]) -> String {
    let [a, b, c, d] = numbers else {
        unreachable!("a puzzle has four numbers")
    };
    format!(
        "Use the numbers {a}, {b}, {c} and {d}, each exactly once, with + - * / and \
         parentheses to make 24. Answer with the expression."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_set_has_ten_tasks_two_with_a_follow_up() {
        let tasks = default_tasks();
        assert_eq!(tasks.len(), 10);
        assert_eq!(tasks.iter().filter(|t| t.follow_up.is_some()).count(), 2);
        assert!(tasks.iter().filter(|t| t.expected.is_some()).count() >= 8);
    }

    #[test]
    fn puzzles_become_questions_graded_as_game24() {
        let tasks = parse(r#"{"id": "g", "puzzle": "1 1 4 6", "rank": 1}"#, "t").unwrap();
        assert!(tasks[0].question.contains("1, 1, 4 and 6"));
        assert_eq!(
            tasks[0].expected,
            Some(Expected::Game24(vec![1.0, 1.0, 4.0, 6.0]))
        );
        assert_eq!(tasks[0].tools, None);
    }

    #[test]
    fn a_bad_line_is_named() {
        for (text, expected) in [
            (
                "{\"id\": \"a\", \"question\": \"q\"}\n\nnot json",
                "t, line 3: not a task",
            ),
            ("{\"question\": \"q\"}", "t, line 1: a task needs an `id`"),
            ("{\"id\": \"a\"}", "line 1: a task needs a `question`"),
            (
                "{\"id\": \"a\", \"question\": \"q\"}\n{\"id\": \"a\", \"question\": \"r\"}",
                "line 2: task id `a` is used twice",
            ),
            (
                "{\"id\": \"a\", \"question\": \"q\", \"tools\": [\"web\"]}",
                "unknown toolbox `web`",
            ),
            (
                "{\"id\": \"a\", \"puzzle\": \"1 2 3\"}",
                "four whole numbers",
            ),
            (
                "{\"id\": \"a\", \"question\": \"q\", \"answer\": [1]}",
                "`answer` as a list must hold non-empty strings",
            ),
            (
                "{\"id\": \"a\", \"question\": \"q\", \"follow_up_answer\": 1}",
                "without a `follow_up`",
            ),
            (
                "{\"id\": \"a\", \"question\": \"q\", \"tolerance\": -1}",
                "`tolerance` must be ≥ 0",
            ),
            ("\n", "t holds no tasks"),
        ] {
            let err = parse(text, "t").unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}

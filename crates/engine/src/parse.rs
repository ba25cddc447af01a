//! Reading model output: markers, JSON objects, lists and scores.
//!
//! Small models write markers in any case and with stray spacing
//! (`Final Answer:`, `FINAL_ANSWER :`), wrap JSON in prose or code fences,
//! and stop mid-sentence. Everything here takes arbitrary text and never
//! panics; "not found" is `None`.

use loopd_tools::math::{evaluate, round_significant};
use serde_json::Value;

/// Final-answer markers of the ReAct family, in the spellings models use.
pub const FINAL_ANSWER: &[&str] = &["final_answer:", "final answer:", "final-answer:"];

/// Finds the first of `markers` in `text`, ignoring ASCII case. Returns the
/// byte range of the marker.
pub fn find_marker(text: &str, markers: &[&str]) -> Option<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    markers
        .iter()
        .filter_map(|m| {
            let m = m.to_ascii_lowercase();
            lower.find(&m).map(|at| (at, at + m.len()))
        })
        .min_by_key(|&(start, end)| (start, std::cmp::Reverse(end)))
}

/// The text after the first marker, trimmed; `None` without a marker.
pub fn after_marker(text: &str, markers: &[&str]) -> Option<String> {
    find_marker(text, markers).map(|(_, end)| text[end..].trim().to_string())
}

/// The value of a `Label: value` line (first match, any case), trimmed;
/// the value ends at the end of the line.
pub fn field(text: &str, label: &str) -> Option<String> {
    let wanted = label.to_ascii_lowercase();
    text.lines().find_map(|line| {
        let trimmed = line.trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '#');
        let lower = trimmed.to_ascii_lowercase();
        let rest = lower.strip_prefix(&wanted)?;
        let rest_start = trimmed.len() - rest.len();
        let after =
            trimmed[rest_start..].trim_start_matches(|c: char| c == '*' || c.is_whitespace());
        let value = after.strip_prefix(':')?;
        Some(value.trim().trim_matches('*').trim().to_string())
    })
}

/// The first balanced `{…}` in `text` (braces inside JSON strings are
/// ignored), or `None` if no object closes.
pub fn balanced_json(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first JSON object in `text`, parsed.
pub fn json_object(text: &str) -> Result<Value, String> {
    let raw = balanced_json(text).ok_or_else(|| {
        if text.contains('{') {
            "the JSON object is not closed".to_string()
        } else {
            "no JSON object found".to_string()
        }
    })?;
    let value: Value = serde_json::from_str(raw).map_err(|e| format!("invalid JSON: {e}"))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err("expected a JSON object".to_string())
    }
}

/// The items of a numbered (`1.`, `2)`, `Step 3:`) or bulleted list, in order.
pub fn numbered_list(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(list_item)
        .filter(|item| !item.is_empty())
        .collect()
}

fn list_item(line: &str) -> Option<String> {
    let line = line.trim();
    let lower = line.to_ascii_lowercase();
    let line = if lower.starts_with("step ") {
        &line[5..]
    } else {
        line
    };
    if line.starts_with("**") {
        return None;
    }
    if let Some(rest) = line.strip_prefix(['-', '*', '•']) {
        return rest
            .starts_with([' ', '\t'])
            .then(|| rest.trim().to_string());
    }
    let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 3 {
        return None;
    }
    let rest = line[digits..].strip_prefix(['.', ')', ':'])?;
    Some(rest.trim().trim_start_matches('*').trim().to_string())
}

/// The first number in `text` (`7`, `7.5`, `-2`, `8/10` → 8), or `None`.
pub fn first_number(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let negative = c == b'-' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit());
        if c.is_ascii_digit() || negative {
            let start = i;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            let number = text[start..i].trim_end_matches('.');
            if let Ok(value) = number.parse::<f64>() {
                return Some(value);
            }
        } else {
            i += 1;
        }
    }
    None
}

/// Numbers written as words, and what they give.
const NUMBER_WORDS: [(&str, f64); 40] = [
    ("zero", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("hundred", 100.0),
    ("thousand", 1000.0),
    ("million", 1e6),
    ("billion", 1e9),
    ("half", 0.5),
    ("third", 3.0),
    ("quarter", 0.25),
    ("quarters", 0.25),
    ("dozen", 12.0),
    ("double", 2.0),
    ("triple", 3.0),
    ("once", 1.0),
];

/// The values of the number words in `text`, one per word (`eight` is 8,
/// `dozen` 12, `half` 0.5), in order.
pub fn number_words(text: &str) -> Vec<f64> {
    text.split(|c: char| !c.is_alphabetic())
        .filter_map(|word| {
            let lower = word.to_lowercase();
            NUMBER_WORDS
                .iter()
                .find(|(w, _)| *w == lower)
                .map(|(_, value)| *value)
        })
        .collect()
}

/// Whether `text` holds a number, in digits or in words.
pub fn has_numbers(text: &str) -> bool {
    !numbers(text).is_empty() || !number_words(text).is_empty()
}

/// A number as written in a text: its value and how many decimals it was
/// written with (`3.10` has two).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrittenNumber {
    /// The value.
    pub value: f64,
    /// Digits written after the decimal point.
    pub decimals: usize,
}

/// The numbers written in a text, in order: `2,183,082` is one number,
/// `-5` is negative, the hyphens of `2024-01-05` are not minus signs.
pub fn numbers(text: &str) -> Vec<WrittenNumber> {
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
        let mut decimals = 0;
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
                    decimals += 1;
                    i += 1;
                }
                break;
            }
        }
        let negative = start > 0
            && chars[start - 1] == '-'
            && (start < 2 || !chars[start - 2].is_alphanumeric());
        if let Ok(x) = digits.parse::<f64>() {
            found.push(WrittenNumber {
                value: if negative { -x } else { x },
                decimals,
            });
        }
    }
    found
}

/// Whether `text` contains `word` as a whole word, ignoring ASCII case
/// (`SATISFACTORY` is not found in `UNSATISFACTORY`).
pub fn has_word(text: &str, word: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let word = word.to_ascii_lowercase();
    let is_word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    lower.match_indices(&word).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// The name of a tool's only required argument when that argument is a
/// string (`lookup {query}` → `query`): the argument a plain-text input fills.
pub fn single_string_argument(schema: &Value) -> Option<&str> {
    let required = schema.get("required")?.as_array()?;
    let [name] = required.as_slice() else {
        return None;
    };
    let name = name.as_str()?;
    let kind = schema.get("properties")?.get(name)?.get("type")?;
    (kind == "string").then_some(name)
}

/// A tool input written after a label (`Tool Input:`, `TOOL INPUT:`): the
/// JSON object when the text starts with `{` (it may span lines), otherwise
/// the rest of the line, trimmed.
pub fn json_or_line(text: &str) -> &str {
    let ahead = text.trim_start();
    if ahead.starts_with('{') {
        if let Some(object) = balanced_json(ahead) {
            return object;
        }
    }
    text.trim_start_matches([' ', '\t'])
        .lines()
        .next()
        .unwrap_or("")
        .trim()
}

/// Tool arguments from a plain-text protocol: a JSON object as written, or
/// plain text as the value of the tool's single required string argument
/// ([`single_string_argument`]); an empty input is `{}` for a tool that
/// requires nothing. `Err` says why the input does not fit the schema.
pub fn tool_arguments(input: &str, schema: &Value) -> Result<Value, String> {
    let unfenced = input.trim().trim_matches('`').trim();
    let unfenced = unfenced
        .strip_prefix("json")
        .map(str::trim_start)
        .filter(|rest| rest.starts_with('{'))
        .unwrap_or(unfenced);
    if unfenced.starts_with('{') {
        return json_object(unfenced);
    }
    let text = unquote(unfenced);
    let requires_nothing = schema
        .get("required")
        .and_then(Value::as_array)
        .is_none_or(|required| required.is_empty());
    if text.is_empty() {
        return if requires_nothing {
            Ok(Value::Object(serde_json::Map::new()))
        } else {
            Err("no input was given".to_string())
        };
    }
    match single_string_argument(schema) {
        Some(name) => {
            let mut arguments = serde_json::Map::new();
            arguments.insert(name.to_string(), Value::String(text.to_string()));
            Ok(Value::Object(arguments))
        }
        None => Err("this tool takes its arguments as one JSON object, not plain text".to_string()),
    }
}

fn unquote(text: &str) -> &str {
    ['"', '\'']
        .iter()
        .find_map(|&q| {
            text.strip_prefix(q)
                .and_then(|rest| rest.strip_suffix(q))
                .map(str::trim)
        })
        .unwrap_or(text)
}

/// A tool call written in a chat template's native format.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// The arguments, a JSON object.
    pub arguments: Value,
}

const TOOL_CALL_OPEN: &str = "<tool_call>";
const TOOL_CALL_CLOSE: &str = "</tool_call>";

/// The tool calls in a reply: every `<tool_call>{"name":…,"arguments":{…}}</tool_call>`
/// block (Qwen, Hermes; the closing tag may be missing), or else a reply that
/// is a bare JSON object `{"name":…,"arguments"|"parameters":{…}}`. Each
/// call is `Err` with the reason when it cannot be read. Empty: plain text.
pub fn tool_calls(text: &str) -> Vec<Result<ToolCall, String>> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains(TOOL_CALL_OPEN) {
        let bare = unfence(text);
        if !bare.starts_with('{') {
            return Vec::new();
        }
        return vec![json_object(bare).and_then(|value| tool_call_from(&value))];
    }
    let mut calls = Vec::new();
    let mut at = 0;
    while let Some(found) = lower[at..].find(TOOL_CALL_OPEN) {
        let body = at + found + TOOL_CALL_OPEN.len();
        let (call, end) = tagged_tool_call(text, &lower, body);
        calls.push(call);
        at = end;
    }
    calls
}

/// Tool calls a brain returned as calls (a remote server's native tool
/// calls), read like the ones in text: arguments must be a JSON object.
pub fn returned_tool_calls(calls: &[loopd_brain::FunctionCall]) -> Vec<Result<ToolCall, String>> {
    calls
        .iter()
        .map(|call| {
            let value = serde_json::json!({"name": call.name, "arguments": call.arguments});
            tool_call_from(&value)
        })
        .collect()
}

/// The text inside a Markdown code fence that is the whole reply
/// (```` ```json\n{…}\n``` ````), or the text itself, trimmed.
fn unfence(text: &str) -> &str {
    let trimmed = text.trim();
    let Some(inner) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let inner = inner.strip_suffix("```").unwrap_or(inner);
    let inner = inner.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    inner.trim()
}

/// Reads the call whose body starts at `body`; returns it and where reading
/// goes on.
fn tagged_tool_call(text: &str, lower: &str, body: usize) -> (Result<ToolCall, String>, usize) {
    let limit = [TOOL_CALL_CLOSE, TOOL_CALL_OPEN]
        .iter()
        .filter_map(|tag| lower[body..].find(tag).map(|i| body + i))
        .min()
        .unwrap_or(text.len());
    let start = match text[body..].find('{').map(|i| body + i) {
        Some(start) if start < limit => start,
        _ => return (Err("no JSON object in <tool_call>".to_string()), limit),
    };
    let Some(raw) = balanced_json(&text[start..]) else {
        return (Err("the JSON object is not closed".to_string()), limit);
    };
    let end = start + raw.len();
    let call = serde_json::from_str(raw)
        .map_err(|e| format!("invalid JSON: {e}"))
        .and_then(|value| tool_call_from(&value));
    let rest = &lower[end..];
    let after_close = match rest.trim_start().strip_prefix(TOOL_CALL_CLOSE) {
        Some(after) => text.len() - after.len(),
        None => end,
    };
    (call, after_close)
}

/// A call from `{"name", "arguments"|"parameters"}`, also nested in
/// `{"function": {…}}`; arguments may be a JSON object or a string holding one.
fn tool_call_from(value: &Value) -> Result<ToolCall, String> {
    if let Some(function) = value.get("function").filter(|f| f.is_object()) {
        return tool_call_from(function);
    }
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .ok_or("a tool call needs a \"name\"")?;
    let arguments = match value.get("arguments").or_else(|| value.get("parameters")) {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(Value::String(raw)) if raw.trim().is_empty() => Value::Object(Default::default()),
        Some(Value::String(raw)) => match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => return Err(format!("the arguments of `{name}` are not a JSON object")),
        },
        Some(_) => return Err(format!("the arguments of `{name}` are not a JSON object")),
    };
    Ok(ToolCall {
        name: name.to_string(),
        arguments,
    })
}

/// An equation written in a text: a computation left of `=` (at least
/// one operator) and what is claimed for it on the right.
#[derive(Debug, Clone, PartialEq)]
pub struct Equation {
    /// The computation (`60 - 8`), thousands commas dropped.
    pub left: String,
    /// What follows `=`, read as arithmetic (`52`, `4 * 13`; empty when
    /// no digit follows).
    pub right: String,
    /// Where the claimed number stands in the text, in bytes: after the
    /// spaces and currency sign that follow `=` (`$52` claims `52`); an
    /// empty range where none is written.
    pub claimed_at: std::ops::Range<usize>,
}

/// The equations in `text` whose left side computes something, in order
/// (`5 * 12 = 60 rolls, 60 - 8 = 53` has two); `==`, `<=`, `>=` and `!=`
/// are not equations.
pub fn equations(text: &str) -> Vec<Equation> {
    let chars: Vec<char> = text.chars().collect();
    let byte_at = |i: usize| text.char_indices().nth(i).map_or(text.len(), |(b, _)| b);
    let mut found = Vec::new();
    for (at, &c) in chars.iter().enumerate() {
        let neighbours = [
            at.checked_sub(1).map(|i| chars[i]),
            chars.get(at + 1).copied(),
        ];
        if c != '=' || neighbours.iter().flatten().any(|n| "=<>!".contains(*n)) {
            continue;
        }
        let left = arithmetic_before(&chars, at);
        if !has_operator(&left) {
            continue;
        }
        let mut start = at + 1;
        while chars
            .get(start)
            .is_some_and(|c| c.is_whitespace() || is_currency(*c))
        {
            start += 1;
        }
        let mut end = start;
        while end < chars.len()
            && (chars[end].is_ascii_digit()
                || chars[end] == ',' && is_digit_group(&chars, end)
                || chars[end] == '.' && chars.get(end + 1).is_some_and(char::is_ascii_digit))
        {
            end += 1;
        }
        if end == start {
            start = at + 1;
            end = start;
        }
        found.push(Equation {
            left,
            right: arithmetic_after(&chars, at + 1),
            claimed_at: byte_at(start)..byte_at(end),
        });
    }
    found
}

/// The first equation in `text` whose arithmetic is wrong, e.g.
/// `(1 + 1) * 4 * 6 = 24`, said as "(1 + 1) * 4 * 6 is 48, not 24"; `None` when every
/// equation that can be checked holds. Only a computation on the left of
/// `=` (at least one operator) is checked, against a number or computation
/// on the right; a right side with decimals may be rounded to them.
pub fn false_equation(text: &str) -> Option<String> {
    for Equation { left, right, .. } in equations(text) {
        if !right.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let (Ok(value), Ok(claimed)) = (evaluate(&left), evaluate(&right)) else {
            continue;
        };
        let decimals = right
            .split_once('.')
            .filter(|_| right.parse::<f64>().is_ok())
            .map_or(0, |(_, fraction)| fraction.len() as i32);
        let tolerance = if decimals > 0 {
            0.5 * 10f64.powi(-decimals) + 1e-9
        } else {
            1e-9 * claimed.abs().max(1.0)
        };
        if (value - claimed).abs() > tolerance {
            return Some(format!(
                "{left} is {}, not {right}",
                round_significant(value, 6)
            ));
        }
    }
    None
}

/// Characters an arithmetic expression is written with.
fn is_arithmetic(c: char) -> bool {
    c.is_ascii_digit() || " .+-*/×÷−^%()".contains(c) || is_currency(c)
}

/// A currency sign, written before amounts in an expression (`$62 + $9.30`)
/// and left out of it.
fn is_currency(c: char) -> bool {
    loopd_tools::numbers::CURRENCY_SIGNS.contains(&c)
}

/// A comma between digits that groups thousands (`1,200`).
fn is_digit_group(chars: &[char], comma: usize) -> bool {
    let digit = |i: usize| chars.get(i).is_some_and(|c| c.is_ascii_digit());
    comma > 0 && digit(comma - 1) && (1..=3).all(|k| digit(comma + k)) && !digit(comma + 4)
}

/// The expression that ends just before `end`.
fn arithmetic_before(chars: &[char], end: usize) -> String {
    let mut start = end;
    while start > 0
        && (is_arithmetic(chars[start - 1])
            || chars[start - 1] == ',' && is_digit_group(chars, start - 1))
    {
        start -= 1;
    }
    expression_of(&chars[start..end])
}

/// The expression that starts at `start`.
fn arithmetic_after(chars: &[char], start: usize) -> String {
    let mut end = start;
    while end < chars.len()
        && (is_arithmetic(chars[end]) || chars[end] == ',' && is_digit_group(chars, end))
    {
        end += 1;
    }
    expression_of(&chars[start..end])
}

/// `chars` trimmed to an expression: thousands commas and unmatched
/// brackets dropped, dangling operators or full stops at the ends removed.
fn expression_of(chars: &[char]) -> String {
    let mut unmatched = Vec::new();
    let mut open = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '(' => open.push(i),
            ')' if open.pop().is_none() => unmatched.push(i),
            _ => {}
        }
    }
    unmatched.extend(open);
    let text: String = chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| c != ',' && !is_currency(c) && !unmatched.contains(&i))
        .map(|(_, &c)| c)
        .collect();
    let mut text = text.as_str();
    loop {
        let trimmed = text
            .trim()
            .trim_end_matches(['.', '+', '-', '*', '/', '×', '÷', '−', '^'])
            .trim_start_matches(['+', '*', '/', '×', '÷', '^', '%', '.']);
        if trimmed == text {
            return text.to_string();
        }
        text = trimmed;
    }
}

/// Whether `expression` computes something rather than being one number.
fn has_operator(expression: &str) -> bool {
    expression
        .char_indices()
        .any(|(i, c)| "+*/×÷^".contains(c) || (c == '-' || c == '−') && i > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markers_ignore_case_and_take_the_earliest() {
        assert_eq!(
            after_marker("Thought: done\nFinal Answer: Paris.", FINAL_ANSWER),
            Some("Paris.".into())
        );
        assert_eq!(
            after_marker("FINAL_ANSWER:42 FINAL ANSWER: 7", FINAL_ANSWER),
            Some("42 FINAL ANSWER: 7".into())
        );
        assert_eq!(after_marker("no marker here", FINAL_ANSWER), None);
        assert_eq!(after_marker("", FINAL_ANSWER), None);
    }

    #[test]
    fn fields_read_one_line() {
        let text = "Thought: x\n**Action**: get_time\nAction Input: {}";
        assert_eq!(field(text, "action"), Some("get_time".into()));
        assert_eq!(field(text, "thought"), Some("x".into()));
        assert_eq!(field(text, "observation"), None);
        assert_eq!(field("Actions are: 3", "action"), None);
    }

    #[test]
    fn balanced_json_skips_braces_in_strings() {
        let text = r#"Action Input: {"a": "}{", "b": {"c": 1}} trailing }"#;
        assert_eq!(balanced_json(text), Some(r#"{"a": "}{", "b": {"c": 1}}"#));
        assert_eq!(balanced_json(r#"{"a": "\"}"}"#), Some(r#"{"a": "\"}"}"#));
        assert_eq!(balanced_json("{ never closed"), None);
        assert_eq!(balanced_json("no braces"), None);
        assert_eq!(balanced_json("}}}{"), None);
    }

    #[test]
    fn json_object_explains_failures() {
        assert_eq!(json_object("x {\"a\":1} y"), Ok(json!({"a": 1})));
        assert!(json_object("{'a': 1}")
            .unwrap_err()
            .contains("invalid JSON"));
        assert!(json_object("{\"a\":").unwrap_err().contains("not closed"));
        assert!(json_object("none").unwrap_err().contains("no JSON"));
    }

    #[test]
    fn lists() {
        let plan =
            "Plan:\n1. Get the time\n2) Add 3 hours\nStep 3: Answer\n- bullet\n\n10. ten\nx. no";
        assert_eq!(
            numbered_list(plan),
            vec!["Get the time", "Add 3 hours", "Answer", "bullet", "ten"]
        );
        assert!(numbered_list("no list").is_empty());
        assert!(numbered_list("**Plan:**\n---\n*emphasis*\n-x").is_empty());
        assert_eq!(numbered_list("* one\n•\ttwo"), vec!["one", "two"]);
        assert!(numbered_list("1.\n2.").is_empty());
        assert_eq!(numbered_list("1234. too long"), Vec::<String>::new());
    }

    #[test]
    fn numbers_and_words() {
        assert_eq!(first_number("Score: 8/10"), Some(8.0));
        assert_eq!(first_number("about 7.5."), Some(7.5));
        assert_eq!(first_number("-2 points"), Some(-2.0));
        assert_eq!(first_number("none"), None);
        assert!(has_word("It is SATISFACTORY.", "satisfactory"));
        assert!(!has_word("UNSATISFACTORY", "satisfactory"));
        assert!(!has_word("", "x"));
    }

    #[test]
    fn single_string_arguments() {
        let lookup = json!({"type": "object", "properties": {"query": {"type": "string"}},
                            "required": ["query"]});
        assert_eq!(single_string_argument(&lookup), Some("query"));
        let add = json!({"properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                         "required": ["a", "b"]});
        assert_eq!(single_string_argument(&add), None);
        let number = json!({"properties": {"n": {"type": "number"}}, "required": ["n"]});
        assert_eq!(single_string_argument(&number), None);
        assert_eq!(single_string_argument(&json!({"type": "object"})), None);
        let undeclared = json!({"required": ["q"]});
        assert_eq!(single_string_argument(&undeclared), None);
    }

    #[test]
    fn json_or_line_reads_one_input() {
        assert_eq!(json_or_line(" Paris weather\nNext: x"), "Paris weather");
        assert_eq!(json_or_line(" {\"a\":\n 1}\nmore"), "{\"a\":\n 1}");
        assert_eq!(json_or_line("\n{\"a\": 1}"), "{\"a\": 1}");
        assert_eq!(json_or_line(" {not closed\nnext"), "{not closed");
        assert_eq!(json_or_line(""), "");
        assert_eq!(json_or_line("\nnext line"), "");
    }

    #[test]
    fn tool_arguments_from_text_or_json() {
        let lookup = json!({"properties": {"query": {"type": "string"}}, "required": ["query"]});
        let add = json!({"properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                         "required": ["a", "b"]});
        let free = json!({"type": "object"});
        assert_eq!(
            tool_arguments(" Eiffel Tower height ", &lookup),
            Ok(json!({"query": "Eiffel Tower height"}))
        );
        assert_eq!(
            tool_arguments("\"quoted text\"", &lookup),
            Ok(json!({"query": "quoted text"}))
        );
        assert_eq!(
            tool_arguments("{\"query\": \"x\"}", &lookup),
            Ok(json!({"query": "x"}))
        );
        assert_eq!(
            tool_arguments("```json {\"a\": 1, \"b\": 2}```", &add),
            Ok(json!({"a": 1, "b": 2}))
        );
        assert!(tool_arguments("1 and 2", &add)
            .unwrap_err()
            .contains("JSON object"));
        assert!(tool_arguments("{a: 1}", &add)
            .unwrap_err()
            .contains("invalid JSON"));
        assert!(tool_arguments("", &lookup)
            .unwrap_err()
            .contains("no input"));
        assert_eq!(tool_arguments("  ", &free), Ok(json!({})));
        assert!(tool_arguments("text", &free).is_err());
    }

    fn call(name: &str, arguments: Value) -> Result<ToolCall, String> {
        Ok(ToolCall {
            name: name.into(),
            arguments,
        })
    }

    #[test]
    fn tool_calls_in_a_code_fence() {
        let fenced = "```json\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n```";
        assert_eq!(tool_calls(fenced), vec![call("add", json!({"a": 1}))]);
        let unclosed = "```\n{\"name\": \"add\", \"arguments\": {}}";
        assert_eq!(tool_calls(unclosed), vec![call("add", json!({}))]);
        assert!(tool_calls("```python\nprint(1)\n```").is_empty());
    }

    #[test]
    fn tool_calls_in_tags() {
        let text =
            "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}\n</tool_call>";
        assert_eq!(tool_calls(text), vec![call("add", json!({"a": 2, "b": 3}))]);
        let two = "Let me see.\n<tool_call>{\"name\":\"a\",\"arguments\":{}}</tool_call>\n<TOOL_CALL>{\"name\":\"b\",\"parameters\":{\"x\":1}}</TOOL_CALL>";
        assert_eq!(
            tool_calls(two),
            vec![call("a", json!({})), call("b", json!({"x": 1}))]
        );
        let nested = "<tool_call>{\"type\":\"function\",\"function\":{\"name\":\"a\",\"arguments\":\"{\\\"x\\\": 1}\"}}</tool_call>";
        assert_eq!(tool_calls(nested), vec![call("a", json!({"x": 1}))]);
        let no_arguments = "<tool_call>{\"name\": \"now\"}";
        assert_eq!(tool_calls(no_arguments), vec![call("now", json!({}))]);
    }

    #[test]
    fn tool_call_tags_inside_strings_do_not_split_calls() {
        let text = "<tool_call>{\"name\":\"echo\",\"arguments\":{\"t\":\"<tool_call>}{</tool_call>\"}}</tool_call>";
        assert_eq!(
            tool_calls(text),
            vec![call("echo", json!({"t": "<tool_call>}{</tool_call>"}))]
        );
    }

    #[test]
    fn bare_json_tool_calls() {
        assert_eq!(
            tool_calls("  {\"name\": \"add\", \"parameters\": {\"a\": 1}} "),
            vec![call("add", json!({"a": 1}))]
        );
        assert_eq!(
            tool_calls("{\"name\": \"add\", \"arguments\": \"{\\\"a\\\": 1}\"}"),
            vec![call("add", json!({"a": 1}))]
        );
        assert!(tool_calls("The set {1, 2} has two items.").is_empty());
        assert!(tool_calls("").is_empty());
        assert!(tool_calls("Plain answer.").is_empty());
    }

    #[test]
    fn malformed_tool_calls_are_errors() {
        let errors = |text: &str| -> Vec<String> {
            tool_calls(text)
                .into_iter()
                .map(|c| c.expect_err("malformed"))
                .collect()
        };
        assert!(
            errors("<tool_call>{\"name\": \"add\", \"arguments\": {\"a\": 1")[0]
                .contains("not closed")
        );
        assert!(errors("<tool_call>{name: add}</tool_call>")[0].contains("invalid JSON"));
        assert!(errors("<tool_call></tool_call>")[0].contains("no JSON"));
        assert!(errors("<tool_call>")[0].contains("no JSON"));
        assert!(errors("<tool_call>{\"arguments\": {}}</tool_call>")[0].contains("name"));
        assert!(errors("<tool_call>{\"name\": \" \"}</tool_call>")[0].contains("name"));
        assert!(errors("<tool_call>{\"name\": 3}</tool_call>")[0].contains("name"));
        assert!(
            errors("<tool_call>{\"name\": \"a\", \"arguments\": [1]}</tool_call>")[0]
                .contains("not a JSON object")
        );
        assert!(
            errors("<tool_call>{\"name\": \"a\", \"arguments\": \"{oops\"}</tool_call>")[0]
                .contains("not a JSON object")
        );
        assert!(errors("{\"answer\": \"Paris\"}")[0].contains("name"));
        assert!(errors("{ not json")[0].contains("not closed"));
        assert!(errors("[1, 2]").is_empty());
        assert_eq!(errors("<tool_call> x </tool_call><tool_call>{").len(), 2);
        assert_eq!(
            tool_calls("<tool_call>{\"name\":\"ok\"}</tool_call><tool_call>{bad}</tool_call>")
                .len(),
            2
        );
        assert_eq!(tool_calls("</tool_call>"), Vec::new());
        assert_eq!(tool_calls("<tool_call><tool_call><tool_call>").len(), 3);
        assert_eq!(
            tool_calls("<tool_call>{\"name\":\"é\"}</tool_call>ü").len(),
            1
        );
    }

    #[test]
    fn equations_name_their_computation_and_claimed_number() {
        let text = "She bakes 5 * 12 = 60 rolls, and 60 - 8 = $53; x = 4, 3 == 3, 2 * 2 =";
        let found = equations(text);
        let claimed: Vec<&str> = found.iter().map(|e| &text[e.claimed_at.clone()]).collect();
        let lefts: Vec<&str> = found.iter().map(|e| e.left.as_str()).collect();
        assert_eq!(lefts, ["5 * 12", "60 - 8", "2 * 2"]);
        assert_eq!(claimed, ["60", "53", ""]);
        assert_eq!(found[2].claimed_at, text.len()..text.len());
        let grouped = equations("Step 2: 80,000 + 50,000 = 130,000 dollars.");
        assert_eq!(grouped[0].left, "80000 + 50000");
        assert_eq!(
            &"Step 2: 80,000 + 50,000 = 130,000 dollars."[grouped[0].claimed_at.clone()],
            "130,000"
        );
        assert_eq!(equations("× é = 3 * 4 = 12")[0].left, "3 * 4");
        let money = "Step 2: $62 + $9.30 = $71.30 in all.";
        let found = equations(money);
        assert_eq!(found[0].left, "62 + 9.30");
        assert_eq!(&money[found[0].claimed_at.clone()], "71.30");
    }

    #[test]
    fn false_equations_are_found_and_true_ones_pass() {
        for wrong in [
            "(1 + 1) * 4 * 6 = 24",
            "First 4 * 6 = 25, then done.",
            "1,200 + 300 = 1,600",
            "so 10 / 4 = 2 apples",
            "x = 3 + 3 = 7",
            "so (2 + 2 = 5)",
        ] {
            assert!(false_equation(wrong).is_some(), "{wrong}");
        }
        for right in [
            "(1 + 1) * (4 + 8) = 24",
            "4 * 6 = 24 (left: 1 1 24)",
            "1,200 + 300 = 1,500.",
            "22 / 7 = 3.14",
            "15% of 240 = 36",
            "15% * 240 = 36",
            "x = 4 * 6 = 24",
            "The answer is 24.",
            "a <= 3 + 4, a == 7",
            "Step 2: 10 - 3 = 7, so 7 * 2 = 14",
            "4 x 6 = 24",
            "-3 = -3",
        ] {
            assert_eq!(false_equation(right), None, "{right}");
        }
        assert_eq!(
            false_equation("(1 + 1) * 4 * 6 = 24").unwrap(),
            "(1 + 1) * 4 * 6 is 48, not 24"
        );
    }
}

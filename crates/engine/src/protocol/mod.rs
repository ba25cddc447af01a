//! The protocols engines ask the model to write, each as a grammar beside
//! the parser that reads it, so the two cannot drift apart.
//!
//! A grammar describes the reply after the call's prefix (`Thought:` for a
//! ReAct step) in llguidance's Lark dialect. The local brain enforces it
//! token by token, so a reply always parses; with `constrain = false` the
//! same parsers read free text and count what does not fit as format errors.
//! The pieces shared by several protocols (a line of text, a tool call with
//! JSON arguments checked against the tool's schema) live here.

pub mod chain_of_thought;
pub mod checkpoint;
pub mod critic;
pub mod native;
pub mod plan;
pub mod react;
pub mod score;
pub mod self_ask;
pub mod verdict;

use loopd_brain::Grammar;
use loopd_tools::ToolSpec;
use serde_json::Value;

/// A Lark string literal for `text`.
pub fn literal(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

/// Terminals every protocol may use: `LINE`, one line of text that does not
/// start with a space and holds at least one visible character, and `SP`,
/// optional spaces after a label.
pub const COMMON: &str = r#"
LINE: /[^\s][^\n]{0,400}/
SP: /[ ]?/
"#;

/// Rules named `{rule}` that match one call of any of `tools` as
/// `{name_label}NAME{between}JSON`, the JSON valid against that tool's
/// argument schema. One alternative per tool, so a tool's name decides
/// which schema its arguments follow.
pub fn tool_calls_rule(rule: &str, tools: &[&ToolSpec], name_label: &str, between: &str) -> String {
    grounded_calls_rule(rule, tools, name_label, between, Inputs::default())
}

/// What a tool call's arguments are held to beyond their schemas.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inputs<'a> {
    /// The only numbers they may hold, as written ([`only_numbers`]): a
    /// tool's input then comes from the question and earlier results,
    /// never from the model's own guess.
    pub numbers: Option<&'a [String]>,
    /// The user's question, which an argument marked `x-question` (one
    /// that reads words: the calculator's expression, the calendar's
    /// question) must then be, word for word.
    pub question: Option<&'a str>,
}

/// [`tool_calls_rule`] with the arguments held to `inputs`.
pub fn grounded_calls_rule(
    rule: &str,
    tools: &[&ToolSpec],
    name_label: &str,
    between: &str,
    inputs: Inputs,
) -> String {
    let mut text = String::new();
    let alternatives: Vec<String> = (0..tools.len()).map(|i| format!("{rule}_{i}")).collect();
    text.push_str(&format!("{rule}: {}\n", alternatives.join(" | ")));
    for (i, tool) in tools.iter().enumerate() {
        let head = literal(&format!("{name_label}{}{between}", tool.name));
        let mut schema = arguments_schema(&tool.argument_schema);
        if let Some(allowed) = inputs.numbers {
            only_numbers(&mut schema, allowed);
        }
        if let Some(question) = inputs.question {
            word_for_word(&mut schema, question);
        }
        let schema = json_text(&compact(schema));
        text.push_str(&format!("{rule}_{i}: {head} %json {schema}\n"));
    }
    text
}

/// Longest array a tool argument may be when its schema sets no bound.
pub const MAX_ITEMS: u64 = 24;
/// Longest string a tool argument may be when its schema sets no bound.
pub const MAX_LENGTH: u64 = 100;
/// Finest step of a number argument when its schema sets none: six decimals.
pub const NUMBER_STEP: f64 = 1e-6;
/// Longest run of digits in a string argument whose schema sets no
/// pattern, so an expression cannot hold a 90-digit literal, and in any
/// number (held while decoding: [`Grammar::with_number_digits`]), so that
/// every integer a model writes is exact as an `f64`.
pub const MAX_DIGIT_RUN: usize = 15;

/// A tool's argument schema as the grammar uses it: an object that says
/// nothing of extra keys gets none, arrays and strings are held to at most
/// [`MAX_ITEMS`] items and [`MAX_LENGTH`] characters with digit runs of at
/// most [`MAX_DIGIT_RUN`], and numbers that are not integers to six
/// decimals, so a model cannot spend its tokens on an endless string, list
/// or number; the digits before the point are held by the grammar's
/// digit limit ([`grammar`]) rather than by `minimum` and `maximum`, which
/// llguidance would compile into a range regex for each request. Only
/// the grammar is held to these; the tool still validates against its own
/// schema.
pub fn arguments_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object
            .entry("type")
            .or_insert_with(|| Value::String("object".into()));
        object
            .entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    bound(&mut schema);
    schema
}

/// A schema whose JSON is written compactly on one line (`{"a": 1, "b": 2}`),
/// not spread over lines and spaces.
pub fn compact(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.insert(
            "x-guidance".into(),
            serde_json::json!({
                "whitespace_flexible": false,
                "item_separator": ", ",
                "key_separator": ": ",
                "lenient": true,
            }),
        );
    }
    schema
}

/// JSON text for a `%json` sub-grammar.
pub fn json_text(schema: &Value) -> String {
    serde_json::to_string(schema).unwrap_or_else(|_| "{}".into())
}

fn bound(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            let kind = object.get("type").cloned();
            let is = |name: &str| match &kind {
                Some(Value::String(k)) => k == name,
                Some(Value::Array(kinds)) => kinds.iter().any(|k| k == name),
                _ => false,
            };
            if is("array") {
                cap(object, "maxItems", "minItems", MAX_ITEMS);
            }
            if is("string") && !object.contains_key("enum") && !object.contains_key("format") {
                cap(object, "maxLength", "minLength", MAX_LENGTH);
                object.entry("pattern").or_insert_with(|| {
                    let run = MAX_DIGIT_RUN;
                    format!("^[^0-9]*([0-9]{{1,{run}}}[^0-9]+)*[0-9]{{0,{run}}}$").into()
                });
            }
            if is("number") && !is("integer") && !object.contains_key("enum") {
                object.entry("multipleOf").or_insert(NUMBER_STEP.into());
            }
            object.values_mut().for_each(bound);
        }
        Value::Array(items) => items.iter_mut().for_each(bound),
        _ => {}
    }
}

/// Holds a schema's strings and numbers to the numbers of `allowed`: a
/// string's digits must spell one of them (between other characters), a
/// number must be one of them. Schemas that say which values they take
/// (`enum`, `const`, `format`) keep their own rule.
pub fn only_numbers(schema: &mut Value, allowed: &[String]) {
    match schema {
        Value::Object(object) => {
            let own_rule = ["enum", "const", "format"]
                .iter()
                .any(|key| object.contains_key(*key));
            let kind = object
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if !own_rule && kind == "string" {
                object.insert("pattern".into(), numbers_pattern(allowed).into());
            }
            if !own_rule && (kind == "number" || kind == "integer") {
                let mut values: Vec<Value> = Vec::new();
                for form in allowed {
                    let Ok(value) = form.parse::<f64>() else {
                        continue;
                    };
                    let value = if kind == "integer" {
                        if value.fract() != 0.0 {
                            continue;
                        }
                        serde_json::json!(value as i64)
                    } else {
                        serde_json::json!(value)
                    };
                    if !values.contains(&value) {
                        values.push(value);
                    }
                }
                if !values.is_empty() {
                    for key in ["minimum", "maximum", "multipleOf"] {
                        object.remove(key);
                    }
                    object.insert("enum".into(), Value::Array(values));
                }
            }
            object
                .iter_mut()
                .filter(|(key, _)| !matches!(key.as_str(), "enum" | "const" | "pattern"))
                .for_each(|(_, value)| only_numbers(value, allowed));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| only_numbers(item, allowed)),
        _ => {}
    }
}

/// Makes every property marked `x-question` take exactly `question`.
fn word_for_word(schema: &mut Value, question: &str) {
    let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for property in properties.values_mut() {
        if property.get("x-question") == Some(&Value::Bool(true)) {
            if let Some(object) = property.as_object_mut() {
                for key in ["pattern", "maxLength", "minLength"] {
                    object.remove(key);
                }
                object.insert("enum".into(), serde_json::json!([question.trim()]));
            }
        }
    }
}

/// A regex for text whose every run of digits (with its decimals) is one
/// of `allowed`.
fn numbers_pattern(allowed: &[String]) -> String {
    let mut forms: Vec<String> = allowed
        .iter()
        .filter(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .map(|f| f.replace('.', "\\."))
        .collect();
    forms.sort();
    forms.dedup();
    if forms.is_empty() {
        return "^[^0-9]*$".into();
    }
    let number = format!("(?:{})", forms.join("|"));
    format!("^[^0-9]*(?:{number}[^0-9.][^0-9]*)*{number}?$")
}

/// Sets `key` to `limit`, or keeps the schema's own bound where it is
/// lower; never below the schema's own `min_key`, so the grammar stays
/// satisfiable.
fn cap(object: &mut serde_json::Map<String, Value>, key: &str, min_key: &str, limit: u64) {
    let own = object.get(key).and_then(Value::as_u64).unwrap_or(u64::MAX);
    let least = object.get(min_key).and_then(Value::as_u64).unwrap_or(0);
    object.insert(key.into(), own.min(limit.max(least)).into());
}

/// A regex that matches `word` (letters, digits, spaces and `_`) in any
/// letter case, as small models write `Final Answer:` for `FINAL ANSWER:`.
pub fn any_case(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == ' ' || *c == '_')
        .map(|c| match c {
            c if c.is_ascii_alphabetic() => {
                format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
            }
            c => c.to_string(),
        })
        .collect()
}

/// A regex for one non-empty line that does not start with `word` in any
/// letter case (letters, digits, spaces and `_` only), spelled out letter by
/// letter: llguidance's `~` negation misbehaves after several lexemes of one
/// terminal.
pub fn line_not_starting_with(word: &str) -> String {
    let letters: Vec<char> = word
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == ' ' || *c == '_')
        .collect();
    let mut pattern = String::new();
    for (i, c) in letters.iter().enumerate().rev() {
        let (lower, upper) = (c.to_ascii_lowercase(), c.to_ascii_uppercase());
        let (other, same) = if lower == upper {
            (format!("[^{c}\\n]"), c.to_string())
        } else {
            (format!("[^{lower}{upper}\\n]"), format!("[{lower}{upper}]"))
        };
        pattern = if i + 1 == letters.len() {
            other
        } else {
            format!("(?:{other}|{same}{pattern})")
        };
    }
    format!("{pattern}[^\\n]{{0,400}}")
}

/// Free text that is never empty: one to `max_lines` lines, each starting
/// with a visible character. For replies with no protocol of their own
/// (a revision, a synthesis, a reflection), so none comes back blank.
pub fn some_text(max_lines: usize) -> Grammar {
    grammar(&format!(
        "start: LINE (\"\\n\" LINE){{0,{}}}\n",
        max_lines.saturating_sub(1)
    ))
}

/// A grammar from rules and the common terminals, whose JSON numbers run
/// to at most [`MAX_DIGIT_RUN`] digits.
pub fn grammar(rules: &str) -> Grammar {
    Grammar::lark(format!("{rules}\n{COMMON}")).with_number_digits(MAX_DIGIT_RUN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_grammar_schema_caps_bounds_a_tool_set_high() {
        let schema = arguments_schema(&json!({
            "properties": {
                "numbers": {"type": "array", "items": {"type": "number"}, "maxItems": 10000},
                "name": {"type": "string", "maxLength": 8},
                "code": {"type": "string", "minLength": 200},
                "count": {"type": "integer"},
            }
        }));
        assert_eq!(
            schema["properties"]["code"]["maxLength"], 200,
            "never below minLength"
        );
        assert!(schema["properties"]["count"].get("maximum").is_none());
        assert!(schema["properties"]["count"].get("multipleOf").is_none());
        let numbers = &schema["properties"]["numbers"];
        assert_eq!(numbers["maxItems"], MAX_ITEMS);
        assert_eq!(numbers["items"]["multipleOf"], NUMBER_STEP);
        assert_eq!(schema["properties"]["name"]["maxLength"], 8);
        assert_eq!(schema["additionalProperties"], false);
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Grammar checks on a byte-level vocabulary: each byte is a token.
    use loopd_brain::grammar::{special, GrammarCompiler};
    use loopd_brain::Grammar;

    fn compiler() -> GrammarCompiler {
        let mut words: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        words.push(special(b"<end>"));
        GrammarCompiler::from_words(words, &[256]).unwrap()
    }

    /// A calculator tool with one required string argument, `expression`.
    pub fn calculator() -> loopd_tools::ToolSpec {
        loopd_tools::ToolSpec {
            name: "calculate".into(),
            description: "math".into(),
            argument_schema: serde_json::json!({"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}),
            output_schema: serde_json::json!({}),
        }
    }

    /// Whether `grammar` accepts `text` as a whole reply.
    pub fn accepts(grammar: &Grammar, text: &str) -> bool {
        let mut constraint = compiler()
            .start(grammar)
            .unwrap_or_else(|e| panic!("{e}\n{}", grammar.text()));
        text.bytes()
            .all(|b| constraint.allows(b as u32) && constraint.accept(b as u32).is_ok())
            && constraint.allows(256)
    }
}

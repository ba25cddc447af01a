//! Rendering a conversation with the model's own chat template.
//!
//! GGUF files carry the Hugging Face Jinja template in
//! `tokenizer.chat_template`. It is rendered with minijinja configured the way
//! transformers configures Jinja2: trim and lstrip blocks, Python string
//! methods, `tojson` as Python's `json.dumps(ensure_ascii=False)`,
//! `raise_exception` and `strftime_now`. A model without a template gets
//! ChatML, which is what most small chat models are trained on.

use super::Message;
use minijinja::value::{Kwargs, Value};
use minijinja::{Environment, Error, ErrorKind};
use serde::Serialize;

/// ChatML, used when a model ships no template of its own.
pub const CHATML: &str = "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

/// Why a chat template did not compile or render.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The template source does not compile.
    #[error("cannot compile the chat template: {0}")]
    Compile(#[source] Error),
    /// Rendering failed; a `raise_exception` in the template shows as its
    /// own message.
    #[error("{}", describe_error(.0))]
    Render(#[source] Error),
}

/// The most instructions one rendering of a chat template may run: a GGUF
/// file's template is untrusted input, and one that loops for ever gets an
/// error instead of a core. A long conversation with tools takes well under
/// a tenth of it.
pub const TEMPLATE_FUEL: u64 = 5_000_000;

/// A compiled chat template.
pub struct ChatTemplate {
    env: Environment<'static>,
    bos_token: String,
    eos_token: String,
    supports_tools: bool,
    is_fallback: bool,
}

#[derive(Serialize)]
struct TemplateContext<'a> {
    messages: &'a [Message],
    tools: Option<&'a [serde_json::Value]>,
    add_generation_prompt: bool,
    bos_token: &'a str,
    eos_token: &'a str,
}

impl ChatTemplate {
    /// Compiles `source`; `None` selects the ChatML fallback. A rendering
    /// may run [`TEMPLATE_FUEL`] instructions.
    pub fn new(
        source: Option<&str>,
        bos_token: &str,
        eos_token: &str,
    ) -> Result<Self, TemplateError> {
        Self::with_fuel(source, bos_token, eos_token, TEMPLATE_FUEL)
    }

    /// [`ChatTemplate::new`] with `fuel` instructions a rendering.
    pub fn with_fuel(
        source: Option<&str>,
        bos_token: &str,
        eos_token: &str,
        fuel: u64,
    ) -> Result<Self, TemplateError> {
        let is_fallback = source.is_none();
        let source = source.unwrap_or(CHATML).to_string();
        let supports_tools = source.contains("tools");
        let mut env = Environment::new();
        env.set_fuel(Some(fuel));
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", raise_exception);
        env.add_function("strftime_now", strftime_now);
        env.add_template_owned("chat_template", source)
            .map_err(TemplateError::Compile)?;
        Ok(ChatTemplate {
            env,
            bos_token: bos_token.to_string(),
            eos_token: eos_token.to_string(),
            supports_tools,
            is_fallback,
        })
    }

    /// Whether the template mentions tools (and so can list them).
    pub fn supports_tools(&self) -> bool {
        self.supports_tools
    }

    /// Whether this is the built-in ChatML fallback.
    pub fn is_fallback(&self) -> bool {
        self.is_fallback
    }

    /// Renders a conversation. `tools` are OpenAI-style function definitions;
    /// an empty list is passed to the template as `None`, as transformers does.
    pub fn render(
        &self,
        messages: &[Message],
        tools: &[serde_json::Value],
        add_generation_prompt: bool,
    ) -> Result<String, TemplateError> {
        let template = self
            .env
            .get_template("chat_template")
            .map_err(TemplateError::Render)?;
        let context = TemplateContext {
            messages,
            tools: (!tools.is_empty()).then_some(tools),
            add_generation_prompt,
            bos_token: &self.bos_token,
            eos_token: &self.eos_token,
        };
        template.render(context).map_err(TemplateError::Render)
    }
}

fn describe_error(e: &Error) -> String {
    match e.kind() {
        ErrorKind::InvalidOperation => e
            .detail()
            .unwrap_or("template raised an exception")
            .to_string(),
        _ => e.to_string(),
    }
}

fn raise_exception(message: String) -> Result<Value, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

fn strftime_now(format: String) -> Result<Value, Error> {
    use chrono::format::{Item, StrftimeItems};
    let items: Vec<Item> = StrftimeItems::new(&format).collect();
    if items.iter().any(|i| matches!(i, Item::Error)) {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("strftime_now: invalid format {format:?}"),
        ));
    }
    Ok(Value::from(
        chrono::Local::now()
            .format_with_items(items.into_iter())
            .to_string(),
    ))
}

/// `tojson` as transformers defines it: `json.dumps(value, ensure_ascii=False,
/// indent=indent, separators=separators, sort_keys=sort_keys)`.
fn tojson(value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    let ensure_ascii: Option<bool> = kwargs.get("ensure_ascii")?;
    let separators: Option<Vec<String>> = kwargs.get("separators")?;
    kwargs.assert_all_used()?;
    let json = serde_json::to_value(&value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("tojson: {e}")))?;
    let (item_sep, key_sep) = match separators.as_deref() {
        Some([item, key]) => (item.clone(), key.clone()),
        Some(_) => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "tojson: separators must be a pair",
            ))
        }
        None if indent.is_some() => (",".to_string(), ": ".to_string()),
        None => (", ".to_string(), ": ".to_string()),
    };
    let style = PyJson {
        indent,
        item_sep,
        key_sep,
        sort_keys: sort_keys.unwrap_or(false),
        ensure_ascii: ensure_ascii.unwrap_or(false),
    };
    let mut out = String::new();
    style.write(&json, 0, &mut out);
    Ok(Value::from_safe_string(out))
}

/// Python's `json.dumps` output format.
struct PyJson {
    indent: Option<usize>,
    item_sep: String,
    key_sep: String,
    sort_keys: bool,
    ensure_ascii: bool,
}

impl PyJson {
    fn write(&self, value: &serde_json::Value, level: usize, out: &mut String) {
        use serde_json::Value as J;
        match value {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Number(n) => out.push_str(&python_number(n)),
            J::String(s) => self.write_str(s, out),
            J::Array(items) => {
                self.write_seq(out, '[', ']', level, items.iter(), |item, out| {
                    self.write(item, level + 1, out)
                });
            }
            J::Object(map) => {
                let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
                if self.sort_keys {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                }
                self.write_seq(out, '{', '}', level, entries.into_iter(), |(k, v), out| {
                    self.write_str(k, out);
                    out.push_str(&self.key_sep);
                    self.write(v, level + 1, out);
                });
            }
        }
    }

    fn write_seq<T>(
        &self,
        out: &mut String,
        open: char,
        close: char,
        level: usize,
        items: impl ExactSizeIterator<Item = T>,
        mut each: impl FnMut(T, &mut String),
    ) {
        out.push(open);
        if items.len() == 0 {
            out.push(close);
            return;
        }
        let newline = |out: &mut String, depth: usize| {
            if let Some(width) = self.indent {
                out.push('\n');
                out.push_str(&" ".repeat(width * depth));
            }
        };
        for (i, item) in items.enumerate() {
            if i > 0 {
                out.push_str(&self.item_sep);
            }
            newline(out, level + 1);
            each(item, out);
        }
        newline(out, level);
        out.push(close);
    }

    fn write_str(&self, s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{08}' => out.push_str("\\b"),
                '\u{0c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 || (self.ensure_ascii && !c.is_ascii()) => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

/// Python's `repr` of a float differs from Rust's: `1e+20`, `1e-07`, `100.0`.
fn python_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let x = n.as_f64().unwrap_or(f64::NAN);
    let abs = x.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        let s = format!("{x:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dumps(v: serde_json::Value, indent: Option<usize>) -> String {
        let style = PyJson {
            indent,
            item_sep: if indent.is_some() { "," } else { ", " }.into(),
            key_sep: ": ".into(),
            sort_keys: false,
            ensure_ascii: false,
        };
        let mut out = String::new();
        style.write(&v, 0, &mut out);
        out
    }

    #[test]
    fn tojson_matches_python_json_dumps() {
        let v = json!({"b": [1, 2.5, "é\n\u{1}"], "a": {}, "c": [], "d": null});
        assert_eq!(
            dumps(v.clone(), None),
            r#"{"b": [1, 2.5, "é\n\u0001"], "a": {}, "c": [], "d": null}"#
        );
        assert_eq!(
            dumps(json!({"a": [1, {"x": true}]}), Some(2)),
            "{\n  \"a\": [\n    1,\n    {\n      \"x\": true\n    }\n  ]\n}"
        );
    }

    #[test]
    fn python_float_repr() {
        let f = |x: f64| python_number(&serde_json::Number::from_f64(x).unwrap());
        assert_eq!(f(100.0), "100.0");
        assert_eq!(f(0.5), "0.5");
        assert_eq!(f(1e20), "1e+20");
        assert_eq!(f(1e-7), "1e-07");
    }

    #[test]
    fn fallback_is_chatml() {
        let t = ChatTemplate::new(None, "", "").unwrap();
        let text = t.render(&[Message::user("hi")], &[], true).unwrap();
        assert_eq!(
            text,
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
        );
        assert!(t.is_fallback());
    }

    #[test]
    fn raise_exception_becomes_an_error() {
        let t = ChatTemplate::new(Some("{{ raise_exception('no system role') }}"), "", "").unwrap();
        assert_eq!(
            t.render(&[], &[], true).unwrap_err().to_string(),
            "no system role"
        );
    }

    #[test]
    fn bad_template_is_an_error_not_a_panic() {
        assert!(ChatTemplate::new(Some("{% for %}"), "", "").is_err());
        let t = ChatTemplate::new(Some("{{ strftime_now('%Q') }}"), "", "").unwrap();
        assert!(t.render(&[], &[], true).is_err());
    }
}

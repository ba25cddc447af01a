//! Tools an engine can call, grouped in toolboxes.
//!
//! A [`Tool`] has a [`ToolSpec`] — name, description, a JSON schema for its
//! arguments and one for its output, the shape OVOS calls `tool_json_list` —
//! and a `call` that takes JSON arguments and returns JSON. A [`ToolBox`] is a
//! named group of tools: built in (`clock`, `math`, `files`) or from
//! outside ([`external`]: MCP servers, OVOS bus skills, D-Bus programs),
//! named the same way either way. A [`Toolset`] is what an engine gets: the
//! toolboxes of one request, with every call's arguments validated against
//! the tool's schema before the tool runs, and tool names that clash
//! prefixed with their toolbox's.

#![deny(missing_docs)]

pub mod calendar;
pub mod clock;
pub mod clock_time;
pub mod external;
pub mod files;
pub mod limits;
pub mod math;
pub mod mcp;
pub mod numbers;
pub mod timers;
pub mod when;
pub mod words;

pub use external::{ExternalToolboxes, Source};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// What a tool is, as the model and the OVOS `tool_json_list` see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// Name the model calls it by (unique within a toolset).
    pub name: String,
    /// One or two sentences: what it does and when to use it.
    pub description: String,
    /// JSON schema of the arguments object.
    pub argument_schema: Value,
    /// JSON schema of the result.
    pub output_schema: Value,
}

impl ToolSpec {
    /// A spec whose schemas come from Rust types (schemars).
    pub fn typed<Args: JsonSchema, Output: JsonSchema>(name: &str, description: &str) -> Self {
        ToolSpec {
            name: name.to_string(),
            description: description.to_string(),
            argument_schema: schema_of::<Args>(),
            output_schema: schema_of::<Output>(),
        }
    }

    /// A tool as other programs describe one (an OVOS `tool_json_list`
    /// entry): `name`, `description`, `argument_schema` (an object schema;
    /// none means no arguments; OpenAI's `parameters` is read too) and
    /// `output_schema`. Only built-in tools read questions in words: an
    /// `x-question` mark from outside is dropped, so the user's question
    /// is never handed to another program unasked.
    pub fn from_json(entry: &Value) -> Result<ToolSpec, String> {
        let name = entry["name"]
            .as_str()
            .filter(|n| !n.is_empty())
            .ok_or("a tool has no `name`")?;
        let schema = |keys: &[&str]| match keys.iter().map(|k| &entry[*k]).find(|v| !v.is_null()) {
            None => Ok(serde_json::json!({"type": "object", "properties": {}})),
            Some(Value::Object(schema)) => Ok(Value::Object(schema.clone())),
            Some(_) => Err(format!(
                "`{name}`: `{}` must be a JSON schema object",
                keys[0]
            )),
        };
        let mut argument_schema = schema(&["argument_schema", "parameters"])?;
        if let Some(properties) = argument_schema
            .get_mut("properties")
            .and_then(Value::as_object_mut)
        {
            for property in properties.values_mut().filter_map(Value::as_object_mut) {
                property.remove("x-question");
            }
        }
        Ok(ToolSpec {
            name: name.to_string(),
            description: entry["description"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            argument_schema,
            output_schema: schema(&["output_schema"])?,
        })
    }

    /// The argument that takes a question in words (marked `x-question`
    /// in the schema), when it is the only one the tool requires.
    pub fn question_argument(&self) -> Option<&str> {
        let required = self.argument_schema["required"].as_array()?;
        let [name] = required.as_slice() else {
            return None;
        };
        let name = name.as_str()?;
        let marked = self.argument_schema["properties"][name]["x-question"] == Value::Bool(true);
        marked.then_some(name)
    }

    /// A one-line call shape for prompts: `name {"arg": type, "opt"?: type}`
    /// (`?` marks an optional argument).
    pub fn signature(&self) -> String {
        let required: Vec<&str> = self.argument_schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let arguments: Vec<String> = self.argument_schema["properties"]
            .as_object()
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, property)| {
                        let optional = if required.contains(&name.as_str()) {
                            ""
                        } else {
                            "?"
                        };
                        format!("\"{name}\"{optional}: {}", type_name(property))
                    })
                    .collect()
            })
            .unwrap_or_default();
        format!("{} {{{}}}", self.name, arguments.join(", "))
    }

    /// `arguments` with each whole number that the schema declares a
    /// `number`, not an `integer`, written as a decimal (`5.0`), in nested
    /// objects and arrays too: a client whose function takes floats, as a
    /// Python one does, gets floats.
    pub fn numbers_as_declared(&self, mut arguments: Value) -> Value {
        decimals_where_declared(&self.argument_schema, &mut arguments);
        arguments
    }

    /// The OpenAI/Hugging Face function shape chat templates expect:
    /// `{"type":"function","function":{"name","description","parameters"}}`.
    pub fn as_function(&self) -> Value {
        serde_json::json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.argument_schema,
            }
        })
    }
}

/// Rewrites whole numbers in `value` as decimals where `schema` declares a
/// `number` and allows no `integer`.
fn decimals_where_declared(schema: &Value, value: &mut Value) {
    let declares = |kind: &str| match &schema["type"] {
        Value::String(t) => t == kind,
        Value::Array(ts) => ts.iter().any(|t| t == kind),
        _ => false,
    };
    match value {
        Value::Number(n) if declares("number") && !declares("integer") => {
            let whole = n.as_i64().filter(|w| w.unsigned_abs() <= 1 << 53);
            if let Some(decimal) = whole.and_then(|w| serde_json::Number::from_f64(w as f64)) {
                *n = decimal;
            }
        }
        Value::Object(fields) => {
            if let Some(properties) = schema["properties"].as_object() {
                for (key, field) in fields.iter_mut() {
                    if let Some(inner) = properties.get(key) {
                        decimals_where_declared(inner, field);
                    }
                }
            }
        }
        Value::Array(items) if schema["items"].is_object() => {
            for item in items {
                decimals_where_declared(&schema["items"], item);
            }
        }
        _ => {}
    }
}

/// A schema's type in words: `string`, `number or string`, `array of number`.
pub fn type_name(schema: &Value) -> String {
    let kind = match &schema["type"] {
        Value::String(kind) => kind.clone(),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .filter(|k| *k != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".into(),
    };
    match kind.as_str() {
        "array" => format!("array of {}", type_name(&schema["items"])),
        _ => kind,
    }
}

/// The JSON schema of a type, inlined (no `$ref`s) and trimmed so small
/// models read few tokens: no title and no root description (the tool's own
/// description says what it is), optional fields typed as their plain type
/// rather than `[type, "null"]`, no `"default": null`, no numeric `format`.
pub fn schema_of<T: JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Some(object) = value.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
        object.remove("description");
    }
    compact(&mut value);
    value
}

/// Numeric `format`s schemars adds for Rust integer and float types.
const NUMERIC_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float",
    "double",
];

fn compact(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(kinds)) = map.get("type") {
                let kinds: Vec<&Value> = kinds.iter().filter(|k| *k != "null").collect();
                if let [kind] = kinds[..] {
                    let kind = kind.clone();
                    map.insert("type".into(), kind);
                }
            }
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            let numeric_format = map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| NUMERIC_FORMATS.contains(&f));
            if numeric_format {
                map.remove("format");
            }
            map.values_mut().for_each(compact);
        }
        Value::Array(items) => items.iter_mut().for_each(compact),
        _ => {}
    }
}

/// Why a tool call failed; shown to the model so it can recover.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// No tool of that name in the toolset.
    #[error("unknown tool `{name}`; available tools: {available}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated names that exist.
        available: String,
    },
    /// The arguments do not match the tool's schema.
    #[error("invalid arguments for `{tool}`: {reason}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// What is wrong, from the schema validator.
        reason: String,
    },
    /// The tool ran and failed.
    #[error("{0}")]
    Failed(String),
}

/// Something an engine can call.
pub trait Tool: Send + Sync {
    /// Name, description and schemas.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool. `arguments` already match the argument schema.
    fn call(&self, arguments: Value) -> Result<Value, ToolError>;

    /// Whether this call would change something (set a timer), so that it
    /// may not run for a question asked before it is certain; calls that
    /// only read (the clock, the calculator) may.
    fn changes_things(&self, _arguments: &Value) -> bool {
        true
    }

    /// Whether `said`, the user's own words, ask for a change of the kind
    /// this tool makes (a timer, an alarm): a call that
    /// [`Tool::changes_things`] in words of the model's only, for a user
    /// who asked for none, is not run.
    fn asked_for(&self, _said: &str) -> bool {
        true
    }
}

/// A tool whose calls only read ([`Tool::changes_things`]).
struct Reading(Arc<dyn Tool>);

impl Tool for Reading {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }

    fn call(&self, arguments: Value) -> Result<Value, ToolError> {
        self.0.call(arguments)
    }

    fn changes_things(&self, _arguments: &Value) -> bool {
        false
    }
}

/// `tools`, marked as only reading.
fn reading(tools: Vec<Arc<dyn Tool>>) -> Vec<Arc<dyn Tool>> {
    tools
        .into_iter()
        .map(|tool| Arc::new(Reading(tool)) as Arc<dyn Tool>)
        .collect()
}

/// A tool the client defines and runs itself (OpenAI's `tools`): offered
/// to the model, never run here.
pub struct Declared(pub ToolSpec);

impl Tool for Declared {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(&self, _: Value) -> Result<Value, ToolError> {
        Err(ToolError::Failed(format!(
            "`{}` is run by the client, not by loopd",
            self.0.name
        )))
    }
}

/// Deserializes validated arguments into a tool's argument type.
pub fn parse_args<T: DeserializeOwned>(arguments: Value) -> Result<T, ToolError> {
    serde_json::from_value(arguments).map_err(|e| ToolError::Failed(format!("bad arguments: {e}")))
}

/// Serializes a tool's typed output.
pub fn to_output<T: Serialize>(output: T) -> Result<Value, ToolError> {
    serde_json::to_value(output).map_err(|e| ToolError::Failed(e.to_string()))
}

/// A tool made from a function over typed arguments and output; its schemas
/// come from the two types (their doc comments become the descriptions the
/// model reads).
pub fn typed_tool<Args, Output, F>(name: &str, description: &str, run: F) -> Arc<dyn Tool>
where
    Args: JsonSchema + DeserializeOwned,
    Output: JsonSchema + Serialize,
    F: Fn(Args) -> Result<Output, ToolError> + Send + Sync + 'static,
{
    Arc::new(TypedTool {
        spec: ToolSpec::typed::<Args, Output>(name, description),
        run: Box::new(move |arguments| to_output(run(parse_args(arguments)?)?)),
    })
}

/// A tool built by [`typed_tool`].
struct TypedTool {
    spec: ToolSpec,
    run: Box<dyn Fn(Value) -> Result<Value, ToolError> + Send + Sync>,
}

impl Tool for TypedTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, arguments: Value) -> Result<Value, ToolError> {
        (self.run)(arguments)
    }
}

/// A named group of tools.
pub struct ToolBox {
    /// Toolbox name (`clock`, `math`, `files`).
    pub name: String,
    /// Its tools.
    pub tools: Vec<Arc<dyn Tool>>,
}

/// How toolboxes are found and set up.
#[derive(Debug, Clone, Default)]
pub struct ToolConfig {
    /// Directories the `files` toolbox may read (after resolving symlinks).
    pub file_roots: Vec<PathBuf>,
    /// Time zone the `clock` toolbox uses when none is asked for (IANA name).
    pub timezone: Option<String>,
    /// The toolboxes from outside that exist now.
    pub external: ExternalToolboxes,
    /// How long a toolbox on the message bus or D-Bus may take to answer a
    /// call ([`external::CALL_TIMEOUT`] when not set).
    pub call_timeout: Option<std::time::Duration>,
    /// The timers the daemon keeps and rings (none: `loopd ask`, which
    /// ends with its answer, keeps none).
    pub timers: Option<Arc<timers::Timers>>,
    /// Who asks, as the daemon names callers: whose timers the `timers`
    /// toolbox sets, lists and cancels.
    pub caller: Option<String>,
}

impl ToolConfig {
    /// How long a call to a toolbox from outside may take.
    pub fn call_timeout(&self) -> std::time::Duration {
        self.call_timeout.unwrap_or(external::CALL_TIMEOUT)
    }
}

/// How a tool's error ends when the question is plainly not for it, nor
/// for any other tool: the model should answer from what it knows.
pub const ANSWER_FROM_KNOWLEDGE: &str = "answer it from what you know";

/// Whether a tool's error `text` sends the question to the model's own
/// knowledge with no other tool left to try ([`ANSWER_FROM_KNOWLEDGE`]).
pub fn sends_to_knowledge(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches('.')
        .ends_with(ANSWER_FROM_KNOWLEDGE)
}

/// Names of the built-in toolboxes.
pub const TOOLBOXES: &[&str] = &[
    "clock", "math", "files", "dates", "measure", "limits", "timers", "words",
];

/// Whether `name` could name a toolbox: letters, digits, `-`, `_`, `.`.
pub fn is_toolbox_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Why a toolbox or a toolset could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    /// No toolbox has this name.
    #[error("unknown toolbox `{name}` (available: {available})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated names that exist.
        available: String,
    },
    /// The `files` toolbox has no usable folder.
    #[error(transparent)]
    FileRoot(#[from] files::FileRootError),
    /// Two tools of one toolset have the same name.
    #[error("two tools are named `{0}`")]
    DuplicateName(String),
    /// A tool's argument schema does not compile.
    #[error("tool `{tool}` has an invalid argument schema: {source}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What the schema compiler found wrong.
        #[source]
        source: jsonschema::ValidationError<'static>,
    },
}

/// A toolbox by name: built in, else one of `config.external`. Fails on an
/// unknown name, or for `files` when no readable root is configured.
pub fn toolbox(name: &str, config: &ToolConfig) -> Result<ToolBox, ToolboxError> {
    let tools = match name {
        "clock" => reading(clock::tools(config)),
        "dates" => reading(clock::date_tools(config)),
        "math" => reading(math::tools()),
        "measure" => reading(math::measure_tools()),
        "limits" => reading(limits::tools()),
        "words" => reading(words::tools()),
        "timers" => timers::tools(config),
        "files" => reading(files::tools(config)?),
        _ => {
            return config.external.get(name).ok_or_else(|| {
                let mut available: Vec<String> = TOOLBOXES.iter().map(|s| s.to_string()).collect();
                available.extend(config.external.names());
                ToolboxError::Unknown {
                    name: name.to_string(),
                    available: available.join(", "),
                }
            })
        }
    };
    Ok(ToolBox {
        name: name.to_string(),
        tools,
    })
}

/// A tool offered under another name, when its own clashes with another
/// toolbox's tool.
struct Renamed {
    spec: ToolSpec,
    tool: Arc<dyn Tool>,
}

impl Renamed {
    fn prefixed(toolbox: &str, tool: Arc<dyn Tool>) -> Arc<dyn Tool> {
        let mut spec = tool.spec().clone();
        let prefix: String = toolbox
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        spec.name = format!("{prefix}_{}", spec.name);
        Arc::new(Renamed { spec, tool })
    }
}

impl Tool for Renamed {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, arguments: Value) -> Result<Value, ToolError> {
        self.tool.call(arguments)
    }

    fn changes_things(&self, arguments: &Value) -> bool {
        self.tool.changes_things(arguments)
    }

    fn asked_for(&self, said: &str) -> bool {
        self.tool.asked_for(said)
    }
}

/// One tool with its compiled argument validator.
struct Entry {
    tool: Arc<dyn Tool>,
    validator: jsonschema::Validator,
}

/// The tools one request may use, with argument validation.
#[derive(Default)]
pub struct Toolset {
    entries: Vec<Entry>,
}

impl std::fmt::Debug for Toolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Toolset {
    /// No tools.
    pub fn empty() -> Self {
        Toolset::default()
    }

    /// The tools of these toolboxes. A tool whose name an earlier toolbox
    /// already uses is offered as `<toolbox>_<name>`. Fails on a schema
    /// that does not compile, or when even that name is taken.
    pub fn new(toolboxes: Vec<ToolBox>) -> Result<Self, ToolboxError> {
        let mut set = Toolset::default();
        for toolbox in toolboxes {
            for tool in toolbox.tools {
                let tool = if set.get(&tool.spec().name).is_some() {
                    Renamed::prefixed(&toolbox.name, tool)
                } else {
                    tool
                };
                set.add(tool)?;
            }
        }
        Ok(set)
    }

    /// The toolboxes with these names (`["clock", "math", "vault"]`).
    pub fn named<S: AsRef<str>>(names: &[S], config: &ToolConfig) -> Result<Self, ToolboxError> {
        let boxes = names
            .iter()
            .map(|n| toolbox(n.as_ref(), config))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(boxes)
    }

    /// Adds one tool.
    pub fn add(&mut self, tool: Arc<dyn Tool>) -> Result<(), ToolboxError> {
        let spec = tool.spec();
        if self.get(&spec.name).is_some() {
            return Err(ToolboxError::DuplicateName(spec.name.clone()));
        }
        let validator = jsonschema::validator_for(&spec.argument_schema).map_err(|source| {
            ToolboxError::InvalidSchema {
                tool: spec.name.clone(),
                source,
            }
        })?;
        self.entries.push(Entry { tool, validator });
        Ok(())
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Tool names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.entries
            .iter()
            .map(|e| e.tool.spec().name.as_str())
            .collect()
    }

    /// Every tool's spec, in order.
    pub fn specs(&self) -> Vec<&ToolSpec> {
        self.entries.iter().map(|e| e.tool.spec()).collect()
    }

    /// A tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.entry(name).map(|e| e.tool.clone())
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.tool.spec().name == name)
    }

    /// Finds the tool and checks the arguments against its schema; returns
    /// the tool ready to call.
    pub fn prepare(&self, name: &str, arguments: &Value) -> Result<Arc<dyn Tool>, ToolError> {
        let entry = self.entry(name).ok_or_else(|| ToolError::Unknown {
            name: name.to_string(),
            available: self.names().join(", "),
        })?;
        let problems: Vec<String> = entry
            .validator
            .iter_errors(arguments)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if !problems.is_empty() {
            return Err(ToolError::InvalidArguments {
                tool: name.to_string(),
                reason: problems.join("; "),
            });
        }
        Ok(entry.tool.clone())
    }

    /// Validates and calls a tool on the calling thread.
    pub fn call(&self, name: &str, arguments: Value) -> Result<Value, ToolError> {
        self.prepare(name, &arguments)?.call(arguments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_entries_from_other_programs_are_read_with_their_schemas() {
        let spec = ToolSpec::from_json(&json!({"name": "lookup", "description": "d",
            "argument_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}))
        .unwrap();
        assert_eq!(spec.name, "lookup");
        assert_eq!(spec.argument_schema["properties"]["q"]["type"], "string");
        assert_eq!(spec.output_schema["type"], "object");
        let openai = ToolSpec::from_json(&json!({"name": "x", "parameters": {"type": "object"}}));
        assert_eq!(openai.unwrap().argument_schema, json!({"type": "object"}));
        assert!(ToolSpec::from_json(&json!({"description": "no name"})).is_err());
        assert!(
            ToolSpec::from_json(&json!({"name": "x", "argument_schema": "str"}))
                .unwrap_err()
                .contains("must be a JSON schema")
        );
    }

    #[test]
    fn whole_numbers_become_decimals_only_where_the_schema_says_number() {
        let spec = ToolSpec::from_json(&json!({"name": "fit", "parameters": {
            "type": "object", "properties": {
                "points": {"type": "array", "items": {"type": "number"}},
                "count": {"type": "integer"},
                "either": {"type": ["integer", "number"]},
                "scale": {"type": "number"},
                "range": {"type": "object", "properties": {"low": {"type": "number"}}},
                "label": {"type": "string"}}}}))
        .unwrap();
        let arguments = json!({"points": [1, 2.5, -3], "count": 4, "either": 5,
            "scale": 2, "range": {"low": 0}, "label": "7", "other": 8});
        let declared = spec.numbers_as_declared(arguments);
        assert_eq!(
            serde_json::to_string(&declared).unwrap(),
            r#"{"points":[1.0,2.5,-3.0],"count":4,"either":5,"scale":2.0,"range":{"low":0.0},"label":"7","other":8}"#
        );
    }

    #[test]
    fn a_tool_name_two_toolboxes_share_is_prefixed_with_the_later_toolbox() {
        let echo = |name: &str, answer: &'static str| {
            let spec = ToolSpec::from_json(&json!({"name": name})).unwrap();
            Arc::new(TypedTool {
                spec,
                run: Box::new(move |_| Ok(json!(answer))),
            }) as Arc<dyn Tool>
        };
        let boxes = vec![
            ToolBox {
                name: "home".into(),
                tools: vec![echo("lookup", "home")],
            },
            ToolBox {
                name: "web-search".into(),
                tools: vec![echo("lookup", "web"), echo("fetch", "page")],
            },
        ];
        let set = Toolset::new(boxes).unwrap();
        assert_eq!(set.names(), ["lookup", "web_search_lookup", "fetch"]);
        assert_eq!(set.call("web_search_lookup", json!({})), Ok(json!("web")));
        assert_eq!(set.call("lookup", json!({})), Ok(json!("home")));
    }
}

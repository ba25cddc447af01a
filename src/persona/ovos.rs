//! Import of OVOS persona JSON files.
//!
//! An OVOS persona lists its plugins under `solvers` (older files) or
//! `handlers` (newer ones), and keeps each plugin's settings under a key
//! named after the plugin (or under `plugin-config`). The first plugin that
//! is an ovos-agentic-loop engine becomes the loopd engine; its settings
//! become the engine config, its `toolboxes` are mapped to built-in
//! toolboxes (or kept by id, to be found on the message bus), and its `persona`/`system_prompt` text becomes the system
//! prompt. What cannot be carried over is listed in [`Imported::notes`].

use super::{InvalidPersona, Persona};
use crate::engine::{self, Settings};
use crate::tools::is_toolbox_name;
use serde_json::Value;

/// OVOS plugin ids and the loopd engines they correspond to.
pub const PLUGINS: &[(&str, &str)] = &[
    ("ovos-react-loop", "react"),
    ("ovos-plan-execute-loop", "plan-execute"),
    ("ovos-reflexion-loop", "reflexion"),
    ("ovos-self-ask-loop", "self-ask"),
    ("ovos-chain-of-thought-loop", "chain-of-thought"),
    ("ovos-critic-loop", "critic"),
    ("ovos-tree-of-thoughts-loop", "tree-of-thoughts"),
    ("ovos-hybrid-loop", "hybrid"),
    ("ovos-auto-loop", "auto"),
    ("ovos-native-tools-loop", "native-tools"),
];

/// Plugin settings that configure OVOS itself, not the loop.
const OVOS_ONLY: &[&str] = &["brain", "toolboxes", "persona", "system_prompt"];

/// A converted persona and what did not carry over.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The loopd persona.
    pub persona: Persona,
    /// Plugins, settings and toolboxes that were left out, and why.
    pub notes: Vec<String>,
}

/// Why an OVOS persona file could not be converted.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The text is not JSON.
    #[error("the OVOS persona is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The JSON is not an object.
    #[error("the OVOS persona must be a JSON object")]
    NotAnObject,
    /// There is no `name`, or it is blank.
    #[error("the OVOS persona has no `name`")]
    NoName,
    /// Neither `solvers` nor `handlers` lists a plugin.
    #[error("the OVOS persona lists no `solvers` or `handlers`")]
    NoPlugins,
    /// No listed plugin is an agent loop loopd has an engine for.
    #[error(
        "none of its plugins ({}) is an agent loop loopd runs (known: {})",
        .plugins.join(", "),
        PLUGINS.iter().map(|(p, _)| *p).collect::<Vec<_>>().join(", ")
    )]
    NoAgentLoop {
        /// The plugins it lists.
        plugins: Vec<String>,
    },
    /// The loop plugin's settings are not a JSON object.
    #[error("the settings of `{plugin}` must be a JSON object")]
    SettingsNotAnObject {
        /// The plugin.
        plugin: String,
    },
    /// The converted persona does not pass [`Persona::check`].
    #[error("the converted persona is not valid: {0}")]
    Invalid(#[source] InvalidPersona),
}

/// Converts OVOS persona JSON text.
pub fn import(text: &str) -> Result<Imported, ImportError> {
    let json: Value = serde_json::from_str(text).map_err(ImportError::NotJson)?;
    let object = json.as_object().ok_or(ImportError::NotAnObject)?;
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or(ImportError::NoName)?;
    let plugins: Vec<&str> = ["handlers", "solvers"]
        .iter()
        .filter_map(|key| object.get(*key))
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if plugins.is_empty() {
        return Err(ImportError::NoPlugins);
    }
    let mut notes = Vec::new();
    let Some((plugin, engine_id)) = plugins.iter().find_map(|p| engine_of(p).map(|e| (*p, e)))
    else {
        return Err(ImportError::NoAgentLoop {
            plugins: plugins.iter().map(|p| p.to_string()).collect(),
        });
    };
    for other in plugins.iter().filter(|p| **p != plugin) {
        notes.push(format!(
            "plugin `{other}` left out: loopd runs one engine per persona"
        ));
    }

    let plugin_config = object
        .get(plugin)
        .or_else(|| object.get("plugin-config").and_then(|c| c.get(plugin)))
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    let plugin_config =
        plugin_config
            .as_object()
            .ok_or_else(|| ImportError::SettingsNotAnObject {
                plugin: plugin.to_string(),
            })?;

    let accepted = engine::accepted_keys(engine_id);
    let mut config = Settings::new();
    for (key, value) in plugin_config {
        if OVOS_ONLY.contains(&key.as_str()) {
            continue;
        }
        if accepted.iter().any(|k| k == key) {
            config.insert(key.clone(), value.clone());
        } else {
            notes.push(format!(
                "setting `{key}` of `{plugin}` left out: `{engine_id}` has no such setting"
            ));
        }
    }
    if let Some(brain) = plugin_config.get("brain").and_then(Value::as_str) {
        notes.push(format!(
            "brain `{brain}` left out: loopd answers with its own model"
        ));
    }

    let mut toolboxes = Vec::new();
    let listed = plugin_config
        .get("toolboxes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    for toolbox in listed {
        match toolbox_of(toolbox) {
            Some(builtin) if !toolboxes.contains(&builtin.to_string()) => {
                toolboxes.push(builtin.to_string())
            }
            Some(_) => {}
            None if is_toolbox_name(toolbox) => {
                toolboxes.push(toolbox.to_string());
                notes.push(format!(
                    "toolbox `{toolbox}` kept by its id: no built-in equivalent, so it is \
                     used from the message bus while a skill offers it"
                ));
            }
            None => notes.push(format!("toolbox `{toolbox}` left out: not a toolbox name")),
        }
    }

    let system_prompt = ["system_prompt", "persona"]
        .iter()
        .find_map(|k| plugin_config.get(*k).or_else(|| object.get(*k)))
        .and_then(Value::as_str)
        .map(str::to_string);

    let persona = Persona {
        name: name.to_string(),
        description: object
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        engine: engine_id.to_string(),
        toolboxes,
        allow_toolboxes: None,
        mcp: Vec::new(),
        brain: None,
        system_prompt,
        config,
    };
    persona.check().map_err(ImportError::Invalid)?;
    Ok(Imported { persona, notes })
}

/// The engine of an OVOS plugin id.
fn engine_of(plugin: &str) -> Option<&'static str> {
    PLUGINS
        .iter()
        .find(|(id, _)| *id == plugin)
        .map(|(_, engine)| *engine)
}

/// The built-in toolbox closest to an OVOS toolbox id, by what it names.
fn toolbox_of(ovos: &str) -> Option<&'static str> {
    let id = ovos.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| id.contains(w));
    if has(&["clock", "time", "date"]) {
        Some("clock")
    } else if has(&["math", "calc", "unit", "stat"]) {
        Some("math")
    } else if has(&["file"]) {
        Some("files")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_an_agentic_loop_persona() {
        let text = r#"{
          "name": "Careful",
          "solvers": ["ovos-reflexion-loop", "ovos-solver-failure-plugin"],
          "plugin-config": {
            "ovos-reflexion-loop": {
              "brain": "ovos-chat-openai-plugin",
              "max_reflections": 2,
              "max_iterations": 8,
              "temperature": 0.2,
              "toolboxes": ["ovos-datetime-tools", "ovos-web-search-tools", "ovos-filesystem-tools"],
              "persona": "You double-check everything."
            }
          }
        }"#;
        let imported = import(text).unwrap();
        let p = &imported.persona;
        assert_eq!(p.name, "Careful");
        assert_eq!(p.engine, "reflexion");
        assert_eq!(p.config["max_reflections"], 2);
        assert_eq!(p.config["max_iterations"], 8);
        assert!(!p.config.contains_key("temperature"));
        assert!(!p.config.contains_key("brain"));
        assert_eq!(p.toolboxes, ["clock", "ovos-web-search-tools", "files"]);
        assert_eq!(
            p.system_prompt.as_deref(),
            Some("You double-check everything.")
        );
        let notes = imported.notes.join("\n");
        for left_out in [
            "ovos-solver-failure-plugin",
            "temperature",
            "toolbox `ovos-web-search-tools` kept by its id",
            "ovos-chat-openai-plugin",
        ] {
            assert!(notes.contains(left_out), "{left_out} in {notes}");
        }
    }

    #[test]
    fn handlers_and_top_level_plugin_config() {
        let text = r#"{"name": "Doer", "handlers": ["ovos-react-loop"],
                       "ovos-react-loop": {"max_iterations": 3, "toolboxes": ["ovos-calculator-tools"]}}"#;
        let p = import(text).unwrap().persona;
        assert_eq!(p.engine, "react");
        assert_eq!(p.config["max_iterations"], 3);
        assert_eq!(p.toolboxes, vec!["math"]);
    }

    #[test]
    fn every_mapped_plugin_is_a_loopd_engine() {
        for (plugin, engine) in PLUGINS {
            assert!(engine::ENGINES.contains(engine), "{plugin} → {engine}");
        }
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let cases = [
            ("not json", "not JSON"),
            ("[]", "must be a JSON object"),
            (r#"{"solvers": ["ovos-react-loop"]}"#, "no `name`"),
            (r#"{"name": "x"}"#, "no `solvers` or `handlers`"),
            (
                r#"{"name": "x", "solvers": ["ovos-solver-openai-persona-plugin"]}"#,
                "none of its plugins",
            ),
            (
                r#"{"name": "x", "solvers": ["ovos-react-loop"], "ovos-react-loop": 3}"#,
                "must be a JSON object",
            ),
            (
                r#"{"name": "x", "solvers": ["ovos-react-loop"], "ovos-react-loop": {"max_iterations": 0}}"#,
                "max_iterations",
            ),
        ];
        for (text, expected) in cases {
            let err = import(text).unwrap_err().to_string();
            assert!(err.contains(expected), "{text} → {err}");
        }
    }
}

//! Personas: who answers — a name, an engine with its settings, toolboxes
//! and a system prompt — kept in TOML files.
//!
//! ```toml
//! name = "default"
//! engine = "react"
//! toolboxes = ["clock", "math"]
//! system_prompt = "You are loopd, a helpful voice assistant."
//! [config]
//! max_iterations = 6
//! ```
//!
//! OVOS persona JSON files (`solvers`/`handlers` and per-plugin config) are
//! converted by [`ovos::import`].

pub mod ovos;

use crate::engine::{self, Settings};
use crate::tools::TOOLBOXES;
use serde::{Deserialize, Serialize};
use std::path::Path;

const DEFAULT: &str = include_str!("default.toml");

/// A persona, as written in its TOML file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    /// Name front ends ask for (`ovos.persona.query`, `--persona`).
    pub name: String,
    /// One line about what it is good for.
    #[serde(default)]
    pub description: String,
    /// Engine id (`react`, `plan-execute`, …).
    pub engine: String,
    /// Built-in toolboxes it may use.
    #[serde(default)]
    pub toolboxes: Vec<String>,
    /// The system prompt that opens every conversation.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// Engine settings (the engine's config keys).
    #[serde(default)]
    pub config: Settings,
}

impl Persona {
    /// The persona that ships with loopd.
    pub fn builtin() -> Persona {
        Persona::from_toml(DEFAULT, "the built-in default persona")
            .unwrap_or_else(|e| unreachable!("the built-in persona is valid: {e}"))
    }

    /// Reads and checks a persona from TOML text; `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Persona, String> {
        let persona: Persona =
            toml::from_str(text).map_err(|e| format!("persona {origin}: {}", e.message()))?;
        persona
            .check()
            .map_err(|e| format!("persona {origin}: {e}"))?;
        Ok(persona)
    }

    /// Reads a persona file.
    pub fn load(path: &Path) -> Result<Persona, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read persona {}: {e}", path.display()))?;
        Persona::from_toml(&text, &path.display().to_string())
    }

    /// The persona as TOML text.
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| format!("persona {}: {e}", self.name))
    }

    /// Checks that the engine, its settings and the toolboxes exist.
    pub fn check(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("the name is empty".into());
        }
        engine::build(&self.engine, &self.config)?;
        for toolbox in &self.toolboxes {
            if !TOOLBOXES.contains(&toolbox.as_str()) {
                return Err(format!(
                    "unknown toolbox `{toolbox}` (available: {})",
                    TOOLBOXES.join(", ")
                ));
            }
        }
        Ok(())
    }
}

/// Finds a persona by name or path: `default` (or nothing) is the built-in
/// one, an existing path or a name with `.toml` is read as a file, any other
/// name is looked up as `<dir>/<name>.toml` in the personas directories.
pub fn find(name_or_path: Option<&str>) -> Result<Persona, String> {
    let Some(wanted) = name_or_path else {
        return Ok(Persona::builtin());
    };
    let path = Path::new(wanted);
    if path.exists() || wanted.ends_with(".toml") {
        return Persona::load(path);
    }
    for dir in directories() {
        let candidate = dir.join(format!("{wanted}.toml"));
        if candidate.exists() {
            return Persona::load(&candidate);
        }
    }
    if wanted == "default" {
        return Ok(Persona::builtin());
    }
    Err(format!(
        "no persona named `{wanted}` (looked in {}; `default` is built in)",
        directories()
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Where persona files live: `$XDG_CONFIG_HOME/loopd/personas` (or
/// `~/.config/loopd/personas`), then `/etc/loopd/personas`.
pub fn directories() -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    if let Some(config) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        dirs.push(std::path::PathBuf::from(config).join("loopd/personas"));
    } else if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        dirs.push(std::path::PathBuf::from(home).join(".config/loopd/personas"));
    }
    dirs.push(std::path::PathBuf::from("/etc/loopd/personas"));
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_persona_is_react_with_clock_and_math() {
        let p = Persona::builtin();
        assert_eq!(p.engine, "react");
        assert_eq!(p.toolboxes, vec!["clock", "math"]);
        assert!(p.system_prompt.unwrap().starts_with("You are loopd"));
    }

    #[test]
    fn bad_personas_are_one_clear_error() {
        let cases = [
            ("name = \"x\"\nengine = ", "persona t:"),
            ("name = \"x\"\nengine = \"dance\"", "unknown loop `dance`"),
            (
                "name = \"x\"\nengine = \"react\"\ntoolboxes = [\"web\"]",
                "unknown toolbox `web`",
            ),
            (
                "name = \"x\"\nengine = \"react\"\n[config]\nmax_iterations = \"lots\"",
                "max_iterations",
            ),
            (
                "name = \"x\"\nengine = \"react\"\n[config]\nmax_loops = 3",
                "unknown field `max_loops`",
            ),
            (
                "name = \"x\"\nengine = \"react\"\ncolour = \"red\"",
                "unknown field `colour`",
            ),
            ("engine = \"react\"", "missing field `name`"),
        ];
        for (text, expected) in cases {
            let err = Persona::from_toml(text, "t").unwrap_err();
            assert!(err.contains(expected), "{text:?} → {err}");
        }
    }

    #[test]
    fn round_trips_through_toml() {
        let p = Persona::builtin();
        let again = Persona::from_toml(&p.to_toml().unwrap(), "again").unwrap();
        assert_eq!(p, again);
    }
}

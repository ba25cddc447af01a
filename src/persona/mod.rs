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

use crate::engine::{self, Engine, Settings};
use crate::tools::{is_toolbox_name, ToolConfig, Toolset, TOOLBOXES};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Toolboxes it uses: built in, or from outside (an MCP server, an OVOS
    /// skill's `toolbox_id`, a D-Bus program's).
    #[serde(default)]
    pub toolboxes: Vec<String>,
    /// The only toolboxes a request to it may ask for instead (unset: any
    /// the daemon offers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_toolboxes: Option<Vec<String>>,
    /// MCP servers of its own (`[[mcp]]`), each a toolbox it uses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp: Vec<crate::tools::mcp::McpServer>,
    /// A remote server it thinks on instead of the daemon's model (`brain
    /// = { url, model, api_key_file, fallback = "local" }`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brain: Option<crate::brain::RemoteBrainSettings>,
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
    pub fn from_toml(text: &str, origin: &str) -> Result<Persona, PersonaError> {
        let persona: Persona = toml::from_str(text).map_err(|source| PersonaError::Parse {
            origin: origin.to_string(),
            source,
        })?;
        persona.check().map_err(|source| PersonaError::Invalid {
            origin: origin.to_string(),
            source,
        })?;
        Ok(persona)
    }

    /// Reads a persona file.
    pub fn load(path: &Path) -> Result<Persona, PersonaError> {
        let text = std::fs::read_to_string(path).map_err(|source| PersonaError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        Persona::from_toml(&text, &path.display().to_string())
    }

    /// The persona as TOML text.
    pub fn to_toml(&self) -> Result<String, PersonaError> {
        toml::to_string(self).map_err(|source| PersonaError::Serialize {
            name: self.name.clone(),
            source,
        })
    }

    /// Checks that the engine and its settings exist and that the toolbox
    /// names could be toolboxes (one from outside may appear later).
    pub fn check(&self) -> Result<(), InvalidPersona> {
        if self.name.trim().is_empty() {
            return Err(InvalidPersona::EmptyName);
        }
        engine::build(&self.engine, &self.config).map_err(InvalidPersona::Engine)?;
        let allowed = self.allow_toolboxes.iter().flatten();
        if let Some(bad) = self
            .toolboxes
            .iter()
            .chain(allowed)
            .find(|t| !is_toolbox_name(t))
        {
            return Err(InvalidPersona::Toolbox(bad.clone()));
        }
        Ok(())
    }
}

/// Why a persona could not be found, read or written.
#[derive(Debug, thiserror::Error)]
pub enum PersonaError {
    /// No persona file of that name in the personas directories.
    #[error(
        "no persona named `{name}` (looked in {}; `default` is built in)",
        shown(.searched)
    )]
    NotFound {
        /// The name asked for.
        name: String,
        /// The directories looked in, first first.
        searched: Vec<PathBuf>,
    },
    /// The persona file could not be read.
    #[error("cannot read persona {}: {source}", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
    /// The text is not TOML, or not the shape of a persona.
    #[error("persona {origin}: {}", .source.message())]
    Parse {
        /// The file, or what else the text came from.
        origin: String,
        /// What the TOML parser found wrong.
        #[source]
        source: toml::de::Error,
    },
    /// The persona parsed but names an engine, setting or toolbox that
    /// does not exist.
    #[error("persona {origin}: {source}")]
    Invalid {
        /// The file, or what else the text came from.
        origin: String,
        /// What is wrong with it.
        #[source]
        source: InvalidPersona,
    },
    /// The persona could not be written as TOML.
    #[error("persona {name}: {source}")]
    Serialize {
        /// The persona's name.
        name: String,
        /// What the TOML writer refused.
        #[source]
        source: toml::ser::Error,
    },
}

/// What is wrong with a persona that parsed.
#[derive(Debug, thiserror::Error)]
pub enum InvalidPersona {
    /// The name is empty or blank.
    #[error("the name is empty")]
    EmptyName,
    /// The engine is unknown or its settings are wrong; the message names which.
    #[error("{0}")]
    Engine(String),
    /// A toolbox name has characters no toolbox name has.
    #[error("toolbox name `{0}` must be letters, digits, `-`, `_` or `.`")]
    Toolbox(String),
    /// An `[[mcp]]` server entry is wrong; the message says how.
    #[error("{0}")]
    Mcp(String),
}

/// Directories as one comma-separated line.
fn shown(directories: &[PathBuf]) -> String {
    directories
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What one request changes about a persona (CLI flags, D-Bus options, bus fields).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Another engine; the persona's settings only apply to its own engine.
    pub engine: Option<String>,
    /// Engine settings added on top.
    pub settings: Settings,
    /// Other toolboxes (`none` or an empty list: no tools).
    pub toolboxes: Option<Vec<String>>,
    /// Another system prompt.
    pub system_prompt: Option<String>,
}

/// A persona ready to answer: its engine built, its tools, its system prompt.
pub struct Setup {
    /// The engine, with the persona's settings and the overrides.
    pub engine: Arc<dyn Engine>,
    /// The tools.
    pub tools: Toolset,
    /// The system prompt that opens the conversation.
    pub system_prompt: Option<String>,
}

/// Why a persona could not be set up for a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// No engine has this id.
    #[error(transparent)]
    UnknownLoop(#[from] engine::UnknownEngine),
    /// A setting or toolbox is wrong; the message names it.
    #[error("{0}")]
    Invalid(String),
}

impl Persona {
    /// Builds what a request runs: the engine with its settings, the
    /// toolboxes and the system prompt, each overridable.
    pub fn setup(&self, overrides: Overrides, tools: &ToolConfig) -> Result<Setup, SetupError> {
        let engine_id = overrides.engine.unwrap_or_else(|| self.engine.clone());
        engine_id.parse::<engine::EngineId>()?;
        let mut settings = if engine_id == self.engine {
            self.config.clone()
        } else {
            Settings::new()
        };
        settings.extend(overrides.settings);
        let engine = engine::build(&engine_id, &settings).map_err(SetupError::Invalid)?;
        let toolboxes: Vec<String> = match overrides.toolboxes {
            Some(names) => names
                .iter()
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty() && n != "none")
                .collect(),
            None => self.present_toolboxes(tools),
        };
        if let Some(allowed) = &self.allow_toolboxes {
            if let Some(refused) = toolboxes.iter().find(|t| !allowed.contains(t)) {
                return Err(SetupError::Invalid(format!(
                    "persona `{}` does not allow toolbox `{refused}` (allowed: {})",
                    self.name,
                    allowed.join(", ")
                )));
            }
        }
        let tools =
            Toolset::named(&toolboxes, tools).map_err(|e| SetupError::Invalid(e.to_string()))?;
        let system_prompt = overrides
            .system_prompt
            .or_else(|| self.system_prompt.clone())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        Ok(Setup {
            engine,
            tools,
            system_prompt,
        })
    }
}

impl Persona {
    /// The persona's toolboxes (its MCP servers' included) that exist now:
    /// one from outside that is gone (a skill not running) is left out,
    /// with a warning, so the persona still answers.
    fn present_toolboxes(&self, tools: &ToolConfig) -> Vec<String> {
        let mut named = self.toolboxes.clone();
        for server in &self.mcp {
            if !named.contains(&server.name) {
                named.push(server.name.clone());
            }
        }
        named
            .iter()
            .filter(|name| {
                let present = TOOLBOXES.contains(&name.as_str()) || tools.external.contains(name);
                if !present {
                    tracing::warn!(
                        "persona `{}`: toolbox `{name}` is not available now; answering without it",
                        self.name
                    );
                }
                present
            })
            .cloned()
            .collect()
    }
}

/// A persona and where it came from.
#[derive(Debug, Clone)]
pub struct Found {
    /// The persona.
    pub persona: Persona,
    /// Its file, or `built in`.
    pub origin: String,
}

/// Every persona found: the built-in `default` (unless a file replaces it),
/// then each `*.toml` in the personas directories, first directory first
/// (a name seen twice keeps the first). Files that do not parse come back
/// as errors beside the rest.
pub fn discover() -> (Vec<Found>, Vec<PersonaError>) {
    let mut found: Vec<Found> = Vec::new();
    let mut errors = Vec::new();
    for dir in directories() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            match Persona::load(&path) {
                Ok(p) if found.iter().any(|f| f.persona.name == p.name) => {}
                Ok(persona) => found.push(Found {
                    persona,
                    origin: path.display().to_string(),
                }),
                Err(e) => errors.push(e),
            }
        }
    }
    if !found.iter().any(|f| f.persona.name == "default") {
        found.insert(
            0,
            Found {
                persona: Persona::builtin(),
                origin: "built in".into(),
            },
        );
    }
    (found, errors)
}

/// Finds a persona by name or path: `default` (or nothing) is the built-in
/// one, an existing path or a name with `.toml` is read as a file, any other
/// name is looked up as `<dir>/<name>.toml` in the personas directories.
pub fn find(name_or_path: Option<&str>) -> Result<Persona, PersonaError> {
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
    Err(PersonaError::NotFound {
        name: wanted.to_string(),
        searched: directories(),
    })
}

/// Where persona files live: `$XDG_CONFIG_HOME/loopd/personas` (or
/// `~/.config/loopd/personas`), then `/etc/loopd/personas`.
pub fn directories() -> Vec<std::path::PathBuf> {
    let mut found: Vec<std::path::PathBuf> = dirs::config_dir()
        .map(|config| config.join("loopd/personas"))
        .into_iter()
        .collect();
    found.push(std::path::PathBuf::from("/etc/loopd/personas"));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_persona_is_react_with_timers_math_clock_and_limits() {
        let p = Persona::builtin();
        assert_eq!(p.engine, "react");
        assert_eq!(
            p.toolboxes,
            vec!["timers", "math", "clock", "words", "limits"]
        );
        assert!(p.system_prompt.unwrap().starts_with("You are loopd"));
    }

    #[test]
    fn a_persona_with_an_allow_list_refuses_other_toolboxes() {
        let p = Persona::from_toml(
            "name = \"kid\"\nengine = \"react\"\ntoolboxes = [\"math\"]\n\
             allow_toolboxes = [\"math\", \"clock\"]",
            "t",
        )
        .unwrap();
        let ask = |names: &[&str]| Overrides {
            toolboxes: Some(names.iter().map(|n| n.to_string()).collect()),
            ..Overrides::default()
        };
        let config = ToolConfig::default();
        assert!(p.setup(ask(&["clock"]), &config).is_ok());
        assert!(p.setup(Overrides::default(), &config).is_ok());
        let refused = p.setup(ask(&["files", "math"]), &config).err().unwrap();
        assert_eq!(
            refused.to_string(),
            "persona `kid` does not allow toolbox `files` (allowed: math, clock)"
        );
    }

    #[test]
    fn bad_personas_are_one_clear_error() {
        let cases = [
            ("name = \"x\"\nengine = ", "persona t:"),
            ("name = \"x\"\nengine = \"dance\"", "unknown loop `dance`"),
            (
                "name = \"x\"\nengine = \"react\"\ntoolboxes = [\"web search\"]",
                "toolbox name `web search`",
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
            let err = Persona::from_toml(text, "t").unwrap_err().to_string();
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

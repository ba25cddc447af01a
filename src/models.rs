//! The models loopd knows by name (`models/models.toml`) and where their
//! files live on this machine.
//!
//! The manifest is compiled in. Files are looked up in the models directory:
//! `$LOOPD_MODELS_DIR`, else `$XDG_CACHE_HOME/loopd/models`, else
//! `~/.cache/loopd/models` — the same place `models/fetch` writes to.

use crate::voice::speech::Voice;
use crate::voice::vad::{TurnJudge, VoiceDetector};
use crate::voice::VoiceError;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MANIFEST: &str = include_str!("../models/models.toml");

/// One entry of the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelEntry {
    /// Short name used on the command line.
    pub name: String,
    /// File name in the models directory.
    pub file: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the file.
    pub sha256: String,
    /// Licence of the weights.
    pub license: String,
    /// GGUF architecture.
    pub arch: String,
    /// Where `models/fetch` gets it.
    pub source: String,
}

/// A speech model: a directory of files.
#[derive(Debug, Clone, Deserialize)]
pub struct SpeechEntry {
    /// Short name used on the command line.
    pub name: String,
    /// What reads it: `whisper` or `piper`.
    pub kind: String,
    /// Directory name in the models directory.
    pub dir: String,
    /// Licence of the weights.
    pub license: String,
    /// Where `models/fetch` gets it.
    pub source: String,
    /// The files in the directory.
    pub files: Vec<SpeechFile>,
}

/// One file of a speech model.
#[derive(Debug, Clone, Deserialize)]
pub struct SpeechFile {
    /// File name inside the model's directory.
    pub file: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the file.
    pub sha256: String,
    /// The CPU it is for (`x86_64`, `aarch64`); `None`: every CPU.
    pub arch: Option<String>,
}

impl SpeechFile {
    /// Whether this CPU needs the file.
    pub fn for_this_cpu(&self) -> bool {
        self.arch
            .as_deref()
            .is_none_or(|a| a == std::env::consts::ARCH)
    }
}

/// The parsed manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    /// Name of the model used when none is given.
    pub default: String,
    /// Every known model.
    #[serde(rename = "model")]
    pub models: Vec<ModelEntry>,
    /// Name of the larger model that answers, beside the default, the
    /// questions no tool can answer (used when it is fetched).
    pub knowledge: Option<String>,
    /// Name of the speech-to-text model used when none is given.
    pub default_speech: String,
    /// Every known speech model.
    #[serde(rename = "speech")]
    pub speech: Vec<SpeechEntry>,
}

impl Manifest {
    /// The compiled-in manifest.
    pub fn builtin() -> Manifest {
        toml::from_str(MANIFEST).expect("models/models.toml is valid (checked by a test)")
    }

    /// A model by name.
    pub fn get(&self, name: &str) -> Option<&ModelEntry> {
        self.models.iter().find(|m| m.name == name)
    }

    /// The default model.
    pub fn default_model(&self) -> &ModelEntry {
        self.get(&self.default)
            .expect("the manifest's default names one of its models (checked by a test)")
    }
}

/// The directory model files are kept in.
pub fn models_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LOOPD_MODELS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::cache_dir()
        .unwrap_or_else(|| PathBuf::from(".cache"))
        .join("loopd")
        .join("models")
}

/// Where a manifest entry's file is (or would be) on this machine.
pub fn path_of(entry: &ModelEntry) -> PathBuf {
    models_dir().join(&entry.file)
}

/// The environment variable that names the model when `--model` does not.
pub const MODEL_ENV: &str = "LOOPD_MODEL";

/// Why `--model` names no model file on this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The name is neither an existing file, nor looks like a path, nor is in
    /// the manifest.
    #[error(
        "model `{name}` is neither a file nor a known model name (known: {})",
        .known.join(", ")
    )]
    Unknown {
        /// The name given.
        name: String,
        /// The manifest's model names.
        known: Vec<String>,
    },
    /// A known model whose file is not in the models directory; the message
    /// says how to fetch it.
    #[error(
        "model `{name}` is not downloaded yet ({} missing). Fetch it with:\n    models/fetch {name}",
        .path.display()
    )]
    NotDownloaded {
        /// The manifest name.
        name: String,
        /// Where its file should be.
        path: PathBuf,
    },
}

/// Resolves `--model`: a path to a file, a manifest name, or nothing (then
/// `LOOPD_MODEL` if set, else the default model). A known model that is not
/// fetched yet is an error that says how to fetch it.
pub fn resolve(model: Option<&str>) -> Result<PathBuf, ModelError> {
    let manifest = Manifest::builtin();
    let from_env = std::env::var(MODEL_ENV)
        .ok()
        .filter(|name| !name.trim().is_empty());
    let entry = match model.or(from_env.as_deref()) {
        None => manifest.default_model(),
        Some(name) => match manifest.get(name) {
            Some(entry) => entry,
            None => {
                let path = PathBuf::from(name);
                let looks_like_path =
                    name.contains(std::path::MAIN_SEPARATOR) || name.ends_with(".gguf");
                if path.exists() || looks_like_path {
                    return Ok(path);
                }
                return Err(ModelError::Unknown {
                    name: name.to_string(),
                    known: manifest.models.iter().map(|m| m.name.clone()).collect(),
                });
            }
        },
    };
    let path = path_of(entry);
    if path.exists() {
        Ok(path)
    } else {
        Err(ModelError::NotDownloaded {
            name: entry.name.clone(),
            path,
        })
    }
}

/// The knowledge model (see [`crate::brain::KnowledgeBrain`]) for a run
/// whose `--model` is `model`: the one `--knowledge-model` names
/// (`knowledge`; `none` for none), else, on the default model alone, the
/// manifest's `knowledge` model when it is fetched. A named model that is
/// not there is an error; the manifest's is skipped with a hint.
pub fn resolve_knowledge(
    model: Option<&str>,
    knowledge: Option<&str>,
) -> Result<Option<PathBuf>, ModelError> {
    match knowledge {
        Some("none") => return Ok(None),
        Some(name) => return resolve(Some(name)).map(Some),
        None => {}
    }
    let from_env = std::env::var(MODEL_ENV)
        .ok()
        .filter(|name| !name.trim().is_empty());
    let manifest = Manifest::builtin();
    if model.is_some() || from_env.is_some() {
        return Ok(None);
    }
    let Some(entry) = manifest
        .knowledge
        .as_deref()
        .and_then(|name| manifest.get(name))
    else {
        return Ok(None);
    };
    let path = path_of(entry);
    if path.exists() {
        Ok(Some(path))
    } else {
        tracing::info!(
            "no knowledge model: `models/fetch {}` lets it answer general questions \
             better",
            entry.name
        );
        Ok(None)
    }
}

/// How a pause is judged: `silence` (a fixed silence ends a turn, no
/// judge), or a turn model: `smart-turn`, or a directory holding
/// `turn.onnx` and `libonnxruntime.so`.
pub fn open_turn(name: &str) -> Result<Option<Arc<dyn TurnJudge>>, VoiceError> {
    if name == "silence" {
        return Ok(None);
    }
    let dir = resolve_speech(Some(name)).map_err(|e| VoiceError::Model(e.to_string()))?;
    load_turn(&dir)
}

#[cfg(feature = "onnx")]
fn load_turn(dir: &Path) -> Result<Option<Arc<dyn TurnJudge>>, VoiceError> {
    let model = crate::voice::turn::SmartTurn::load(
        &dir.join("turn.onnx"),
        &dir.join("libonnxruntime.so"),
    )?;
    Ok(Some(Arc::new(model)))
}

#[cfg(not(feature = "onnx"))]
fn load_turn(dir: &Path) -> Result<Option<Arc<dyn TurnJudge>>, VoiceError> {
    Err(VoiceError::Model(format!(
        "cannot load the turn model in {}: this loopd was built without the `onnx` feature",
        dir.display()
    )))
}

/// The voice detector `name` names: `None` for `earshot` (built in), else
/// Silero VAD from a manifest entry (`silero-vad`) or a directory holding
/// `vad.onnx` and `libonnxruntime.so`.
pub fn open_vad(name: &str) -> Result<Option<Arc<dyn VoiceDetector>>, VoiceError> {
    if name == "earshot" {
        return Ok(None);
    }
    let dir = resolve_speech(Some(name)).map_err(|e| VoiceError::Model(e.to_string()))?;
    load_vad(&dir)
}

#[cfg(feature = "onnx")]
fn load_vad(dir: &Path) -> Result<Option<Arc<dyn VoiceDetector>>, VoiceError> {
    let model = crate::voice::silero::SileroVad::load(
        &dir.join("vad.onnx"),
        &dir.join("libonnxruntime.so"),
    )?;
    Ok(Some(Arc::new(model)))
}

#[cfg(not(feature = "onnx"))]
fn load_vad(dir: &Path) -> Result<Option<Arc<dyn VoiceDetector>>, VoiceError> {
    Err(VoiceError::Model(format!(
        "cannot load the voice detector in {}: this loopd was built without the `onnx` feature",
        dir.display()
    )))
}

/// The voice `name` names: a Piper voice in the manifest (`piper-joe`) or
/// a directory holding `voice.onnx`, `voice.onnx.json` and
/// `libonnxruntime.so`; anything else is an espeak-ng voice (`en-us`).
pub fn open_voice(name: &str) -> Result<Voice, VoiceError> {
    let manifest = Manifest::builtin();
    let piper_entry = manifest
        .speech
        .iter()
        .any(|s| s.name == name && s.kind == "piper");
    let piper_dir = Path::new(name).join("voice.onnx").is_file();
    if !piper_entry && !piper_dir {
        return Ok(Voice::espeak(name));
    }
    let dir = resolve_speech(Some(name)).map_err(|e| VoiceError::Model(e.to_string()))?;
    Voice::open_piper(&dir)
}

/// Resolves a speech model: a directory path, or a manifest name (default:
/// the manifest's `default_speech`). A known model that is not fetched yet
/// is an error that says how to fetch it.
pub fn resolve_speech(model: Option<&str>) -> Result<PathBuf, ModelError> {
    let manifest = Manifest::builtin();
    let name = model.unwrap_or(&manifest.default_speech);
    let Some(entry) = manifest.speech.iter().find(|s| s.name == name) else {
        let path = PathBuf::from(name);
        if path.is_dir() || name.contains(std::path::MAIN_SEPARATOR) {
            return Ok(path);
        }
        return Err(ModelError::Unknown {
            name: name.to_string(),
            known: manifest.speech.iter().map(|s| s.name.clone()).collect(),
        });
    };
    let dir = models_dir().join(&entry.dir);
    let mut mine = entry.files.iter().filter(|f| f.for_this_cpu());
    match mine.find(|f| !dir.join(&f.file).exists()) {
        None => Ok(dir),
        Some(missing) => Err(ModelError::NotDownloaded {
            name: entry.name.clone(),
            path: dir.join(&missing.file),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_parses_and_names_its_default() {
        let m = Manifest::builtin();
        assert_eq!(m.default_model().name, "qwen2.5-coder-0.5b");
        assert!(m.get("qwen2.5-coder-0.5b").is_some());
        assert!(m.models.iter().all(|e| e.sha256.len() == 64));
        let speech = m
            .speech
            .iter()
            .find(|s| s.name == m.default_speech)
            .unwrap();
        assert_eq!(speech.kind, "whisper");
        let files: Vec<&str> = speech.files.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(files, ["model.bin", "tokenizer.json", "config.json"]);
        assert!(speech.files.iter().all(|f| f.sha256.len() == 64));
    }
}

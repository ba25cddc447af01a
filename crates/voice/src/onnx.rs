//! The onnxruntime shared library, loaded at run time through `ort` from a
//! file `models/fetch` brings: one per process, shared by every ONNX model
//! (Piper voices, the turn model).

use super::VoiceError;
use ort::environment::Environment;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The onnxruntime library this process has loaded (only one can be), and
/// the environment its sessions share.
static RUNTIME: Mutex<Option<(PathBuf, Environment)>> = Mutex::new(None);

/// The environment of the onnxruntime shared library at `path`
/// (`libonnxruntime.so.1.N.M`, 1.17 or newer), loaded into the process on
/// first use. Every later call must name the same file, or an identical
/// copy of it.
pub fn runtime(path: &Path) -> Result<Environment, VoiceError> {
    let path = path
        .canonicalize()
        .map_err(|e| VoiceError::Model(format!("onnxruntime library {}: {e}", path.display())))?;
    let mut loaded = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    match loaded.as_ref() {
        Some((already, environment)) if *already == path || same_file(already, &path) => {
            Ok(environment.clone())
        }
        Some((already, _)) => Err(VoiceError::Model(format!(
            "onnxruntime is already loaded from {}; cannot load {} too",
            already.display(),
            path.display()
        ))),
        None => {
            let environment = ort::init_from(&path)
                .map_err(|e| VoiceError::Model(format!("cannot load onnxruntime: {e}")))?
                .with_name("loopd")
                .build()
                .map_err(|e| VoiceError::Model(format!("onnxruntime: {e}")))?;
            *loaded = Some((path, environment.clone()));
            Ok(environment)
        }
    }
}

/// Whether two files hold the same bytes (two models' copies of one
/// onnxruntime release).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

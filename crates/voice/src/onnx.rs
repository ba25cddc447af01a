//! The onnxruntime shared library, loaded at run time through `ort` from a
//! file `models/fetch` brings: one per process, shared by every ONNX model
//! (Piper voices, the turn model, Silero VAD), and the sessions they run in.

use super::VoiceError;
use ort::environment::Environment;
use ort::session::Session;
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

/// `model` opened on the onnxruntime library at `library`, on one thread
/// (`single_thread`) or onnxruntime's default; `what` names the model in
/// errors ("turn model").
pub fn session(
    model: &Path,
    library: &Path,
    single_thread: bool,
    what: &str,
) -> Result<Session, VoiceError> {
    if !model.is_file() {
        return Err(VoiceError::Model(format!(
            "{what} {} does not exist",
            model.display()
        )));
    }
    let environment = runtime(library)?;
    let onnx = |e: ort::Error| VoiceError::Model(format!("{what}: {e}"));
    let mut builder = Session::builder(&environment).map_err(onnx)?;
    if single_thread {
        builder = builder
            .with_intra_threads(1)
            .map_err(|e| VoiceError::Model(format!("{what}: {e}")))?;
    }
    builder
        .commit_from_file(model)
        .map_err(|e| VoiceError::Model(format!("cannot load {what} {}: {e}", model.display())))
}

/// A session's input and output names, each list sorted.
pub fn io_names(session: &Session) -> (Vec<String>, Vec<String>) {
    let sorted = |names: &mut dyn Iterator<Item = &str>| {
        let mut names: Vec<String> = names.map(str::to_string).collect();
        names.sort_unstable();
        names
    };
    let inputs = sorted(&mut session.inputs().iter().map(|i| i.name()));
    let outputs = sorted(&mut session.outputs().iter().map(|o| o.name()));
    (inputs, outputs)
}

/// Whether two files hold the same bytes (two models' copies of one
/// onnxruntime release).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

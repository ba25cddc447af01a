//! Helpers shared by the integration tests: the real models, the golden
//! files, and tiny GGUF files written on the spot.

pub mod engines;
pub mod serve;
pub mod tiny;

use loopd::models::{path_of, Manifest};
use std::path::PathBuf;

/// The fast test model (135M): every test that does not judge answers.
pub const SMOLLM: &str = "smollm2-135m";
/// The larger reference model, loopd's default.
pub const QWEN: &str = "qwen2.5-coder-0.5b";

/// `loopd ARGS` on the fast test model (unless ARGS name another), run to
/// its end.
pub fn loopd(args: &[&str]) -> std::process::Output {
    model_path(SMOLLM);
    std::process::Command::new(env!("CARGO_BIN_EXE_loopd"))
        .env(loopd::models::MODEL_ENV, SMOLLM)
        .args(args)
        .output()
        .unwrap()
}

/// A process's output as text (lossily).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Path of a reference model; fails (never skips) when it is not fetched.
pub fn model_path(name: &str) -> PathBuf {
    let manifest = Manifest::builtin();
    let entry = manifest
        .get(name)
        .unwrap_or_else(|| panic!("{name} is not in models/models.toml"));
    let path = path_of(entry);
    assert!(
        path.exists(),
        "the real model {name} is required but missing at {}.\nFetch it with `models/fetch {name}` (.ci/run does this).",
        path.display()
    );
    path
}

/// Where a golden file is (tests/golden/).
pub fn golden_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(file)
}

/// The lines of a golden JSON-lines file.
pub fn golden(file: &str) -> Vec<serde_json::Value> {
    let path = golden_path(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("golden line is JSON"))
        .collect()
}

/// Golden entries of one kind for one model.
pub fn golden_for(file: &str, model: &str, kind: Option<&str>) -> Vec<serde_json::Value> {
    golden(file)
        .into_iter()
        .filter(|g| g["model"] == model && kind.is_none_or(|k| g["kind"] == k))
        .collect()
}

/// A JSON array of numbers as token ids.
pub fn ids(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .expect("an array of ids")
        .iter()
        .map(|x| x.as_u64().expect("an id") as u32)
        .collect()
}

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "loopd-test-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A helper process (a test peer) that prints `READY` once it is set up;
/// killed when dropped.
pub struct Ready {
    child: std::process::Child,
}

impl Ready {
    /// Runs `command`, its stderr into `log`, and waits up to 30 s for
    /// `READY` on its stdout; panics with the log if it never comes.
    pub fn spawn(mut command: std::process::Command, log: &std::path::Path) -> Ready {
        use std::io::Read;
        use std::process::Stdio;
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(log).unwrap()));
        let mut child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
        let mut stdout = child.stdout.take().unwrap();
        let (ready, is_ready) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut seen = String::new();
            let mut buffer = [0u8; 256];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                seen.push_str(&String::from_utf8_lossy(&buffer[..n]));
                if seen.contains("READY") {
                    let _ = ready.send(());
                }
            }
        });
        let mut peer = Ready { child };
        if is_ready
            .recv_timeout(std::time::Duration::from_secs(30))
            .is_err()
        {
            peer.kill();
            panic!(
                "{command:?} never said READY:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        peer
    }

    /// Kills it: the peer is gone.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Ready {
    fn drop(&mut self) {
        self.kill();
    }
}

//! Support for the bus tests. The real OVOS parts: `ovos-messagebus` as a server and
//! `ovos-bus-client` (driven by `client.py`) as a peer, from a Python venv.

pub mod checks;
mod frames;
pub mod peer;

use serde_json::Value;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const HOW_TO: &str = "run .ci/run, or: python3 -m venv target/ovos-venv && \
     target/ovos-venv/bin/pip install ovos-messagebus ovos-bus-client";

/// The venv's Python, checked once: `$LOOPD_OVOS_VENV`, else
/// `target/ovos-venv`. Panics with how to make it when it is missing.
pub fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let venv = std::env::var_os("LOOPD_OVOS_VENV")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/ovos-venv")
                });
            let python = venv.join("bin/python");
            let ok = Command::new(&python)
                .args(["-c", "import ovos_messagebus, ovos_bus_client"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                ok,
                "the OVOS bus tests need a venv with ovos-messagebus and ovos-bus-client at {} \
                 (or $LOOPD_OVOS_VENV); {HOW_TO}",
                venv.display()
            );
            python
        })
        .clone()
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("cannot find a free port")
        .port()
}

/// Waits until something accepts TCP connections on `port`.
pub fn wait_for_port(port: u16, timeout: Duration) -> bool {
    let until = Instant::now() + timeout;
    while Instant::now() < until {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Points the OVOS config (and its logs) at `dir`, whose
/// `mycroft/mycroft.conf` puts the bus on 127.0.0.1:`port`.
fn ovos_env(command: &mut Command, dir: &Path, port: u16) {
    let conf = dir.join("mycroft");
    std::fs::create_dir_all(&conf).unwrap();
    let websocket = serde_json::json!({"websocket": {
        "host": "127.0.0.1", "port": port, "route": "/core", "ssl": false}});
    std::fs::write(conf.join("mycroft.conf"), websocket.to_string()).unwrap();
    command
        .env("XDG_CONFIG_HOME", dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CACHE_HOME", dir.join("cache"));
}

/// A running `ovos-messagebus` server; killed when dropped.
pub struct OvosBus {
    child: Option<Child>,
    /// Its port on 127.0.0.1.
    pub port: u16,
    dir: PathBuf,
}

impl OvosBus {
    /// Starts the real OVOS message bus on `port` and waits until it listens.
    pub fn start(port: u16, dir: &Path) -> OvosBus {
        let mut bus = OvosBus {
            child: None,
            port,
            dir: dir.to_path_buf(),
        };
        bus.restart();
        bus
    }

    /// Starts it again (after [`OvosBus::kill`]) on the same port.
    pub fn restart(&mut self) {
        self.kill();
        let mut command = Command::new(python());
        command.args(["-m", "ovos_messagebus"]).stdin(Stdio::null());
        ovos_env(&mut command, &self.dir, self.port);
        let log = std::fs::File::create(self.dir.join("ovos-messagebus.log")).unwrap();
        command
            .stdout(Stdio::from(log.try_clone().unwrap()))
            .stderr(Stdio::from(log));
        self.child = Some(command.spawn().expect("cannot start ovos-messagebus"));
        if !wait_for_port(self.port, Duration::from_secs(30)) {
            let log = std::fs::read_to_string(self.dir.join("ovos-messagebus.log"));
            panic!(
                "ovos-messagebus did not listen on port {}:\n{}",
                self.port,
                log.unwrap_or_default()
            );
        }
    }

    /// Kills the server (the bus goes away).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `ws://127.0.0.1:PORT/core`.
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}/core", self.port)
    }
}

impl Drop for OvosBus {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Kills a child process when dropped.
struct Reaper(Child);

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// Runs `client.py COMMAND ARGS` against the bus on 127.0.0.1:`port` and
/// returns its `RESULT`; panics with its output when it fails.
pub fn client(port: u16, command: &str, args: Value, dir: &Path) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/ovos/client.py");
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let out_path = dir.join(format!("client-{command}-{run}.out"));
    let out = std::fs::File::create(&out_path).unwrap();
    let mut cmd = Command::new(python());
    cmd.arg(&script)
        .args(["127.0.0.1", &port.to_string(), "/core", command])
        .arg(args.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::from(out.try_clone().unwrap()))
        .stderr(Stdio::from(out));
    ovos_env(&mut cmd, &dir.join("client"), port);
    let mut child = Reaper(cmd.spawn().expect("cannot run tests/it/ovos/client.py"));
    let until = Instant::now() + Duration::from_secs(150);
    let status = loop {
        if let Ok(Some(status)) = child.0.try_wait() {
            break Some(status);
        }
        if Instant::now() > until {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(child);
    let mut text = String::new();
    std::fs::File::open(&out_path)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let result = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("RESULT "))
        .map(|r| serde_json::from_str::<Value>(r).expect("RESULT is JSON"));
    match (status, result) {
        (Some(s), Some(result)) if s.success() => result,
        (status, _) => panic!("client.py {command} {args} failed ({status:?}):\n{text}"),
    }
}

/// The messages of an `ask`/`utterance` result, with their times.
pub fn replies(result: &Value) -> Vec<(f64, Value)> {
    result["replies"]
        .as_array()
        .expect("replies")
        .iter()
        .map(|r| (r["t"].as_f64().unwrap(), r["message"].clone()))
        .collect()
}

/// A skill's toolbox (`toolbox.py`, on `ovos-bus-client`) connected to the
/// bus on `port`, announced; killed when dropped.
pub fn toolbox(port: u16, id: &str, dir: &Path) -> crate::common::Ready {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/ovos/toolbox.py");
    let mut command = Command::new(python());
    command
        .arg(&script)
        .args(["127.0.0.1", &port.to_string(), "/core", id]);
    ovos_env(&mut command, &dir.join(format!("toolbox-{id}")), port);
    crate::common::Ready::spawn(command, &dir.join(format!("toolbox-{id}.log")))
}

//! `loopd serve` as a child process for end-to-end tests: started on the
//! real default model with a test-owned `NOTIFY_SOCKET`, so a test knows
//! when it is ready (`READY=1`) and sees everything it tells systemd.

use std::io::Read;
use std::os::unix::net::UnixDatagram;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running `loopd serve`; stopped with SIGTERM when dropped.
pub struct Serve {
    child: Child,
    notify: UnixDatagram,
    /// Every sd_notify datagram received so far, in order.
    pub notices: Vec<String>,
    /// A private directory for this daemon (config, runtime dir, socket).
    pub dir: PathBuf,
}

/// A fresh temporary directory under the target directory.
pub fn temp_dir(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Serve {
    /// Starts `loopd serve --model <fast test model> ARGS` with `env` added,
    /// `XDG_CONFIG_HOME` and `XDG_RUNTIME_DIR` inside a private directory,
    /// and waits (up to two minutes) for `READY=1`. Panics with the
    /// daemon's stderr if it exits or never gets ready.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> Serve {
        Serve::start_on(super::SMOLLM, args, env)
    }

    /// [`Serve::start`] on another reference model.
    pub fn start_on(model: &str, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let dir = temp_dir("serve");
        let runtime = dir.join("run");
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::create_dir_all(dir.join("config")).unwrap();
        let socket_path = dir.join("notify.sock");
        let notify = UnixDatagram::bind(&socket_path).unwrap();
        notify
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let model = super::model_path(model);
        let mut command = Command::new(env!("CARGO_BIN_EXE_loopd"));
        command
            .arg("serve")
            .arg("--model")
            .arg(&model)
            .args(args)
            .env("NOTIFY_SOCKET", &socket_path)
            .env("XDG_CONFIG_HOME", dir.join("config"))
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("XDG_STATE_HOME", dir.join("state"))
            .env("LOOPD_LOG", "info")
            .env_remove("JOURNAL_STREAM")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(
                std::fs::File::create(dir.join("stderr.log")).unwrap(),
            ));
        for (k, v) in env {
            command.env(k, v);
        }
        let child = command.spawn().expect("cannot start loopd serve");
        let mut serve = Serve {
            child,
            notify,
            notices: Vec::new(),
            dir,
        };
        serve.wait_for_notice("READY=1", Duration::from_secs(120));
        serve
    }

    /// What the daemon wrote to stderr so far.
    pub fn stderr(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = std::fs::File::open(self.dir.join("stderr.log")) {
            let _ = f.read_to_string(&mut text);
        }
        text
    }

    /// Waits until a notify datagram contains a line equal to `line`;
    /// panics (with the daemon's stderr) on timeout or exit.
    pub fn wait_for_notice(&mut self, line: &str, timeout: Duration) {
        let until = Instant::now() + timeout;
        loop {
            if self.notices.iter().any(|n| n.lines().any(|l| l == line)) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "loopd serve exited ({status}) before `{line}`:\n{}",
                    self.stderr()
                );
            }
            assert!(
                Instant::now() < until,
                "loopd serve did not send `{line}` in {timeout:?}; got {:?}\n{}",
                self.notices,
                self.stderr()
            );
            let mut buf = [0u8; 4096];
            if let Ok(n) = self.notify.recv(&mut buf) {
                self.notices
                    .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            }
        }
    }

    /// The JSON-lines socket under the private runtime directory.
    pub fn socket_path(&self) -> PathBuf {
        self.dir.join("run/loopd/bus.sock")
    }

    /// Keeps the datagrams still queued on the notify socket (a daemon that
    /// has exited may have sent its last ones after the previous read).
    fn drain_notices(&mut self) {
        let mut buf = [0u8; 4096];
        while let Ok(n) = self.notify.recv(&mut buf) {
            self.notices
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
    }

    /// Sends SIGTERM and waits for the exit; returns whether it exited 0.
    pub fn stop(&mut self) -> bool {
        // SAFETY: kill(2) on our own child's pid has no memory-safety requirements.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.drain_notices();
                return status.success();
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return false;
            }
            let mut buf = [0u8; 4096];
            if let Ok(n) = self.notify.recv(&mut buf) {
                self.notices
                    .push(String::from_utf8_lossy(&buf[..n]).into_owned());
            }
        }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

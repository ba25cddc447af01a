//! `loopd serve --system` on a private bus configured as a system bus is
//! (deny by default), with the shipped policy `systemd/dbus/io.loopd.Loopd1.conf`
//! included: the service's user (root here) owns the name, anyone may
//! call it, nobody else may own it or register a toolbox, and one
//! caller's sessions are not another's.

use super::client::{Bus, NAME, ONE_AT_A_TIME, PATH};
use crate::common::serve::{temp_dir, Serve};
use crate::common::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The uid and gid of `nobody`, the caller with no privileges.
const NOBODY: &str = "65534";

/// A private dbus-daemon with the system bus's default policy and the
/// shipped loopd policy; killed when dropped.
struct SystemBus {
    bus: Bus,
    socket: PathBuf,
}

impl SystemBus {
    fn start(dir: &Path) -> SystemBus {
        let policy =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systemd/dbus/io.loopd.Loopd1.conf");
        let config = dir.join("system.conf");
        // The socket goes where `nobody` can reach it, whatever the
        // permissions of the directories above the target directory.
        let socket = std::env::temp_dir().join(format!(
            "loopd-system-bus-{}-{}",
            std::process::id(),
            dir.file_name().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_file(&socket);
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <include>{policy}</include>
</busconfig>
"#,
                socket = socket.display(),
                policy = policy.display()
            ),
        )
        .unwrap();
        let bus = Bus::with(&[&format!("--config-file={}", config.display())]);
        SystemBus { bus, socket }
    }

    /// `busctl call ARGS` on this bus, as `nobody` when `unprivileged`.
    fn busctl(&self, unprivileged: bool, args: &[&str]) -> Output {
        self.busctl_with(unprivileged, &[], args)
    }

    /// The `prompt_tokens` of the first LLM call of an `AskSync` made with
    /// `busctl --json=short call ARGS`.
    fn prompt_tokens(&self, unprivileged: bool, args: &[&str]) -> u64 {
        let out = self.busctl_with(unprivileged, &["--json=short"], args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let reply: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let calls = reply["data"][1]["calls_json"]["data"]
            .as_str()
            .unwrap_or_else(|| panic!("no calls_json in {reply}"));
        let calls: serde_json::Value = serde_json::from_str(calls).unwrap();
        calls[0]["prompt_tokens"]
            .as_u64()
            .unwrap_or_else(|| panic!("no prompt_tokens in {calls}"))
    }

    fn busctl_with(&self, unprivileged: bool, flags: &[&str], args: &[&str]) -> Output {
        let mut command = if unprivileged {
            let mut c = Command::new("setpriv");
            c.args([
                &format!("--reuid={NOBODY}"),
                &format!("--regid={NOBODY}"),
                "--clear-groups",
                "busctl",
            ]);
            c
        } else {
            Command::new("busctl")
        };
        command
            .arg(format!("--address={}", self.bus.address))
            .args(flags)
            .arg("call")
            .args(args)
            .output()
            .expect("busctl (Debian `systemd`) and setpriv (`util-linux`) must be installed")
    }
}

impl Drop for SystemBus {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

#[test]
fn serve_system_owns_its_name_under_the_shipped_policy_and_anyone_may_call() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let dir = temp_dir("system-bus");
    let bus = SystemBus::start(&dir);
    let config = dir.join("config.toml");
    std::fs::write(&config, "").unwrap();
    let socket = dir.join("bus.sock");
    let args = [
        "--system",
        "--config",
        config.to_str().unwrap(),
        "--socket",
        socket.to_str().unwrap(),
    ];
    let env = [("DBUS_SYSTEM_BUS_ADDRESS", bus.bus.address.as_str())];
    let serve = Serve::start(&args, &env);
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // Only the service's user and root may own the name: as anyone
        // else, `serve --system` says so and serves without D-Bus.
        assert!(
            serve.stderr().contains("not allowed to own"),
            "{}",
            serve.stderr()
        );
        return;
    }

    let ask = [
        NAME,
        PATH,
        NAME,
        "AskSync",
        "sa{sv}",
        "Say hello.",
        "2",
        "loop",
        "s",
        "none",
        "max_tokens",
        "u",
        "8",
    ];
    let asked = bus.busctl(false, &ask);
    assert!(
        asked.status.success(),
        "root's AskSync: {}",
        text(&asked.stderr)
    );
    assert!(
        text(&asked.stdout).starts_with("sa{sv} \""),
        "{}",
        text(&asked.stdout)
    );

    let asked = bus.busctl(true, &ask);
    assert!(
        asked.status.success(),
        "the policy lets anyone call loopd, but nobody's AskSync failed: {}",
        text(&asked.stderr)
    );
    assert!(
        text(&asked.stdout).starts_with("sa{sv} \""),
        "{}",
        text(&asked.stdout)
    );

    // Sessions belong to callers: nobody asking in a session of the same
    // name is not given root's remembered turn, while root is.
    let in_session = [
        NAME,
        PATH,
        NAME,
        "AskSync",
        "sa{sv}",
        "My name is Ada.",
        "3",
        "loop",
        "s",
        "none",
        "max_tokens",
        "u",
        "8",
        "session",
        "s",
        "kitchen",
    ];
    let root_first = bus.prompt_tokens(false, &in_session);
    let nobody_first = bus.prompt_tokens(true, &in_session);
    let root_again = bus.prompt_tokens(false, &in_session);
    assert_eq!(
        nobody_first, root_first,
        "nobody's first question in `kitchen` was given root's turn"
    );
    assert!(
        root_again > root_first,
        "root's own session was not recalled ({root_again} ≤ {root_first} prompt tokens)"
    );

    // Every local user could reach a bus the system service hosted: it
    // hosts none unless configured.
    assert!(
        !serve.stderr().contains("(hosted)"),
        "the system service hosts a bus: {}",
        serve.stderr()
    );

    // Toolbox names cannot be squatted: nobody may not register one.
    let register = [
        NAME,
        PATH,
        NAME,
        "RegisterToolbox",
        "sso",
        "doors",
        "[]",
        "/io/example/Doors",
    ];
    let squatted = bus.busctl(true, &register);
    assert!(!squatted.status.success(), "nobody registered a toolbox");
    assert!(
        text(&squatted.stderr).contains("may not register toolboxes"),
        "{}",
        text(&squatted.stderr)
    );

    let own = [
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "RequestName",
        "su",
        NAME,
        "0",
    ];
    let taken = bus.busctl(true, &own);
    assert!(!taken.status.success(), "nobody took {NAME}");
    assert!(
        text(&taken.stderr).contains("Access denied"),
        "{}",
        text(&taken.stderr)
    );
    assert!(
        !serve.stderr().contains("serving without D-Bus"),
        "{}",
        serve.stderr()
    );
}

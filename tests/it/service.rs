//! `loopd serve` under a stand-in for systemd: a test-owned NOTIFY_SOCKET
//! sees the status lines, `READY=1`, `WATCHDOG=1` pings and `STOPPING=1`;
//! the units in `systemd/` pass `systemd-analyze`.

use crate::common;
use crate::common::serve::Serve;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[test]
fn tells_systemd_it_is_loading_ready_alive_and_stopping() {
    let mut serve = Serve::start(&["--no-dbus", "--no-bus"], &[("WATCHDOG_USEC", "400000")]);
    let before_ready: Vec<&String> = serve
        .notices
        .iter()
        .take_while(|n| !n.lines().any(|l| l == "READY=1"))
        .collect();
    assert!(
        before_ready.iter().any(|n| n.contains("STATUS=loading")),
        "{:?}",
        serve.notices
    );
    assert!(
        before_ready.iter().any(|n| n.contains("STATUS=warming")),
        "{:?}",
        serve.notices
    );
    serve.wait_for_notice("WATCHDOG=1", Duration::from_secs(10));
    assert!(serve.stop(), "exit status\n{}", serve.stderr());
    assert!(
        serve
            .notices
            .iter()
            .any(|n| n.lines().any(|l| l == "STOPPING=1")),
        "{:?}",
        serve.notices
    );
}

/// systemd may stop a service the moment it is ready: the signal must not
/// kill it before it listens for it.
#[test]
fn a_stop_right_after_ready_is_a_clean_exit() {
    let mut serve = Serve::start(&["--no-dbus", "--no-bus"], &[]);
    assert!(serve.stop(), "exit status\n{}", serve.stderr());
    assert!(serve.stderr().contains("stopped"), "{}", serve.stderr());
}

#[test]
fn a_bad_config_is_one_clear_error_before_loading() {
    let dir = common::serve::temp_dir("badconfig");
    let config = dir.join("config.toml");
    std::fs::write(&config, "[requests]\nqeue = 3\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["serve", "--no-dbus", "--no-bus", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("qeue"), "{stderr}");
    assert!(!stderr.contains("loading"), "{stderr}");
}

fn analyze(args: &[&str], unit: &Path) -> std::process::Output {
    let runtime = common::serve::temp_dir("xdg-runtime");
    Command::new("systemd-analyze")
        .args(args)
        .arg(unit)
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "systemd-analyze is required (Debian package `systemd`; .ci/run installs it): {e}"
            )
        })
}

/// The unit with its `ExecStart` binary pointed at the binary under test,
/// which `systemd-analyze verify` checks exists.
fn installed_copy(unit: &str, binary_in_unit: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(unit)).unwrap();
    assert!(
        text.contains(binary_in_unit),
        "{unit} runs {binary_in_unit}"
    );
    let dir = common::serve::temp_dir("unit");
    let path = dir.join("loopd.service");
    std::fs::write(
        &path,
        text.replace(binary_in_unit, env!("CARGO_BIN_EXE_loopd")),
    )
    .unwrap();
    path
}

#[test]
fn the_units_verify_cleanly() {
    let system = installed_copy("systemd/loopd.service", "/usr/bin/loopd");
    let out = analyze(&["verify"], &system);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && said.trim().is_empty(), "{said}");

    let user = installed_copy("systemd/user/loopd.service", "%h/.cargo/bin/loopd");
    let out = analyze(&["--user", "verify"], &user);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
}

/// The overall exposure `systemd-analyze security --offline` gives a unit.
fn exposure(args: &[&str], unit: &Path) -> f64 {
    let out = analyze(args, unit);
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.split("exposure level for loopd.service:").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no exposure level in:\n{text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

#[test]
fn the_system_unit_is_hardened_to_1_5_or_better() {
    let system = installed_copy("systemd/loopd.service", "/usr/bin/loopd");
    let score = exposure(&["security", "--offline=true"], &system);
    assert!(score <= 1.5, "system unit exposure {score} > 1.5");
}

#[test]
fn the_user_unit_is_hardened_to_2_or_better() {
    let user = installed_copy("systemd/user/loopd.service", "%h/.cargo/bin/loopd");
    let score = exposure(&["--user", "security", "--offline=true"], &user);
    assert!(score <= 2.0, "user unit exposure {score} > 2.0");
}

//! A zbus client of `io.loopd.Loopd1` for the end-to-end tests, and the
//! private bus and daemon they run against.

use crate::common::{
    self,
    serve::{temp_dir, Serve},
};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use zbus::message::Type as MessageType;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};
use zbus::{proxy::CacheProperties, Connection, MatchRule, Message, MessageStream};

/// The daemon's well-known name and interface.
pub const NAME: &str = "io.loopd.Loopd1";
/// The daemon's object.
pub const PATH: &str = "/io/loopd/Loopd1";
/// The interface of request objects.
pub const REQUEST: &str = "io.loopd.Loopd1.Request";
/// Greedy, this makes SmolLM2 count until it runs out of tokens.
pub const LONG_PROMPT: &str = "Write the numbers from 1 to 500 separated by commas: 1, 2, 3,";

/// The tests share the machine's few cores: one daemon at a time.
pub static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `a{sv}` options as the client sends them.
pub type Options = HashMap<&'static str, Value<'static>>;

/// The daemon's interface.
#[zbus::proxy(
    interface = "io.loopd.Loopd1",
    default_service = "io.loopd.Loopd1",
    default_path = "/io/loopd/Loopd1"
)]
pub trait Loopd1 {
    fn ask_sync(
        &self,
        prompt: &str,
        options: Options,
    ) -> zbus::Result<(String, HashMap<String, OwnedValue>)>;
    fn ask(&self, prompt: &str, options: Options) -> zbus::Result<OwnedObjectPath>;
    fn list_tools(&self) -> zbus::Result<String>;
    fn register_toolbox(
        &self,
        name: &str,
        tools_json: &str,
        toolbox: zbus::zvariant::ObjectPath<'_>,
    ) -> zbus::Result<()>;
    fn unregister_toolbox(&self, name: &str) -> zbus::Result<()>;
    #[zbus(property)]
    fn loops(&self) -> zbus::Result<Vec<String>>;
    #[zbus(property)]
    fn model(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn device(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn state(&self) -> zbus::Result<String>;
    #[zbus(property)]
    fn version(&self) -> zbus::Result<String>;
}

/// A private session bus; killed when dropped.
pub struct Bus {
    child: Child,
    /// Where clients connect.
    pub address: String,
}

impl Bus {
    /// Starts `dbus-daemon --session` and reads its address.
    pub fn start() -> Bus {
        Bus::with(&["--session"])
    }

    /// Starts `dbus-daemon ARGS --nofork --print-address=1` and reads its
    /// address.
    pub fn with(args: &[&str]) -> Bus {
        let mut child = Command::new("dbus-daemon")
            .args(args)
            .args(["--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run dbus-daemon ({e}); install the Debian package `dbus`")
            });
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("dbus-daemon prints its address");
        let address = line.trim().to_string();
        assert!(
            !address.is_empty(),
            "dbus-daemon {args:?} printed no address"
        );
        Bus { child, address }
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bus with `loopd serve` on it.
pub struct Fixture {
    /// The daemon (declared first: it stops before the bus goes).
    pub serve: Serve,
    /// Its bus.
    pub bus: Bus,
}

impl Fixture {
    /// A private bus and `loopd serve --no-bus` on it, ready.
    pub fn start() -> Fixture {
        let bus = Bus::start();
        let serve = Serve::start(
            &["--no-bus"],
            &[("DBUS_SESSION_BUS_ADDRESS", bus.address.as_str())],
        );
        Fixture { serve, bus }
    }

    /// A private bus and `loopd serve --no-bus --config FILE` on `model`
    /// on it, ready; FILE holds `config`.
    pub fn with_config(model: &str, config: &str) -> Fixture {
        let bus = Bus::start();
        let file = crate::common::serve::temp_dir("dbus-config").join("config.toml");
        std::fs::write(&file, config).unwrap();
        let serve = Serve::start_on(
            model,
            &["--no-bus", "--config", file.to_str().unwrap()],
            &[("DBUS_SESSION_BUS_ADDRESS", bus.address.as_str())],
        );
        Fixture { serve, bus }
    }

    /// A new client connection to the private bus.
    pub async fn connect(&self) -> Connection {
        zbus::connection::Builder::address(self.bus.address.as_str())
            .unwrap()
            .build()
            .await
            .expect("connect to the private bus")
    }
}

/// A multi-threaded tokio runtime for a test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A proxy of the daemon that reads properties afresh each time.
pub async fn loopd(conn: &Connection) -> Loopd1Proxy<'static> {
    Loopd1Proxy::builder(conn)
        .cache_properties(CacheProperties::No)
        .build()
        .await
        .unwrap()
}

/// Options from key-value pairs.
pub fn options(pairs: &[(&'static str, Value<'static>)]) -> Options {
    pairs.iter().cloned().collect()
}

/// A short plain-chat request with a handle token.
pub fn short(token: &str) -> Options {
    options(&[
        ("loop", Value::from("none")),
        ("max_tokens", Value::from(24u32)),
        ("handle_token", Value::from(token.to_string())),
    ])
}

/// A long greedy request (it runs until cancelled) with a handle token.
pub fn long(token: &str) -> Options {
    options(&[
        ("loop", Value::from("none")),
        ("max_tokens", Value::from(1000u32)),
        ("temperature", Value::from(0.0f64)),
        ("handle_token", Value::from(token.to_string())),
    ])
}

/// The D-Bus error name of a failed call.
pub fn error_name(e: &zbus::Error) -> String {
    match e {
        zbus::Error::MethodError(name, _, _) => name.to_string(),
        zbus::Error::FDO(e) => zbus::DBusError::name(&**e).to_string(),
        other => panic!("not a D-Bus error reply: {other:?}"),
    }
}

/// The request path for our own connection and `token`.
pub fn request_path(conn: &Connection, token: &str) -> String {
    let me = conn
        .unique_name()
        .expect("a bus connection has a unique name");
    let me = me.trim_start_matches(':').replace('.', "_");
    format!("{PATH}/request/{me}/{token}")
}

/// Every signal of a request object, in order (subscribe before asking).
pub async fn subscribe(conn: &Connection, path: &str) -> MessageStream {
    let rule = MatchRule::builder()
        .msg_type(MessageType::Signal)
        .interface(REQUEST)
        .unwrap()
        .path(path.to_string())
        .unwrap()
        .build();
    MessageStream::for_match_rule(rule, conn, Some(256))
        .await
        .unwrap()
}

/// A request signal: its member name and body.
pub enum Signal {
    Token(String, String),
    Event(String, String),
    Finished(String, HashMap<String, OwnedValue>),
    Failed(String, String),
}

/// The next request signal, within `within`.
pub async fn next_signal(stream: &mut MessageStream, within: Duration) -> Signal {
    let msg: Message = tokio::time::timeout(within, stream.next())
        .await
        .expect("a request signal in time")
        .expect("the stream is open")
        .unwrap();
    let header = msg.header();
    let member = header.member().unwrap().to_string();
    let body = msg.body();
    match member.as_str() {
        "Token" => {
            let (a, b) = body.deserialize().unwrap();
            Signal::Token(a, b)
        }
        "Event" => {
            let (a, b) = body.deserialize().unwrap();
            Signal::Event(a, b)
        }
        "Finished" => {
            let (a, b) = body.deserialize().unwrap();
            Signal::Finished(a, b)
        }
        "Failed" => {
            let (a, b) = body.deserialize().unwrap();
            Signal::Failed(a, b)
        }
        other => panic!("unexpected signal {other}"),
    }
}

/// An integer stat, which must be sent as `t`.
pub fn u64_stat(stats: &HashMap<String, OwnedValue>, key: &str) -> u64 {
    match stats.get(key).map(|v| &**v) {
        Some(Value::U64(n)) => *n,
        other => panic!("stat {key} should be a u64 (t), got {other:?} in {stats:?}"),
    }
}

/// A string stat.
pub fn str_stat(stats: &HashMap<String, OwnedValue>, key: &str) -> String {
    match stats.get(key).map(|v| &**v) {
        Some(Value::Str(s)) => s.to_string(),
        other => panic!("stat {key} should be a string, got {other:?}"),
    }
}

/// Every `State` value signalled by `PropertiesChanged`, in order.
pub async fn state_changes(conn: &Connection) -> MessageStream {
    let rule = MatchRule::builder()
        .msg_type(MessageType::Signal)
        .interface("org.freedesktop.DBus.Properties")
        .unwrap()
        .member("PropertiesChanged")
        .unwrap()
        .path(PATH)
        .unwrap()
        .build();
    MessageStream::for_match_rule(rule, conn, Some(64))
        .await
        .unwrap()
}

/// The next `State` in a `PropertiesChanged`, or `None` after `within`.
pub async fn next_state(stream: &mut MessageStream, within: Duration) -> Option<String> {
    loop {
        let msg = tokio::time::timeout(within, stream.next())
            .await
            .ok()??
            .ok()?;
        let (iface, changed, _): (String, HashMap<String, OwnedValue>, Vec<String>) =
            msg.body().deserialize().ok()?;
        if iface != NAME {
            continue;
        }
        if let Some(Value::Str(s)) = changed.get("State").map(|v| &**v) {
            return Some(s.to_string());
        }
    }
}

/// Asks without a handle token and returns the generated token and the
/// request's last signal name.
pub async fn ask_without_token(loopd: &Loopd1Proxy<'_>, conn: &Connection) -> (String, String) {
    let mut all = subscribe_all(conn).await;
    let path = loopd
        .ask(
            "Hi!",
            options(&[
                ("loop", Value::from("none")),
                ("max_tokens", Value::from(8u32)),
            ]),
        )
        .await
        .unwrap();
    let prefix = request_path(conn, "");
    let token = path
        .as_str()
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{path} is not under {prefix}"))
        .to_string();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), all.next())
            .await
            .expect("signals in time")
            .unwrap()
            .unwrap();
        let header = msg.header();
        assert_eq!(header.path().unwrap().as_str(), path.as_str());
        let member = header.member().unwrap().to_string();
        if member == "Finished" || member == "Failed" {
            return (token, member);
        }
    }
}

/// Every request signal sent to this connection.
pub async fn subscribe_all(conn: &Connection) -> MessageStream {
    let rule = MatchRule::builder()
        .msg_type(MessageType::Signal)
        .interface(REQUEST)
        .unwrap()
        .build();
    MessageStream::for_match_rule(rule, conn, Some(256))
        .await
        .unwrap()
}

/// Starts a second `loopd serve` on the fixture's bus; returns what it wrote
/// to stderr once it says the name is taken (or exits, or a minute passes),
/// after killing it.
pub fn second_daemon_stderr(fixture: &Fixture) -> String {
    let dir = temp_dir("dbus-second");
    let mut second = Command::new(env!("CARGO_BIN_EXE_loopd"))
        .args(["serve", "--no-bus", "--model"])
        .arg(common::model_path(common::SMOLLM))
        .env("DBUS_SESSION_BUS_ADDRESS", &fixture.bus.address)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_RUNTIME_DIR", &dir)
        .env_remove("NOTIFY_SOCKET")
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(dir.join("stderr.log")).unwrap(),
        ))
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(dir.join("stderr.log")).unwrap_or_default();
        let exited = second.try_wait().unwrap().is_some();
        if exited || text.contains("already owned") || Instant::now() > until {
            let _ = second.kill();
            let _ = second.wait();
            return text;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

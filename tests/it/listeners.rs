//! Every network listener of `loopd serve` (HTTP, Wyoming, the hosted bus)
//! bounds what one client can hold: a connection beyond the cap is closed
//! at once, a client that starts a request and stalls is closed, and
//! Wyoming answers only loopback and the peers named in the config.

use crate::common::serve::{temp_dir, Serve};
use crate::common::text;
use crate::ovos::free_port;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

/// The cap on connections per listener (`frontends::guard::MAX_CONNECTIONS`).
const CAP: usize = 64;

/// Whether the server closes `stream` within `within` (EOF or a reset;
/// any bytes it sends first, such as an HTTP 408, are read and dropped).
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let until = Instant::now() + within;
    let mut buf = [0u8; 4096];
    while Instant::now() < until {
        stream
            .set_read_timeout(Some(Duration::from_millis(250)))
            .unwrap();
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

/// How many of `streams` the server has closed, waiting up to `within`
/// for the first.
fn count_closed(streams: &mut [TcpStream], within: Duration) -> usize {
    let until = Instant::now() + within;
    loop {
        let closed = streams.iter_mut().map(is_closed).filter(|&c| c).count();
        if closed > 0 || Instant::now() >= until {
            return closed;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether the server has closed `stream`, read without waiting.
fn is_closed(stream: &mut TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut buf = [0u8; 4096];
    let closed = loop {
        match stream.read(&mut buf) {
            Ok(0) => break true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break false,
            Err(_) => break true,
        }
    };
    stream.set_nonblocking(false).unwrap();
    closed
}

fn connect(port: u16) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port)).unwrap()
}

/// `GET /v1/models` on a fresh connection; the status line.
fn http_get(port: u16) -> String {
    let mut stream = connect(port);
    stream
        .write_all(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply.lines().next().unwrap_or_default().to_string()
}

/// `describe` on a fresh connection; the reply's header line.
fn wyoming_describe(port: u16) -> String {
    let mut stream = connect(port);
    stream.write_all(b"{\"type\":\"describe\"}\n").unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while let Ok(1) = stream.read(&mut byte) {
        if byte[0] == b'\n' {
            break;
        }
        line.push(byte[0]);
    }
    String::from_utf8_lossy(&line).into_owned()
}

#[test]
fn connections_beyond_the_cap_and_stalled_requests_are_closed() {
    loopd::models::resolve_speech(None).expect("Whisper is required: models/fetch whisper-tiny.en");
    let (http, wyoming, bus) = (free_port(), free_port(), free_port());
    let http_at = format!("127.0.0.1:{http}");
    let wyoming_at = format!("tcp://127.0.0.1:{wyoming}");
    let bus_at = format!("127.0.0.1:{bus}");
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--http",
            &http_at,
            "--wyoming",
            &wyoming_at,
            "--bus-listen",
            &bus_at,
        ],
        &[],
    );
    assert!(http_get(http).contains("200"), "{}", serve.stderr());

    // A request head begun and never finished.
    let stalled_at = Instant::now();
    let mut stalled_http = connect(http);
    stalled_http
        .write_all(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let mut stalled_wyoming = connect(wyoming);
    stalled_wyoming
        .write_all(b"{\"type\":\"describe\"")
        .unwrap();

    // One connection more than the cap. Which one is refused depends on
    // when the server lets go of the slot of a connection that just
    // closed (the first request's, on a busy machine), so the count is
    // checked, not that the last is the one refused.
    for (name, port, held_already) in [("http", http, 1), ("Wyoming", wyoming, 1), ("bus", bus, 0)]
    {
        let mut opened: Vec<TcpStream> = (held_already..=CAP).map(|_| connect(port)).collect();
        std::thread::sleep(Duration::from_millis(300));
        let closed = count_closed(&mut opened, Duration::from_secs(3));
        assert!(
            closed >= 1,
            "{name}: all {} connections were kept open, {held_already} held before them",
            opened.len()
        );
        drop(opened);
    }

    let within = Duration::from_secs(20);
    assert!(
        closed_within(&mut stalled_http, within),
        "http: a stalled request head was kept open"
    );
    assert!(
        closed_within(&mut stalled_wyoming, within),
        "Wyoming: a stalled event was kept open"
    );
    assert!(stalled_at.elapsed() < within);

    // Slots come back once their connections close.
    std::thread::sleep(Duration::from_millis(500));
    assert!(http_get(http).contains("200"), "{}", serve.stderr());
    let info = wyoming_describe(wyoming);
    assert!(info.contains("\"info\""), "{info}");
}

/// This machine's address on the interface its default route uses.
fn lan_address() -> IpAddr {
    let probe = UdpSocket::bind("0.0.0.0:0").unwrap();
    probe
        .connect("192.0.2.1:9")
        .expect("this test needs a network interface beyond loopback (a default route)");
    let ip = probe.local_addr().unwrap().ip();
    assert!(!ip.is_loopback(), "no address beyond loopback: {ip}");
    ip
}

#[test]
fn wyoming_beyond_loopback_answers_only_the_peers_it_names() {
    loopd::models::resolve_speech(None).expect("Whisper is required: models/fetch whisper-tiny.en");
    let dir = temp_dir("wyoming-allow");
    let port = free_port();
    let everywhere = format!("tcp://0.0.0.0:{port}");
    let config = dir.join("config.toml");

    std::fs::write(&config, "").unwrap();
    let config_arg = config.to_str().unwrap();
    let refused = crate::common::loopd(&[
        "serve",
        "--no-dbus",
        "--no-bus",
        "--config",
        config_arg,
        "--wyoming",
        &everywhere,
    ]);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("wyoming_allow"),
        "{}",
        text(&refused.stderr)
    );

    std::fs::write(&config, "[voice]\nwyoming_allow = [\"192.0.2.1\"]\n").unwrap();
    let serve = Serve::start(
        &[
            "--no-dbus",
            "--no-bus",
            "--config",
            config_arg,
            "--wyoming",
            &everywhere,
        ],
        &[],
    );
    let mut stranger = TcpStream::connect((lan_address(), port)).unwrap();
    let _ = stranger.write_all(b"{\"type\":\"describe\"}\n");
    let mut reply = Vec::new();
    stranger
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let _ = stranger.read_to_end(&mut reply);
    assert!(
        reply.is_empty(),
        "a peer not named was answered: {}",
        String::from_utf8_lossy(&reply)
    );
    assert!(
        serve.stderr().contains("not in [voice] wyoming_allow"),
        "{}",
        serve.stderr()
    );
    let info = wyoming_describe(port);
    assert!(info.contains("\"info\""), "loopback was refused: {info}");
}

//! Who may talk to a listener over HTTP or WebSocket: not a web page in the
//! user's browser. A page on another site may open a WebSocket or send a
//! request to a loopback port, and a site whose name it points at
//! 127.0.0.1 (DNS rebinding) passes as same-origin; both are told apart by
//! the headers a browser always sends. [`host_allowed`] takes only a Host
//! that names this machine as an address or as `localhost`, which a
//! rebinding page cannot send; [`origin_allowed`] takes a request with no
//! Origin (a program, not a browser) or one from a page served by the host
//! it talks to or by this machine.

use std::net::IpAddr;

/// Whether a request with this `Host` header may be served: none (an
/// HTTP/1.0 client), an IP address (`127.0.0.1:8181`, `[::1]:8181`,
/// `192.168.1.5:8181`), or `localhost` and names under `.localhost`, with
/// or without a port.
pub fn host_allowed(host: Option<&str>) -> bool {
    match host {
        None => true,
        Some(host) => hostname(host).is_some_and(names_this_machine),
    }
}

/// Whether a request with this `Origin` header may be served: none (not a
/// browser), or a page whose host is the request's own `host` (an address,
/// after [`host_allowed`]) or this machine (`http://localhost:3000`,
/// `http://127.0.0.1`). `null` (a sandboxed page, a file) is not.
pub fn origin_allowed(origin: Option<&str>, host: Option<&str>) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    let Some((_, rest)) = origin.trim().split_once("://") else {
        return false;
    };
    let Some(from) = hostname(rest) else {
        return false;
    };
    is_loopback(&from) || host.and_then(hostname).is_some_and(|host| host == from)
}

/// The host of `authority` (`host[:port]`, `[v6][:port]`), lower case.
fn hostname(authority: &str) -> Option<String> {
    let authority = authority.trim();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?.0,
        None => authority.split(':').next()?,
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// An IP address or a `localhost` name.
fn names_this_machine(host: String) -> bool {
    host.parse::<IpAddr>().is_ok() || is_localhost(&host)
}

/// A loopback address or a `localhost` name.
fn is_loopback(host: &str) -> bool {
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) || is_localhost(host)
}

fn is_localhost(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host == "localhost" || host.ends_with(".localhost")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_that_name_this_machine_pass_and_names_do_not() {
        for host in [
            "127.0.0.1:8181",
            "localhost:8181",
            "[::1]:8181",
            "192.168.1.5",
            "LOCALHOST",
            "app.localhost:3000",
        ] {
            assert!(host_allowed(Some(host)), "{host}");
        }
        assert!(host_allowed(None));
        for host in [
            "evil.example:8181",
            "evil.example",
            "localhost.evil.example",
            "",
            "[::1",
        ] {
            assert!(!host_allowed(Some(host)), "{host}");
        }
    }

    #[test]
    fn pages_from_elsewhere_are_refused() {
        let host = Some("127.0.0.1:8181");
        assert!(origin_allowed(None, host), "a program sends no Origin");
        assert!(origin_allowed(Some("http://127.0.0.1:8181"), host));
        assert!(origin_allowed(Some("http://localhost:3000"), host));
        assert!(origin_allowed(Some("http://[::1]:5000"), host));
        assert!(origin_allowed(
            Some("http://192.168.1.5:8181"),
            Some("192.168.1.5:8181")
        ));
        assert!(!origin_allowed(Some("http://evil.example"), host));
        assert!(!origin_allowed(Some("https://evil.example:8181"), host));
        assert!(!origin_allowed(Some("null"), host));
        assert!(!origin_allowed(
            Some("http://192.168.1.7"),
            Some("192.168.1.5:8181")
        ));
    }
}

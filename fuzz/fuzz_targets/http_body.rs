//! The chat-completions request body on any bytes: read as the HTTP
//! handler reads it, then checked as the daemon checks a request.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::daemon::DaemonSettings;
use loopd::frontends::http::read_chat_body;

fuzz_target!(|body: &[u8]| {
    if let Ok(ask) = read_chat_body(body) {
        let _ = DaemonSettings::default().check(&ask);
    }
});

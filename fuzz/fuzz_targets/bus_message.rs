//! The message-bus envelope and the requests read from it, on any frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::frontends::bus::message::BusMessage;

fuzz_target!(|frame: &str| {
    if let Ok(message) = BusMessage::parse(frame) {
        let again = BusMessage::parse(&message.to_json()).expect("a parsed message re-parses");
        assert_eq!(again.kind, message.kind);
        let _ = message.reply("loopd.error", serde_json::json!({}));
    }
});

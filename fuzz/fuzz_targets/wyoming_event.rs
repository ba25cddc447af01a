//! Wyoming's framing on any bytes: every event read is written back and
//! read again the same, and reading ends in an error or the end of input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::frontends::wyoming::event::{read_event, write_event};

fuzz_target!(|bytes: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut input = bytes;
        while let Ok(Some(event)) = read_event(&mut input).await {
            let mut written = Vec::new();
            write_event(&mut written, &event)
                .await
                .expect("writing to memory");
            let again = read_event(&mut written.as_slice())
                .await
                .expect("a written event reads back")
                .expect("one event");
            assert_eq!(again, event);
        }
    });
});

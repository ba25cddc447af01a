//! The GGUF reader, on any file: a clear error or a header, never a panic
//! or an allocation the file's size cannot justify.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::brain::gguf::GgufFile;
use std::io::Write;

fuzz_target!(|bytes: &[u8]| {
    let path = std::env::temp_dir().join(format!("loopd-fuzz-{}.gguf", std::process::id()));
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(bytes).unwrap();
    drop(file);
    if let Ok(gguf) = GgufFile::open(&path) {
        let _ = gguf.architecture();
        for key in gguf.keys() {
            let _ = gguf.string(key);
            let _ = gguf.strings(key);
            let _ = gguf.opt_u32s(key);
            let _ = gguf.opt_f32s(key);
        }
        let _ = loopd::brain::tokenizer::Tokenizer::from_gguf(&gguf);
    }
});

//! The tokenizer of the fast-test model on any text: encoding never fails
//! or panics, and decoding gives the text's bytes back, less the bytes the
//! vocabulary has no token for (SmolLM2 lacks some control bytes and some
//! bytes that never occur in UTF-8 it was trained on; llama.cpp drops them
//! too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::brain::gguf::GgufFile;
use loopd::brain::tokenizer::Tokenizer;
use std::sync::OnceLock;

/// The tokenizer, and which single bytes have a token of their own.
fn tokenizer() -> &'static (Tokenizer, [bool; 256]) {
    static TOKENIZER: OnceLock<(Tokenizer, [bool; 256])> = OnceLock::new();
    TOKENIZER.get_or_init(|| {
        let path = std::env::var("LOOPD_FUZZ_MODEL").expect(
            "set LOOPD_FUZZ_MODEL to a GGUF file (fuzz/run does: the smollm2-135m model)",
        );
        let gguf = GgufFile::open(path.as_ref()).expect("the model opens");
        let tokenizer = Tokenizer::from_gguf(&gguf).expect("the model has a tokenizer");
        let mut single = [false; 256];
        for id in 0..tokenizer.vocab_size() as u32 {
            if let [byte] = tokenizer.token_bytes(id) {
                single[*byte as usize] = true;
            }
        }
        (tokenizer, single)
    })
}

fuzz_target!(|text: &str| {
    let (tokenizer, single) = tokenizer();
    let ids = tokenizer.encode(text).expect("any text encodes");
    let decoded: Vec<u8> = ids
        .iter()
        .flat_map(|&id| tokenizer.token_bytes(id).iter().copied())
        .collect();
    let representable: Vec<u8> = text.bytes().filter(|&b| single[b as usize]).collect();
    assert_eq!(decoded, representable, "{ids:?}");
});

//! The tokenizer built from each reference GGUF gives llama.cpp's ids, keeps
//! special tokens whole, and decodes faithfully, also token by token.

use crate::common;
use crate::common::{golden_for, ids, model_path, QWEN, SMOLLM};
use loopd::brain::gguf::GgufFile;
use loopd::brain::tokenizer::{Tokenizer, Utf8Stream};

fn tokenizer(model: &str) -> Tokenizer {
    Tokenizer::from_gguf(&GgufFile::open(&model_path(model)).unwrap()).unwrap()
}

fn check_golden_ids(model: &str) {
    let t = tokenizer(model);
    let cases = golden_for("llamacpp.jsonl", model, Some("tokens"));
    assert!(cases.len() >= 10);
    for case in cases {
        let text = case["text"].as_str().unwrap();
        assert_eq!(
            t.encode(text).unwrap(),
            ids(&case["ids"]),
            "{model}: {text:?}"
        );
    }
}

#[test]
fn smollm2_ids_match_llama_cpp() {
    check_golden_ids(SMOLLM);
}

#[test]
fn qwen_ids_match_llama_cpp() {
    check_golden_ids(QWEN);
}

#[test]
fn round_trips_are_faithful_whole_and_streamed() {
    for model in [SMOLLM, QWEN] {
        let t = tokenizer(model);
        for case in golden_for("llamacpp.jsonl", model, Some("tokens")) {
            let text = case["text"].as_str().unwrap();
            let encoded = t.encode(text).unwrap();
            assert_eq!(
                t.decode(&encoded),
                text,
                "{model}: whole decode of {text:?}"
            );
            let mut stream = Utf8Stream::default();
            let mut streamed = String::new();
            for id in &encoded {
                let piece = stream.push(t.token_bytes(*id));
                assert!(
                    !piece.contains('\u{FFFD}'),
                    "{model}: replacement char in {text:?}"
                );
                streamed.push_str(&piece);
            }
            streamed.push_str(&stream.finish());
            assert_eq!(streamed, text, "{model}: streamed decode of {text:?}");
        }
    }
}

#[test]
fn special_tokens_are_single_and_survive_decoding() {
    for (model, specials) in [
        (SMOLLM, vec!["<|im_start|>", "<|im_end|>"]),
        (
            QWEN,
            vec![
                "<|im_start|>",
                "<|im_end|>",
                "<tool_call>",
                "</tool_call>",
                "<|endoftext|>",
            ],
        ),
    ] {
        let t = tokenizer(model);
        for special in specials {
            let encoded = t.encode(special).unwrap();
            assert_eq!(
                encoded.len(),
                1,
                "{model}: {special} split into {encoded:?}"
            );
            assert_eq!(t.decode(&encoded), special);
            let glued = format!("x{special}y");
            assert_eq!(t.decode(&t.encode(&glued).unwrap()), glued);
        }
        let im_end = t.token_id("<|im_end|>").unwrap();
        assert!(
            t.is_end_of_turn(im_end),
            "{model}: <|im_end|> must end the turn"
        );
    }
}

#[test]
fn split_multibyte_characters_wait_for_their_bytes() {
    let t = tokenizer(SMOLLM);
    let text = "🙂🚀 日本語";
    let encoded = t.encode(text).unwrap();
    assert!(
        encoded.len() > text.chars().count(),
        "emoji should span several byte tokens"
    );
    let mut stream = Utf8Stream::default();
    let mut pieces = Vec::new();
    for id in encoded {
        pieces.push(stream.push(t.token_bytes(id)));
    }
    assert!(
        pieces.iter().any(String::is_empty),
        "some tokens end mid-character"
    );
    assert_eq!(pieces.concat(), text);
}

#[test]
fn sentencepiece_kind_merges_by_score_and_falls_back_to_bytes() {
    use common::tiny::Tiny;
    let dir = common::TempDir::new("spm");
    let path = dir.join("gemma.gguf");
    Tiny::new("gemma3").write(&path);
    let t = Tokenizer::from_gguf(&GgufFile::open(&path).unwrap()).unwrap();
    let pieces = |text: &str| -> Vec<String> {
        t.encode(text)
            .unwrap()
            .into_iter()
            .map(|id| t.token_text(id))
            .collect()
    };
    // "▁the" outranks "▁t"+"he"; no space prefix is added (add_space_prefix = false).
    assert_eq!(pieces("the is"), ["t", "he", " is"]);
    assert_eq!(pieces(" the"), [" the"]);
    // Characters outside the vocabulary become their UTF-8 bytes.
    let ids = t.encode("é").unwrap();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert_eq!(t.decode(&ids), "é");
    assert_eq!(t.encode("<start_of_turn>").unwrap().len(), 1);
    assert!(t.is_end_of_turn(t.token_id("<end_of_turn>").unwrap()));
}

/// SmolLM2's vocabulary has no token for six ASCII control bytes; like
/// llama.cpp and Hugging Face tokenizers, encoding drops them, and every
/// other character round-trips (found by the `tokenizer` fuzz target).
#[test]
fn bytes_missing_from_the_vocabulary_are_dropped_like_llama_cpp() {
    for (model, missing) in [(SMOLLM, vec![4, 6, 19, 20, 22, 29]), (QWEN, vec![])] {
        let t = tokenizer(model);
        let dropped: Vec<u32> = (0u32..128)
            .filter(|&b| {
                let text = char::from_u32(b).unwrap().to_string();
                t.encode(&text).unwrap().is_empty()
            })
            .collect();
        assert_eq!(dropped, missing, "{model}");
        let ids = t.encode("a\u{14}b").unwrap();
        let bytes: Vec<u8> = ids
            .iter()
            .flat_map(|&id| t.token_bytes(id).to_vec())
            .collect();
        let expected = if missing.is_empty() { "a\u{14}b" } else { "ab" };
        assert_eq!(String::from_utf8(bytes).unwrap(), expected, "{model}");
    }
}

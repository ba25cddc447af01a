//! Each reference model's own chat template renders exactly what Hugging
//! Face transformers renders for the same conversation.

use crate::common::{golden, model_path, QWEN, SMOLLM};
use loopd::brain::gguf::GgufFile;
use loopd::brain::template::ChatTemplate;
use loopd::brain::Message;

fn template(model: &str) -> ChatTemplate {
    let gguf = GgufFile::open(&model_path(model)).unwrap();
    let source = gguf
        .opt_string("tokenizer.chat_template")
        .expect("the reference models carry a template");
    ChatTemplate::new(Some(&source), "", "").unwrap()
}

#[test]
fn renders_match_transformers() {
    let cases = golden("templates.jsonl");
    assert_eq!(cases.len(), 10);
    for model in [SMOLLM, QWEN] {
        let t = template(model);
        for case in cases.iter().filter(|c| c["model"] == model) {
            let messages: Vec<Message> = serde_json::from_value(case["messages"].clone()).unwrap();
            let tools: Vec<serde_json::Value> =
                case["tools"].as_array().cloned().unwrap_or_default();
            let text = t.render(&messages, &tools, true).unwrap();
            assert_eq!(
                text,
                case["text"].as_str().unwrap(),
                "{model}: case {}",
                case["case"]
            );
        }
    }
}

#[test]
fn tool_support_is_detected() {
    assert!(template(QWEN).supports_tools());
    assert!(!template(SMOLLM).supports_tools());
}

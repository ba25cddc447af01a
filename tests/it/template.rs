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

/// Templates run on fuel: the reference models' own render a 400-message
/// conversation with tools within a tenth of it, and a template that loops
/// for ever (a GGUF file is untrusted input) gets an error, not a core.
#[test]
fn templates_run_on_fuel_enough_for_long_conversations() {
    use loopd::brain::template::TEMPLATE_FUEL;
    let tools: Vec<serde_json::Value> = (0..20)
        .map(|i| {
            serde_json::json!({"type": "function", "function": {
                "name": format!("tool_{i}"),
                "description": "Does one thing.",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
            }})
        })
        .collect();
    let messages: Vec<Message> = (0..400)
        .map(|i| match i % 2 {
            0 => Message::user(format!("Question number {i}?")),
            _ => Message::assistant(format!("Answer number {i}.")),
        })
        .collect();
    for model in [SMOLLM, QWEN] {
        let gguf = GgufFile::open(&model_path(model)).unwrap();
        let source = gguf.opt_string("tokenizer.chat_template").unwrap();
        let tenth = ChatTemplate::with_fuel(Some(&source), "", "", TEMPLATE_FUEL / 10).unwrap();
        let text = tenth.render(&messages, &tools, true).unwrap();
        assert!(text.contains("Answer number 399."), "{model}");
    }
    let endless =
        "{% for i in range(100000) %}{% for j in range(100000) %}{{ j }}{% endfor %}{% endfor %}";
    let t = ChatTemplate::new(Some(endless), "", "").unwrap();
    let started = std::time::Instant::now();
    let error = t.render(&messages, &[], true).unwrap_err().to_string();
    assert!(error.contains("fuel"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

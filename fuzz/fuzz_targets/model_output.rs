//! Every parser of model output, on any text: none may panic, and what
//! they return must be consistent with the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopd::engine::parse::{self, Router};
use loopd::engine::Route;
use loopd::engine::protocol::react::react_step;
use loopd::engine::protocol::verdict::verdict;
use serde_json::json;

fuzz_target!(|text: &str| {
    let _ = react_step(text);
    let _ = verdict(text);
    let _ = parse::after_marker(text, &["final answer:", "answer:"]);
    let _ = parse::field(text, "action");
    if let Some(json) = parse::balanced_json(text) {
        assert!(text.contains(json));
    }
    let _ = parse::json_object(text);
    let _ = parse::numbered_list(text);
    let _ = parse::first_number(text);
    let _ = parse::has_word(text, "yes");
    let _ = parse::json_or_line(text);
    let schema = json!({"type": "object", "properties": {"expression": {"type": "string"}},
                        "required": ["expression"]});
    let _ = parse::tool_arguments(text, &schema);
    let _ = parse::tool_calls(text);
    for route in [
        Route::Thought,
        Route::Answer,
        Route::AnswerAfter(&["final_answer:"]),
        Route::AnswerUnlessStarts(&["<tool_call>"]),
    ] {
        let mut router = Router::new(route);
        let mut start = 0;
        for (i, (end, _)) in text.char_indices().enumerate() {
            if i % 3 == 2 {
                let _ = router.push(&text[start..end]);
                start = end;
            }
        }
        let _ = router.push(&text[start..]);
        let _ = router.finish();
    }
});

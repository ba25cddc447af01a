//! Generation on the real reference models: greedy answers, llama.cpp's
//! greedy continuations, streaming, stop strings, limits, cancellation and
//! KV-cache prefix reuse.

use crate::common::{golden_path, model_path, QWEN, SMOLLM};
use loopd::brain::{
    Brain, BrainError, ChatRequest, Completion, EndReason, GenerateOptions, Generation,
    GenerationEvent, LocalBrain, LocalBrainConfig, Message,
};
use std::sync::OnceLock;
use tokio_util::sync::CancellationToken;

fn brain(model: &'static str) -> &'static LocalBrain {
    static SMOL: OnceLock<LocalBrain> = OnceLock::new();
    static QW: OnceLock<LocalBrain> = OnceLock::new();
    let cell = if model == SMOLLM { &SMOL } else { &QW };
    cell.get_or_init(|| LocalBrain::load(LocalBrainConfig::new(model_path(model))).unwrap())
}

fn ask(question: &str, options: GenerateOptions) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::user(question)],
        tools: Vec::new(),
        options,
        assistant_prefix: String::new(),
        session: None,
        grammar: None,
        from_knowledge: false,
    }
}

/// Reads a generation to its end: the pieces and the completion.
fn drain(mut generation: Generation) -> (Vec<String>, Completion) {
    let mut pieces = Vec::new();
    while let Some(event) = generation.blocking_next() {
        match event {
            GenerationEvent::Piece(p) => pieces.push(p.text),
            GenerationEvent::Finished(done) => return (pieces, done),
            GenerationEvent::Failed(e) => panic!("generation failed: {e}"),
        }
    }
    panic!("the generation ended without a Finished event");
}

fn greedy(max_tokens: usize) -> GenerateOptions {
    GenerateOptions {
        max_tokens,
        ..Default::default()
    }
}

#[test]
fn both_models_name_paris() {
    for model in [SMOLLM, QWEN] {
        let (_, done) = drain(brain(model).generate(
            ask("Name the capital city of France.", greedy(32)),
            CancellationToken::new(),
        ));
        assert!(done.text.contains("Paris"), "{model}: {:?}", done.text);
        assert_eq!(done.end, EndReason::EndOfTurn, "{model}");
    }
}

/// Feeds llama.cpp's greedy continuation token by token (teacher forcing) and
/// checks that at every step our top token is llama.cpp's, or that the two
/// are a near-tie (golden/README.md), and that nine steps in ten agree.
#[test]
fn greedy_continuations_match_llama_cpp() {
    use candle_core::Device;
    use loopd::brain::gguf::GgufFile;
    use loopd::brain::model::Model;
    use loopd::brain::tokenizer::Tokenizer;
    use loopd::cli::bench::golden;
    for model in [SMOLLM, QWEN] {
        let mut gguf = GgufFile::open(&model_path(model)).unwrap();
        let tokenizer = Tokenizer::from_gguf(&gguf).unwrap();
        let net = Model::load(&mut gguf, &Device::Cpu, 4096).unwrap();
        let cases = golden::cases(&golden_path("llamacpp.jsonl"), model).unwrap();
        let agreement = golden::agreement(&net, &tokenizer, &cases).unwrap();
        assert!(agreement.holds(), "{model}: {agreement:?}");
        assert_eq!(agreement.cases, cases.len());
    }
}

/// Where the file holds a coarser copy of the output matrix (both Qwen2.5
/// models), greedy decoding reads it first and the output matrix only for
/// the tokens that could be the largest: its tokens are those of the whole
/// output matrix, step by step and for each row of a drafted pass.
#[test]
fn the_coarse_head_picks_what_the_whole_output_matrix_picks() {
    use candle_core::Device;
    use loopd::brain::gguf::GgufFile;
    use loopd::brain::model::Model;
    use loopd::brain::sampler::argmax;
    use loopd::brain::tokenizer::Tokenizer;
    for model in [QWEN, "qwen2.5-coder-1.5b"] {
        let mut gguf = GgufFile::open(&model_path(model)).unwrap();
        let tokenizer = Tokenizer::from_gguf(&gguf).unwrap();
        let mut net = Model::load(&mut gguf, &Device::Cpu, 4096).unwrap();
        assert!(net.has_coarse_head(), "{model} has no coarse head");
        net.use_coarse_head(true);
        let (mut steps, mut sure) = (0, 0);
        for text in [
            "The capital of France is",
            "def fibonacci(n):\n    ",
            "Thought: I need the time in Tokyo.\nAction:",
        ] {
            let prompt = tokenizer.encode(text).unwrap();
            let (mut whole, mut coarse) = (net.new_cache(), net.new_cache());
            let exact = |logits: candle_core::Tensor| argmax(&logits.to_vec1::<f32>().unwrap());
            let mut want = exact(net.forward(&prompt, &mut whole).unwrap());
            let mut logits = net
                .forward_logits(&prompt, &mut coarse, 1)
                .unwrap()
                .remove(0);
            for step in 0..24 {
                sure += usize::from(logits.is_sure(argmax(logits.values())));
                let got = net.greedy(logits).unwrap();
                assert_eq!(got, want, "{model}, {text:?}, step {step}");
                steps += 1;
                want = exact(net.forward(&[want], &mut whole).unwrap());
                logits = net
                    .forward_logits(&[got], &mut coarse, 1)
                    .unwrap()
                    .remove(0);
            }
            let fed = [want, 13, 220, 279];
            let rows = net.forward_rows(&fed, &mut whole, fed.len()).unwrap();
            let checked = net.forward_logits(&fed, &mut coarse, fed.len()).unwrap();
            for (i, logits) in checked.into_iter().enumerate() {
                let want = exact(rows.get(i).unwrap());
                assert_eq!(
                    net.greedy(logits).unwrap(),
                    want,
                    "{model}, {text:?}, row {i}"
                );
            }
        }
        assert!(
            sure * 2 > steps,
            "{model}: the coarse pass settled {sure} of {steps} steps"
        );
    }
}

/// Speculative decoding (prompt-lookup drafts checked in one pass) keeps
/// drafts on text that copies its prompt, and on the CPU gives exactly the
/// plain greedy text, whether what is drafted is learned from the passes'
/// timings or every proposal is drafted in full (a fixed cost of 0, so
/// that the drafts follow only the text and this test not the machine's
/// load).
#[test]
fn speculative_decoding_gives_the_plain_greedy_text() {
    for model in [SMOLLM, QWEN] {
        let local = LocalBrain::load(LocalBrainConfig {
            speculate: Some(true),
            prefix_cache: false,
            ..LocalBrainConfig::new(model_path(model))
        })
        .unwrap();
        let questions = [
            "Copy this sentence twice: the kitchen light is on and the hall light is off.",
            "Repeat this text exactly: Turn off the kitchen light at ten, set the hall thermostat to nineteen degrees, lock the front door, and remind me to water the plants on Sunday morning before breakfast.",
            "List the numbers from 1 to 20, separated by commas.",
            "What is the capital of France? Answer in one sentence.",
        ];
        for draft_cost in [Some(0.0), None] {
            local.set_draft_cost(draft_cost);
            let (mut taken, mut drafts) = (0, Vec::new());
            for question in questions {
                let mut runs = Vec::new();
                for speculate in [true, false] {
                    local.set_speculate(Some(speculate));
                    let (_, done) =
                        drain(local.generate(ask(question, greedy(64)), CancellationToken::new()));
                    runs.push(done);
                }
                assert_eq!(
                    runs[0].text, runs[1].text,
                    "{model}, {draft_cost:?}: {question}"
                );
                assert_eq!(
                    runs[0].end, runs[1].end,
                    "{model}, {draft_cost:?}: {question}"
                );
                assert_eq!(runs[1].usage.draft_tokens, 0, "plain decoding drafted");
                taken += runs[0].usage.draft_tokens_taken;
                drafts.push((runs[0].usage.draft_tokens, runs[0].usage.draft_tokens_taken));
            }
            if draft_cost.is_some() {
                assert!(
                    taken >= 10,
                    "{model}: only {taken} drafted tokens kept (drafted, kept per question: {drafts:?})"
                );
            }
        }
    }
}

#[test]
fn streaming_yields_many_pieces_that_add_up() {
    let (pieces, done) = drain(brain(SMOLLM).generate(
        ask("Write three sentences about the sea.", greedy(60)),
        CancellationToken::new(),
    ));
    let non_empty = pieces.iter().filter(|p| !p.is_empty()).count();
    assert!(non_empty >= 10, "only {non_empty} pieces: {pieces:?}");
    assert_eq!(pieces.concat(), done.text);
    assert!(done.usage.completion_tokens >= non_empty);
    assert!(done.usage.time_to_first_token > std::time::Duration::ZERO);
}

#[test]
fn max_tokens_and_stop_strings_end_generation() {
    let (_, done) = drain(brain(SMOLLM).generate(
        ask("Write a long story about a dragon.", greedy(5)),
        CancellationToken::new(),
    ));
    assert_eq!(done.end, EndReason::MaxTokens);
    assert_eq!(done.usage.completion_tokens, 5);

    let options = GenerateOptions {
        stop: vec!["Paris".into()],
        ..greedy(32)
    };
    let (pieces, done) = drain(brain(SMOLLM).generate(
        ask("Name the capital city of France.", options),
        CancellationToken::new(),
    ));
    assert_eq!(done.end, EndReason::Stop("Paris".into()));
    assert!(!done.text.contains("Paris"), "{:?}", done.text);
    assert!(done.text.contains("France is"), "{:?}", done.text);
    assert_eq!(pieces.concat(), done.text);
}

#[test]
fn cancellation_stops_between_tokens() {
    let cancel = CancellationToken::new();
    let mut generation = brain(SMOLLM).generate(
        ask(
            "Write a very long story about a dragon and a knight.",
            greedy(400),
        ),
        cancel.clone(),
    );
    let mut seen = 0;
    let mut cancelled = None;
    let done = loop {
        match generation.blocking_next().expect("an event") {
            GenerationEvent::Piece(_) => {
                seen += 1;
                if seen == 3 {
                    cancel.cancel();
                    cancelled = Some(std::time::Instant::now());
                }
            }
            GenerationEvent::Finished(done) => break done,
            GenerationEvent::Failed(e) => panic!("{e}"),
        }
    };
    eprintln!(
        "cancel (brain): {} token(s) generated after cancel(), finished {:.1} ms later",
        done.usage.completion_tokens.saturating_sub(3),
        cancelled.unwrap().elapsed().as_secs_f64() * 1000.0
    );
    assert_eq!(done.end, EndReason::Cancelled);
    // The worker may run a few tokens ahead of this thread before it sees
    // the cancellation; it must stop long before the 400-token limit.
    assert!(done.usage.completion_tokens < 50, "{:?}", done.usage);
}

#[test]
fn reused_prefix_gives_identical_greedy_output() {
    let brain = brain(QWEN);
    let question = "List three colours of the rainbow.";
    let run = || drain(brain.generate(ask(question, greedy(24)), CancellationToken::new())).1;
    let first = run();
    let second = run();
    assert_eq!(first.text, second.text);
    assert_eq!(second.usage.prefill_tokens, 1, "{:?}", second.usage);

    let follow_up = ChatRequest {
        messages: vec![
            Message::user(question),
            Message::assistant(first.text.clone()),
            Message::user("And one more?"),
        ],
        tools: Vec::new(),
        options: greedy(16),
        assistant_prefix: String::new(),
        session: None,
        grammar: None,
        from_knowledge: false,
    };
    let (_, warm) = drain(brain.generate(follow_up.clone(), CancellationToken::new()));
    assert!(
        warm.usage.prefill_tokens < warm.usage.prompt_tokens / 2,
        "{:?}",
        warm.usage
    );
    // The same follow-up computed from an empty cache gives the same text.
    let (_, _) = drain(brain.generate(
        ask("Unrelated question to evict the cache?", greedy(4)),
        CancellationToken::new(),
    ));
    let (_, cold) = drain(brain.generate(follow_up, CancellationToken::new()));
    assert_eq!(warm.text, cold.text);
}

/// A grammar holds the reply to its language, and the end-of-turn token
/// ends it as soon as the grammar is complete.
#[test]
fn a_grammar_constrains_the_reply_and_lets_it_end() {
    let brain = brain(SMOLLM);
    let mut request = ask("Is the sky green? Answer in one word.", greedy(32));
    request.grammar = Some(loopd::brain::Grammar::lark(
        r#"start: ("Yes" | "No") "." REST
REST: /[a-z ]{0,20}/"#,
    ));
    let (pieces, done) = drain(brain.generate(request, CancellationToken::new()));
    assert!(
        done.text.starts_with("Yes.") || done.text.starts_with("No."),
        "{done:?}"
    );
    assert!(done.text.len() <= 24, "{done:?}");
    assert_eq!(pieces.concat(), done.text);
    assert!(
        matches!(done.end, EndReason::EndOfTurn),
        "the grammar let the reply end: {done:?}"
    );

    let mut bad = ask("hi", greedy(4));
    bad.grammar = Some(loopd::brain::Grammar::lark("start: undefined_rule"));
    let failed = brain
        .generate(bad, CancellationToken::new())
        .blocking_next();
    assert!(
        matches!(
            failed,
            Some(GenerationEvent::Failed(BrainError::Grammar(_)))
        ),
        "{failed:?}"
    );
}

/// A conversation ten times longer than the context window is fitted into
/// it (the system prompt and the newest turn kept, the oldest turns
/// dropped), and so is one message that alone is ten times too long: the
/// model answers instead of failing.
#[test]
fn a_conversation_ten_times_the_window_is_fitted_not_refused() {
    const WINDOW: usize = 1024;
    let brain = LocalBrain::load(LocalBrainConfig {
        max_context: WINDOW,
        ..LocalBrainConfig::new(model_path(SMOLLM))
    })
    .unwrap();
    let filler = "The weather report: clouds in the morning, sun in the afternoon, \
                  a light wind from the west and no rain expected until the weekend. ";
    let mut messages = vec![Message::system("You are a helpful assistant.")];
    for turn in 0..80 {
        messages.push(Message::user(format!("Turn {turn}. {}", filler.repeat(3))));
        messages.push(Message::assistant(filler.repeat(2)));
    }
    messages.push(Message::user(
        "My name is Ada. What is my name? Answer in one short sentence.",
    ));
    let long_tool_output = vec![
        Message::system("You are a helpful assistant."),
        Message::user(format!(
            "Here is a log: {} What is my name? My name is Ada.",
            filler.repeat(320)
        )),
    ];
    for messages in [messages, long_tool_output] {
        let whole: usize = messages.iter().map(|m| m.content.len()).sum();
        assert!(
            whole / 4 > 10 * WINDOW,
            "{whole} characters is not 10× the window"
        );
        let request = ChatRequest {
            messages,
            ..ask("", greedy(32))
        };
        let (_, done) = drain(brain.generate(request, CancellationToken::new()));
        eprintln!("fitted: {:?} → {:?}", done.usage.prompt_tokens, done.text);
        assert!(done.usage.prompt_tokens <= WINDOW - 32, "{:?}", done.usage);
        assert!(done.text.contains("Ada"), "{:?}", done.text);
    }
}

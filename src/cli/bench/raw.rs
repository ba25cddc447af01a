//! `loopd bench --raw`: the bare model's prefill and decode speed, and
//! decode as a share of what this machine's memory bandwidth allows.

use super::{golden, BenchArgs};
use crate::brain::device;
use crate::brain::gguf::GgufFile;
use crate::brain::model::Model;
use crate::brain::tokenizer::Tokenizer;
use serde_json::json;
use std::time::Instant;

/// Run lengths whose one-pass check is timed against one decoded token:
/// what speculative decoding pays to check a draft.
const CHECK_ROWS: [usize; 3] = [2, 4, 8];

/// Runs `loopd bench --raw`.
pub fn run(args: &BenchArgs) -> Result<(), String> {
    if args.prompt_tokens == 0 || args.gen_tokens == 0 || args.repeat == 0 {
        return Err("--prompt-tokens, --gen-tokens and --repeat must be at least 1".into());
    }
    let path = crate::models::resolve(args.model.as_deref()).map_err(|e| e.to_string())?;
    let device = device::open(args.device).map_err(|e| e.to_string())?;
    let context = args.prompt_tokens + args.gen_tokens + 1 + CHECK_ROWS[CHECK_ROWS.len() - 1];
    let mut gguf = GgufFile::open(&path).map_err(|e| e.to_string())?;
    let model = Model::load(&mut gguf, &device, context).map_err(|e| e.to_string())?;
    let golden = match &args.golden {
        Some(file) => {
            let tokenizer = Tokenizer::from_gguf(&gguf).map_err(|e| e.to_string())?;
            let cases = golden::cases(file, &manifest_name(&path)?)?;
            Some(golden::agreement(&model, &tokenizer, &cases)?)
        }
        None => None,
    };
    drop(gguf);
    crate::memory::release_kept();
    if model.max_positions() < context {
        return Err(format!(
            "the model's context ({}) is shorter than {context} tokens",
            model.max_positions()
        ));
    }
    let load_peak = super::runner::peak_rss().unwrap_or(0);
    super::runner::reset_peak_rss();
    let vocab = model.vocab_size() as u32;
    // Ordinary token ids from the low (frequent) end of the vocabulary.
    let prompt: Vec<u32> = (0..args.prompt_tokens as u32)
        .map(|i| 200 + (i * 7919) % (vocab.min(20_000) - 200))
        .collect();
    let err = |e: candle_core::Error| e.to_string();

    let (mut best_prefill, mut best_decode) = (0f64, 0f64);
    let mut best_check = [f64::INFINITY; CHECK_ROWS.len() + 1];
    let mut prefill_peak = 0;
    for _ in 0..args.repeat {
        let mut cache = model.new_cache();
        let started = Instant::now();
        let logits = model
            .prefill_logits(&prompt, &mut cache, || true)
            .map_err(err)?
            .ok_or("the prompt gave no logits")?;
        let mut next = model.greedy(logits).map_err(err)?;
        let prefill = args.prompt_tokens as f64 / started.elapsed().as_secs_f64();
        prefill_peak = prefill_peak.max(super::runner::peak_rss().unwrap_or(0));
        let started = Instant::now();
        for _ in 0..args.gen_tokens {
            let mut logits = model.forward_logits(&[next], &mut cache, 1).map_err(err)?;
            next = model.greedy(logits.remove(0)).map_err(err)?;
        }
        let decode = args.gen_tokens as f64 / started.elapsed().as_secs_f64();
        for (best, rows) in best_check.iter_mut().zip([1].into_iter().chain(CHECK_ROWS)) {
            let depth = cache.len();
            let started = Instant::now();
            model
                .forward_logits(&vec![next; rows], &mut cache, rows)
                .map_err(err)?;
            *best = best.min(started.elapsed().as_secs_f64());
            cache.truncate(depth);
        }
        best_prefill = best_prefill.max(prefill);
        best_decode = best_decode.max(decode);
    }
    let peak = super::runner::peak_rss().unwrap_or(0);
    let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let read = read_bandwidth(device::threads());
    let bound = read / file_bytes.max(1) as f64;
    let check_cost: Vec<f64> = best_check[1..]
        .iter()
        .map(|t| (t / best_check[0] * 100.0).round() / 100.0)
        .collect();
    let report = json!({
        "model": path.file_name().map(|n| n.to_string_lossy().into_owned()),
        "device": device::name(&device),
        "threads": device::threads(),
        "prompt_tokens": args.prompt_tokens,
        "gen_tokens": args.gen_tokens,
        "prefill_tok_s": (best_prefill * 10.0).round() / 10.0,
        "decode_tok_s": (best_decode * 10.0).round() / 10.0,
        "file_mib": file_bytes >> 20,
        "load_peak_rss_mib": load_peak >> 20,
        "prefill_peak_rss_mib": prefill_peak >> 20,
        "peak_rss_mib": peak >> 20,
        "peak_rss_kib": peak >> 10,
        "read_gb_s": (read / 1e8).round() / 10.0,
        "decode_of_bandwidth": (best_decode / bound * 100.0).round() / 100.0,
        "coarse_head": model.coarse_head_on(),
        "check_rows": CHECK_ROWS,
        "check_cost": check_cost,
        "golden": golden,
    });
    match args.json.as_deref() {
        Some("-") => println!("{report}"),
        Some(file) => std::fs::write(file, format!("{report}\n"))
            .map_err(|e| format!("cannot write {file}: {e}"))?,
        None => println!(
            "{}: prefill {:.1} tok/s ({} tokens), decode {:.1} tok/s ({} tokens), {} threads on {}; \
             memory reads {:.1} GB/s, so the file's bytes allow {:.1} tok/s: decode is {:.0}% of that; \
             peak RSS {} MiB for a {} MiB file; one pass over {:?} drafted tokens costs {:?} times one token",
            report["model"].as_str().unwrap_or_default(),
            best_prefill,
            args.prompt_tokens,
            best_decode,
            args.gen_tokens,
            device::threads(),
            device::name(&device),
            read / 1e9,
            bound,
            best_decode / bound * 100.0,
            peak >> 20,
            file_bytes >> 20,
            CHECK_ROWS,
            check_cost,
        ),
    }
    match golden {
        Some(g) if !g.holds() => Err(format!(
            "golden: {} of {} steps agree with llama.cpp; beyond a near-tie at {:?} (worst gap {:.3})",
            g.exact, g.steps, g.beyond_tie, g.worst_gap
        )),
        Some(g) => {
            eprintln!(
                "golden: {} of {} steps over {} continuations agree with llama.cpp exactly, the rest are near-ties (widest gap {:.3})",
                g.exact, g.steps, g.cases, g.worst_gap
            );
            Ok(())
        }
        None => Ok(()),
    }
}

/// The manifest's name for a model file, which names its golden cases.
fn manifest_name(path: &std::path::Path) -> Result<String, String> {
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
    crate::models::Manifest::builtin()
        .models
        .into_iter()
        .find(|m| Some(&m.file) == file.as_ref())
        .map(|m| m.name)
        .ok_or_else(|| {
            format!(
                "{} is not a model the manifest knows; golden cases are kept by name",
                path.display()
            )
        })
}

/// Bytes per second `threads` threads read from memory: the best of five
/// passes summing a buffer far larger than any cache.
fn read_bandwidth(threads: usize) -> f64 {
    const WORDS: usize = 64 << 20;
    let buffer: Vec<u64> = (0..WORDS as u64).collect();
    let chunk = WORDS.div_ceil(threads.max(1));
    let mut best = 0f64;
    for _ in 0..5 {
        let started = Instant::now();
        let sum: u64 = std::thread::scope(|scope| {
            let parts: Vec<_> = buffer
                .chunks(chunk)
                .map(|part| scope.spawn(move || part.iter().fold(0u64, |a, &w| a.wrapping_add(w))))
                .collect();
            parts
                .into_iter()
                .map(|p| p.join().unwrap_or(0))
                .fold(0, u64::wrapping_add)
        });
        std::hint::black_box(sum);
        best = best.max((WORDS * 8) as f64 / started.elapsed().as_secs_f64());
    }
    best
}

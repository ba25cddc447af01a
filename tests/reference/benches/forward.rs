//! loopd's transformer side by side with candle-transformers' bundled
//! quantized models on the same GGUF file: prefill and decode speed,
//! alternating runs so machine noise hits both alike.
//!
//! `cargo bench -p loopd-reference --bench forward [-- MODEL…]` (default:
//! both reference models).

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use loopd::brain::gguf::GgufFile;
use loopd::brain::model::Model;
use loopd::brain::sampler::argmax;
use loopd_reference::model_path;
use std::time::Instant;

const PROMPT: usize = 128;
const DECODE: usize = 32;
const ROUNDS: usize = 3;

/// Tokens per second for prefill and decode.
#[derive(Default, Clone, Copy)]
struct Speed {
    prefill: f64,
    decode: f64,
}

impl Speed {
    fn best(self, other: Speed) -> Speed {
        Speed {
            prefill: self.prefill.max(other.prefill),
            decode: self.decode.max(other.decode),
        }
    }
}

fn prompt(vocab: u32) -> Vec<u32> {
    (0..PROMPT as u32)
        .map(|i| 200 + (i * 7919) % (vocab.min(20_000) - 200))
        .collect()
}

/// Times a model given as "forward these tokens at this position".
fn measure(mut forward: impl FnMut(&[u32], usize) -> Vec<f32>, prompt: &[u32]) -> Speed {
    let started = Instant::now();
    let mut next = argmax(&forward(prompt, 0));
    let prefill = prompt.len() as f64 / started.elapsed().as_secs_f64();
    let started = Instant::now();
    for i in 0..DECODE {
        next = argmax(&forward(&[next], prompt.len() + i));
    }
    Speed {
        prefill,
        decode: DECODE as f64 / started.elapsed().as_secs_f64(),
    }
}

/// candle-transformers' forward pass: tokens at a position to logits.
type Reference = Box<dyn FnMut(&Tensor, usize) -> Tensor>;

fn bench(name: &str) {
    let path = model_path(name);
    let ours = Model::load(&mut GgufFile::open(&path).unwrap(), &Device::Cpu, 4096).unwrap();
    let tokens = prompt(ours.vocab_size() as u32);

    let mut file = std::fs::File::open(&path).unwrap();
    let content = gguf_file::Content::read(&mut file).unwrap();
    let arch = content.metadata["general.architecture"]
        .to_string()
        .unwrap()
        .clone();
    let mut theirs: Reference = match arch.as_str() {
        "llama" => {
            let mut m = candle_transformers::models::quantized_llama::ModelWeights::from_gguf(
                content,
                &mut file,
                &Device::Cpu,
            )
            .unwrap();
            Box::new(move |x, pos| m.forward(x, pos).unwrap())
        }
        "qwen2" => {
            let mut m = candle_transformers::models::quantized_qwen2::ModelWeights::from_gguf(
                content,
                &mut file,
                &Device::Cpu,
            )
            .unwrap();
            Box::new(move |x, pos| m.forward(x, pos).unwrap())
        }
        other => panic!("no candle-transformers reference for {other}"),
    };

    let (mut best_ours, mut best_theirs) = (Speed::default(), Speed::default());
    for _ in 0..ROUNDS {
        let mut cache = ours.new_cache();
        let s = measure(
            |t, _| ours.forward(t, &mut cache).unwrap().to_vec1().unwrap(),
            &tokens,
        );
        best_ours = best_ours.best(s);
        let s = measure(
            |t, pos| {
                let x = Tensor::new(t, &Device::Cpu).unwrap().unsqueeze(0).unwrap();
                theirs(&x, pos).flatten_all().unwrap().to_vec1().unwrap()
            },
            &tokens,
        );
        best_theirs = best_theirs.best(s);
    }
    println!(
        "{name:<20} prefill {PROMPT} tok: loopd {:6.1} tok/s, candle-transformers {:6.1} tok/s ({:.2}x)",
        best_ours.prefill,
        best_theirs.prefill,
        best_ours.prefill / best_theirs.prefill
    );
    println!(
        "{name:<20} decode  {DECODE} tok:  loopd {:6.1} tok/s, candle-transformers {:6.1} tok/s ({:.2}x)",
        best_ours.decode,
        best_theirs.decode,
        best_ours.decode / best_theirs.decode
    );
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let models = if args.is_empty() {
        vec![
            loopd_reference::SMOLLM.to_string(),
            loopd_reference::QWEN.to_string(),
        ]
    } else {
        args
    };
    println!("threads: {}", candle_core::utils::get_num_threads());
    for model in models {
        bench(&model);
    }
}

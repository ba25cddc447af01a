//! `loopd models`: the manifest, what a GGUF file holds, and hub downloads.

use crate::brain::gguf::{describe, GgufFile};
use crate::brain::model::HyperParams;
use crate::brain::tokenizer::Tokenizer;
use crate::models::{self, Manifest};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Arguments of `loopd models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// What to do with models.
    #[command(subcommand)]
    pub command: ModelsCommand,
}

/// `loopd models` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Known models and whether they are downloaded.
    List,
    /// What a GGUF file holds: architecture, sizes, tokenizer, template, metadata.
    Info {
        /// A known model name or a GGUF path (default: the default model).
        model: Option<String>,
    },
    /// Download a GGUF file from the Hugging Face hub (needs network access).
    Pull {
        /// Repository, e.g. `Qwen/Qwen2.5-0.5B-Instruct-GGUF`.
        repo: String,
        /// File in the repository.
        file: String,
    },
}

/// Runs `loopd models`.
pub fn run(args: ModelsArgs) -> Result<(), String> {
    match args.command {
        ModelsCommand::List => list(),
        ModelsCommand::Info { model } => info(model.as_deref()),
        ModelsCommand::Pull { repo, file } => pull(&repo, &file),
    }
}

fn list() -> Result<(), String> {
    let manifest = Manifest::builtin();
    println!("models directory: {}", models::models_dir().display());
    println!(
        "{:<20} {:<7} {:>8}  {:<11} status",
        "name", "arch", "size", "license"
    );
    for m in &manifest.models {
        let path = models::path_of(m);
        let status = if path.exists() {
            format!("present: {}", path.display())
        } else {
            format!("not fetched (models/fetch {})", m.name)
        };
        let default = if m.name == manifest.default {
            " (default)"
        } else {
            ""
        };
        println!(
            "{:<20} {:<7} {:>5} MB  {:<11} {status}{default}",
            m.name,
            m.arch,
            m.size / 1_000_000,
            m.license
        );
    }
    for s in &manifest.speech {
        let status = match models::resolve_speech(Some(&s.name)) {
            Ok(dir) => format!("present: {}", dir.display()),
            Err(_) => format!("not fetched (models/fetch {})", s.name),
        };
        let default = if s.name == manifest.default_speech {
            " (default speech)"
        } else {
            ""
        };
        let size: u64 = s
            .files
            .iter()
            .filter(|f| f.for_this_cpu())
            .map(|f| f.size)
            .sum();
        println!(
            "{:<20} {:<7} {:>5} MB  {:<11} {status}{default}",
            s.name,
            s.kind,
            size / 1_000_000,
            s.license
        );
    }
    Ok(())
}

fn info(model: Option<&str>) -> Result<(), String> {
    let path = models::resolve(model).map_err(|e| e.to_string())?;
    let gguf = GgufFile::open(&path).map_err(|e| e.to_string())?;
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!("file:          {} ({} bytes)", path.display(), size);
    println!(
        "architecture:  {}",
        gguf.architecture().unwrap_or_else(|e| e.to_string())
    );
    match HyperParams::from_gguf(&gguf) {
        Ok(hp) => {
            println!(
                "layers {} · width {} · heads {}/{} kv · head {} · ffn {} · context {} · rope base {}",
                hp.layers, hp.embedding, hp.heads, hp.kv_heads, hp.head_dim, hp.feed_forward, hp.context_length, hp.rope_base
            );
        }
        Err(e) => println!("hyper-parameters: {}", e.reason),
    }
    match Tokenizer::from_gguf(&gguf) {
        Ok(t) => {
            let eot: Vec<String> = t
                .end_of_turn()
                .iter()
                .map(|&id| format!("{} ({id})", t.token_text(id)))
                .collect();
            println!(
                "tokenizer:     {} tokens, end of turn: {}",
                t.vocab_size(),
                eot.join(", ")
            );
        }
        Err(e) => println!("tokenizer:     {}", e.reason),
    }
    match gguf.opt_string("tokenizer.chat_template") {
        Some(t) => println!(
            "chat template: {} bytes, tools: {}",
            t.len(),
            if t.contains("tools") { "yes" } else { "no" }
        ),
        None => println!("chat template: none (ChatML fallback)"),
    }
    println!("tensors:       {}", gguf.tensor_names().len());
    println!("metadata:");
    for key in gguf.keys() {
        if let Some(v) = gguf.value(key) {
            println!("  {key} = {}", describe(v));
        }
    }
    Ok(())
}

fn pull(repo: &str, file: &str) -> Result<(), String> {
    let cache: PathBuf = models::models_dir().join("hub");
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_cache_dir(cache)
        .with_progress(true)
        .build()
        .map_err(|e| format!("cannot set up the Hugging Face hub client: {e}"))?;
    let path = api.model(repo.to_string()).get(file).map_err(|e| {
        format!("cannot download {file} from {repo} on the Hugging Face hub: {e} (is the network reachable?)")
    })?;
    println!("{}", path.display());
    Ok(())
}

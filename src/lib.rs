//! loopd: an always-on, on-device voice-assistant brain.
//!
//! A request enters through a front end, an engine runs its agent loop, every
//! LLM call goes to a [`brain::Brain`], and events stream back out. The
//! layers are crates of the workspace (`crates/`), so Cargo keeps data
//! flowing one way: this crate (daemon, front ends, CLI, personas) uses
//! `loopd-engine`, which uses `loopd-brain` and `loopd-tools`;
//! `loopd-voice` stands beside them and `loopd-alloc` below. Their modules,
//! re-exported here under their short names:
//!
//! - [`brain`]: the language model — GGUF loading, tokenizer, chat template,
//!   the transformer on candle, sampling, streaming — behind one trait,
//!   which a remote OpenAI-compatible server can also stand behind;
//! - [`models`]: the models loopd knows by name and where their files are;
//! - [`engine`]: the agent loops; [`tools`]: what they may call;
//!   [`persona`]: who answers;
//! - [`daemon`]: `loopd serve` — one request queue in front of the brain;
//!   [`frontends`]: D-Bus, the OVOS message bus, Wyoming and HTTP;
//! - [`openai`]: the OpenAI chat wire format, which the remote brain and
//!   the HTTP front end both speak;
//! - [`voice`]: audio, speech to text and text to speech;
//! - [`cli`]: the `loopd` command line.

#![deny(missing_docs)]

pub mod cli;
pub mod daemon;
pub mod frontends;
pub mod models;
pub mod persona;

pub use loopd_alloc as memory;
pub use loopd_brain as brain;
pub use loopd_brain::openai;
pub use loopd_engine as engine;
pub use loopd_tools as tools;
pub use loopd_voice as voice;

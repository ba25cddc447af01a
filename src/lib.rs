//! loopd: an always-on, on-device voice-assistant brain.
//!
//! A request enters through a front end, an engine runs its agent loop, every
//! LLM call goes to a [`brain::Brain`], and events stream back out. The
//! modules follow that flow:
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

pub mod brain;
pub mod cli;
pub mod daemon;
pub mod engine;
pub mod frontends;
pub mod memory;
pub mod models;
pub mod openai;
pub mod persona;
pub mod tools;
pub mod voice;

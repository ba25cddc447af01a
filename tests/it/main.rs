//! loopd's integration tests: one test binary (`it`) with a module per area,
//! so candle and loopd's other dependencies are linked once, not once per
//! file. One area: `cargo test --release --test it generation::`.
//!
//! All the tests share one process: nothing here may change process-wide
//! state (environment variables, the current directory) or count on a
//! process of its own; pass the environment to child `Command`s instead.
//! A test that needs a different environment from its start runs itself
//! again in a child process.

/// Shared helpers: the real models, golden files, tiny GGUF files, engine
/// runs on scripted replies, `loopd serve` as a child process.
mod common;
/// The real OVOS bus (server and `ovos-bus-client`) for the `bus` tests, and
/// raw WebSocket frames against the hosted and a joined bus.
mod ovos;

/// Every architecture loads and generates, on tiny random-weight GGUF files.
mod architectures;
/// Damaged and hostile model files: one clear error, never a panic.
mod bad_input;
/// Generation on the real models: greedy answers, streaming, stops, limits.
mod generation;
/// KV-cache prefix reuse on the real model: same output, fewer prompt tokens.
mod prefix_cache;
/// Each reference model's chat template against transformers' renders.
mod template;
/// The tokenizer from each reference GGUF against llama.cpp's ids.
mod tokenizer;

/// `auto`: the engine it chooses, and why, on scripted replies.
mod engine_auto;
/// The Chain-of-Thought engine on scripted replies.
mod engine_cot;
/// The CRITIC engine on scripted replies.
mod engine_critic;
/// Budgets, deadlines and cancellation, alike for every engine.
mod engine_limits;
/// The native tool-calling engine on scripted replies.
mod engine_native;
/// The plan-execute and hybrid engines on scripted replies.
mod engine_plan;
/// The ReAct engine on scripted replies.
mod engine_react;
/// Every tool engine reads the question first, on scripted replies.
mod engine_read_first;
/// The Reflexion engine on scripted replies.
mod engine_reflexion;
/// The Self-Ask engine on scripted replies.
mod engine_self_ask;
/// The Tree-of-Thoughts engine on scripted replies.
mod engine_tot;
/// Every engine on the real fast model with the clock and math tools.
mod engines_real;

/// The daemon core with deterministic brains: queue, replies, sessions.
mod daemon;
/// `loopd serve --http` through the official `openai` Python client.
mod http;
/// MCP servers as toolboxes, against real servers.
mod mcp;
/// The remote brain against llama.cpp's `llama-server`.
mod remote;
/// The built-in toolboxes through a `Toolset`, and `loopd tools list`.
mod tools;

/// `loopd bench` as a user runs it.
mod bench;
/// The message-bus front end end to end: OVOS bus, hosted bus, socket.
mod bus;
/// Skills' toolboxes on the OVOS bus, called by the loops.
mod bus_tools;
/// `loopd ask` and `loopd models` as a user runs them.
mod cli;
/// `io.loopd.Loopd1` end to end on a private `dbus-daemon`.
mod dbus;
/// Everyday questions on the default model, graded as `loopd bench` does.
mod everyday;
/// The voice front end: conversations, barge-in, serve --listen, sound cards.
mod listen;
/// Connection caps and read deadlines on every network listener.
mod listeners;
/// `loopd serve` under a stand-in for systemd, and the systemd units.
mod service;
/// Timers and alarms set in words, rung on the bus and D-Bus, kept across a restart.
mod timers;
/// `loopd say`, `transcribe` and `listen` on espeak-ng and the real Whisper.
mod voice;
/// `loopd serve --wyoming` with the real `wyoming` client.
mod wyoming;

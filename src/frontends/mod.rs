//! Front ends: how requests reach the daemon and answers go back out.
//!
//! - [`dbus`]: `io.loopd.Loopd1` on the session or system bus, for voice
//!   skills and desktop apps;
//! - [`bus`]: the OVOS message bus (joined or hosted over WebSocket) and the
//!   same envelope as JSON lines on a Unix socket, for voice front ends;
//! - [`listen`]: loopd's own ears and voice — speech in, speech out;
//! - [`wyoming`]: speech to text, text to speech and answers for Home
//!   Assistant over the Wyoming protocol;
//! - [`http`]: the OpenAI chat-completions API, personas as models;
//! - [`origin`]: the check that keeps web pages off the HTTP and WebSocket
//!   listeners;
//! - [`guard`]: connection caps, read deadlines and secret comparison that
//!   every network listener shares;
//! - [`held`]: timer rings that reached no one, rung again to the next
//!   connection;
//! - [`request`]: the one reader of a request's options, whatever the wire;
//! - [`outgoing`]: the one translation of a run's events into tokens by
//!   channel, typed events and sentences to speak.
//!
//! Front ends only talk to [`crate::daemon::Daemon`]: they turn what they
//! receive into an [`crate::daemon::Ask`] through [`request`], and a
//! ticket's events (through [`outgoing`]) and reply into their own
//! protocol.

pub mod bus;
pub mod dbus;
pub mod guard;
pub mod held;
pub mod http;
pub mod listen;
pub mod origin;
pub mod outgoing;
pub mod request;
pub mod wyoming;

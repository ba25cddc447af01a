//! The Wyoming front end, for Home Assistant and its satellites: speech to
//! text (`asr`), text to speech (`tts`) and answering (`handle`) over TCP.
//!
//! - `describe` → `info`, advertising Whisper, the espeak-ng voice and the
//!   personas (with `supports_handled_streaming`);
//! - `transcribe`, `audio-start`, `audio-chunk`…, `audio-stop` → `transcript`;
//! - `synthesize` → `audio-start`, `audio-chunk`…, `audio-stop`, and the
//!   streamed `synthesize-start`, `synthesize-chunk`…, `synthesize-stop`
//!   spoken a sentence at a time ([`speech`]);
//! - `transcript` → `handled-start`, `handled-chunk` per streamed piece of
//!   the answer, `handled`, `handled-stop` (or `not-handled` when the
//!   request fails); `ping` → `pong`;
//! - timers: `timer-started`, `timer-cancelled` and `timer-finished` to a
//!   connection that stays open ([`timers`]).
//!
//! Each connection is read one event at a time; a malformed frame gets an
//! `error` event and the connection is closed, and nothing else is lost.
//! Only loopback peers and the configured ones are answered; a connection
//! must send each event within [`guard::HEADER_READ`] of its first byte and
//! closes after [`guard::IDLE`] without one; at most
//! [`guard::MAX_CONNECTIONS`] are served at once.

pub mod event;
mod speech;
mod timers;

use crate::daemon::{Ask, Caller, Daemon};
use crate::frontends::guard;
use crate::frontends::outgoing::Outgoing;
use crate::tools::timers::Timers;
use crate::voice::audio::Pcm;
use crate::voice::speech::Voice;
use crate::voice::whisper::{self, Whisper};
use crate::voice::VoiceError;
use event::{read_event, write_event, Event, FrameError};
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// What every Wyoming caller's name starts with ([`Caller::wyoming`]).
const CALLERS: &str = "wyoming:";

/// Languages Whisper tiny.en and the default voice speak.
const LANGUAGES: &[&str] = &["en"];

/// What the Wyoming service listens on and speaks with.
pub struct WyomingOptions {
    /// The TCP address (`127.0.0.1:10700` by default).
    pub listen: SocketAddr,
    /// Peers beyond loopback that are answered; it must name some when
    /// `listen` is beyond loopback.
    pub allow: Vec<IpAddr>,
    /// Speech to text.
    pub whisper: Whisper,
    /// The speech model's name, as `info` reports it.
    pub speech_model: String,
    /// Text to speech.
    pub voice: Voice,
}

/// The running service.
pub struct WyomingFrontEnd {
    address: SocketAddr,
    accept: JoinHandle<()>,
    rings: Option<JoinHandle<()>>,
}

impl WyomingFrontEnd {
    /// One line for the ready notice.
    pub fn describe(&self) -> String {
        format!("Wyoming on tcp://{}", self.address)
    }

    /// Stops accepting connections.
    pub async fn stop(self) {
        self.accept.abort();
        let _ = self.accept.await;
        if let Some(rings) = self.rings {
            rings.abort();
            let _ = rings.await;
        }
    }
}

/// What every connection shares.
struct Service {
    daemon: Daemon,
    whisper: Mutex<Whisper>,
    speech_model: String,
    voice: Voice,
    timers: Option<Arc<Timers>>,
    listening: Arc<timers::Listening>,
}

/// Binds the address and serves connections until stopped.
pub async fn start(daemon: Daemon, options: WyomingOptions) -> Result<WyomingFrontEnd, String> {
    check_exposure(options.listen, &options.allow)?;
    let allow = options.allow;
    let slots = guard::Slots::new("Wyoming");
    let listener = TcpListener::bind(options.listen)
        .await
        .map_err(|e| format!("Wyoming: cannot listen on {}: {e}", options.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let timers = daemon.tool_config().timers.clone();
    let listening = Arc::new(timers::Listening::default());
    let rings = timers
        .as_ref()
        .map(|kept| tokio::spawn(timers::ring(listening.clone(), kept.subscribe())));
    let service = Arc::new(Service {
        daemon,
        whisper: Mutex::new(options.whisper),
        speech_model: options.speech_model,
        voice: options.voice,
        timers,
        listening,
    });
    let accept = tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, peer)) => {
                    let ip = peer.ip().to_canonical();
                    if !ip.is_loopback() && !allow.contains(&ip) {
                        tracing::warn!("Wyoming: refused {peer}: not in [voice] wyoming_allow");
                        continue;
                    }
                    let Some(slot) = slots.take(peer) else {
                        continue;
                    };
                    let service = service.clone();
                    tokio::spawn(async move {
                        if let Err(e) = serve(stream, peer, service).await {
                            tracing::debug!("Wyoming {peer}: {e}");
                        }
                        drop(slot);
                    });
                }
                Err(e) => tracing::warn!("Wyoming: accept failed: {e}"),
            }
        }
    });
    Ok(WyomingFrontEnd {
        address,
        accept,
        rings,
    })
}

fn timed_out(what: &str) -> FrameError {
    FrameError::Io(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        what.to_string(),
    ))
}

/// Waits until the next event begins (or the peer closes), up to `idle_until`.
async fn begun<R: AsyncBufRead + Unpin>(
    read: &mut R,
    idle_until: Instant,
) -> Result<(), FrameError> {
    match tokio::time::timeout_at(idle_until, read.fill_buf()).await {
        Err(_) => Err(timed_out("no event for too long")),
        Ok(Err(e)) => Err(e.into()),
        Ok(Ok(_)) => Ok(()),
    }
}

/// The event that has begun, given [`guard::HEADER_READ`] for the whole of it.
async fn whole_event<R: AsyncBufRead + Unpin>(read: &mut R) -> Result<Option<Event>, FrameError> {
    tokio::time::timeout(guard::HEADER_READ, read_event(read))
        .await
        .unwrap_or_else(|_| Err(timed_out("an event took too long to arrive")))
}

/// What a connection does next: write a timer event, or read the peer's.
enum Next {
    Timer(Event),
    Begun(Result<(), FrameError>),
}

/// Refuses an address beyond loopback unless some peers are named: the
/// Wyoming protocol has no authentication of its own.
pub fn check_exposure(listen: SocketAddr, allow: &[IpAddr]) -> Result<(), String> {
    if listen.ip().is_loopback() || !allow.is_empty() {
        return Ok(());
    }
    Err(format!(
        "refusing to serve Wyoming on {listen} to anyone who reaches it: name the peers it \
         answers (Home Assistant's address, satellites') in [voice] wyoming_allow, or \
         listen on 127.0.0.1"
    ))
}

/// Audio being collected for a transcription.
#[derive(Default)]
struct Recording {
    rate: u32,
    width: u16,
    channels: u16,
    samples: Vec<f32>,
}

async fn serve(stream: TcpStream, peer: SocketAddr, service: Arc<Service>) -> Result<(), String> {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut recording: Option<Recording> = None;
    let mut streamed: Option<speech::Streamed> = None;
    let caller = Caller::wyoming(peer.ip());
    let mut staying: Option<(timers::Listener, mpsc::Receiver<Event>)> = None;
    let mut idle_until = Instant::now() + guard::IDLE;
    loop {
        let next = {
            let timer_event = async {
                match staying.as_mut() {
                    Some((_, heard)) => heard.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some(event) = timer_event => Next::Timer(event),
                begun = begun(&mut read, idle_until) => Next::Begun(begun),
            }
        };
        let begun = match next {
            Next::Timer(event) => {
                write_event(&mut write, &event)
                    .await
                    .map_err(|e| e.to_string())?;
                continue;
            }
            Next::Begun(begun) => begun,
        };
        let whole = match begun {
            Ok(()) => whole_event(&mut read).await,
            Err(e) => Err(e),
        };
        let event = match whole {
            Ok(Some(event)) => event,
            Ok(None) => return Ok(()),
            Err(e) => {
                let error = Event::new("error", json!({"text": e.to_string(), "code": "frame"}));
                let _ = write_event(&mut write, &error).await;
                return Err(e.to_string());
            }
        };
        let replies = match event.kind.as_str() {
            "describe" => vec![info(&service)],
            "ping" => {
                if let (None, Some(kept)) = (&staying, &service.timers) {
                    staying = Some(service.listening.join(&caller.to_string(), kept));
                }
                vec![Event::new("pong", json!({}))]
            }
            "transcribe" => {
                recording = Some(Recording::default());
                Vec::new()
            }
            "audio-start" | "audio-chunk" | "audio-stop" => match recording.as_mut() {
                None => Vec::new(),
                Some(r) => match record(r, &event) {
                    Err(text) => {
                        recording = None;
                        vec![Event::new("error", json!({"text": text, "code": "audio"}))]
                    }
                    Ok(false) => Vec::new(),
                    Ok(true) => {
                        let done = recording.take().unwrap_or_default();
                        vec![transcript(service.clone(), done).await]
                    }
                },
            },
            "synthesize" if streamed.is_some() => Vec::new(),
            "synthesize" => {
                let text = event.text("text").unwrap_or("").to_string();
                speech::synthesize(service.clone(), text).await
            }
            "synthesize-start" => {
                streamed = Some(speech::Streamed::default());
                Vec::new()
            }
            "synthesize-chunk" => match streamed.as_mut() {
                None => Vec::new(),
                Some(stream) => {
                    let text = event.text("text").unwrap_or("");
                    match stream.chunk(&service, text).await {
                        Ok(spoken) => spoken,
                        Err(error) => {
                            streamed = None;
                            vec![error]
                        }
                    }
                }
            },
            "synthesize-stop" => match streamed.take() {
                None => Vec::new(),
                Some(stream) => stream.stop(&service).await,
            },
            "transcript" => {
                let text = event.text("text").unwrap_or("").to_string();
                handle(&service, caller.clone(), &text, &mut write).await?;
                Vec::new()
            }
            other => {
                tracing::debug!("Wyoming: ignoring a `{other}` event");
                Vec::new()
            }
        };
        for reply in replies {
            write_event(&mut write, &reply)
                .await
                .map_err(|e| e.to_string())?;
        }
        idle_until = Instant::now() + guard::IDLE;
    }
}

/// The sample rates a recording may have, in Hz.
const RATES: std::ops::RangeInclusive<u32> = 8_000..=48_000;

/// The most channels a recording may have (mono or stereo).
const MAX_CHANNELS: u16 = 2;

/// The longest recording transcribed, in seconds: Whisper hears 30 s at a
/// time, and a voice command is much shorter.
const MAX_RECORDING_S: usize = 30;

/// Adds an audio event to the recording; `true` when it is complete. A
/// format outside 16-bit PCM, [`RATES`] and [`MAX_CHANNELS`] (checked as
/// soon as it is given), or audio beyond [`MAX_RECORDING_S`], is an error
/// that ends the recording.
fn record(r: &mut Recording, event: &Event) -> Result<bool, String> {
    let format = |e: &Event| -> Result<(u32, u16, u16), String> {
        let rate = e.number("rate").unwrap_or(16_000);
        let width = e.number("width").unwrap_or(2);
        let channels = e.number("channels").unwrap_or(1);
        if width != 2
            || !(1..=MAX_CHANNELS as u64).contains(&channels)
            || !RATES.contains(&u32::try_from(rate).unwrap_or(0))
        {
            return Err(format!(
                "audio must be 16-bit PCM (width 2), 1 to {MAX_CHANNELS} channels at {} to {} Hz, \
                 not width {width} with {channels} channel(s) at {rate} Hz",
                RATES.start(),
                RATES.end(),
            ));
        }
        Ok((rate as u32, width as u16, channels as u16))
    };
    match event.kind.as_str() {
        "audio-start" => {
            (r.rate, r.width, r.channels) = format(event)?;
            Ok(false)
        }
        "audio-chunk" => {
            if r.rate == 0 {
                (r.rate, r.width, r.channels) = format(event)?;
            }
            let frame = 2 * r.channels as usize;
            let most = MAX_RECORDING_S * r.rate as usize;
            if r.samples.len() + event.payload.len() / frame > most {
                return Err(format!(
                    "the audio is longer than {MAX_RECORDING_S} s; a recording ends with audio-stop"
                ));
            }
            r.samples.extend(event.payload.chunks_exact(frame).map(|f| {
                f.chunks_exact(2)
                    .map(|s| i16::from_le_bytes([s[0], s[1]]) as f32 / 32768.0)
                    .sum::<f32>()
                    / r.channels as f32
            }));
            Ok(false)
        }
        _ => Ok(true),
    }
}

async fn transcript(service: Arc<Service>, recording: Recording) -> Event {
    let pcm = Pcm {
        rate: recording.rate.max(1),
        samples: recording.samples,
    };
    let heard = tokio::task::spawn_blocking(move || {
        let audio = pcm.resampled(whisper::SAMPLE_RATE as u32)?;
        let mut whisper = service
            .whisper
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        whisper.transcribe(&audio.samples)
    })
    .await
    .unwrap_or_else(|e| Err(VoiceError::Model(format!("transcription stopped: {e}"))));
    match heard {
        Ok(text) => Event::new("transcript", json!({"text": text.trim(), "language": "en"})),
        Err(e) => Event::new("error", json!({"text": e.to_string(), "code": "asr"})),
    }
}

/// Answers a transcript through the daemon, streaming the answer as it comes.
async fn handle(
    service: &Service,
    caller: Caller,
    text: &str,
    write: &mut tokio::net::tcp::OwnedWriteHalf,
) -> Result<(), String> {
    let owner = caller.to_string();
    let timers_before = service.timers.as_ref().map(|kept| kept.of(&owner));
    let ask = Ask {
        caller,
        prompt: text.to_string(),
        barge_in: true,
        ..Ask::default()
    };
    let mut ticket = match service.daemon.submit(ask) {
        Ok(ticket) => ticket,
        Err(e) => {
            let event = Event::new("not-handled", json!({"text": e.to_string()}));
            return write_event(write, &event).await.map_err(|e| e.to_string());
        }
    };
    write_event(write, &Event::new("handled-start", json!({})))
        .await
        .map_err(|e| e.to_string())?;
    while let Some(event) = ticket.next_event().await {
        if let Some(text) = Outgoing::answer_text(event) {
            write_event(write, &Event::new("handled-chunk", json!({"text": text})))
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    let finished = ticket.finish().await;
    if let (Some(before), Some(kept)) = (&timers_before, &service.timers) {
        for event in timers::changes(before, &kept.of(&owner), chrono::Utc::now()) {
            write_event(write, &event)
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    let last = match finished {
        Ok(answer) => Event::new("handled", json!({"text": answer.answer})),
        Err(e) => Event::new("not-handled", json!({"text": e.to_string()})),
    };
    write_event(write, &last).await.map_err(|e| e.to_string())?;
    write_event(write, &Event::new("handled-stop", json!({})))
        .await
        .map_err(|e| e.to_string())
}

fn info(service: &Service) -> Event {
    let attribution = |name: &str, url: &str| json!({"name": name, "url": url});
    let loopd = attribution("loopd", "https://github.com/loopd/loopd");
    let personas: Vec<Value> = service
        .daemon
        .personas()
        .iter()
        .map(|p| {
            json!({
                "name": p.name, "attribution": loopd, "installed": true,
                "description": p.description, "version": env!("CARGO_PKG_VERSION"),
                "languages": LANGUAGES,
            })
        })
        .collect();
    Event::new(
        "info",
        json!({
            "asr": [{
                "name": "loopd-whisper", "attribution": loopd, "installed": true,
                "description": "Whisper on candle", "version": env!("CARGO_PKG_VERSION"),
                "models": [{
                    "name": service.speech_model,
                    "attribution": attribution("OpenAI", "https://github.com/openai/whisper"),
                    "installed": true, "description": "Whisper", "version": null,
                    "languages": LANGUAGES,
                }],
                "supports_transcript_streaming": false,
            }],
            "tts": [{
                "name": "loopd-espeak-ng", "attribution": loopd, "installed": true,
                "description": "espeak-ng", "version": env!("CARGO_PKG_VERSION"),
                "voices": [{
                    "name": service.voice.name(),
                    "attribution": attribution("eSpeak NG", "https://github.com/espeak-ng/espeak-ng"),
                    "installed": true, "description": if service.voice.name() == "piper" { "Piper voice" } else { "espeak-ng voice" }, "version": null,
                    "languages": LANGUAGES,
                }],
                "supports_synthesize_streaming": true,
            }],
            "handle": [{
                "name": "loopd", "attribution": loopd, "installed": true,
                "description": "agent loops on a local model", "version": env!("CARGO_PKG_VERSION"),
                "models": personas,
                "supports_handled_streaming": true,
            }],
            "intent": [], "wake": [], "mic": [], "snd": [],
        }),
    )
}

//! Text to speech on Wyoming, whole or streamed.
//!
//! - `synthesize` → `audio-start`, `audio-chunk`…, `audio-stop`;
//! - `synthesize-start`, `synthesize-chunk`…, `synthesize-stop` → each
//!   sentence is spoken as soon as its text is whole, so a satellite starts
//!   talking while the answer is still being written: one `audio-start`,
//!   the chunks of every sentence as it is ready, `audio-stop`, then
//!   `synthesize-stopped`. A `synthesize` with the whole text inside a
//!   stream (Home Assistant sends one for servers that do not stream) is
//!   not spoken again.

use super::event::Event;
use super::Service;
use crate::engine::sentences::Sentences;
use crate::voice::audio::Pcm;
use crate::voice::speech::MAX_SPEECH_CHARS;
use crate::voice::VoiceError;
use serde_json::json;
use std::sync::Arc;

/// Samples in each `audio-chunk` loopd writes.
const CHUNK_SAMPLES: usize = 1024;

/// `text` spoken, as one `audio-start`, its chunks and `audio-stop` (or
/// an `error`).
pub async fn synthesize(service: Arc<Service>, text: String) -> Vec<Event> {
    match speak(service, text).await {
        Ok(speech) => {
            let mut events = vec![Event::new("audio-start", format(&speech))];
            events.extend(chunks(&speech));
            events.push(Event::new("audio-stop", json!({})));
            events
        }
        Err(e) => vec![failed(&e)],
    }
}

/// A streamed synthesis in progress; its first piece may be a long first
/// clause.
pub struct Streamed {
    sentences: Sentences,
    /// Characters received so far.
    received: usize,
    /// Whether `audio-start` went out.
    started: bool,
}

impl Default for Streamed {
    fn default() -> Self {
        Streamed {
            sentences: Sentences::clause_first(),
            received: 0,
            started: false,
        }
    }
}

impl Streamed {
    /// Takes a `synthesize-chunk`'s text: the audio of each sentence it
    /// completes. Past [`MAX_SPEECH_CHARS`] in all, an `error` (the stream
    /// then ends).
    pub async fn chunk(&mut self, service: &Arc<Service>, text: &str) -> Result<Vec<Event>, Event> {
        self.received += text.chars().count();
        if self.received > MAX_SPEECH_CHARS {
            let why = format!("the streamed text is longer than {MAX_SPEECH_CHARS} characters");
            return Err(failed(&VoiceError::Speech(why)));
        }
        let mut events = Vec::new();
        for sentence in self.sentences.push(text) {
            events.extend(self.say(service, sentence).await?);
        }
        Ok(events)
    }

    /// Ends the stream at `synthesize-stop`: the rest of the text spoken,
    /// `audio-stop` and `synthesize-stopped`.
    pub async fn stop(mut self, service: &Arc<Service>) -> Vec<Event> {
        let mut events = Vec::new();
        if let Some(rest) = self.sentences.finish() {
            match self.say(service, rest).await {
                Ok(spoken) => events.extend(spoken),
                Err(error) => events.push(error),
            }
        }
        if self.started {
            events.push(Event::new("audio-stop", json!({})));
        }
        events.push(Event::new("synthesize-stopped", json!({})));
        events
    }

    async fn say(&mut self, service: &Arc<Service>, sentence: String) -> Result<Vec<Event>, Event> {
        let speech = speak(service.clone(), sentence)
            .await
            .map_err(|e| failed(&e))?;
        let mut events = Vec::new();
        if !self.started {
            self.started = true;
            events.push(Event::new("audio-start", format(&speech)));
        }
        events.extend(chunks(&speech));
        Ok(events)
    }
}

async fn speak(service: Arc<Service>, text: String) -> Result<Pcm, VoiceError> {
    tokio::task::spawn_blocking(move || service.voice.synthesize(&text))
        .await
        .unwrap_or_else(|e| Err(VoiceError::Speech(format!("synthesis stopped: {e}"))))
}

fn format(speech: &Pcm) -> serde_json::Value {
    json!({"rate": speech.rate, "width": 2, "channels": 1})
}

/// The speech as `audio-chunk`s of 16-bit mono PCM.
fn chunks(speech: &Pcm) -> Vec<Event> {
    speech
        .samples
        .chunks(CHUNK_SAMPLES)
        .map(|chunk| {
            let mut event = Event::new("audio-chunk", format(speech));
            event.payload = chunk
                .iter()
                .flat_map(|s| ((s.clamp(-1.0, 1.0) * i16::MAX as f32) as i16).to_le_bytes())
                .collect();
            event
        })
        .collect()
}

fn failed(e: &VoiceError) -> Event {
    Event::new("error", json!({"text": e.to_string(), "code": "tts"}))
}

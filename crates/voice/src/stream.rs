//! Audio in real time: what is heard arrives in chunks as a microphone
//! delivers it, and what is said is queued on a loudspeaker that plays it
//! at its own pace.
//!
//! A WAV file stands in for either: [`WavInput`] releases its chunks at
//! the pace they were recorded, and [`WavOutput`] writes what a speaker
//! would have played, placed on the same clock. So a barge-in (speech
//! heard while an answer plays) happens in files as it does in a room.

use super::audio::Pcm;
use super::vad::RATE;
use super::VoiceError;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The rate spoken answers are written at when they go to a WAV file.
pub const ANSWER_RATE: u32 = 22_050;

/// Samples per chunk of heard audio (32 ms at 16 kHz).
pub const CHUNK: usize = 512;

/// Where heard audio comes from: 16 kHz mono, chunk after chunk.
pub trait Hearing: Send {
    /// The next chunk, as soon as it has arrived; `None` once the input
    /// has ended.
    fn next_chunk(&mut self) -> Result<Option<Vec<f32>>, VoiceError>;
}

/// Where spoken audio goes. Shared by the thread that speaks and the one
/// that listens (which stops it on a barge-in).
pub trait Playing: Send + Sync {
    /// Queues audio to play after what is already queued.
    fn play(&self, pcm: &Pcm) -> Result<(), VoiceError>;
    /// Drops everything not yet played.
    fn stop(&self);
    /// Whether queued audio is still playing.
    fn is_playing(&self) -> bool;
    /// Everything queued has been handed on (a file is written); called
    /// once, at the end.
    fn close(&self) -> Result<(), VoiceError>;
}

/// A WAV file heard as if it came from a microphone, from `start` on.
pub struct WavInput {
    samples: Vec<f32>,
    sent: usize,
    start: Instant,
}

impl WavInput {
    /// Reads the file (any rate, mono or stereo) and resamples it to 16 kHz;
    /// its first sample is heard at `start`.
    pub fn open(path: &Path, start: Instant) -> Result<WavInput, VoiceError> {
        let audio = Pcm::read_wav(path)?.resampled(RATE as u32)?;
        Ok(WavInput {
            samples: audio.samples,
            sent: 0,
            start,
        })
    }
}

impl Hearing for WavInput {
    fn next_chunk(&mut self) -> Result<Option<Vec<f32>>, VoiceError> {
        if self.sent >= self.samples.len() {
            return Ok(None);
        }
        let end = (self.sent + CHUNK).min(self.samples.len());
        let due = self.start + Duration::from_secs_f64(end as f64 / RATE as f64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let chunk = self.samples[self.sent..end].to_vec();
        self.sent = end;
        Ok(Some(chunk))
    }
}

/// A WAV file of what a loudspeaker started at `start` would have played:
/// audio queued while nothing plays begins at the moment it is queued;
/// silence fills the gaps.
pub struct WavOutput {
    path: PathBuf,
    rate: u32,
    start: Instant,
    timeline: Mutex<Vec<f32>>,
}

impl WavOutput {
    /// A file at `rate` hertz whose time starts at `start`.
    pub fn create(path: &Path, rate: u32, start: Instant) -> WavOutput {
        WavOutput {
            path: path.to_path_buf(),
            rate,
            start,
            timeline: Mutex::new(Vec::new()),
        }
    }

    fn now(&self) -> usize {
        (self.start.elapsed().as_secs_f64() * self.rate as f64) as usize
    }

    fn timeline(&self) -> std::sync::MutexGuard<'_, Vec<f32>> {
        self.timeline.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Playing for WavOutput {
    fn play(&self, pcm: &Pcm) -> Result<(), VoiceError> {
        let pcm = pcm.resampled(self.rate)?;
        let now = self.now();
        let mut timeline = self.timeline();
        if timeline.len() < now {
            timeline.resize(now, 0.0);
        }
        timeline.extend_from_slice(&pcm.samples);
        Ok(())
    }

    fn stop(&self) {
        let now = self.now();
        let mut timeline = self.timeline();
        if timeline.len() > now {
            timeline.truncate(now);
        }
    }

    fn is_playing(&self) -> bool {
        self.timeline().len() > self.now()
    }

    fn close(&self) -> Result<(), VoiceError> {
        Pcm {
            rate: self.rate,
            samples: self.timeline().clone(),
        }
        .write_wav(&self.path)
    }
}

/// Where heard audio comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A WAV file at its recorded pace.
    Wav(PathBuf),
    /// A microphone by name (`None`: the default one).
    Microphone(Option<String>),
}

/// Where spoken audio goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// A WAV file, as a loudspeaker would have played it.
    Wav(PathBuf),
    /// A loudspeaker by name (`None`: the default one).
    Loudspeaker(Option<String>),
}

/// Why sound cards cannot be used in a build without them.
pub const NO_AUDIO: &str =
    "this loopd was built without the `audio` feature: it cannot use sound cards, only WAV files";

/// Starts hearing `source`; a file's first sample is heard at `start`.
pub fn hear(source: &Source, start: Instant) -> Result<Box<dyn Hearing>, VoiceError> {
    match source {
        Source::Wav(path) => Ok(Box::new(WavInput::open(path, start)?)),
        #[cfg(feature = "audio")]
        Source::Microphone(name) => Ok(Box::new(super::device::Microphone::open(name.as_deref())?)),
        #[cfg(not(feature = "audio"))]
        Source::Microphone(_) => Err(VoiceError::Audio(NO_AUDIO.into())),
    }
}

/// Opens `sink`; a file is written at `rate` hertz on a clock started at
/// `start`.
pub fn play(sink: &Sink, rate: u32, start: Instant) -> Result<Arc<dyn Playing>, VoiceError> {
    match sink {
        Sink::Wav(path) => Ok(Arc::new(WavOutput::create(path, rate, start))),
        #[cfg(feature = "audio")]
        Sink::Loudspeaker(name) => Ok(Arc::new(super::device::Loudspeaker::open(name.as_deref())?)),
        #[cfg(not(feature = "audio"))]
        Sink::Loudspeaker(_) => Err(VoiceError::Audio(NO_AUDIO.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_places_audio_on_the_clock_and_stops_it() {
        let dir = std::env::temp_dir().join(format!("loopd-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.wav");
        let start = Instant::now() - Duration::from_millis(500);
        let out = WavOutput::create(&path, 1000, start);
        let second = Pcm {
            rate: 1000,
            samples: vec![0.5; 1000],
        };
        out.play(&second).unwrap();
        assert!(out.is_playing());
        let queued = out.timeline().len();
        assert!((1500..1600).contains(&queued), "{queued}");
        std::thread::sleep(Duration::from_millis(30));
        out.stop();
        assert!(!out.is_playing());
        let kept = out.timeline().len();
        assert!((530..700).contains(&kept), "{kept}");
        out.close().unwrap();
        let back = Pcm::read_wav(&path).unwrap();
        assert_eq!(back.samples.len(), kept);
        assert!(back.samples[..400].iter().all(|s| *s == 0.0));
        assert!(back.samples[kept - 1] > 0.4);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn input_arrives_at_the_pace_it_was_recorded() {
        let dir = std::env::temp_dir().join(format!("loopd-stream-in-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("in.wav");
        Pcm {
            rate: 16_000,
            samples: vec![0.1; CHUNK * 3 + 10],
        }
        .write_wav(&path)
        .unwrap();
        let start = Instant::now();
        let mut input = WavInput::open(&path, start).unwrap();
        let mut lengths = Vec::new();
        while let Some(chunk) = input.next_chunk().unwrap() {
            lengths.push(chunk.len());
        }
        assert_eq!(lengths, vec![CHUNK, CHUNK, CHUNK, 10]);
        let recorded = Duration::from_secs_f64((CHUNK * 3 + 10) as f64 / 16_000.0);
        assert!(start.elapsed() >= recorded, "{:?}", start.elapsed());
        std::fs::remove_dir_all(&dir).ok();
    }
}

//! Sound cards through cpal: the devices there are, a [`Microphone`] heard
//! at 16 kHz and a [`Loudspeaker`] that plays queued speech.
//!
//! Each cpal stream lives on a thread of its own (a stream may not move
//! between threads on every platform) until its handle is dropped.

use super::audio::{Pcm, StreamResampler};
use super::stream::{Hearing, Playing, CHUNK};
use super::vad::RATE;
use super::VoiceError;
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// A sound device as `loopd audio devices` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SoundDevice {
    /// Its id, which names it exactly (e.g. `alsa:default`).
    pub id: String,
    /// Its human-readable name.
    pub name: String,
    /// Whether it can capture.
    pub input: bool,
    /// Whether it can play.
    pub output: bool,
    /// Whether it is the default microphone.
    pub default_input: bool,
    /// Whether it is the default loudspeaker.
    pub default_output: bool,
}

/// Which way a device is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Capture,
    Playback,
}

impl Direction {
    fn noun(self) -> &'static str {
        match self {
            Direction::Capture => "capture",
            Direction::Playback => "playback",
        }
    }
}

fn audio_error(what: &str, e: impl std::fmt::Display) -> VoiceError {
    VoiceError::Audio(format!("{what}: {e}"))
}

/// Keeps alsa-lib's messages (it complains on stderr about every card a
/// default configuration names but this machine lacks) for the log instead,
/// on this thread until dropped.
struct QuietAlsa {
    #[cfg(target_os = "linux")]
    buffer: Option<std::rc::Rc<std::cell::RefCell<alsa::Output>>>,
}

impl QuietAlsa {
    fn new() -> QuietAlsa {
        QuietAlsa {
            #[cfg(target_os = "linux")]
            buffer: alsa::Output::local_error_handler().ok(),
        }
    }
}

impl Drop for QuietAlsa {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(buffer) = &self.buffer {
            let said = buffer.borrow().to_string();
            if !said.trim().is_empty() {
                tracing::debug!("alsa-lib: {}", said.trim());
            }
        }
    }
}

fn id_of(device: &cpal::Device) -> String {
    device
        .id()
        .map(|id| id.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn name_of(device: &cpal::Device) -> String {
    device
        .description()
        .map(|d| d.name().to_string())
        .unwrap_or_else(|_| id_of(device))
}

/// Every sound device of the default host.
pub fn devices() -> Result<Vec<SoundDevice>, VoiceError> {
    let _quiet = QuietAlsa::new();
    let host = cpal::default_host();
    let default_in = host.default_input_device().map(|d| id_of(&d));
    let default_out = host.default_output_device().map(|d| id_of(&d));
    let listed = host
        .devices()
        .map_err(|e| audio_error("cannot list sound devices", e))?;
    Ok(listed
        .map(|d| {
            let id = id_of(&d);
            SoundDevice {
                name: name_of(&d),
                input: d.supports_input(),
                output: d.supports_output(),
                default_input: default_in.as_deref() == Some(id.as_str()),
                default_output: default_out.as_deref() == Some(id.as_str()),
                id,
            }
        })
        .collect())
}

/// The device named `name` (its id, its name, or a unique part of either,
/// ignoring case), or the default one.
fn find(name: Option<&str>, direction: Direction) -> Result<cpal::Device, VoiceError> {
    let _quiet = QuietAlsa::new();
    let host = cpal::default_host();
    let Some(name) = name else {
        let default = match direction {
            Direction::Capture => host.default_input_device(),
            Direction::Playback => host.default_output_device(),
        };
        return default.ok_or_else(|| {
            VoiceError::Audio(format!(
                "there is no default {} device (`loopd audio devices` lists them)",
                direction.noun()
            ))
        });
    };
    let usable = |d: &cpal::Device| match direction {
        Direction::Capture => d.supports_input(),
        Direction::Playback => d.supports_output(),
    };
    let candidates: Vec<cpal::Device> = host
        .devices()
        .map_err(|e| audio_error("cannot list sound devices", e))?
        .filter(usable)
        .collect();
    if let Some(exact) = candidates
        .iter()
        .find(|d| id_of(d) == name || name_of(d) == name)
    {
        return Ok(exact.clone());
    }
    let wanted = name.to_lowercase();
    let matching: Vec<&cpal::Device> = candidates
        .iter()
        .filter(|d| {
            id_of(d).to_lowercase().contains(&wanted) || name_of(d).to_lowercase().contains(&wanted)
        })
        .collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(VoiceError::Audio(format!(
            "no {} device is named `{name}` (`loopd audio devices` lists them)",
            direction.noun()
        ))),
        many => Err(VoiceError::Audio(format!(
            "`{name}` names {} {} devices: {}",
            many.len(),
            direction.noun(),
            many.iter().map(|d| id_of(d)).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// A stream kept running on its own thread until this is dropped.
struct StreamThread {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StreamThread {
    /// Builds a stream with `build` on a new thread, starts it, and keeps it
    /// until dropped; returns once it plays (or failed to) and its rate and
    /// channel count.
    fn start<F>(build: F) -> Result<(StreamThread, StreamConfig), VoiceError>
    where
        F: FnOnce() -> Result<(cpal::Stream, StreamConfig), VoiceError> + Send + 'static,
    {
        let stop = Arc::new(AtomicBool::new(false));
        let (started, outcome) = mpsc::channel();
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("loopd-audio".into())
            .spawn(move || {
                let _quiet = QuietAlsa::new();
                let stream = match build().and_then(|(stream, config)| {
                    stream
                        .play()
                        .map_err(|e| audio_error("cannot start the stream", e))?;
                    Ok((stream, config))
                }) {
                    Ok((stream, config)) => {
                        let _ = started.send(Ok(config));
                        stream
                    }
                    Err(e) => {
                        let _ = started.send(Err(e));
                        return;
                    }
                };
                while !stopping.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                drop(stream);
            })
            .map_err(|e| audio_error("cannot start the audio thread", e))?;
        let config = outcome
            .recv()
            .map_err(|_| VoiceError::Audio("the audio thread stopped".into()))??;
        Ok((
            StreamThread {
                stop,
                thread: Some(thread),
            },
            config,
        ))
    }
}

impl Drop for StreamThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A capture device heard as 16 kHz mono.
pub struct Microphone {
    /// The device's id.
    pub id: String,
    arriving: mpsc::Receiver<Vec<f32>>,
    resampler: StreamResampler,
    ready: Vec<f32>,
    _stream: StreamThread,
}

impl Microphone {
    /// Opens the device named `name` (or the default one) at its default
    /// configuration.
    pub fn open(name: Option<&str>) -> Result<Microphone, VoiceError> {
        let device = find(name, Direction::Capture)?;
        let id = id_of(&device);
        let (sender, arriving) = mpsc::channel();
        let (stream, config) = StreamThread::start(move || {
            let supported = device
                .default_input_config()
                .map_err(|e| audio_error(&format!("{} cannot capture", id_of(&device)), e))?;
            let format = supported.sample_format();
            let config: StreamConfig = supported.into();
            let stream = match format {
                SampleFormat::F32 => capture::<f32>(&device, &config, sender),
                SampleFormat::I16 => capture::<i16>(&device, &config, sender),
                SampleFormat::I32 => capture::<i32>(&device, &config, sender),
                SampleFormat::U16 => capture::<u16>(&device, &config, sender),
                SampleFormat::U8 => capture::<u8>(&device, &config, sender),
                other => Err(VoiceError::Audio(format!(
                    "capture in {other} samples is not supported"
                ))),
            }?;
            Ok((stream, config))
        })?;
        Ok(Microphone {
            id,
            arriving,
            resampler: StreamResampler::new(config.sample_rate, RATE as u32)?,
            ready: Vec::new(),
            _stream: stream,
        })
    }
}

fn capture<T>(
    device: &cpal::Device,
    config: &StreamConfig,
    sender: mpsc::Sender<Vec<f32>>,
) -> Result<cpal::Stream, VoiceError>
where
    T: SizedSample,
    f32: FromSample<T>,
{
    let channels = config.channels.max(1) as usize;
    device
        .build_input_stream(
            *config,
            move |data: &[T], _: &cpal::InputCallbackInfo| {
                let mono = data
                    .chunks(channels)
                    .map(|frame| {
                        frame.iter().map(|s| s.to_sample::<f32>()).sum::<f32>() / channels as f32
                    })
                    .collect();
                let _ = sender.send(mono);
            },
            |e| tracing::warn!("microphone: {e}"),
            None,
        )
        .map_err(|e| audio_error("cannot open the microphone", e))
}

impl Hearing for Microphone {
    fn next_chunk(&mut self) -> Result<Option<Vec<f32>>, VoiceError> {
        while self.ready.len() < CHUNK {
            match self.arriving.recv_timeout(Duration::from_secs(5)) {
                Ok(samples) => {
                    let heard = self.resampler.push(&samples)?;
                    self.ready.extend(heard);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(VoiceError::Audio(format!(
                        "the microphone {} sent nothing for 5 s",
                        self.id
                    )))
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
        Ok(Some(self.ready.drain(..CHUNK).collect()))
    }
}

/// A playback device with a queue of mono samples at its own rate.
pub struct Loudspeaker {
    /// The device's id.
    pub id: String,
    rate: u32,
    queue: Arc<Mutex<VecDeque<f32>>>,
    _stream: StreamThread,
}

impl Loudspeaker {
    /// Opens the device named `name` (or the default one) at its default
    /// configuration.
    pub fn open(name: Option<&str>) -> Result<Loudspeaker, VoiceError> {
        let device = find(name, Direction::Playback)?;
        let id = id_of(&device);
        let queue = Arc::new(Mutex::new(VecDeque::new()));
        let playing = queue.clone();
        let (stream, config) = StreamThread::start(move || {
            let supported = device
                .default_output_config()
                .map_err(|e| audio_error(&format!("{} cannot play", id_of(&device)), e))?;
            let format = supported.sample_format();
            let config: StreamConfig = supported.into();
            let stream = match format {
                SampleFormat::F32 => playback::<f32>(&device, &config, playing),
                SampleFormat::I16 => playback::<i16>(&device, &config, playing),
                SampleFormat::I32 => playback::<i32>(&device, &config, playing),
                SampleFormat::U16 => playback::<u16>(&device, &config, playing),
                SampleFormat::U8 => playback::<u8>(&device, &config, playing),
                other => Err(VoiceError::Audio(format!(
                    "playback in {other} samples is not supported"
                ))),
            }?;
            Ok((stream, config))
        })?;
        Ok(Loudspeaker {
            id,
            rate: config.sample_rate,
            queue,
            _stream: stream,
        })
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<f32>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until everything queued has played.
    pub fn drain(&self) {
        while self.is_playing() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn playback<T>(
    device: &cpal::Device,
    config: &StreamConfig,
    queue: Arc<Mutex<VecDeque<f32>>>,
) -> Result<cpal::Stream, VoiceError>
where
    T: SizedSample + FromSample<f32>,
{
    let channels = config.channels.max(1) as usize;
    device
        .build_output_stream(
            *config,
            move |data: &mut [T], _: &cpal::OutputCallbackInfo| {
                let mut queue = queue.lock().unwrap_or_else(|e| e.into_inner());
                for frame in data.chunks_mut(channels) {
                    let sample = T::from_sample(queue.pop_front().unwrap_or(0.0));
                    frame.fill(sample);
                }
            },
            |e| tracing::warn!("loudspeaker: {e}"),
            None,
        )
        .map_err(|e| audio_error("cannot open the loudspeaker", e))
}

impl Playing for Loudspeaker {
    fn play(&self, pcm: &Pcm) -> Result<(), VoiceError> {
        let pcm = pcm.resampled(self.rate)?;
        self.queue().extend(pcm.samples);
        Ok(())
    }

    fn stop(&self) {
        self.queue().clear();
    }

    fn is_playing(&self) -> bool {
        !self.queue().is_empty()
    }

    fn close(&self) -> Result<(), VoiceError> {
        self.drain();
        Ok(())
    }
}

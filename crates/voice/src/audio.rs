//! Audio as loopd handles it: mono f32 samples at a known rate, read from and
//! written to WAV files, resampled to the rate a stage needs.

use super::VoiceError;
use audioadapter_buffers::owned::InterleavedOwned;
use rubato::{Fft, FixedSync, Resampler};
use std::path::Path;

/// Mono audio: samples in -1.0..1.0 at `rate` hertz.
#[derive(Debug, Clone, PartialEq)]
pub struct Pcm {
    /// Samples per second.
    pub rate: u32,
    /// The samples.
    pub samples: Vec<f32>,
}

impl Pcm {
    /// Length in seconds.
    pub fn seconds(&self) -> f64 {
        self.samples.len() as f64 / self.rate as f64
    }

    /// Reads a WAV file (PCM integer or float, any rate); channels are
    /// averaged to mono.
    pub fn read_wav(path: &Path) -> Result<Pcm, VoiceError> {
        let failed = |e: hound::Error| VoiceError::Audio(format!("{}: {e}", path.display()));
        let mut reader = hound::WavReader::open(path).map_err(failed)?;
        let spec = reader.spec();
        let channels = spec.channels.max(1) as usize;
        let interleaved: Vec<f32> = match spec.sample_format {
            hound::SampleFormat::Float => reader
                .samples::<f32>()
                .collect::<Result<_, _>>()
                .map_err(failed)?,
            hound::SampleFormat::Int => {
                let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
                reader
                    .samples::<i32>()
                    .map(|s| s.map(|s| s as f32 * scale))
                    .collect::<Result<_, _>>()
                    .map_err(failed)?
            }
        };
        let samples = interleaved
            .chunks(channels)
            .map(|frame| frame.iter().sum::<f32>() / channels as f32)
            .collect();
        Ok(Pcm {
            rate: spec.sample_rate,
            samples,
        })
    }

    /// Writes 16-bit mono WAV.
    pub fn write_wav(&self, path: &Path) -> Result<(), VoiceError> {
        let failed = |e: hound::Error| VoiceError::Audio(format!("{}: {e}", path.display()));
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: self.rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(path, spec).map_err(failed)?;
        for s in &self.samples {
            writer
                .write_sample((s.clamp(-1.0, 1.0) * i16::MAX as f32) as i16)
                .map_err(failed)?;
        }
        writer.finalize().map_err(failed)
    }

    /// The same audio at `rate` hertz.
    pub fn resampled(&self, rate: u32) -> Result<Pcm, VoiceError> {
        if rate == self.rate || self.samples.is_empty() {
            return Ok(Pcm {
                rate,
                samples: self.samples.clone(),
            });
        }
        let failed = |e: &dyn std::fmt::Display| {
            VoiceError::Audio(format!(
                "cannot resample {} Hz to {rate} Hz: {e}",
                self.rate
            ))
        };
        let mut resampler =
            Fft::<f32>::new(self.rate as usize, rate as usize, 1024, 1, FixedSync::Input)
                .map_err(|e| failed(&e))?;
        let frames = self.samples.len();
        let input =
            InterleavedOwned::new_from(self.samples.clone(), 1, frames).map_err(|e| failed(&e))?;
        let output = resampler
            .process_all(&input, frames, None)
            .map_err(|e| failed(&e))?;
        let mut samples = output.take_data();
        samples.truncate((frames as u64 * rate as u64).div_ceil(self.rate as u64) as usize);
        Ok(Pcm { rate, samples })
    }
}

/// Resamples a stream that arrives in pieces of any size, keeping the
/// filter's state between them (a microphone at its own rate, heard at
/// 16 kHz).
pub struct StreamResampler {
    resampler: Option<Fft<f32>>,
    pending: Vec<f32>,
}

impl StreamResampler {
    /// A resampler from `from` to `to` hertz.
    pub fn new(from: u32, to: u32) -> Result<StreamResampler, VoiceError> {
        let resampler = if from == to {
            None
        } else {
            let chunk = (from as usize / 50).max(64);
            Some(
                Fft::<f32>::new(from as usize, to as usize, chunk, 1, FixedSync::Input).map_err(
                    |e| VoiceError::Audio(format!("cannot resample {from} Hz to {to} Hz: {e}")),
                )?,
            )
        };
        Ok(StreamResampler {
            resampler,
            pending: Vec::new(),
        })
    }

    /// Adds samples; returns what is ready at the new rate.
    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, VoiceError> {
        let Some(resampler) = &mut self.resampler else {
            return Ok(samples.to_vec());
        };
        self.pending.extend_from_slice(samples);
        let mut out = Vec::new();
        while self.pending.len() >= resampler.input_frames_next() {
            let frames = resampler.input_frames_next();
            let chunk: Vec<f32> = self.pending.drain(..frames).collect();
            let input = InterleavedOwned::new_from(chunk, 1, frames)
                .map_err(|e| VoiceError::Audio(format!("resampling: {e}")))?;
            let output = resampler
                .process(&input, None)
                .map_err(|e| VoiceError::Audio(format!("resampling: {e}")))?;
            out.extend(output.take_data());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f32, seconds: f32) -> Pcm {
        let n = (rate as f32 * seconds) as usize;
        let samples = (0..n)
            .map(|i| 0.5 * (std::f32::consts::TAU * hz * i as f32 / rate as f32).sin())
            .collect();
        Pcm { rate, samples }
    }

    #[test]
    fn resampling_keeps_length_and_pitch() {
        let a = tone(22_050, 440.0, 1.0).resampled(16_000).unwrap();
        assert_eq!(a.rate, 16_000);
        assert!(
            (a.samples.len() as i64 - 16_000).abs() <= 1,
            "{}",
            a.samples.len()
        );
        let crossings = a.samples[1000..15_000]
            .windows(2)
            .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
            .count();
        assert!(
            (crossings as i64 - 385).abs() <= 2,
            "{crossings} rising zero crossings"
        );
    }

    #[test]
    fn wav_round_trip() {
        let dir = std::env::temp_dir().join(format!("loopd-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.wav");
        let pcm = tone(16_000, 300.0, 0.1);
        pcm.write_wav(&path).unwrap();
        let back = Pcm::read_wav(&path).unwrap();
        assert_eq!(back.rate, 16_000);
        assert_eq!(back.samples.len(), pcm.samples.len());
        let worst = pcm
            .samples
            .iter()
            .zip(&back.samples)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(worst < 1e-4, "{worst}");
        std::fs::write(&path, b"RIFF not a wav").unwrap();
        assert!(Pcm::read_wav(&path).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_stream_in_odd_pieces_resamples_like_the_whole() {
        let whole = tone(48_000, 440.0, 1.0);
        let mut stream = StreamResampler::new(48_000, 16_000).unwrap();
        let mut out = Vec::new();
        for piece in whole.samples.chunks(333) {
            out.extend(stream.push(piece).unwrap());
        }
        assert!(
            (15_000..=16_000).contains(&out.len()),
            "{} samples",
            out.len()
        );
        let crossings = out[2000..14_000]
            .windows(2)
            .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
            .count();
        assert!((crossings as i64 - 330).abs() <= 2, "{crossings}");
        let mut same = StreamResampler::new(16_000, 16_000).unwrap();
        assert_eq!(same.push(&[0.25, -0.5]).unwrap(), vec![0.25, -0.5]);
    }
}

//! Text to speech with espeak-ng, run as a subprocess (which keeps its
//! GPL-3 code out of loopd's binary). Debian package `espeak-ng`.

use super::audio::Pcm;
use super::VoiceError;
use std::io::Write;
use std::process::{Command, Stdio};

/// The program run.
const PROGRAM: &str = "espeak-ng";
/// The size of the WAV header espeak-ng writes to stdout.
const WAV_HEADER: usize = 44;

/// A voice loopd can speak with.
#[derive(Clone)]
pub enum Voice {
    /// espeak-ng: robotic, everywhere.
    Espeak(Espeak),
    /// A Piper voice: natural, from `models/fetch piper-joe`.
    #[cfg(feature = "piper")]
    Piper(std::sync::Arc<super::piper::Piper>),
}

impl Voice {
    /// The espeak-ng voice `name` (`en-us`).
    pub fn espeak(name: &str) -> Voice {
        Voice::Espeak(Espeak {
            voice: name.to_string(),
        })
    }

    /// The Piper voice in `dir`, which holds `voice.onnx`,
    /// `voice.onnx.json` and `libonnxruntime.so`.
    pub fn open_piper(dir: &std::path::Path) -> Result<Voice, VoiceError> {
        Voice::piper(dir)
    }

    #[cfg(feature = "piper")]
    fn piper(dir: &std::path::Path) -> Result<Voice, VoiceError> {
        let voice = super::piper::Piper::load(
            &dir.join("voice.onnx"),
            &dir.join("voice.onnx.json"),
            &dir.join("libonnxruntime.so"),
        )?;
        Ok(Voice::Piper(std::sync::Arc::new(voice)))
    }

    #[cfg(not(feature = "piper"))]
    fn piper(dir: &std::path::Path) -> Result<Voice, VoiceError> {
        Err(VoiceError::Speech(format!(
            "{} is a Piper voice, and this loopd was built without the `piper` feature",
            dir.display()
        )))
    }

    /// `text` spoken; a text over [`MAX_SPEECH_CHARS`] is refused.
    pub fn synthesize(&self, text: &str) -> Result<Pcm, VoiceError> {
        if text.chars().count() > MAX_SPEECH_CHARS {
            return Err(VoiceError::Speech(format!(
                "the text to speak is longer than {MAX_SPEECH_CHARS} characters"
            )));
        }
        match self {
            Voice::Espeak(v) => v.synthesize(text),
            #[cfg(feature = "piper")]
            Voice::Piper(v) => v.synthesize(text),
        }
    }

    /// The voice's name, as Wyoming's `info` reports it.
    pub fn name(&self) -> String {
        match self {
            Voice::Espeak(v) => v.voice.clone(),
            #[cfg(feature = "piper")]
            Voice::Piper(_) => "piper".into(),
        }
    }
}

/// An espeak-ng voice.
#[derive(Debug, Clone)]
pub struct Espeak {
    /// espeak-ng's voice name, e.g. `en-us`.
    pub voice: String,
}

impl Default for Espeak {
    fn default() -> Self {
        Espeak {
            voice: "en-us".into(),
        }
    }
}

/// The longest text spoken in one go, in characters (about ten minutes of
/// speech).
pub const MAX_SPEECH_CHARS: usize = 10_000;

impl Espeak {
    /// `text` spoken.
    pub fn synthesize(&self, text: &str) -> Result<Pcm, VoiceError> {
        let wav = run_espeak(&["-v", &self.voice, "--stdout"], text)?;
        parse_stream_wav(&wav)
    }
}

/// Runs espeak-ng with `args` on `text` and returns what it wrote to
/// stdout. The text goes to its stdin from a thread of its own while its
/// stdout is read, so a long text cannot fill both pipes and stall.
pub(crate) fn run_espeak(args: &[&str], text: &str) -> Result<Vec<u8>, VoiceError> {
    let mut child = Command::new(PROGRAM)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => VoiceError::Speech(format!(
                "{PROGRAM} is not installed (Debian/Ubuntu: apt install espeak-ng)"
            )),
            _ => VoiceError::Speech(format!("cannot start {PROGRAM}: {e}")),
        })?;
    let stdin = child.stdin.take();
    let (written, output) = std::thread::scope(|scope| {
        let writer = scope.spawn(move || match stdin {
            Some(mut stdin) => stdin.write_all(text.as_bytes()),
            None => Ok(()),
        });
        let output = child.wait_with_output();
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("writer thread panicked")));
        (written, output)
    });
    let output = output.map_err(|e| VoiceError::Speech(format!("{PROGRAM} failed: {e}")))?;
    if !output.status.success() {
        return Err(VoiceError::Speech(format!(
            "{PROGRAM} {} failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    written.map_err(|e| VoiceError::Speech(format!("cannot write to {PROGRAM}: {e}")))?;
    Ok(output.stdout)
}

/// A WAV stream as espeak-ng writes it to stdout: a 44-byte header whose
/// sizes are placeholders, then 16-bit PCM to the end.
fn parse_stream_wav(bytes: &[u8]) -> Result<Pcm, VoiceError> {
    if bytes.len() < WAV_HEADER || &bytes[..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(VoiceError::Speech(format!(
            "{PROGRAM} wrote no WAV stream ({} bytes)",
            bytes.len()
        )));
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let channels = u16_at(22).max(1) as usize;
    let rate = u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]);
    let bits = u16_at(34);
    if bits != 16 || rate == 0 {
        return Err(VoiceError::Speech(format!(
            "{PROGRAM} wrote {bits}-bit audio at {rate} Hz; 16-bit is expected"
        )));
    }
    let samples = bytes[WAV_HEADER..]
        .chunks_exact(2 * channels)
        .map(|frame| {
            frame
                .chunks_exact(2)
                .map(|s| i16::from_le_bytes([s[0], s[1]]) as f32 / 32768.0)
                .sum::<f32>()
                / channels as f32
        })
        .collect();
    Ok(Pcm { rate, samples })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_stream_header_with_placeholder_sizes() {
        let mut wav = b"RIFF\xff\xff\xff\x7fWAVEfmt ".to_vec();
        wav.extend(16u32.to_le_bytes());
        wav.extend(1u16.to_le_bytes());
        wav.extend(1u16.to_le_bytes());
        wav.extend(22_050u32.to_le_bytes());
        wav.extend(44_100u32.to_le_bytes());
        wav.extend(2u16.to_le_bytes());
        wav.extend(16u16.to_le_bytes());
        wav.extend(b"data\xff\xff\xff\x7f");
        assert_eq!(wav.len(), WAV_HEADER);
        wav.extend(16_384i16.to_le_bytes());
        wav.extend((-32_768i16).to_le_bytes());
        let pcm = parse_stream_wav(&wav).unwrap();
        assert_eq!(pcm.rate, 22_050);
        assert_eq!(pcm.samples, vec![0.5, -1.0]);
        assert!(parse_stream_wav(b"RIFF").is_err());
        assert!(parse_stream_wav(&[0; 60]).is_err());
    }
}

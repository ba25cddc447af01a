//! Text to speech with a Piper voice: a VITS model exported to ONNX, with
//! the `.onnx.json` file that describes it. espeak-ng, run as a subprocess
//! (which keeps its GPL-3 code out of loopd's binary), turns text into IPA
//! phonemes; the model, run by an onnxruntime shared library loaded at run
//! time through `ort`, turns their ids into audio.
//!
//! Text goes through the steps Piper takes: cut into clauses where espeak-ng
//! ends them, each clause's phonemes followed by its punctuation (`.`, `?`,
//! `!`, `,`, `:` or `;`, with a space after the last three), decomposed to
//! NFD code points, and one run of the model for each sentence. Two
//! departures from Piper: words either side of an ellipsis stay apart (Piper
//! runs them together), and punctuation before a blank line is kept.

mod phonemes;

use super::audio::Pcm;
use super::VoiceError;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use phonemes::{clauses, phonemize, sentences};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// Phoneme-map keys for the start of a sentence, its end, and the padding
/// between phonemes.
const BOS: char = '^';
const EOS: char = '$';
const PAD: char = '_';

/// A Piper voice, ready to speak.
///
/// `Send` and `Sync`: `synthesize` may be called from several threads at
/// once. Phonemization runs in parallel; the model runs one sentence at a
/// time behind a lock.
pub struct Piper {
    session: Mutex<Session>,
    voice: VoiceConfig,
    speaker_input: bool,
    output: String,
}

impl std::fmt::Debug for Piper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Piper")
            .field("sample_rate", &self.voice.sample_rate)
            .field("espeak_voice", &self.voice.espeak_voice)
            .field("output", &self.output)
            .finish_non_exhaustive()
    }
}

impl Piper {
    /// Loads `voice.onnx` and its `voice.onnx.json` with the onnxruntime
    /// shared library at `runtime` (`libonnxruntime.so.1.N.M`, 1.17 or
    /// newer). A process loads one onnxruntime library: later calls must
    /// name the same file.
    pub fn load(model: &Path, config: &Path, runtime: &Path) -> Result<Piper, VoiceError> {
        let json = std::fs::read_to_string(config).map_err(|e| {
            VoiceError::Model(format!(
                "cannot read voice config {}: {e}",
                config.display()
            ))
        })?;
        let voice = VoiceConfig::parse(&json)
            .map_err(|e| VoiceError::Model(format!("voice config {}: {e}", config.display())))?;
        let session = crate::onnx::session(model, runtime, false, "voice model")?;
        let inputs: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
        for required in ["input", "input_lengths", "scales"] {
            if !inputs.contains(&required) {
                return Err(VoiceError::Model(format!(
                    "{} is not a Piper voice: it has no input `{required}` (inputs: {})",
                    model.display(),
                    inputs.join(", ")
                )));
            }
        }
        if let Some(other) = inputs
            .iter()
            .find(|i| !matches!(**i, "input" | "input_lengths" | "scales" | "sid"))
        {
            return Err(VoiceError::Model(format!(
                "{} has an input `{other}` that Piper voices do not have",
                model.display()
            )));
        }
        let speaker_input = inputs.contains(&"sid");
        let output = session
            .outputs()
            .first()
            .map(|o| o.name().to_string())
            .ok_or_else(|| VoiceError::Model(format!("{} has no output", model.display())))?;
        Ok(Piper {
            session: Mutex::new(session),
            voice,
            speaker_input,
            output,
        })
    }

    /// Samples per second of the audio this voice speaks.
    pub fn sample_rate(&self) -> u32 {
        self.voice.sample_rate
    }

    /// `text` spoken: one run of the model for each sentence, each
    /// sentence's audio scaled to full range, as Piper does. Text with
    /// nothing to say gives no samples.
    pub fn synthesize(&self, text: &str) -> Result<Pcm, VoiceError> {
        let mut samples = Vec::new();
        for ids in self.phoneme_ids(text)? {
            samples.extend(normalized(self.infer(ids)?));
        }
        Ok(Pcm {
            rate: self.voice.sample_rate,
            samples,
        })
    }

    /// The model's input for `text`: phoneme ids, one list per sentence
    /// with something to say.
    pub fn phoneme_ids(&self, text: &str) -> Result<Vec<Vec<i64>>, VoiceError> {
        let clauses = clauses(text);
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let phonemes = phonemize(&self.voice.espeak_voice, &clauses)?;
        Ok(sentences(&clauses, &phonemes)
            .iter()
            .filter_map(|sentence| self.voice.ids(sentence))
            .collect())
    }

    /// The model's audio for one sentence's phoneme ids.
    fn infer(&self, ids: Vec<i64>) -> Result<Vec<f32>, VoiceError> {
        let model = |e: ort::Error| VoiceError::Model(format!("voice model: {e}"));
        let count = ids.len();
        let mut inputs: Vec<(Cow<'static, str>, SessionInputValue<'static>)> = vec![
            (
                "input".into(),
                Tensor::from_array(([1usize, count], ids))
                    .map_err(model)?
                    .into(),
            ),
            (
                "input_lengths".into(),
                Tensor::from_array(([1usize], vec![count as i64]))
                    .map_err(model)?
                    .into(),
            ),
            (
                "scales".into(),
                Tensor::from_array(([3usize], self.voice.scales.to_vec()))
                    .map_err(model)?
                    .into(),
            ),
        ];
        if self.speaker_input {
            inputs.push((
                "sid".into(),
                Tensor::from_array(([1usize], vec![0i64]))
                    .map_err(model)?
                    .into(),
            ));
        }
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let outputs = session.run(inputs).map_err(model)?;
        let audio = outputs
            .get(&self.output)
            .ok_or_else(|| VoiceError::Model(format!("the voice gave no `{}`", self.output)))?;
        let (_, samples) = audio.try_extract_tensor::<f32>().map_err(model)?;
        Ok(samples.to_vec())
    }
}

/// A voice's `.onnx.json`: what the model expects.
#[derive(Debug, Clone, PartialEq)]
struct VoiceConfig {
    sample_rate: u32,
    espeak_voice: String,
    /// `noise_scale`, `length_scale`, `noise_w`.
    scales: [f32; 3],
    /// Ids of single-character phonemes; longer keys never come out of
    /// espeak-ng's phonemes and are left out.
    ids: HashMap<char, Vec<i64>>,
}

#[derive(Deserialize)]
struct RawVoice {
    audio: RawAudio,
    espeak: Option<RawEspeak>,
    #[serde(default)]
    inference: RawInference,
    phoneme_type: Option<String>,
    num_symbols: Option<i64>,
    phoneme_id_map: HashMap<String, Vec<i64>>,
}

#[derive(Deserialize)]
struct RawAudio {
    sample_rate: u32,
}

#[derive(Deserialize)]
struct RawEspeak {
    voice: String,
}

#[derive(Deserialize, Default)]
struct RawInference {
    noise_scale: Option<f32>,
    length_scale: Option<f32>,
    noise_w: Option<f32>,
}

impl VoiceConfig {
    /// Reads a voice config, with Piper's defaults for missing scales.
    fn parse(json: &str) -> Result<VoiceConfig, String> {
        let raw: RawVoice = serde_json::from_str(json).map_err(|e| e.to_string())?;
        if raw.audio.sample_rate == 0 {
            return Err("audio.sample_rate is 0".into());
        }
        if let Some(kind) = raw.phoneme_type.as_deref().filter(|k| *k != "espeak") {
            return Err(format!(
                "phoneme_type `{kind}` is not supported; only `espeak` is"
            ));
        }
        let espeak_voice = raw
            .espeak
            .map(|e| e.voice)
            .filter(|v| !v.is_empty() && !v.starts_with('-'))
            .ok_or("espeak.voice is missing")?;
        let scales = [
            raw.inference.noise_scale.unwrap_or(0.667),
            raw.inference.length_scale.unwrap_or(1.0),
            raw.inference.noise_w.unwrap_or(0.8),
        ];
        if scales.iter().any(|s| !s.is_finite()) || scales[1] <= 0.0 {
            return Err(format!("inference scales {scales:?} are out of range"));
        }
        let mut ids = HashMap::new();
        for (phoneme, phoneme_ids) in raw.phoneme_id_map {
            if let Some(bad) = phoneme_ids
                .iter()
                .find(|&&id| id < 0 || raw.num_symbols.is_some_and(|n| id >= n))
            {
                return Err(format!("phoneme {phoneme:?} has id {bad}, out of range"));
            }
            let mut chars = phoneme.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                ids.insert(c, phoneme_ids);
            }
        }
        for needed in [BOS, EOS, PAD] {
            if ids.get(&needed).is_none_or(|i| i.is_empty()) {
                return Err(format!("phoneme_id_map has no id for {needed:?}"));
            }
        }
        Ok(VoiceConfig {
            sample_rate: raw.audio.sample_rate,
            espeak_voice,
            scales,
            ids,
        })
    }

    /// A sentence's phonemes as model input: start, padding after it and
    /// after each known phoneme, end. `None` when no phoneme is known.
    fn ids(&self, phonemes: &[char]) -> Option<Vec<i64>> {
        let id = |c: char| self.ids.get(&c).map(Vec::as_slice).unwrap_or_default();
        let mut out = Vec::with_capacity(2 * phonemes.len() + 3);
        out.extend_from_slice(id(BOS));
        out.extend_from_slice(id(PAD));
        let mut known = false;
        for &phoneme in phonemes {
            if let Some(ids) = self.ids.get(&phoneme) {
                out.extend_from_slice(ids);
                out.extend_from_slice(id(PAD));
                known = true;
            }
        }
        out.extend_from_slice(id(EOS));
        known.then_some(out)
    }
}

/// `audio` scaled so its loudest sample is at full range, and clipped to it.
fn normalized(mut audio: Vec<f32>) -> Vec<f32> {
    let peak = audio.iter().fold(0f32, |m, s| m.max(s.abs()));
    let gain = if peak.is_finite() && peak > 1e-8 {
        1.0 / peak
    } else {
        0.0
    };
    for sample in &mut audio {
        *sample = (*sample * gain).clamp(-1.0, 1.0);
        if sample.is_nan() {
            *sample = 0.0;
        }
    }
    audio
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{
        "audio": {"sample_rate": 16000},
        "espeak": {"voice": "en-us"},
        "inference": {"noise_scale": 0.5, "length_scale": 1.5},
        "phoneme_type": "espeak",
        "num_symbols": 20,
        "phoneme_id_map": {"_": [0], "^": [1], "$": [2], " ": [3], ".": [4],
                           ",": [5], "h": [6], "i": [7], "ˈ": [8], "c": [9],
                           "̧": [10], "aɪ": [11], "?": [12]}
    }"#;

    #[test]
    fn parses_a_config_with_default_scales() {
        let voice = VoiceConfig::parse(CONFIG).unwrap();
        assert_eq!(voice.sample_rate, 16_000);
        assert_eq!(voice.espeak_voice, "en-us");
        assert_eq!(voice.scales, [0.5, 1.5, 0.8]);
        assert_eq!(voice.ids.get(&'h'), Some(&vec![6]));
        assert!(!voice.ids.values().any(|ids| ids == &vec![11]));
    }

    #[test]
    fn rejects_bad_configs() {
        assert!(VoiceConfig::parse("{").is_err());
        assert!(VoiceConfig::parse("[]").is_err());
        let without_pad = CONFIG.replace(r#""_": [0], "#, "");
        assert!(VoiceConfig::parse(&without_pad)
            .unwrap_err()
            .contains("'_'"));
        let out_of_range = CONFIG.replace(r#""h": [6]"#, r#""h": [60]"#);
        assert!(VoiceConfig::parse(&out_of_range)
            .unwrap_err()
            .contains("out of range"));
        let text = CONFIG.replace(r#""phoneme_type": "espeak""#, r#""phoneme_type": "text""#);
        assert!(VoiceConfig::parse(&text).is_err());
        let no_voice = CONFIG.replace(r#""espeak": {"voice": "en-us"},"#, "");
        assert!(VoiceConfig::parse(&no_voice).is_err());
        let silent = CONFIG.replace("16000", "0");
        assert!(VoiceConfig::parse(&silent).is_err());
    }

    #[test]
    fn maps_phonemes_to_padded_ids_skipping_unknown_ones() {
        let voice = VoiceConfig::parse(CONFIG).unwrap();
        let phonemes: Vec<char> = "hˈiz.".chars().collect();
        assert_eq!(
            voice.ids(&phonemes),
            Some(vec![1, 0, 6, 0, 8, 0, 7, 0, 4, 0, 2])
        );
        assert_eq!(voice.ids(&['z', 'q']), None);
        assert_eq!(voice.ids(&[]), None);
    }

    #[test]
    fn can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Piper>();
    }

    #[test]
    fn normalizes_to_full_range() {
        assert_eq!(normalized(vec![0.25, -0.5]), vec![0.5, -1.0]);
        assert_eq!(normalized(vec![0.0, 0.0]), vec![0.0, 0.0]);
        assert_eq!(normalized(vec![f32::NAN, 0.5]), vec![0.0, 1.0]);
    }

    #[test]
    fn fails_clearly_without_a_runtime() {
        let dir = std::env::temp_dir().join(format!("piper-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("voice.onnx.json");
        let model = dir.join("voice.onnx");
        std::fs::write(&config, CONFIG).unwrap();
        std::fs::write(&model, b"not a model").unwrap();
        let missing = Piper::load(&model, &config, &dir.join("libonnxruntime.so.1.28.0"));
        assert!(matches!(missing, Err(VoiceError::Model(m)) if m.contains("onnxruntime library")));
        let not_a_library = Piper::load(&model, &config, &config);
        assert!(
            matches!(not_a_library, Err(VoiceError::Model(m)) if m.contains("cannot load onnxruntime"))
        );
        let no_model = Piper::load(&dir.join("none.onnx"), &config, &config);
        assert!(matches!(no_model, Err(VoiceError::Model(m)) if m.contains("does not exist")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

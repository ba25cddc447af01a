//! A reader for CTranslate2's `model.bin`, the format Whisper conversions on
//! PyPI come in: every variable of the model by its CTranslate2 name.
//!
//! Layout (little endian): `u32` format version, the spec's name, `u32` spec
//! revision, `u32` variable count; each variable is a name, `u8` rank, rank ×
//! `u32` dimensions, `u8` data type, `u32` byte count and the data; then a
//! `u32` alias count and (alias, target) name pairs. A name is a `u16` length
//! and that many UTF-8 bytes.

use candle_core::{DType, Device, Tensor};
use std::collections::HashMap;

/// The format versions this reader knows.
const FORMAT_VERSION: u32 = 6;

/// Why a `model.bin` could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Ct2Error {
    /// The file ends inside a field.
    #[error("the file ends early: {what} at byte {at} needs {need} more bytes")]
    Truncated {
        /// The field being read.
        what: &'static str,
        /// Its offset.
        at: usize,
        /// Bytes it needs.
        need: usize,
    },
    /// A header field holds something this reader does not know.
    #[error("{0}")]
    Unsupported(String),
    /// The tensor could not be built.
    #[error("variable `{name}`: {source}")]
    Tensor {
        /// The variable.
        name: String,
        /// What candle said.
        source: candle_core::Error,
    },
}

/// The variables of a CTranslate2 model.
#[derive(Debug)]
pub struct Ct2Model {
    /// The spec the model was written with, e.g. `WhisperSpec`.
    pub spec: String,
    /// Float variables (weights), converted to f32.
    pub tensors: HashMap<String, Tensor>,
    /// Integer and boolean scalars (`encoder/num_heads`, `decoder/pre_norm`).
    pub scalars: HashMap<String, i64>,
}

impl Ct2Model {
    /// Parses a whole `model.bin`. Aliases (`decoder/projection/weight` →
    /// `decoder/embeddings/weight`) become second names of the same tensor.
    pub fn parse(bytes: &[u8]) -> Result<Ct2Model, Ct2Error> {
        let mut r = Reader { bytes, at: 0 };
        let version = r.u32("format version")?;
        if version != FORMAT_VERSION {
            return Err(Ct2Error::Unsupported(format!(
                "CTranslate2 format version {version} (this reader knows {FORMAT_VERSION})"
            )));
        }
        let spec = r.name()?;
        let _revision = r.u32("spec revision")?;
        let count = r.u32("variable count")?;
        let mut model = Ct2Model {
            spec,
            tensors: HashMap::new(),
            scalars: HashMap::new(),
        };
        for _ in 0..count {
            let name = r.name()?;
            let rank = r.u8("rank")? as usize;
            let dims = (0..rank)
                .map(|_| r.u32("dimension").map(|d| d as usize))
                .collect::<Result<Vec<_>, _>>()?;
            let kind = ElementKind::from_code(r.u8("data type")?, &name)?;
            let length = r.u32("byte count")? as usize;
            let data = r.take(length, "variable data")?;
            let elements: usize = dims.iter().product();
            if elements * kind.size() != length {
                return Err(Ct2Error::Unsupported(format!(
                    "variable `{name}`: {length} bytes do not hold {dims:?} of {kind:?}"
                )));
            }
            model.add(name, dims, kind, data)?;
        }
        let aliases = r.u32("alias count")?;
        for _ in 0..aliases {
            let alias = r.name()?;
            let target = r.name()?;
            let tensor = model.tensors.get(&target).cloned().ok_or_else(|| {
                Ct2Error::Unsupported(format!("alias `{alias}` names no variable `{target}`"))
            })?;
            model.tensors.insert(alias, tensor);
        }
        Ok(model)
    }

    fn add(
        &mut self,
        name: String,
        dims: Vec<usize>,
        kind: ElementKind,
        data: &[u8],
    ) -> Result<(), Ct2Error> {
        let tensor = |dtype: DType| {
            Tensor::from_raw_buffer(data, dtype, &dims, &Device::Cpu)
                .and_then(|t| t.to_dtype(DType::F32))
                .map_err(|source| Ct2Error::Tensor {
                    name: name.clone(),
                    source,
                })
        };
        match kind {
            ElementKind::F32 => {
                let t = tensor(DType::F32)?;
                self.tensors.insert(name, t);
            }
            ElementKind::F16 => {
                let t = tensor(DType::F16)?;
                self.tensors.insert(name, t);
            }
            ElementKind::Bf16 => {
                let t = tensor(DType::BF16)?;
                self.tensors.insert(name, t);
            }
            _ if dims.is_empty() => {
                let value = match kind {
                    ElementKind::I8 => data[0] as i8 as i64,
                    ElementKind::I16 => i16::from_le_bytes([data[0], data[1]]) as i64,
                    _ => i32::from_le_bytes([data[0], data[1], data[2], data[3]]) as i64,
                };
                self.scalars.insert(name, value);
            }
            _ => {
                return Err(Ct2Error::Unsupported(format!(
                    "variable `{name}` is an integer tensor {dims:?}: quantized (int8) \
                     CTranslate2 models are not supported; use a float16 or float32 conversion"
                )))
            }
        }
        Ok(())
    }
}

/// CTranslate2's element types.
#[derive(Debug, Clone, Copy)]
enum ElementKind {
    F32,
    I8,
    I16,
    I32,
    F16,
    Bf16,
}

impl ElementKind {
    fn from_code(code: u8, name: &str) -> Result<ElementKind, Ct2Error> {
        Ok(match code {
            0 => ElementKind::F32,
            1 => ElementKind::I8,
            2 => ElementKind::I16,
            3 => ElementKind::I32,
            4 => ElementKind::F16,
            5 => ElementKind::Bf16,
            other => {
                return Err(Ct2Error::Unsupported(format!(
                    "variable `{name}` has unknown data type {other}"
                )))
            }
        })
    }

    fn size(self) -> usize {
        match self {
            ElementKind::I8 => 1,
            ElementKind::I16 | ElementKind::F16 | ElementKind::Bf16 => 2,
            ElementKind::F32 | ElementKind::I32 => 4,
        }
    }
}

/// A cursor over the file's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Ct2Error> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(Ct2Error::Truncated {
                what,
                at: self.at,
                need: n - (self.bytes.len() - self.at.min(self.bytes.len())),
            });
        };
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, Ct2Error> {
        Ok(self.take(1, what)?[0])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, Ct2Error> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn name(&mut self) -> Result<String, Ct2Error> {
        let b = self.take(2, "name length")?;
        let length = u16::from_le_bytes([b[0], b[1]]) as usize;
        let bytes = self.take(length, "name")?;
        let text = String::from_utf8_lossy(bytes);
        Ok(text.trim_end_matches('\0').to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model.bin written field by field, as CTranslate2 writes one.
    fn file(variables: &[(&str, &[u32], u8, Vec<u8>)], aliases: &[(&str, &str)]) -> Vec<u8> {
        fn name(out: &mut Vec<u8>, s: &str) {
            out.extend((s.len() as u16 + 1).to_le_bytes());
            out.extend(s.as_bytes());
            out.push(0);
        }
        let mut out = Vec::new();
        out.extend(6u32.to_le_bytes());
        name(&mut out, "WhisperSpec");
        out.extend(3u32.to_le_bytes());
        out.extend((variables.len() as u32).to_le_bytes());
        for (n, dims, kind, data) in variables {
            name(&mut out, n);
            out.push(dims.len() as u8);
            for d in *dims {
                out.extend(d.to_le_bytes());
            }
            out.push(*kind);
            out.extend((data.len() as u32).to_le_bytes());
            out.extend(data);
        }
        out.extend((aliases.len() as u32).to_le_bytes());
        for (a, t) in aliases {
            name(&mut out, a);
            name(&mut out, t);
        }
        out
    }

    fn f16_bytes(values: &[f32]) -> Vec<u8> {
        values
            .iter()
            .flat_map(|v| half::f16::from_f32(*v).to_le_bytes())
            .collect()
    }

    #[test]
    fn reads_tensors_scalars_and_aliases() {
        let bytes = file(
            &[
                ("w", &[2, 2], 4, f16_bytes(&[1.0, -2.0, 0.5, 3.0])),
                ("encoder/num_heads", &[], 2, 6i16.to_le_bytes().to_vec()),
                ("decoder/pre_norm", &[], 1, vec![1]),
            ],
            &[("proj", "w")],
        );
        let model = Ct2Model::parse(&bytes).unwrap();
        assert_eq!(model.spec, "WhisperSpec");
        let w = model.tensors["w"].to_vec2::<f32>().unwrap();
        assert_eq!(w, vec![vec![1.0, -2.0], vec![0.5, 3.0]]);
        assert_eq!(model.tensors["proj"].to_vec2::<f32>().unwrap(), w);
        assert_eq!(model.scalars["encoder/num_heads"], 6);
        assert_eq!(model.scalars["decoder/pre_norm"], 1);
    }

    #[test]
    fn bad_files_are_errors_not_panics() {
        let good = file(&[("w", &[2], 0, vec![0; 8])], &[]);
        for cut in 0..good.len() {
            assert!(Ct2Model::parse(&good[..cut]).is_err(), "cut at {cut}");
        }
        let wrong_size = file(&[("w", &[3], 0, vec![0; 8])], &[]);
        let message = Ct2Model::parse(&wrong_size).unwrap_err().to_string();
        assert!(message.contains("do not hold"), "{message}");
        let int8 = file(&[("w", &[2], 1, vec![0; 2])], &[]);
        let message = Ct2Model::parse(&int8).unwrap_err().to_string();
        assert!(message.contains("quantized"), "{message}");
        let dangling = file(&[], &[("a", "missing")]);
        assert!(Ct2Model::parse(&dangling).is_err());
        let mut version = good.clone();
        version[0] = 9;
        let message = Ct2Model::parse(&version).unwrap_err().to_string();
        assert!(message.contains("format version 9"), "{message}");
    }
}

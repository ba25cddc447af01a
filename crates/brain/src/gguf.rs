//! Reading GGUF files as untrusted input.
//!
//! A GGUF file is a header of key/value metadata, a table of tensors and the
//! tensor data. candle parses the bytes; this module turns every way a file can
//! be wrong — missing, truncated, not GGUF, absurd numbers — into one error
//! line that names the file and the problem.

use candle_core::quantized::gguf_file::{Content, Value};
use candle_core::quantized::{GgmlDType, QStorage, QTensor};
use candle_core::Device;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

/// An error about one GGUF file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct GgufError {
    /// The file.
    pub path: String,
    /// What is wrong with it.
    pub reason: String,
}

/// An opened GGUF file: its parsed header and a reader for its tensors.
pub struct GgufFile {
    path: PathBuf,
    content: Content,
    reader: BufReader<File>,
    file_size: u64,
}

const GGUF_MAGIC: &[u8; 4] = b"GGUF";

impl GgufFile {
    /// Opens and parses the header of a GGUF file.
    pub fn open(path: &Path) -> Result<Self, GgufError> {
        let fail = |reason: String| GgufError {
            path: path.display().to_string(),
            reason,
        };
        let file = File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?;
        let file_size = file
            .metadata()
            .map_err(|e| fail(format!("cannot stat: {e}")))?
            .len();
        let mut reader = BufReader::new(file);
        let mut magic = [0u8; 4];
        if reader.read_exact(&mut magic).is_err() || &magic != GGUF_MAGIC {
            return Err(fail(
                "not a GGUF file (it does not start with `GGUF`)".into(),
            ));
        }
        reader
            .rewind()
            .map_err(|e| fail(format!("cannot read: {e}")))?;
        let content = Content::read(&mut reader)
            .map_err(|e| fail(format!("damaged GGUF header: {}", first_line(&e))))?;
        Ok(GgufFile {
            path: path.to_path_buf(),
            content,
            reader,
            file_size,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An error about this file.
    pub fn error(&self, reason: impl Into<String>) -> GgufError {
        GgufError {
            path: self.path.display().to_string(),
            reason: reason.into(),
        }
    }

    /// All metadata keys, sorted.
    pub fn keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.content.metadata.keys().map(String::as_str).collect();
        keys.sort_unstable();
        keys
    }

    /// A metadata value, if present.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.content.metadata.get(key)
    }

    /// The value of `general.architecture`.
    pub fn architecture(&self) -> Result<String, GgufError> {
        self.string("general.architecture")
    }

    /// A required string value.
    pub fn string(&self, key: &str) -> Result<String, GgufError> {
        match self.value(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.error(format!(
                "metadata `{key}` is not a string: {}",
                describe(other)
            ))),
            None => Err(self.error(format!("metadata `{key}` is missing"))),
        }
    }

    /// An optional string value.
    pub fn opt_string(&self, key: &str) -> Option<String> {
        match self.value(key) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// A required non-negative integer, checked against `range`.
    pub fn usize_in(
        &self,
        key: &str,
        range: std::ops::RangeInclusive<usize>,
    ) -> Result<usize, GgufError> {
        let v = self
            .value(key)
            .ok_or_else(|| self.error(format!("metadata `{key}` is missing")))?;
        let n = as_u64(v).ok_or_else(|| {
            self.error(format!(
                "metadata `{key}` is not a non-negative integer: {}",
                describe(v)
            ))
        })?;
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if !range.contains(&n) {
            return Err(self.error(format!(
                "metadata `{key}` = {n} is outside the sane range {}..={}",
                range.start(),
                range.end()
            )));
        }
        Ok(n)
    }

    /// An optional non-negative integer, checked against `range` when present.
    pub fn opt_usize_in(
        &self,
        key: &str,
        range: std::ops::RangeInclusive<usize>,
    ) -> Result<Option<usize>, GgufError> {
        match self.value(key) {
            None => Ok(None),
            Some(_) => self.usize_in(key, range).map(Some),
        }
    }

    /// An optional finite float, checked to be positive when present.
    pub fn opt_positive_f64(&self, key: &str) -> Result<Option<f64>, GgufError> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        let x = match v {
            Value::F32(x) => *x as f64,
            Value::F64(x) => *x,
            other => match as_u64(other) {
                Some(n) => n as f64,
                None => {
                    return Err(self.error(format!(
                        "metadata `{key}` is not a number: {}",
                        describe(other)
                    )))
                }
            },
        };
        if !x.is_finite() || x <= 0.0 {
            return Err(self.error(format!("metadata `{key}` = {x} must be a positive number")));
        }
        Ok(Some(x))
    }

    /// An optional boolean.
    pub fn opt_bool(&self, key: &str) -> Option<bool> {
        match self.value(key) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// A required array of strings.
    pub fn strings(&self, key: &str) -> Result<Vec<String>, GgufError> {
        self.opt_array(key, "a string", |v| match v {
            Value::String(s) => Some(s.clone()),
            _ => None,
        })?
        .ok_or_else(|| self.error(format!("metadata `{key}` is missing")))
    }

    /// An optional array of numbers as f32 (e.g. token scores).
    pub fn opt_f32s(&self, key: &str) -> Result<Option<Vec<f32>>, GgufError> {
        self.opt_array(key, "a number", |v| match v {
            Value::F32(x) => Some(*x),
            Value::F64(x) => Some(*x as f32),
            other => as_u64(other).map(|n| n as f32),
        })
    }

    /// An optional array of integers (e.g. token types).
    pub fn opt_u32s(&self, key: &str) -> Result<Option<Vec<u32>>, GgufError> {
        self.opt_array(key, "a small integer", |v| {
            as_u64(v).and_then(|n| u32::try_from(n).ok())
        })
    }

    /// An optional array whose every item `convert` accepts; `what` names
    /// the expected item kind in errors.
    fn opt_array<T>(
        &self,
        key: &str,
        what: &str,
        convert: impl Fn(&Value) -> Option<T>,
    ) -> Result<Option<Vec<T>>, GgufError> {
        let Some(v) = self.value(key) else {
            return Ok(None);
        };
        let Value::Array(items) = v else {
            return Err(self.error(format!("metadata `{key}` is not an array: {}", describe(v))));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                convert(item).ok_or_else(|| {
                    self.error(format!(
                        "metadata `{key}`[{i}] is not {what}: {}",
                        describe(item)
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// Whether the file has a tensor of this name.
    pub fn has_tensor(&self, name: &str) -> bool {
        self.content.tensor_infos.contains_key(name)
    }

    /// Names of all tensors, sorted.
    pub fn tensor_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .content
            .tensor_infos
            .keys()
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names
    }

    /// Shape of a tensor (outermost dimension first), if present.
    pub fn tensor_shape(&self, name: &str) -> Option<Vec<usize>> {
        self.content
            .tensor_infos
            .get(name)
            .map(|info| info.shape.dims().to_vec())
    }

    /// The stored type of tensor `name`, if the file has it.
    pub fn tensor_type(&self, name: &str) -> Option<GgmlDType> {
        self.content
            .tensor_infos
            .get(name)
            .map(|info| info.ggml_dtype)
    }

    /// Bytes of all the tensors' data, as stored.
    pub fn tensor_bytes(&self) -> usize {
        self.content
            .tensor_infos
            .values()
            .map(|info| {
                info.shape.elem_count() / info.ggml_dtype.block_size() * info.ggml_dtype.type_size()
            })
            .sum()
    }

    /// Tensors of one type and one column count (`parts`: name and rows)
    /// read as one matrix on `device`, their rows stacked in order: one
    /// product in place of several.
    pub fn stacked_tensor(
        &mut self,
        parts: &[(&str, usize)],
        cols: usize,
        device: &Device,
    ) -> Result<QTensor, GgufError> {
        let Some(dtype) = parts.first().and_then(|(name, _)| self.tensor_type(name)) else {
            return Err(self.error("no tensors to stack"));
        };
        let mut bytes = Vec::new();
        for &(name, rows) in parts {
            if self.tensor_type(name) != Some(dtype) {
                return Err(self.error(format!("tensor `{name}` is not of type {dtype:?}")));
            }
            let part = self.tensor(name, &[rows, cols], &Device::Cpu)?;
            let data = part
                .data()
                .map_err(|e| self.error(format!("cannot read tensor `{name}`: {e}")))?;
            bytes.extend_from_slice(&data);
        }
        let rows: usize = parts.iter().map(|(_, rows)| rows).sum();
        let storage = QStorage::from_data(std::borrow::Cow::Owned(bytes), device, dtype)
            .map_err(|e| self.error(format!("cannot place stacked tensors: {e}")))?;
        QTensor::new(storage, (rows, cols))
            .map_err(|e| self.error(format!("cannot stack tensors: {e}")))
    }

    /// Reads a tensor onto `device`, checking that it has the `expected` shape
    /// and that its data lies inside the file.
    pub fn tensor(
        &mut self,
        name: &str,
        expected: &[usize],
        device: &Device,
    ) -> Result<QTensor, GgufError> {
        let info = self
            .content
            .tensor_infos
            .get(name)
            .ok_or_else(|| self.error(format!("tensor `{name}` is missing")))?;
        let dims = info.shape.dims();
        if dims != expected {
            return Err(self.error(format!(
                "tensor `{name}` has shape {dims:?}, the metadata implies {expected:?}"
            )));
        }
        let elements = dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| self.error(format!("tensor `{name}` shape {dims:?} overflows")))?;
        let block = info.ggml_dtype.block_size();
        let bytes = (elements / block.max(1)) as u128 * info.ggml_dtype.type_size() as u128;
        let start = self.content.tensor_data_offset as u128 + info.offset as u128;
        if start + bytes > self.file_size as u128 {
            return Err(self.error(format!(
                "tensor `{name}` needs bytes {start}..{} but the file has {} (truncated?)",
                start + bytes,
                self.file_size
            )));
        }
        // Freed blocks of this tensor's size take its bytes; the others
        // would only sit beside the loaded model.
        loopd_alloc::keep_only(bytes as usize);
        let path = self.path.display().to_string();
        self.content
            .tensor(&mut self.reader, name, device)
            .map_err(|e| GgufError {
                path,
                reason: format!("cannot read tensor `{name}`: {}", first_line(&e)),
            })
    }
}

fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::U8(x) => Some(*x as u64),
        Value::U16(x) => Some(*x as u64),
        Value::U32(x) => Some(*x as u64),
        Value::U64(x) => Some(*x),
        Value::I8(x) => u64::try_from(*x).ok(),
        Value::I16(x) => u64::try_from(*x).ok(),
        Value::I32(x) => u64::try_from(*x).ok(),
        Value::I64(x) => u64::try_from(*x).ok(),
        _ => None,
    }
}

/// A short description of a metadata value for error messages and `models info`.
pub fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let short: String = s.chars().take(60).collect();
            if short.len() < s.len() {
                format!("{short:?}… ({} bytes)", s.len())
            } else {
                format!("{s:?}")
            }
        }
        Value::Array(items) => {
            let kind = items
                .first()
                .map(|first| format!("{:?}", first.value_type()))
                .unwrap_or_else(|| "empty".into());
            format!("[{kind}; {}]", items.len())
        }
        Value::Bool(b) => b.to_string(),
        Value::F32(x) => x.to_string(),
        Value::F64(x) => x.to_string(),
        other => as_u64(other)
            .map(|n| n.to_string())
            .unwrap_or_else(|| format!("{other:?}")),
    }
}

fn first_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

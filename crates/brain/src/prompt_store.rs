//! Warmed prompts kept on disk, so a restarted daemon (or a one-shot `ask`)
//! starts from the persona prompts an earlier run already computed instead
//! of computing them again: seconds on a small board.
//!
//! Only shared caches ([`SHARED_PREFIX`](super::prefix_cache::SHARED_PREFIX)
//! sessions: a persona's system prompt and a fixed placeholder question) are
//! written; nothing a user said ever is. A file is used only by the same
//! model file, device, cache type and loopd binary that wrote it (its name
//! begins with a key of all four), so a kernel change never mixes its
//! numbers with another build's.
//!
//! A file is `LOOPDKV1`, a little-endian `u32` header length, a JSON
//! header (session, tokens, cache geometry) and the bytes of
//! [`KvCache::to_bytes`]. Files that do not parse, or do not fit their
//! header, are skipped with a log line: they are input like any other.

use super::kv_cache::{KvCache, KvShape};
use candle_core::DType;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"LOOPDKV1";
/// Largest header read (a token list of about 100 000 ids).
const MAX_HEADER: usize = 1 << 20;
/// Largest file read or written.
const MAX_FILE: u64 = 512 << 20;
/// Most files the directory keeps; the least recently written go first.
const MAX_FILES: usize = 32;
/// Shortest stored prefix worth reading from disk.
const MIN_TOKENS: usize = 16;

/// What a file says about itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Header {
    session: String,
    tokens: Vec<u32>,
    layers: usize,
    kv_heads: usize,
    head_dim: usize,
    dtype: String,
}

/// One stored prompt, as listed when the store opened.
struct Stored {
    path: PathBuf,
    header: Header,
    data_offset: u64,
}

/// The warmed prompts one model may reuse, in one directory.
pub struct PromptStore {
    dir: PathBuf,
    key: String,
    stored: Vec<Stored>,
}

impl PromptStore {
    /// The store for files of `key` in `dir`, listing what is there
    /// (nothing if the directory does not exist yet).
    pub fn open(dir: PathBuf, key: String) -> Self {
        let mut store = PromptStore {
            dir,
            key,
            stored: Vec::new(),
        };
        let Ok(entries) = fs::read_dir(&store.dir) else {
            return store;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !store.is_ours(&path) {
                continue;
            }
            match read_header(&path) {
                Ok((header, data_offset)) => store.stored.push(Stored {
                    path,
                    header,
                    data_offset,
                }),
                Err(err) => tracing::warn!("stored prompt {} skipped: {err}", path.display()),
            }
        }
        store
    }

    /// The key of the files a model may reuse: the model file (path, size,
    /// modification time), the running binary (likewise), the device and
    /// the cache's element type.
    pub fn key_for(model: &Path, device: &str, dtype: DType) -> String {
        let mut hash = Fnv::new();
        for path in [Some(model.to_path_buf()), std::env::current_exe().ok()]
            .into_iter()
            .flatten()
        {
            let path = path.canonicalize().unwrap_or(path);
            hash.write(path.as_os_str().as_encoded_bytes());
            if let Ok(meta) = fs::metadata(&path) {
                hash.write(&meta.len().to_le_bytes());
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                hash.write(&modified.to_le_bytes());
            }
        }
        hash.write(device.as_bytes());
        hash.write(dtype_name(dtype).as_bytes());
        format!("{:016x}", hash.finish())
    }

    /// The directory a daemon keeps its warmed prompts in: under systemd's
    /// `CacheDirectory`, else `$XDG_CACHE_HOME/loopd`, else `~/.cache/loopd`.
    pub fn default_dir() -> Option<PathBuf> {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let base = env("CACHE_DIRECTORY")
            .map(|dirs| {
                // systemd may list several, separated by colons.
                let first = dirs
                    .to_string_lossy()
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .to_string();
                PathBuf::from(first)
            })
            .or_else(|| env("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("loopd")))
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".cache").join("loopd")))?;
        Some(base.join("prompts"))
    }

    /// The stored prompt sharing the longest prefix with `prompt`, at most
    /// `limit` tokens of it, and that length; `None` below a few tokens.
    pub fn longest(&self, prompt: &[u32], limit: usize) -> Option<(usize, usize)> {
        self.stored
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let common = s
                    .header
                    .tokens
                    .iter()
                    .zip(prompt)
                    .take_while(|(a, b)| a == b)
                    .count();
                (i, common.min(limit))
            })
            .filter(|&(_, n)| n >= MIN_TOKENS)
            .max_by_key(|&(_, n)| n)
    }

    /// Reads stored prompt `index` as a cache of `shape`, with the session
    /// it was written for. A file that fails is forgotten.
    pub fn load(&mut self, index: usize, shape: &KvShape) -> Result<(String, KvCache), String> {
        let stored = self.stored.get(index).ok_or("no such stored prompt")?;
        let result = read_cache(stored, shape);
        if result.is_err() {
            self.stored.remove(index);
        }
        result
    }

    /// Writes `cache` of `session` (a shared session's) unless a stored
    /// prompt already holds exactly its tokens. Failing to write is logged,
    /// never an error: the store only saves time.
    pub fn save(&mut self, session: &str, cache: &KvCache) {
        if cache.len() < MIN_TOKENS
            || self
                .stored
                .iter()
                .any(|s| s.header.tokens == cache.tokens())
        {
            return;
        }
        match self.write(session, cache) {
            Ok(stored) => {
                tracing::info!(
                    "kept the warmed prompt of `{session}` ({} tokens) in {}",
                    cache.len(),
                    stored.path.display()
                );
                self.stored.push(stored);
                self.prune();
            }
            Err(err) => tracing::debug!("warmed prompt of `{session}` not kept: {err}"),
        }
    }

    fn write(&self, session: &str, cache: &KvCache) -> Result<Stored, String> {
        let shape = cache.shape();
        let header = Header {
            session: session.to_string(),
            tokens: cache.tokens().to_vec(),
            layers: shape.layers,
            kv_heads: shape.kv_heads,
            head_dim: shape.head_dim,
            dtype: dtype_name(shape.dtype).to_string(),
        };
        let header_bytes = serde_json::to_vec(&header).map_err(|e| e.to_string())?;
        let data = cache.to_bytes().map_err(|e| e.to_string())?;
        let total = (MAGIC.len() + 4 + header_bytes.len() + data.len()) as u64;
        if header_bytes.len() > MAX_HEADER || total > MAX_FILE {
            return Err(format!(
                "{total} bytes is more than a stored prompt may hold"
            ));
        }
        create_private_dir(&self.dir)?;
        let mut tokens_hash = Fnv::new();
        for t in cache.tokens() {
            tokens_hash.write(&t.to_le_bytes());
        }
        let path = self
            .dir
            .join(format!("{}-{:016x}.kv", self.key, tokens_hash.finish()));
        let partial = path.with_extension(format!("kv.{}.partial", std::process::id()));
        let written = (|| -> std::io::Result<()> {
            let mut file = private_file(&partial)?;
            file.write_all(MAGIC)?;
            file.write_all(&(header_bytes.len() as u32).to_le_bytes())?;
            file.write_all(&header_bytes)?;
            file.write_all(&data)?;
            file.sync_all()?;
            fs::rename(&partial, &path)
        })();
        if let Err(err) = written {
            let _ = fs::remove_file(&partial);
            return Err(err.to_string());
        }
        Ok(Stored {
            path,
            header,
            data_offset: (MAGIC.len() + 4 + header_bytes.len()) as u64,
        })
    }

    /// Removes the oldest `.kv` files of the directory (any key) beyond
    /// [`MAX_FILES`].
    fn prune(&mut self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "kv"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if files.len() <= MAX_FILES {
            return;
        }
        files.sort();
        for (_, path) in &files[..files.len() - MAX_FILES] {
            let _ = fs::remove_file(path);
            self.stored.retain(|s| &s.path != path);
        }
    }

    fn is_ours(&self, path: &Path) -> bool {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        name.strip_prefix(self.key.as_str())
            .is_some_and(|rest| rest.starts_with('-') && rest.ends_with(".kv"))
    }
}

fn read_header(path: &Path) -> Result<(Header, u64), String> {
    let mut file = File::open(path).map_err(|e| e.to_string())?;
    let mut magic = [0u8; 8];
    let mut len = [0u8; 4];
    file.read_exact(&mut magic).map_err(|e| e.to_string())?;
    if &magic != MAGIC {
        return Err("not a stored prompt".into());
    }
    file.read_exact(&mut len).map_err(|e| e.to_string())?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_HEADER {
        return Err(format!("a header of {len} bytes"));
    }
    let mut header = vec![0u8; len];
    file.read_exact(&mut header).map_err(|e| e.to_string())?;
    let header: Header = serde_json::from_slice(&header).map_err(|e| e.to_string())?;
    Ok((header, (MAGIC.len() + 4 + len) as u64))
}

fn read_cache(stored: &Stored, shape: &KvShape) -> Result<(String, KvCache), String> {
    let header = &stored.header;
    let geometry = (
        header.layers,
        header.kv_heads,
        header.head_dim,
        header.dtype.as_str(),
    );
    let wanted = (
        shape.layers,
        shape.kv_heads,
        shape.head_dim,
        dtype_name(shape.dtype),
    );
    if geometry != wanted {
        return Err(format!("a cache of {geometry:?}, not {wanted:?}"));
    }
    let expected = stored.data_offset + (header.tokens.len() * shape.token_bytes()) as u64;
    let mut file = File::open(&stored.path).map_err(|e| e.to_string())?;
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    if size != expected || size > MAX_FILE {
        return Err(format!("{size} bytes where the header implies {expected}"));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let data = &bytes[stored.data_offset as usize..];
    let cache = KvCache::from_bytes(shape.clone(), header.tokens.clone(), data)
        .map_err(|e| e.to_string())?;
    Ok((header.session.clone(), cache))
}

fn dtype_name(dtype: DType) -> &'static str {
    match dtype {
        DType::F16 => "f16",
        DType::F32 => "f32",
        DType::BF16 => "bf16",
        _ => "other",
    }
}

fn create_private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

fn private_file(path: &Path) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// FNV-1a, 64 bits: a stable hash for file names (std's changes between
/// Rust releases).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        // Separates fields, so ("ab", "c") and ("a", "bc") differ.
        self.0 = self.0.wrapping_mul(0x0100_0000_01b3) ^ 0xff;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

    fn shape() -> KvShape {
        KvShape {
            layers: 2,
            kv_heads: 1,
            head_dim: 4,
            max_tokens: 256,
            dtype: DType::F16,
            device: Device::Cpu,
        }
    }

    fn cache(tokens: &[u32]) -> KvCache {
        let mut cache = KvCache::new(shape());
        let n = tokens.len();
        let values: Vec<f32> = (0..n * 4).map(|i| i as f32 / 8.0).collect();
        let t = Tensor::from_vec(values, (1, 1, n, 4), &Device::Cpu).unwrap();
        for layer in 0..2 {
            cache.append(layer, &t, &t).unwrap();
        }
        cache.commit(tokens);
        cache
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("loopd-store-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_saved_prompt_is_found_by_a_longer_one_and_reads_back_the_same() {
        let dir = temp_dir("round");
        let tokens: Vec<u32> = (100..140).collect();
        let mut store = PromptStore::open(dir.clone(), "k1".into());
        store.save("warm:default", &cache(&tokens));
        let reopened = PromptStore::open(dir.clone(), "k1".into());
        let mut prompt = tokens.clone();
        prompt.extend([7, 8, 9]);
        let (index, n) = reopened.longest(&prompt, prompt.len() - 1).unwrap();
        assert_eq!(n, tokens.len());
        let mut reopened = reopened;
        let (session, back) = reopened.load(index, &shape()).unwrap();
        assert_eq!(session, "warm:default");
        assert_eq!(back.tokens(), &tokens[..]);
        assert_eq!(back.to_bytes().unwrap(), cache(&tokens).to_bytes().unwrap());
        assert!(PromptStore::open(dir.clone(), "k2".into())
            .longest(&prompt, 99)
            .is_none());
        assert!(reopened.longest(&[1, 2, 3], 2).is_none());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_skipped_and_forgotten() {
        let dir = temp_dir("bad");
        let tokens: Vec<u32> = (0..32).collect();
        let mut store = PromptStore::open(dir.clone(), "k1".into());
        store.save("warm:default", &cache(&tokens));
        let path = store.stored[0].path.clone();
        let mut bytes = fs::read(&path).unwrap();
        bytes.truncate(bytes.len() - 3);
        fs::write(&path, &bytes).unwrap();
        fs::write(dir.join("k1-junk.kv"), b"not a cache").unwrap();
        let mut store = PromptStore::open(dir.clone(), "k1".into());
        assert_eq!(store.stored.len(), 1, "the junk file is not listed");
        let (index, _) = store.longest(&tokens, 31).unwrap();
        let err = store.load(index, &shape()).unwrap_err();
        assert!(err.contains("bytes where the header implies"), "{err}");
        assert!(
            store.longest(&tokens, 31).is_none(),
            "a failed file is forgotten"
        );
        let wider = KvShape {
            head_dim: 8,
            ..shape()
        };
        let mut store = PromptStore::open(dir.clone(), "k1".into());
        assert!(store.load(0, &wider).unwrap_err().contains("a cache of"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn keys_differ_by_device_and_type() {
        let model = Path::new("/nonexistent/model.gguf");
        let a = PromptStore::key_for(model, "cpu", DType::F16);
        assert_eq!(a, PromptStore::key_for(model, "cpu", DType::F16));
        assert_ne!(a, PromptStore::key_for(model, "cuda:0", DType::F16));
        assert_ne!(a, PromptStore::key_for(model, "cpu", DType::F32));
    }
}

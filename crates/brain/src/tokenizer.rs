//! The tokenizer described by a GGUF file's `tokenizer.ggml.*` metadata.
//!
//! Two kinds are built, both on the `tokenizers` crate:
//! - `gpt2`: byte-level BPE (SmolLM2, Qwen, Llama 3, Phi-3 variants), with
//!   the pre-tokenizer named by `tokenizer.ggml.pre`;
//! - `llama`: SentencePiece BPE with scores and byte fallback (Gemma, Llama 2);
//!   its merges are derived from the scores.
//!
//! Control and user-defined tokens (`<|im_end|>`, `<tool_call>`) are added
//! tokens, so they are never split when encoding. Decoding does not go through
//! `tokenizers`: every token maps to the exact bytes it stands for, and
//! [`Utf8Stream`] turns a stream of those bytes into whole characters.

use super::gguf::{GgufError, GgufFile};
use std::collections::HashMap;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::normalizers::{unicode::NFC, Prepend, Replace, Sequence as NormSeq};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence as PreSeq;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{AddedToken, NormalizerWrapper, PreTokenizerWrapper, SplitDelimiterBehavior};

/// What kind of token a vocabulary entry is (GGUF `tokenizer.ggml.token_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Ordinary text.
    Normal,
    /// The unknown token.
    Unknown,
    /// A control token such as `<|im_start|>`: structure, not text.
    Control,
    /// A token the model's authors added, such as `<tool_call>`.
    UserDefined,
    /// Reserved, never produced.
    Unused,
    /// One raw byte (`<0x0A>`) for SentencePiece byte fallback.
    Byte,
}

impl TokenKind {
    fn from_gguf(code: u32) -> Self {
        match code {
            2 => TokenKind::Unknown,
            3 => TokenKind::Control,
            4 => TokenKind::UserDefined,
            5 => TokenKind::Unused,
            6 => TokenKind::Byte,
            _ => TokenKind::Normal,
        }
    }
}

/// Which tokenizer algorithm a GGUF describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    ByteLevelBpe,
    SentencePiece,
}

/// A tokenizer built from GGUF metadata.
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    /// The bytes each token id decodes to.
    pieces: Vec<Vec<u8>>,
    kinds: Vec<TokenKind>,
    bos: Option<u32>,
    add_bos: bool,
    end_of_turn: Vec<u32>,
}

/// Texts that end a turn in the chat formats loopd knows, when they are tokens.
const END_OF_TURN_TEXTS: &[&str] = &[
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|return|>",
    "</s>",
];

impl Tokenizer {
    /// Builds the tokenizer a GGUF file describes.
    pub fn from_gguf(gguf: &GgufFile) -> Result<Self, GgufError> {
        let model = gguf.string("tokenizer.ggml.model")?;
        let family = match model.as_str() {
            "gpt2" => Family::ByteLevelBpe,
            "llama" => Family::SentencePiece,
            other => {
                return Err(gguf.error(format!(
                    "tokenizer kind `{other}` is not supported (supported: gpt2, llama)"
                )))
            }
        };
        let tokens = gguf.strings("tokenizer.ggml.tokens")?;
        let n = tokens.len();
        if n == 0 {
            return Err(gguf.error("the vocabulary is empty (tokenizer.ggml.tokens has 0 entries)"));
        }
        if n > u32::MAX as usize / 2 {
            return Err(gguf.error(format!("the vocabulary has an absurd size of {n}")));
        }
        let kinds: Vec<TokenKind> = match gguf.opt_u32s("tokenizer.ggml.token_type")? {
            Some(types) if types.len() != n => {
                return Err(gguf.error(format!(
                    "tokenizer.ggml.token_type has {} entries for {n} tokens",
                    types.len()
                )))
            }
            Some(types) => types.into_iter().map(TokenKind::from_gguf).collect(),
            None => vec![TokenKind::Normal; n],
        };
        let id_key = |key: &str| -> Result<Option<u32>, GgufError> {
            Ok(gguf.opt_usize_in(key, 0..=n - 1)?.map(|id| id as u32))
        };
        let bos = id_key("tokenizer.ggml.bos_token_id")?;
        let eos = id_key("tokenizer.ggml.eos_token_id")?;
        let eot = id_key("tokenizer.ggml.eot_token_id")?;
        let eom = id_key("tokenizer.ggml.eom_token_id")?;
        let unk = id_key("tokenizer.ggml.unknown_token_id")?;

        let (mut inner, pieces) = match family {
            Family::ByteLevelBpe => {
                let merges = gguf.strings("tokenizer.ggml.merges")?;
                let pre = gguf.opt_string("tokenizer.ggml.pre").unwrap_or_default();
                byte_level_bpe(gguf, &tokens, &kinds, &merges, &pre)?
            }
            Family::SentencePiece => {
                let scores = gguf
                    .opt_f32s("tokenizer.ggml.scores")?
                    .ok_or_else(|| gguf.error("metadata `tokenizer.ggml.scores` is missing"))?;
                if scores.len() != n {
                    return Err(gguf.error(format!(
                        "tokenizer.ggml.scores has {} entries for {n} tokens",
                        scores.len()
                    )));
                }
                let space_prefix = gguf
                    .opt_bool("tokenizer.ggml.add_space_prefix")
                    .unwrap_or(true);
                let unk_text = unk.map(|id| tokens[id as usize].clone());
                sentencepiece_bpe(gguf, &tokens, &kinds, &scores, space_prefix, unk_text)?
            }
        };

        let added: Vec<AddedToken> = tokens
            .iter()
            .zip(&kinds)
            .enumerate()
            .filter(|(i, (_, kind))| {
                matches!(kind, TokenKind::Control | TokenKind::UserDefined)
                    || Some(*i as u32) == bos
                    || Some(*i as u32) == eos
            })
            .map(|(_, (text, kind))| {
                AddedToken::from(text.clone(), *kind != TokenKind::UserDefined).normalized(false)
            })
            .collect();
        inner
            .add_tokens(added)
            .map_err(|e| gguf.error(format!("cannot add special tokens: {e}")))?;

        let mut end_of_turn: Vec<u32> = [eos, eot, eom].into_iter().flatten().collect();
        for (i, text) in tokens.iter().enumerate() {
            if kinds[i] == TokenKind::Control && END_OF_TURN_TEXTS.contains(&text.as_str()) {
                end_of_turn.push(i as u32);
            }
        }
        end_of_turn.sort_unstable();
        end_of_turn.dedup();

        Ok(Tokenizer {
            inner,
            pieces,
            kinds,
            bos,
            add_bos: gguf
                .opt_bool("tokenizer.ggml.add_bos_token")
                .unwrap_or(false),
            end_of_turn,
        })
    }

    /// Number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.pieces.len()
    }

    /// Encodes text; special tokens written as text become their single token.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, EncodeError> {
        self.inner
            .encode_fast(text, false)
            .map(|enc| enc.get_ids().to_vec())
            .map_err(EncodeError)
    }

    /// Encodes a rendered chat prompt, adding BOS when the model wants it and
    /// the template did not write it.
    pub fn encode_prompt(&self, text: &str) -> Result<Vec<u32>, EncodeError> {
        let mut ids = self.encode(text)?;
        if let (true, Some(bos)) = (self.add_bos, self.bos) {
            if ids.first() != Some(&bos) {
                ids.insert(0, bos);
            }
        }
        Ok(ids)
    }

    /// The bytes a token stands for (empty for an out-of-range id).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.pieces
            .get(id as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The kind of a token, if the id is in range.
    pub fn kind(&self, id: u32) -> Option<TokenKind> {
        self.kinds.get(id as usize).copied()
    }

    /// The text of a token as it appears in the vocabulary (lossy for partial
    /// UTF-8), for templates and diagnostics.
    pub fn token_text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.token_bytes(id)).into_owned()
    }

    /// The id of a token written exactly as `text`, if it is one token.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        self.inner.token_to_id(text)
    }

    /// Tokens that end the assistant's turn.
    pub fn end_of_turn(&self) -> &[u32] {
        &self.end_of_turn
    }

    /// Whether a token ends the assistant's turn.
    pub fn is_end_of_turn(&self, id: u32) -> bool {
        self.end_of_turn.contains(&id)
    }

    /// The beginning-of-sequence token, if the model has one.
    pub fn bos(&self) -> Option<u32> {
        self.bos
    }

    /// Decodes ids to text, keeping special tokens and replacing invalid
    /// UTF-8 with U+FFFD.
    pub fn decode(&self, ids: &[u32]) -> String {
        let bytes: Vec<u8> = ids
            .iter()
            .flat_map(|&id| self.token_bytes(id).iter().copied())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Why text could not be encoded: what the `tokenizers` crate reported.
#[derive(Debug, thiserror::Error)]
#[error("cannot tokenize: {0}")]
pub struct EncodeError(#[source] pub tokenizers::Error);

/// The GPT-2 byte-to-character table: printable bytes map to themselves, the
/// others to U+0100 onwards, so that every byte string is a printable string.
fn byte_level_chars() -> HashMap<char, u8> {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    let mut table = HashMap::with_capacity(256);
    let mut next = 256u32;
    for b in 0..=255u8 {
        let c = if printable(b) {
            char::from(b)
        } else {
            let c = char::from_u32(next).expect("U+0100..U+0143 are chars");
            next += 1;
            c
        };
        table.insert(c, b);
    }
    table
}

/// Token text to id.
fn vocabulary(tokens: &[String]) -> Vocab {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), i as u32))
        .collect()
}

const REGEX_QWEN2: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const REGEX_LLAMA3: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

fn split_then_bytes(regex: &str) -> Result<PreTokenizerWrapper, String> {
    let split = Split::new(
        SplitPattern::Regex(regex.to_string()),
        SplitDelimiterBehavior::Isolated,
        false,
    )
    .map_err(|e| e.to_string())?;
    Ok(PreSeq::new(vec![
        split.into(),
        ByteLevel::new(false, false, false).into(),
    ])
    .into())
}

/// The pre-tokenizer for a `tokenizer.ggml.pre` name, as the model's own
/// `tokenizer.json` defines it.
fn byte_level_pre(pre: &str) -> Result<(Option<NormalizerWrapper>, PreTokenizerWrapper), String> {
    Ok(match pre {
        "qwen2" | "deepseek-r1-qwen" => (Some(NFC.into()), split_then_bytes(REGEX_QWEN2)?),
        "llama3" | "llama-bpe" | "smaug-bpe" | "lfm2" | "dbrx" => {
            (None, split_then_bytes(REGEX_LLAMA3)?)
        }
        "smollm" | "starcoder" | "refact" => (
            None,
            PreSeq::new(vec![
                Digits::new(true).into(),
                ByteLevel::new(false, false, true).into(),
            ])
            .into(),
        ),
        _ => (None, ByteLevel::new(false, false, true).into()),
    })
}

fn byte_level_bpe(
    gguf: &GgufFile,
    tokens: &[String],
    kinds: &[TokenKind],
    merges: &[String],
    pre: &str,
) -> Result<(tokenizers::Tokenizer, Vec<Vec<u8>>), GgufError> {
    let vocab = vocabulary(tokens);
    let merges = merges
        .iter()
        .enumerate()
        .map(|(i, m)| {
            m.split_once(' ')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| {
                    gguf.error(format!("tokenizer.ggml.merges[{i}] = {m:?} is not `a b`"))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(|e| gguf.error(format!("invalid BPE vocabulary: {e}")))?;
    let mut tokenizer = tokenizers::Tokenizer::new(bpe);
    let (normalizer, pre_tokenizer) =
        byte_level_pre(pre).map_err(|e| gguf.error(format!("pre-tokenizer `{pre}`: {e}")))?;
    if let Some(normalizer) = normalizer {
        tokenizer
            .with_normalizer(Some(normalizer))
            .map_err(|e| gguf.error(format!("normalizer: {e}")))?;
    }
    tokenizer.with_pre_tokenizer(Some(pre_tokenizer));

    let chars = byte_level_chars();
    let pieces = tokens
        .iter()
        .zip(kinds)
        .map(|(text, kind)| match kind {
            TokenKind::Normal | TokenKind::Unknown | TokenKind::Unused | TokenKind::Byte => {
                let mapped: Option<Vec<u8>> =
                    text.chars().map(|c| chars.get(&c).copied()).collect();
                mapped.unwrap_or_else(|| text.as_bytes().to_vec())
            }
            TokenKind::Control | TokenKind::UserDefined => text.as_bytes().to_vec(),
        })
        .collect();
    Ok((tokenizer, pieces))
}

const SPACE_MARK: char = '\u{2581}';

fn parse_byte_token(text: &str) -> Option<u8> {
    let hex = text.strip_prefix("<0x")?.strip_suffix('>')?;
    (hex.len() == 2)
        .then(|| u8::from_str_radix(hex, 16).ok())
        .flatten()
}

fn sentencepiece_bpe(
    gguf: &GgufFile,
    tokens: &[String],
    kinds: &[TokenKind],
    scores: &[f32],
    space_prefix: bool,
    unk: Option<String>,
) -> Result<(tokenizers::Tokenizer, Vec<Vec<u8>>), GgufError> {
    let vocab = vocabulary(tokens);
    // SentencePiece BPE merges the adjacent pair whose concatenation has the
    // best score: that is BPE with merges ranked by the merged piece's score.
    let mut merges: Vec<(f32, u32, u32)> = Vec::new();
    for (i, piece) in tokens.iter().enumerate() {
        if kinds[i] != TokenKind::Normal {
            continue;
        }
        for (k, _) in piece.char_indices().skip(1) {
            let (left, right) = piece.split_at(k);
            if let (Some(&l), Some(&r)) = (vocab.get(left), vocab.get(right)) {
                merges.push((scores[i], l, r));
            }
        }
    }
    merges.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let merges: Vec<(String, String)> = merges
        .into_iter()
        .map(|(_, l, r)| (tokens[l as usize].clone(), tokens[r as usize].clone()))
        .collect();

    let mut builder = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .byte_fallback(true)
        .fuse_unk(true);
    if let Some(unk) = unk {
        builder = builder.unk_token(unk);
    }
    let bpe = builder
        .build()
        .map_err(|e| gguf.error(format!("invalid SentencePiece vocabulary: {e}")))?;
    let mut tokenizer = tokenizers::Tokenizer::new(bpe);
    let replace = Replace::new(" ", SPACE_MARK.to_string())
        .map_err(|e| gguf.error(format!("normalizer: {e}")))?;
    let normalizer: NormalizerWrapper = if space_prefix {
        NormSeq::new(vec![
            Prepend::new(SPACE_MARK.to_string()).into(),
            replace.into(),
        ])
        .into()
    } else {
        replace.into()
    };
    tokenizer
        .with_normalizer(Some(normalizer))
        .map_err(|e| gguf.error(format!("normalizer: {e}")))?;

    let pieces = tokens
        .iter()
        .zip(kinds)
        .map(|(text, kind)| match (kind, parse_byte_token(text)) {
            (TokenKind::Byte, Some(b)) => vec![b],
            (TokenKind::Normal | TokenKind::Unused, _) => {
                text.replace(SPACE_MARK, " ").into_bytes()
            }
            _ => text.as_bytes().to_vec(),
        })
        .collect();
    Ok((tokenizer, pieces))
}

/// Turns a stream of token bytes into text without ever splitting a
/// character: an incomplete UTF-8 sequence waits for its next bytes, an
/// invalid one becomes U+FFFD at once.
#[derive(Debug, Default, Clone)]
pub struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    /// Adds bytes and returns the text they complete.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out.push_str(s);
                    self.pending.clear();
                    return out;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(
                        std::str::from_utf8(&self.pending[..valid]).expect("checked valid"),
                    );
                    match e.error_len() {
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..valid + bad);
                        }
                    }
                }
            }
        }
    }

    /// Flushes what is left at the end of the stream (lossy).
    pub fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_table_is_a_bijection() {
        let table = byte_level_chars();
        assert_eq!(table.len(), 256);
        let mut bytes: Vec<u8> = table.values().copied().collect();
        bytes.sort_unstable();
        bytes.dedup();
        assert_eq!(bytes.len(), 256);
        assert_eq!(table[&'Ġ'], b' ');
        assert_eq!(table[&'Ċ'], b'\n');
        assert_eq!(table[&'a'], b'a');
    }

    #[test]
    fn utf8_stream_keeps_split_characters_whole() {
        let text = "é日🙂";
        let bytes = text.as_bytes();
        let mut stream = Utf8Stream::default();
        let mut out = String::new();
        for b in bytes {
            let piece = stream.push(std::slice::from_ref(b));
            assert!(piece.is_empty() || text.contains(&piece));
            out.push_str(&piece);
        }
        out.push_str(&stream.finish());
        assert_eq!(out, text);
    }

    #[test]
    fn utf8_stream_replaces_invalid_bytes_without_waiting() {
        let mut stream = Utf8Stream::default();
        assert_eq!(stream.push(b"a\xffb"), "a\u{FFFD}b");
        assert_eq!(stream.push(b"\xe6\x97"), "");
        assert_eq!(stream.finish(), "\u{FFFD}");
    }

    #[test]
    fn byte_tokens_parse() {
        assert_eq!(parse_byte_token("<0x0A>"), Some(b'\n'));
        assert_eq!(parse_byte_token("<0xZZ>"), None);
        assert_eq!(parse_byte_token("<0x0A0>"), None);
    }
}

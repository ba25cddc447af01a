//! Constrained decoding: a grammar the generated text must follow, checked
//! token by token with [llguidance](https://github.com/guidance-ai/llguidance).
//!
//! A [`Grammar`] is Lark text in llguidance's dialect: rules, regexes and
//! `%json {schema}` sub-grammars. The brain turns it into a [`Constraint`]
//! per generation with a [`GrammarCompiler`] built once per model from
//! loopd's own tokenizer (each token id's bytes, control tokens marked as
//! special, padded to the width of the logits).
//!
//! Decoding samples first and asks the constraint only whether the sampled
//! token is allowed; the full token mask is computed only when it is not.
//! Once the grammar accepts, the end-of-turn token is allowed; once nothing
//! but the end of the turn can follow, the generation ends.
//!
//! A grammar may also hold the numbers in the reply's JSON to a number of
//! digits ([`Grammar::with_number_digits`]), read off the text as it is
//! decoded rather than compiled into the grammar ([`numbers`]).

mod numbers;

use super::tokenizer::{TokenKind, Tokenizer};
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory, TokenParser};
use numbers::NumberRun;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, OnceLock};
use toktrie::{TokRxInfo, TokTrie, TokenId, TokenizerEnv};

/// A grammar a reply must follow: Lark text in llguidance's dialect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    lark: String,
    number_digits: Option<usize>,
}

impl Grammar {
    /// A grammar from Lark text (`start: …`).
    pub fn lark(text: impl Into<String>) -> Self {
        Grammar {
            lark: text.into(),
            number_digits: None,
        }
    }

    /// The same grammar, with every number in the reply's JSON (digits
    /// inside braces or brackets, outside strings) held to at most `most`
    /// digits in a row. The limit gives way where the grammar allows
    /// nothing else. A local brain holds it; a remote server is sent the
    /// Lark text alone.
    pub fn with_number_digits(mut self, most: usize) -> Self {
        self.number_digits = Some(most);
        self
    }

    /// The Lark text.
    pub fn text(&self) -> &str {
        &self.lark
    }

    /// Compiles the grammar against a vocabulary of single bytes, without a
    /// model: a grammar (or a JSON schema inside it) that llguidance cannot
    /// compile is found before a request is queued, and named.
    pub fn check(&self) -> Result<(), GrammarError> {
        static BYTES: OnceLock<Result<GrammarCompiler, String>> = OnceLock::new();
        let compiler = BYTES.get_or_init(|| {
            let mut words: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
            words.push(special(b"<end>"));
            GrammarCompiler::from_words(words, &[256]).map_err(|e| e.to_string())
        });
        match compiler {
            Ok(compiler) => compiler.start(self).map(drop),
            Err(why) => Err(GrammarError::Compile(why.clone())),
        }
    }
}

/// Why a grammar could not be set up, compiled or followed.
#[derive(Debug, thiserror::Error)]
pub enum GrammarError {
    /// The vocabulary has no token that ends a turn.
    #[error("the model has no end-of-turn token to end a constrained reply")]
    NoEndOfTurn,
    /// An end-of-turn token id is past the end of the vocabulary.
    #[error("an end-of-turn token is outside the vocabulary")]
    EndOfTurnOutOfRange,
    /// llguidance could not build its parser factory for the vocabulary.
    #[error("grammar setup: {0}")]
    Setup(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The grammar does not compile; the message names the problem.
    #[error("grammar: {0}")]
    Compile(String),
    /// llguidance failed while following the grammar.
    #[error("grammar: {0}")]
    Match(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Every token is ruled out: the reply cannot go on.
    #[error("grammar: no token can continue the reply")]
    DeadEnd,
}

/// Compiled parsers kept per [`GrammarCompiler`], the most recent last.
const COMPILED_KEPT: usize = 16;

/// One grammar's compiled parser, or why it does not compile; set once, by
/// whichever caller compiles it first, while any other waits.
type Compiled = Arc<OnceLock<Result<TokenParser, String>>>;

/// Compiles grammars against one model's vocabulary.
pub struct GrammarCompiler {
    factory: ParserFactory,
    env: toktrie::TokEnv,
    digit_counts: Arc<[u8]>,
    most_digits_in_a_token: usize,
    end_of_turn: Vec<u32>,
    compiled: Mutex<VecDeque<(String, Compiled)>>,
}

impl GrammarCompiler {
    /// The token environment of `tokenizer`, for logits `width` wide (the
    /// embedding table may have more rows than the vocabulary).
    pub fn new(tokenizer: &Tokenizer, width: usize) -> Result<Self, GrammarError> {
        let width = width.max(tokenizer.vocab_size());
        let words: Vec<Vec<u8>> = (0..width as u32)
            .map(|id| match tokenizer.kind(id) {
                None => Vec::new(),
                Some(TokenKind::Control | TokenKind::Unknown | TokenKind::Unused) => {
                    special(tokenizer.token_bytes(id))
                }
                Some(_) => tokenizer.token_bytes(id).to_vec(),
            })
            .collect();
        Self::from_words(words, tokenizer.end_of_turn())
    }

    /// The token environment of a vocabulary given as each id's bytes
    /// (special tokens start with [`TokTrie::SPECIAL_TOKEN_MARKER`]) and
    /// the tokens that end a turn.
    pub fn from_words(words: Vec<Vec<u8>>, end_of_turn: &[u32]) -> Result<Self, GrammarError> {
        let Some(&eos) = end_of_turn.first() else {
            return Err(GrammarError::NoEndOfTurn);
        };
        if end_of_turn.iter().any(|&id| id as usize >= words.len()) {
            return Err(GrammarError::EndOfTurnOutOfRange);
        }
        let info = TokRxInfo::new(words.len() as u32, eos);
        let digit_counts: Arc<[u8]> = words
            .iter()
            .map(|word| word.iter().filter(|b| b.is_ascii_digit()).count().min(255) as u8)
            .collect();
        let most_digits_in_a_token = digit_counts.iter().copied().max().unwrap_or(0) as usize;
        let trie = TokTrie::from(&info, &words).with_eos_tokens(end_of_turn);
        let env: toktrie::TokEnv = Arc::new(TrieOnly { trie });
        let mut factory =
            ParserFactory::new_simple(&env).map_err(|e| GrammarError::Setup(e.into()))?;
        factory.quiet();
        Ok(GrammarCompiler {
            factory,
            env,
            digit_counts,
            most_digits_in_a_token,
            end_of_turn: end_of_turn.to_vec(),
            compiled: Mutex::new(VecDeque::new()),
        })
    }

    /// A fresh constraint for one generation; a grammar that does not
    /// compile is an error naming the problem. The last few grammars'
    /// compiled parsers are kept and copied: a loop's turns and a client
    /// that sends the same tools with every request compile theirs once.
    /// A grammar being compiled by another thread (the daemon checking a
    /// request while the model thread prepares its prompt) is waited for,
    /// not compiled twice.
    pub fn start(&self, grammar: &Grammar) -> Result<Constraint, GrammarError> {
        let slot = self.slot(&grammar.lark);
        let compiled = slot.get_or_init(|| {
            self.factory
                .create_parser(TopLevelGrammar::from_lark(grammar.lark.clone()))
                .map_err(|e| e.to_string())
        });
        let parser = match compiled {
            Ok(parser) => parser.deep_clone(),
            Err(why) => return Err(GrammarError::Compile(why.clone())),
        };
        let matcher = Matcher::new(Ok(parser));
        if let Some(e) = matcher.get_error() {
            return Err(GrammarError::Compile(e));
        }
        Ok(Constraint {
            matcher,
            end_of_turn: self.end_of_turn.clone(),
            masks: 0,
            numbers: grammar.number_digits.map(|most| Numbers {
                most,
                run: NumberRun::default(),
                env: self.env.clone(),
                digit_counts: self.digit_counts.clone(),
                most_in_a_token: self.most_digits_in_a_token,
            }),
        })
    }

    /// The kept slot for the grammar `lark`, made (and the oldest dropped
    /// beyond [`COMPILED_KEPT`]) if there is none.
    fn slot(&self, lark: &str) -> Compiled {
        let Ok(mut kept) = self.compiled.lock() else {
            return Compiled::default();
        };
        if let Some((_, slot)) = kept.iter().find(|(text, _)| text == lark) {
            return slot.clone();
        }
        if kept.len() == COMPILED_KEPT {
            kept.pop_front();
        }
        let slot = Compiled::default();
        kept.push_back((lark.to_string(), slot.clone()));
        slot
    }
}

/// A special token's entry in the trie: the marker byte, then its text.
pub fn special(text: &[u8]) -> Vec<u8> {
    let mut marked = vec![TokTrie::SPECIAL_TOKEN_MARKER];
    marked.extend_from_slice(text);
    marked
}

/// The token environment llguidance needs, from the trie alone: loopd never
/// asks llguidance to force tokens, so greedy tokenization is enough.
struct TrieOnly {
    trie: TokTrie,
}

impl TokenizerEnv for TrieOnly {
    fn tok_trie(&self) -> &TokTrie {
        &self.trie
    }

    fn tokenize_bytes(&self, s: &[u8]) -> Vec<TokenId> {
        self.trie.greedy_tokenize(s)
    }

    fn tokenize_is_canonical(&self) -> bool {
        false
    }
}

/// One generation's grammar state.
pub struct Constraint {
    matcher: Matcher,
    end_of_turn: Vec<u32>,
    masks: usize,
    numbers: Option<Numbers>,
}

/// A generation's limit on the digits of its JSON numbers, and where its
/// text stands.
struct Numbers {
    most: usize,
    run: NumberRun,
    env: toktrie::TokEnv,
    digit_counts: Arc<[u8]>,
    most_in_a_token: usize,
}

impl Numbers {
    /// Whether some token could run a number past the limit from here.
    fn may_overrun(&self) -> bool {
        self.run.digits() + self.most_in_a_token > self.most
    }

    /// Whether `token` keeps every number within the limit.
    fn fits(&self, token: u32) -> bool {
        let count = self.digit_counts.get(token as usize).copied().unwrap_or(0);
        self.run.digits() + count as usize <= self.most
            || self.run.after(self.env.tok_trie().token(token)).1 <= self.most
    }

    /// Moves past a generated token.
    fn accept(&mut self, token: u32) {
        self.run = self.run.after(self.env.tok_trie().token(token)).0;
    }
}

impl Constraint {
    /// Whether `token` may come next: an end-of-turn token once the grammar
    /// accepts, any other token when the grammar can continue with it and
    /// it runs no number past the digit limit.
    pub fn allows(&mut self, token: u32) -> bool {
        if self.end_of_turn.contains(&token) {
            return self.is_accepting();
        }
        self.numbers.as_ref().is_none_or(|n| n.fits(token))
            && !self.matcher.is_stopped()
            && self.matcher.validate_tokens(&[token]).unwrap_or(0) == 1
    }

    /// Sets every token the grammar does not allow next to −∞, and every
    /// token that would run a number past the digit limit as long as some
    /// other token is left. An error means the grammar can go nowhere (an
    /// internal llguidance error).
    pub fn mask(&mut self, logits: &mut [f32]) -> Result<(), GrammarError> {
        self.masks += 1;
        let allowed = self
            .matcher
            .compute_mask_or_eos()
            .map_err(|e| GrammarError::Match(e.into()))?;
        let ending: Vec<(usize, f32)> = if self.is_accepting() {
            self.end_of_turn
                .iter()
                .filter_map(|&id| logits.get(id as usize).map(|&l| (id as usize, l)))
                .collect()
        } else {
            Vec::new()
        };
        for (id, logit) in logits.iter_mut().enumerate() {
            if id >= allowed.len() || !allowed.is_allowed(id as TokenId) {
                *logit = f32::NEG_INFINITY;
            }
        }
        for (id, logit) in ending {
            logits[id] = logit;
        }
        if let Some(numbers) = self.numbers.as_ref().filter(|n| n.may_overrun()) {
            let (mut left, mut over) = (0, Vec::new());
            for (id, logit) in logits.iter().enumerate() {
                if *logit != f32::NEG_INFINITY {
                    left += 1;
                    if !numbers.fits(id as u32) {
                        over.push(id);
                    }
                }
            }
            if over.len() < left {
                over.into_iter()
                    .for_each(|id| logits[id] = f32::NEG_INFINITY);
            }
        }
        if logits.iter().all(|l| *l == f32::NEG_INFINITY) {
            return Err(GrammarError::DeadEnd);
        }
        Ok(())
    }

    /// Moves the grammar past a generated token.
    pub fn accept(&mut self, token: u32) -> Result<(), GrammarError> {
        if self.end_of_turn.contains(&token) {
            return Ok(());
        }
        self.matcher
            .consume_token(token)
            .map_err(|e| GrammarError::Match(e.into()))?;
        if let Some(numbers) = self.numbers.as_mut() {
            numbers.accept(token);
        }
        Ok(())
    }

    /// Whether the text so far is a complete sentence of the grammar.
    pub fn is_accepting(&mut self) -> bool {
        self.matcher.is_accepting().unwrap_or(false)
    }

    /// Whether nothing but the end of the turn can follow.
    pub fn is_finished(&self) -> bool {
        self.matcher.is_stopped()
    }

    /// The allowed token with the highest logit, found by trying the
    /// `tries` highest one by one (ties: the lower id first, as
    /// [`argmax`](crate::sampler::argmax) takes them), without computing
    /// the whole mask; `None` when none of them is allowed. For greedy
    /// decoding this is the token the mask would leave on top, at a
    /// fraction of its cost.
    pub fn best_allowed(&mut self, logits: &[f32], tries: usize) -> Option<u32> {
        top(logits, tries)
            .into_iter()
            .find(|&token| self.allows(token))
    }

    /// How many times the full mask was computed (the sampled token was not
    /// allowed).
    pub fn masks_computed(&self) -> usize {
        self.masks
    }
}

/// The ids of the `k` highest logits, highest first; among equal logits
/// the lower id first.
fn top(logits: &[f32], k: usize) -> Vec<u32> {
    let mut kept: Vec<(f32, u32)> = Vec::with_capacity(k + 1);
    for (id, &logit) in logits.iter().enumerate() {
        if kept.len() == k && kept.last().is_none_or(|&(low, _)| logit <= low) {
            continue;
        }
        let at = kept.partition_point(|&(l, _)| l >= logit);
        kept.insert(at, (logit, id as u32));
        kept.truncate(k);
    }
    kept.into_iter().map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vocabulary of the 256 single bytes, a few words, and `<end>`.
    pub(crate) fn byte_compiler() -> GrammarCompiler {
        let mut words: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        for word in ["Action", "FINAL", " the"] {
            words.push(word.as_bytes().to_vec());
        }
        words.push(special(b"<end>"));
        let end = words.len() as u32 - 1;
        GrammarCompiler::from_words(words, &[end]).unwrap()
    }

    fn end(compiler: &GrammarCompiler) -> u32 {
        compiler.end_of_turn[0]
    }

    /// Feeds `text` byte by byte; whether every byte was allowed.
    fn feed(constraint: &mut Constraint, text: &str) -> bool {
        text.bytes().all(|b| {
            let ok = constraint.allows(b as u32);
            ok && constraint.accept(b as u32).is_ok()
        })
    }

    #[test]
    fn the_end_of_turn_is_allowed_once_the_grammar_accepts() {
        let compiler = byte_compiler();
        let grammar = Grammar::lark(r#"start: "yes" | "no" /[.!]*/"#);
        let mut c = compiler.start(&grammar).unwrap();
        assert!(!c.allows(end(&compiler)), "nothing written yet");
        assert!(feed(&mut c, "n"));
        assert!(!c.allows(end(&compiler)), "`n` is not a whole answer");
        assert!(feed(&mut c, "o"));
        assert!(c.allows(end(&compiler)));
        assert!(c.allows(b'!' as u32));
        assert!(!c.allows(b'x' as u32));
    }

    #[test]
    fn a_finished_grammar_allows_only_the_end() {
        let compiler = byte_compiler();
        let mut c = compiler.start(&Grammar::lark(r#"start: "ok""#)).unwrap();
        assert!(feed(&mut c, "ok"));
        assert!(c.is_finished());
        assert!(c.allows(end(&compiler)));
        assert!(!c.allows(b'k' as u32));
    }

    #[test]
    fn the_mask_keeps_only_allowed_tokens() {
        let compiler = byte_compiler();
        let mut c = compiler
            .start(&Grammar::lark(r#"start: "Action" | "FINAL""#))
            .unwrap();
        let mut logits = vec![1.0f32; 260];
        c.mask(&mut logits).unwrap();
        let allowed: Vec<usize> = (0..logits.len())
            .filter(|&i| logits[i].is_finite())
            .collect();
        assert_eq!(allowed, vec![b'A' as usize, b'F' as usize, 256, 257]);
        assert_eq!(c.masks_computed(), 1);
    }

    #[test]
    fn the_best_allowed_token_is_the_one_the_mask_leaves_on_top() {
        let compiler = byte_compiler();
        let grammar = Grammar::lark(r#"start: "Action" | "FINAL" | "no""#);
        let mut state = 7u32;
        for round in 0..50 {
            let mut logits: Vec<f32> = (0..260)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((state >> 16) % 8) as f32
                })
                .collect();
            let mut c = compiler.start(&grammar).unwrap();
            let lazy = c.best_allowed(&logits, 300);
            c.mask(&mut logits).unwrap();
            let masked = crate::sampler::argmax(&logits);
            assert_eq!(lazy, Some(masked), "round {round}");
        }
        let mut c = compiler.start(&grammar).unwrap();
        let mut logits = vec![0.0f32; 260];
        logits[b'x' as usize] = 5.0;
        logits[b'F' as usize] = 1.0;
        assert_eq!(c.best_allowed(&logits, 1), None, "only `x` tried");
        assert_eq!(c.best_allowed(&logits, 2), Some(b'F' as u32));
    }

    #[test]
    fn numbers_in_json_are_held_to_the_digit_limit_and_nothing_else_is() {
        let compiler = byte_compiler();
        let lark = r#"start: "n=" /[0-9]+/ " " %json {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}, "required": ["n", "s"], "additionalProperties": false}"#;
        let grammar = Grammar::lark(lark).with_number_digits(3);
        let mut c = compiler.start(&grammar).unwrap();
        assert!(feed(&mut c, "n=12345 "), "outside the JSON");
        assert!(feed(&mut c, r#"{"n": 123"#));
        assert!(!c.allows(b'4' as u32), "a fourth digit");
        let mut logits = vec![0.0f32; 260];
        c.mask(&mut logits).unwrap();
        assert!(logits[b'4' as usize].is_infinite());
        assert!(logits[b',' as usize].is_finite());
        assert!(feed(&mut c, r#", "s": "123456"}"#), "in a string");
        assert!(c.allows(end(&compiler)));
        let mut unlimited = compiler.start(&Grammar::lark(lark)).unwrap();
        assert!(feed(&mut unlimited, r#"n=1 {"n": 123456"#));
    }

    #[test]
    fn the_digit_limit_gives_way_where_only_a_digit_can_follow() {
        let compiler = byte_compiler();
        let lark = r#"start: %json {"type": "array", "items": {"type": "integer", "minimum": 10000}, "minItems": 1, "maxItems": 1}"#;
        let mut c = compiler
            .start(&Grammar::lark(lark).with_number_digits(3))
            .unwrap();
        assert!(feed(&mut c, "[123"));
        let mut logits = vec![0.0f32; 260];
        c.mask(&mut logits).unwrap();
        let left: Vec<usize> = (0..260).filter(|&i| logits[i].is_finite()).collect();
        assert_eq!(left, (b'0' as usize..=b'9' as usize).collect::<Vec<_>>());
    }

    #[test]
    fn top_keeps_the_highest_in_order() {
        assert_eq!(top(&[1.0, 3.0, 2.0, 3.0, -1.0], 3), vec![1, 3, 2]);
        assert_eq!(top(&[1.0, 2.0], 5), vec![1, 0]);
        assert!(top(&[], 4).is_empty());
    }

    #[test]
    fn a_grammar_is_checked_without_a_model() {
        assert!(Grammar::lark("start: \"yes\" | \"no\"").check().is_ok());
        let schema = r#"start: %json {"type": "string", "pattern": "(?<=a)b"}"#;
        let err = Grammar::lark(schema).check().unwrap_err();
        assert!(matches!(err, GrammarError::Compile(_)), "{err}");
        assert!(Grammar::lark("start: undefined_rule").check().is_err());
    }

    #[test]
    fn a_kept_parser_starts_fresh_each_time() {
        let compiler = byte_compiler();
        let grammar = Grammar::lark(r#"start: "yes" | "no""#);
        let mut first = compiler.start(&grammar).unwrap();
        assert!(feed(&mut first, "yes"));
        assert!(first.is_accepting());
        for _ in 0..2 {
            let mut again = compiler.start(&grammar).unwrap();
            assert!(!again.is_accepting(), "a copy of a used parser");
            assert!(!feed(&mut again, "maybe"));
            let mut again = compiler.start(&grammar).unwrap();
            assert!(feed(&mut again, "no") && again.is_accepting());
        }
    }

    #[test]
    fn a_bad_grammar_is_an_error() {
        let compiler = byte_compiler();
        let e = compiler
            .start(&Grammar::lark("start: nowhere"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("grammar:"), "{e}");
    }

    #[test]
    fn threads_starting_one_grammar_at_once_all_get_it_and_its_error() {
        let compiler = byte_compiler();
        let good = Grammar::lark(r#"start: "yes" | %json {"type": "integer"}"#);
        let bad = Grammar::lark("start: nowhere");
        let (yes, errors) = std::thread::scope(|scope| {
            let good: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| feed(&mut compiler.start(&good).unwrap(), "42")))
                .collect();
            let bad: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| compiler.start(&bad).err().unwrap().to_string()))
                .collect();
            let yes: Vec<bool> = good.into_iter().map(|t| t.join().unwrap()).collect();
            let errors: Vec<String> = bad.into_iter().map(|t| t.join().unwrap()).collect();
            (yes, errors)
        });
        assert_eq!(yes, vec![true; 4]);
        assert!(errors[0].starts_with("grammar:"), "{}", errors[0]);
        assert!(errors.iter().all(|e| *e == errors[0]), "{errors:?}");
        let later = compiler.start(&bad).err().unwrap().to_string();
        assert_eq!(later, errors[0]);
    }
}

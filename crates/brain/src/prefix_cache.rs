//! The local brain's prefix caches: a few KV caches per session, one per
//! branch of its prompts, plus the warmed system prompts, within a memory
//! budget.
//!
//! Before a call the brain checks out the cache that shares the longest
//! prefix with the prompt, among the call's own session and the shared
//! ones (named `warm:…`: the warmed persona prompts). A branch of the
//! call's own session that the prompt extends is taken as it is; any other
//! prefix (a warmed prompt, a sibling branch of this session) is copied, so
//! engines that alternate between prompts (Tree-of-Thoughts candidates and
//! scores, CRITIC's draft and critiques) compute each shared prefix once.
//! Another session's cache is never reused: how many tokens a call found
//! cached would tell its caller what someone else's prompt began with. After the call the cache is checked back
//! in as a branch, and the least recently used caches are dropped until the
//! rest fit in the budget.

use super::kv_cache::{KvCache, KvShape};
use super::prompt_store::PromptStore;

/// Where a checked-out cache's reused prefix came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reuse {
    /// Nothing was reused.
    None,
    /// A branch of the session that the prompt extends, taken as it is.
    Own,
    /// A copy of the shared prefix of one of the session's branches (the
    /// branch stays).
    Forked,
    /// A copy of a shared (warmed) prompt's cache.
    CopiedFrom(String),
}

/// A cache ready for one call: the prompt's first `reused` tokens are in it.
#[derive(Debug)]
pub struct Checkout {
    /// The cache, holding exactly the reused prefix.
    pub cache: KvCache,
    /// Prompt tokens already computed.
    pub reused: usize,
    /// Where they came from.
    pub source: Reuse,
}

/// What the caches hold, for stats and logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Caches held.
    pub caches: usize,
    /// Tokens held, over all caches.
    pub tokens: usize,
    /// Memory held, in bytes.
    pub bytes: usize,
    /// The budget, in bytes.
    pub budget: usize,
}

/// Most caches one session keeps, one per branch of its prompts.
pub const MAX_BRANCHES: usize = 4;

/// How the names of shared sessions begin: their caches (prompts every
/// caller sends, such as a persona's system prompt) may be copied by any
/// session.
pub const SHARED_PREFIX: &str = "warm:";

/// Whether a call of `session` may reuse what `owner`'s cache holds.
fn readable(owner: &str, session: &str) -> bool {
    owner == session || owner.starts_with(SHARED_PREFIX)
}

struct Entry {
    session: String,
    cache: KvCache,
    last_used: u64,
}

/// Every KV cache the brain keeps between calls.
pub struct PrefixCaches {
    shape: KvShape,
    budget: usize,
    enabled: bool,
    entries: Vec<Entry>,
    clock: u64,
    /// Caches dropped since the last [`free_released`](Self::free_released),
    /// freed once the answer is out: freeing megabytes takes milliseconds.
    released: Vec<KvCache>,
    /// Shared caches kept on disk by an earlier run.
    store: Option<PromptStore>,
}

impl PrefixCaches {
    /// Caches of `shape` that together hold at most `budget` bytes. When
    /// `enabled` is false nothing is kept: every call computes its whole
    /// prompt (for measuring what reuse saves).
    pub fn new(shape: KvShape, budget: usize, enabled: bool) -> Self {
        PrefixCaches {
            shape,
            budget,
            enabled,
            entries: Vec::new(),
            clock: 0,
            released: Vec::new(),
            store: None,
        }
    }

    /// Also keeps shared caches in `store`, and reads them back when they
    /// hold more of a prompt than any cache in memory.
    pub fn with_store(mut self, store: PromptStore) -> Self {
        self.store = Some(store);
        self
    }

    /// A cache for a call of `session` on `prompt`, holding the longest
    /// prefix of `prompt` that the session's own or a shared cache holds,
    /// but never all of it: the
    /// last prompt token is always computed, for its logits. A branch of the
    /// session that the prompt extends is taken as it is; any other prefix
    /// is copied, so the branch it came from stays for a later call.
    pub fn checkout(&mut self, session: &str, prompt: &[u32]) -> candle_core::Result<Checkout> {
        let fresh = || Checkout {
            cache: KvCache::new(self.shape.clone()),
            reused: 0,
            source: Reuse::None,
        };
        if !self.enabled || prompt.is_empty() {
            return Ok(fresh());
        }
        let limit = prompt.len() - 1;
        self.clock += 1;
        let best = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| readable(&e.session, session))
            .map(|(i, e)| {
                let n = e.cache.common_prefix(prompt).min(limit);
                (n, e.session == session, e.last_used, i)
            })
            .max_by_key(|&(n, own, last_used, _)| (n, own, last_used));
        let in_memory = best.map_or(0, |(n, ..)| n);
        if let Some(store) = self.store.as_mut() {
            if let Some((index, n)) = store.longest(prompt, limit) {
                if n > in_memory {
                    match store.load(index, &self.shape) {
                        Ok((owner, cache)) => {
                            tracing::info!(
                                "read the warmed prompt of `{owner}` ({} tokens) from disk",
                                cache.len()
                            );
                            self.entries.push(Entry {
                                session: owner,
                                cache,
                                last_used: self.clock,
                            });
                            return self.checkout(session, prompt);
                        }
                        Err(err) => tracing::warn!("a stored prompt was not read: {err}"),
                    }
                }
            }
        }
        let Some((reused, own, _, i)) = best.filter(|&(n, ..)| n > 0) else {
            return Ok(fresh());
        };
        if own && reused == self.entries[i].cache.len() {
            let entry = self.entries.swap_remove(i);
            return Ok(Checkout {
                cache: entry.cache,
                reused,
                source: Reuse::Own,
            });
        }
        let entry = &mut self.entries[i];
        entry.last_used = self.clock;
        Ok(Checkout {
            cache: entry.cache.clone_prefix(reused)?,
            reused,
            source: if own {
                Reuse::Forked
            } else {
                Reuse::CopiedFrom(entry.session.clone())
            },
        })
    }

    /// Keeps `cache` as a branch of `session` (replacing the branches it
    /// extends; at most [`MAX_BRANCHES`] per session), then drops the least
    /// recently used caches until everything fits in the budget.
    pub fn checkin(&mut self, session: &str, cache: KvCache) {
        if !self.enabled {
            return;
        }
        self.clock += 1;
        let now = self.clock;
        let (superseded, kept): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|e| e.session == session && cache.tokens().starts_with(e.cache.tokens()));
        self.entries = kept;
        self.released
            .extend(superseded.into_iter().map(|e| e.cache));
        if session.starts_with(SHARED_PREFIX) {
            if let Some(store) = self.store.as_mut() {
                store.save(session, &cache);
            }
        }
        self.entries.push(Entry {
            session: session.to_string(),
            cache,
            last_used: now,
        });
        while self.entries.iter().filter(|e| e.session == session).count() > MAX_BRANCHES {
            if !self.drop_oldest(|e| e.session == session && e.last_used != now) {
                break;
            }
        }
        while self.usage().bytes > self.budget {
            if !self.drop_oldest(|e| e.last_used != now) {
                break;
            }
        }
    }

    /// Drops the least recently used cache among those `eligible`; whether
    /// there was one.
    fn drop_oldest(&mut self, eligible: impl Fn(&Entry) -> bool) -> bool {
        let oldest = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| eligible(e))
            .min_by_key(|(_, e)| e.last_used)
            .map(|(i, _)| i);
        let Some(i) = oldest else {
            return false;
        };
        let gone = self.entries.swap_remove(i);
        tracing::debug!(
            "prefix cache of `{}` dropped ({} tokens)",
            gone.session,
            gone.cache.len()
        );
        self.released.push(gone.cache);
        true
    }

    /// Frees the caches dropped since the last call.
    pub fn free_released(&mut self) {
        self.released.clear();
    }

    /// Turns reuse on or off; off drops every cache.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.entries.clear();
        }
    }

    /// Forgets every cache (after a failure that may have left one half written).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The sessions that have a cache, most recently used first.
    pub fn sessions(&self) -> Vec<String> {
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.last_used));
        entries.iter().map(|e| e.session.clone()).collect()
    }

    /// What the caches hold.
    pub fn usage(&self) -> CacheUsage {
        CacheUsage {
            caches: self.entries.len(),
            tokens: self.entries.iter().map(|e| e.cache.len()).sum(),
            bytes: self.entries.iter().map(|e| e.cache.bytes()).sum(),
            budget: self.budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device, Tensor};

    fn shape() -> KvShape {
        KvShape {
            layers: 1,
            kv_heads: 1,
            head_dim: 2,
            max_tokens: 4096,
            dtype: DType::F32,
            device: Device::Cpu,
        }
    }

    /// A cache holding `tokens`, each token's keys being `[t, t]`.
    fn filled(mut cache: KvCache, tokens: &[u32]) -> KvCache {
        let values: Vec<f32> = tokens.iter().flat_map(|&t| [t as f32, t as f32]).collect();
        let kv = Tensor::from_slice(&values, (1, 1, tokens.len(), 2), &Device::Cpu).unwrap();
        cache.append(0, &kv, &kv).unwrap();
        cache.commit(tokens);
        cache
    }

    fn run(caches: &mut PrefixCaches, session: &str, prompt: &[u32]) -> (usize, Reuse) {
        let out = caches.checkout(session, prompt).unwrap();
        assert_eq!(out.cache.tokens(), &prompt[..out.reused]);
        let cache = filled(out.cache, &prompt[out.reused..]);
        caches.checkin(session, cache);
        (out.reused, out.source)
    }

    #[test]
    fn reuses_own_then_copies_the_longest_other_prefix() {
        let mut caches = PrefixCaches::new(shape(), usize::MAX, true);
        assert_eq!(run(&mut caches, "warm:p", &[1, 2, 3, 4]), (0, Reuse::None));
        assert_eq!(
            run(&mut caches, "a", &[1, 2, 3, 9, 9]),
            (3, Reuse::CopiedFrom("warm:p".into()))
        );
        assert_eq!(run(&mut caches, "a", &[1, 2, 3, 9, 9, 7]), (5, Reuse::Own));
        // The whole prompt is cached: the last token is still computed.
        assert_eq!(run(&mut caches, "a", &[1, 2, 3, 9]), (3, Reuse::Forked));
        // The warmed prompt was not changed by the sessions copied from it.
        let warm = caches.checkout("warm:p", &[1, 2, 3, 4, 5]).unwrap();
        assert_eq!((warm.reused, warm.source), (4, Reuse::Own));
    }

    #[test]
    fn another_sessions_cache_is_never_reused() {
        let mut caches = PrefixCaches::new(shape(), usize::MAX, true);
        run(&mut caches, "alice", &[1, 2, 3, 4, 5]);
        assert_eq!(run(&mut caches, "warm:p", &[1, 2]), (0, Reuse::None));
        assert_eq!(
            run(&mut caches, "mallory", &[1, 2, 3, 4, 6]),
            (2, Reuse::CopiedFrom("warm:p".into()))
        );
    }

    #[test]
    fn a_session_keeps_its_branches() {
        let mut caches = PrefixCaches::new(shape(), usize::MAX, true);
        let draft = [1, 2, 3, 10, 11];
        let critique = [1, 2, 3, 20, 21];
        assert_eq!(run(&mut caches, "s", &draft), (0, Reuse::None));
        assert_eq!(run(&mut caches, "s", &critique), (3, Reuse::Forked));
        assert_eq!(
            run(&mut caches, "s", &[1, 2, 3, 10, 11, 12]),
            (5, Reuse::Own)
        );
        assert_eq!(
            run(&mut caches, "s", &[1, 2, 3, 20, 21, 22]),
            (5, Reuse::Own)
        );
        assert_eq!(caches.usage().caches, 2, "extended branches are replaced");
        for branch in 0..MAX_BRANCHES as u32 + 2 {
            run(&mut caches, "s", &[1, 2, 3, 30 + branch, 0]);
        }
        assert_eq!(caches.usage().caches, MAX_BRANCHES);
    }

    #[test]
    fn copied_keys_are_the_original_ones() {
        let mut caches = PrefixCaches::new(shape(), usize::MAX, true);
        run(&mut caches, "warm:p", &[5, 6, 7, 8]);
        let mut out = caches.checkout("b", &[5, 6, 7, 1]).unwrap();
        let extra = Tensor::from_slice(&[1f32, 1.], (1, 1, 1, 2), &Device::Cpu).unwrap();
        let (k, _) = out.cache.append(0, &extra, &extra).unwrap();
        assert_eq!(
            k.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            vec![5., 5., 6., 6., 7., 7., 1., 1.]
        );
    }

    #[test]
    fn evicts_least_recently_used_within_the_budget() {
        let one_cache = filled(KvCache::new(shape()), &[1]).bytes();
        let mut caches = PrefixCaches::new(shape(), 2 * one_cache, true);
        run(&mut caches, "a", &[1, 2]);
        run(&mut caches, "b", &[3, 4]);
        run(&mut caches, "a", &[1, 2, 5]);
        run(&mut caches, "c", &[6, 7]);
        assert_eq!(caches.sessions(), vec!["c".to_string(), "a".to_string()]);
        assert!(caches.usage().bytes <= 2 * one_cache);
    }

    #[test]
    fn a_cache_over_the_budget_alone_is_still_kept() {
        let mut caches = PrefixCaches::new(shape(), 1, true);
        run(&mut caches, "a", &[1, 2]);
        run(&mut caches, "b", &[1, 2, 3]);
        assert_eq!(caches.sessions(), vec!["b".to_string()]);
        assert_eq!(run(&mut caches, "b", &[1, 2, 3, 4]), (3, Reuse::Own));
    }

    #[test]
    fn disabled_caches_keep_nothing() {
        let mut caches = PrefixCaches::new(shape(), usize::MAX, false);
        run(&mut caches, "a", &[1, 2, 3]);
        assert_eq!(run(&mut caches, "a", &[1, 2, 3, 4]), (0, Reuse::None));
        assert_eq!(caches.usage().caches, 0);
    }

    #[test]
    fn a_shared_prompt_outlives_the_process_but_a_users_does_not() {
        let dir = std::env::temp_dir().join(format!("loopd-prefix-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = || PromptStore::open(dir.clone(), "key".into());
        let system: Vec<u32> = (1000..1040).collect();
        let mut first = PrefixCaches::new(shape(), 1 << 20, true).with_store(store());
        run(&mut first, "warm:default", &[&system[..], &[1, 2]].concat());
        run(&mut first, "alice", &[&system[..], &[7, 7, 7]].concat());
        drop(first);

        let mut restarted = PrefixCaches::new(shape(), 1 << 20, true).with_store(store());
        let (reused, source) = run(&mut restarted, "bob", &[&system[..], &[3]].concat());
        assert_eq!(reused, system.len());
        assert_eq!(source, Reuse::CopiedFrom("warm:default".into()));
        let files = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(files, 1, "only the shared session was written");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Prompt-lookup drafting for speculative decoding: guesses the next tokens
//! by finding the text's last few tokens earlier in the prompt or the output
//! and proposing what followed them there. Loop turns copy a great deal (tool
//! names and arguments from the prompt, numbers and names from observations
//! and the question), and a guess costs no model.
//!
//! The brain checks a draft in one forward pass and keeps the tokens it would
//! have chosen anyway, so the output is the one plain decoding gives. A pass
//! over several tokens costs more than one (on two CPU cores about 1.4× for
//! two and 3.4× for eight; on a GPU about 1.4× for eight), so [`DraftOdds`]
//! learns, on the device it runs on, what passes cost and how often drafted
//! tokens are kept, and [`DraftOdds::length`] drafts only what is expected to
//! pay for its pass.

/// Longest and shortest run of last tokens looked up.
const NGRAM: std::ops::RangeInclusive<usize> = 2..=4;

/// How many match lengths [`NGRAM`] holds.
const MATCH_LENGTHS: usize = *NGRAM.end() - *NGRAM.start() + 1;

/// How far back the lookup searches, in tokens.
const WINDOW: usize = 4096;

/// A guess at the next tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proposal {
    /// The tokens that followed the match.
    pub tokens: Vec<u32>,
    /// How many last tokens matched (2 to 4): longer matches are kept more.
    pub matched: usize,
}

/// Proposes up to `max` tokens to follow `history`: what followed the latest
/// earlier occurrence of its last 4, 3 or 2 tokens (longest match first).
pub fn propose(history: &[u32], max: usize) -> Option<Proposal> {
    if max == 0 {
        return None;
    }
    let from = history.len().saturating_sub(WINDOW);
    let window = &history[from..];
    for n in NGRAM.rev() {
        if window.len() <= n {
            continue;
        }
        let suffix = &window[window.len() - n..];
        let found = (0..window.len() - n)
            .rev()
            .find(|&at| &window[at..at + n] == suffix);
        if let Some(at) = found {
            let start = at + n;
            let end = (start + max).min(window.len());
            return Some(Proposal {
                tokens: window[start..end].to_vec(),
                matched: n,
            });
        }
    }
    None
}

/// A running mean that follows change: the plain mean of the first
/// [`Mean::SPAN`] samples, then an exponential one over about as many.
#[derive(Debug, Clone, Copy, Default)]
struct Mean {
    value: f64,
    /// Samples seen, counted up to [`Mean::SPAN`].
    weight: usize,
}

impl Mean {
    const SPAN: usize = 16;

    fn add(&mut self, sample: f64) {
        self.weight = (self.weight + 1).min(Self::SPAN);
        self.value += (sample - self.value) / self.weight as f64;
    }

    fn get(&self) -> Option<f64> {
        (self.weight > 0).then_some(self.value)
    }
}

/// What drafting has cost and earned on one model on one device, learned
/// while it decodes: what each token beyond the first adds to a pass, and
/// how often a drafted token is kept after a match of each length.
///
/// A pass's cost is taken as growing by the same share a token (measured
/// 1.44×, 1.81× and 3.42× one for 2, 4 and 8 tokens on two CPU cores: a
/// line is near enough), so every checked draft teaches every length, and
/// no one slow pass can put a length out of use for good.
#[derive(Debug, Clone)]
pub struct DraftOdds {
    /// Seconds of a pass over one token.
    one: Mean,
    /// What each token beyond the first adds to a pass, against one.
    per_token: Mean,
    /// [`DraftOdds::per_token`] until a pass over several tokens is timed.
    per_token_guess: f64,
    /// A cost a token that stands instead of the learned one.
    per_token_fixed: Option<f64>,
    /// Per match length: drafted tokens kept, and drafts cut short.
    outcomes: [(f64, f64); MATCH_LENGTHS],
    /// Per match length: proposals not drafted since one was.
    declined: [usize; MATCH_LENGTHS],
}

impl DraftOdds {
    /// Counts beyond which older drafts weigh less.
    const MEMORY: f64 = 64.0;

    /// One proposal in this many, when none would be drafted, drafts one
    /// token anyway, so that a keep chance learned low rises again when the
    /// text turns to copying (answers in words, then a tool call that
    /// copies its arguments).
    const RETRY: usize = 16;

    /// Odds that know nothing yet, guessing that each token beyond the
    /// first adds `per_token_guess` to a pass (about 0.3 on two CPU cores,
    /// 0.05 on a GPU; see benches/SPEED.md).
    pub fn new(per_token_guess: f64) -> Self {
        DraftOdds {
            one: Mean::default(),
            per_token: Mean::default(),
            per_token_guess,
            per_token_fixed: None,
            outcomes: Default::default(),
            declined: Default::default(),
        }
    }

    /// Records that a pass over `rows` tokens took `seconds`, from its start
    /// to its logits in hand.
    pub fn passed(&mut self, rows: usize, seconds: f64) {
        match rows {
            0 => {}
            1 => self.one.add(seconds),
            _ => {
                if let Some(one) = self.one.get().filter(|&one| one > 0.0) {
                    self.per_token
                        .add((seconds / one - 1.0) / (rows - 1) as f64);
                }
            }
        }
    }

    /// Records a checked draft of `drafted` tokens after a match of
    /// `matched` tokens, of which the first `taken` were kept.
    pub fn checked(&mut self, matched: usize, drafted: usize, taken: usize) {
        let Some((kept, cut)) = slot(matched).map(|i| &mut self.outcomes[i]) else {
            return;
        };
        *kept += taken as f64;
        if taken < drafted {
            *cut += 1.0;
        }
        let total = *kept + *cut;
        if total > Self::MEMORY {
            *kept *= Self::MEMORY / total;
            *cut *= Self::MEMORY / total;
        }
    }

    /// The chance that a drafted token is kept, given the one before it
    /// was, after a match of `matched` tokens (an even prior of one each).
    pub fn keep_chance(&self, matched: usize) -> f64 {
        let (kept, cut) = slot(matched).map(|i| self.outcomes[i]).unwrap_or_default();
        (kept + 1.0) / (kept + cut + 2.0)
    }

    /// Takes each token beyond the first to add `per_token` to a pass
    /// whatever the timings say, so that what is drafted follows only the
    /// text; `None`: learned again.
    pub fn fix_per_token(&mut self, per_token: Option<f64>) {
        self.per_token_fixed = per_token;
    }

    /// A pass over `rows` tokens against one.
    pub fn pass_cost(&self, rows: usize) -> f64 {
        let per_token = self
            .per_token_fixed
            .or(self.per_token.get())
            .unwrap_or(self.per_token_guess);
        1.0 + per_token.max(0.0) * rows.saturating_sub(1) as f64
    }

    /// How many of a proposal's tokens to draft, at most `cap`: the length
    /// whose expected tokens per pass, over the pass's cost, beats plain
    /// decoding's one token a pass by the most; 0 when none does, but for
    /// one token every [`DraftOdds::RETRY`] proposals.
    pub fn length(&mut self, proposal: &Proposal, cap: usize) -> usize {
        let longest = proposal.tokens.len().min(cap).min(DraftLength::MAX);
        let Some(i) = slot(proposal.matched).filter(|_| longest > 0) else {
            return 0;
        };
        let keep = self.keep_chance(proposal.matched);
        let (mut best, mut best_gain) = (0, 1.0);
        let (mut expected, mut chance) = (1.0, 1.0);
        for drafted in 1..=longest {
            chance *= keep;
            expected += chance;
            let gain = expected / self.pass_cost(drafted + 1);
            if gain > best_gain {
                (best, best_gain) = (drafted, gain);
            }
        }
        let declined = &mut self.declined[i];
        if best > 0 {
            *declined = 0;
            return best;
        }
        *declined += 1;
        if *declined < Self::RETRY {
            return 0;
        }
        *declined = 0;
        1
    }
}

/// Where a match of `matched` tokens is counted.
fn slot(matched: usize) -> Option<usize> {
    matched
        .checked_sub(*NGRAM.start())
        .filter(|&i| i < MATCH_LENGTHS)
}

/// How many tokens to draft next: grows while drafts are taken whole and
/// shrinks when they are not, so text that copies nothing costs little.
#[derive(Debug, Clone)]
pub struct DraftLength {
    current: usize,
}

impl DraftLength {
    /// Longest draft.
    pub const MAX: usize = 8;

    /// Starts at a short draft.
    pub fn new() -> Self {
        DraftLength { current: 4 }
    }

    /// The length to draft now.
    pub fn get(&self) -> usize {
        self.current
    }

    /// Learns from a checked draft of `drafted` tokens of which `taken` were
    /// kept.
    pub fn update(&mut self, drafted: usize, taken: usize) {
        self.current = if taken == drafted {
            (self.current + 2).min(Self::MAX)
        } else {
            (taken + 1).clamp(2, Self::MAX)
        };
    }
}

impl Default for DraftLength {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(history: &[u32], max: usize) -> Vec<u32> {
        propose(history, max).map(|p| p.tokens).unwrap_or_default()
    }

    #[test]
    fn proposes_what_followed_the_latest_match() {
        // "… 7 8 9 1 2 | 7 8" → after "7 8" came "9 1 2 …".
        let history = [1, 2, 7, 8, 9, 1, 2, 7, 8];
        assert_eq!(tokens(&history, 3), vec![9, 1, 2]);
        assert_eq!(tokens(&history, 10), vec![9, 1, 2, 7, 8]);
        assert_eq!(propose(&history, 3).map(|p| p.matched), Some(4));
    }

    #[test]
    fn prefers_the_longest_match() {
        // "5 7 8" occurred once (then 3), "7 8" later (then 4).
        let history = [5, 7, 8, 3, 0, 7, 8, 4, 0, 5, 7, 8];
        assert_eq!(propose(&history, 1).map(|p| p.matched), Some(3));
        assert_eq!(tokens(&history, 1), vec![3]);
    }

    #[test]
    fn nothing_without_a_match() {
        assert_eq!(propose(&[1, 2, 3, 4], 4), None);
        assert_eq!(propose(&[], 4), None);
        assert_eq!(propose(&[1, 1], 0), None);
    }

    fn proposal(matched: usize) -> Proposal {
        Proposal {
            tokens: vec![1; DraftLength::MAX],
            matched,
        }
    }

    /// Odds whose passes over `i + 1` tokens took `costs[i]` (one: 1).
    fn timed(costs: &[(usize, f64)]) -> DraftOdds {
        let mut odds = DraftOdds::new(0.1);
        odds.passed(1, 1.0);
        for &(rows, cost) in costs {
            odds.passed(rows, cost);
        }
        odds
    }

    #[test]
    fn drafts_nothing_where_a_check_costs_more_than_its_kept_tokens_bring() {
        // Two CPU cores: two tokens cost 1.44 one-token passes, eight 3.42.
        let mut odds = timed(&[(2, 1.44), (8, 3.42)]);
        for _ in 0..50 {
            odds.checked(2, 2, 0);
            odds.checked(2, 2, 1);
        }
        assert!(odds.keep_chance(2) < 0.4);
        let drafted: Vec<usize> = (0..2 * DraftOdds::RETRY)
            .map(|_| odds.length(&proposal(2), 8))
            .collect();
        let mut retried = vec![0; 2 * DraftOdds::RETRY];
        retried[DraftOdds::RETRY - 1] = 1;
        retried[2 * DraftOdds::RETRY - 1] = 1;
        assert_eq!(drafted, retried, "one token tried now and then");
        // Long matches that copy well are still drafted, but not as far as
        // the longest draft, whose pass is dearest.
        for _ in 0..50 {
            odds.checked(4, 4, 4);
            odds.checked(4, 4, 3);
        }
        let length = odds.length(&proposal(4), 8);
        assert!((2..8).contains(&length), "{length}");
        assert_eq!(odds.length(&proposal(4), 1), 1);
    }

    #[test]
    fn drafts_the_longest_where_a_check_costs_what_one_token_does() {
        // A GPU: every pass about the same.
        let mut odds = timed(&[(2, 1.0), (5, 1.0), (9, 1.0)]);
        for _ in 0..20 {
            odds.checked(2, 4, 1);
        }
        assert_eq!(odds.length(&proposal(2), 8), 8);
        assert_eq!(odds.length(&proposal(2), 3), 3);
    }

    #[test]
    fn every_timed_pass_teaches_the_cost_of_every_length() {
        let fresh = DraftOdds::new(0.3);
        assert!((fresh.pass_cost(9) - 3.4).abs() < 1e-9, "the guess");
        let odds = timed(&[(2, 1.44)]);
        assert!((odds.pass_cost(2) - 1.44).abs() < 1e-9);
        assert!((odds.pass_cost(9) - (1.0 + 0.44 * 8.0)).abs() < 1e-9);
        // One slow pass is outweighed by the ones after it.
        let mut odds = timed(&[(5, 9.0)]);
        for _ in 0..40 {
            odds.passed(3, 1.4);
        }
        assert!(odds.pass_cost(5) < 2.0, "{}", odds.pass_cost(5));
        assert_eq!(DraftOdds::new(0.1).pass_cost(0), 1.0);
        odds.fix_per_token(Some(0.0));
        assert_eq!(odds.pass_cost(5), 1.0);
        odds.fix_per_token(None);
        assert!(odds.pass_cost(5) > 1.5);
    }

    #[test]
    fn the_keep_chance_follows_recent_drafts() {
        let mut odds = DraftOdds::new(0.3);
        assert_eq!(odds.keep_chance(3), 0.5);
        for _ in 0..1000 {
            odds.checked(3, 4, 0);
        }
        assert!(odds.keep_chance(3) < 0.05);
        for _ in 0..40 {
            odds.checked(3, 4, 4);
        }
        assert!(odds.keep_chance(3) > 0.75, "{}", odds.keep_chance(3));
        assert_eq!(odds.keep_chance(7), 0.5);
        assert_eq!(odds.length(&proposal(7), 8), 0);
    }

    #[test]
    fn draft_length_follows_acceptance() {
        let mut length = DraftLength::new();
        length.update(4, 4);
        assert_eq!(length.get(), 6);
        length.update(6, 6);
        length.update(8, 8);
        assert_eq!(length.get(), DraftLength::MAX);
        length.update(8, 0);
        assert_eq!(length.get(), 2);
    }
}

//! Prompt-lookup drafting for speculative decoding: guesses the next tokens
//! by finding the text's last few tokens earlier in the prompt or the output
//! and proposing what followed them there. Loop turns copy a great deal (tool
//! names and arguments from the prompt, numbers and names from observations
//! and the question), and a guess costs no model.
//!
//! The brain checks a draft in one forward pass and keeps the tokens it would
//! have chosen anyway, so the output is the one plain decoding gives.

/// Longest and shortest run of last tokens looked up.
const NGRAM: std::ops::RangeInclusive<usize> = 2..=4;

/// How far back the lookup searches, in tokens.
const WINDOW: usize = 4096;

/// Proposes up to `max` tokens to follow `history`: what followed the latest
/// earlier occurrence of its last 4, 3 or 2 tokens (longest match first).
pub fn propose(history: &[u32], max: usize) -> Vec<u32> {
    if max == 0 {
        return Vec::new();
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
            return window[start..end].to_vec();
        }
    }
    Vec::new()
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

    #[test]
    fn proposes_what_followed_the_latest_match() {
        // "… 7 8 9 1 2 | 7 8" → after "7 8" came "9 1 2 …".
        let history = [1, 2, 7, 8, 9, 1, 2, 7, 8];
        assert_eq!(propose(&history, 3), vec![9, 1, 2]);
        assert_eq!(propose(&history, 10), vec![9, 1, 2, 7, 8]);
    }

    #[test]
    fn prefers_the_longest_match() {
        // "5 7 8" occurred once (then 3), "7 8" later (then 4).
        let history = [5, 7, 8, 3, 0, 7, 8, 4, 0, 5, 7, 8];
        assert_eq!(propose(&history, 1), vec![3]);
    }

    #[test]
    fn nothing_without_a_match() {
        assert!(propose(&[1, 2, 3, 4], 4).is_empty());
        assert!(propose(&[], 4).is_empty());
        assert!(propose(&[1, 1], 0).is_empty());
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

//! How many digits in a row a number in a constrained reply's JSON may
//! have: a limit held while decoding, beside the grammar.
//!
//! A number type bounded in a JSON schema (`minimum`, `maximum`) is
//! compiled by llguidance into a range regex, 0.3 to 0.8 ms for each such
//! type in a grammar, which a client sending new tools with each request
//! pays every time. A run of digits read off the text costs nothing to
//! set up and holds numbers to the same kind of bound.

/// Where a reply's text stands for its numbers: how deep inside JSON
/// objects and arrays, whether inside a string, and how many digits in a
/// row it ends with outside strings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct NumberRun {
    depth: u32,
    in_string: bool,
    escaped: bool,
    digits: usize,
}

impl NumberRun {
    /// The state after `bytes`, and the most digits in a row of a number
    /// met on the way.
    pub(super) fn after(mut self, bytes: &[u8]) -> (Self, usize) {
        let mut longest = self.digits;
        for &byte in bytes {
            self.step(byte);
            longest = longest.max(self.digits);
        }
        (self, longest)
    }

    /// Digits in a row the text ends with, in a number inside JSON.
    pub(super) fn digits(&self) -> usize {
        self.digits
    }

    fn step(&mut self, byte: u8) {
        if self.in_string {
            match (self.escaped, byte) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return;
        }
        self.digits = match byte {
            b'0'..=b'9' if self.depth > 0 => self.digits + 1,
            b'{' | b'[' => {
                self.depth = self.depth.saturating_add(1);
                0
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                0
            }
            b'"' => {
                self.in_string = self.depth > 0;
                0
            }
            _ => 0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn longest(text: &str) -> usize {
        NumberRun::default().after(text.as_bytes()).1
    }

    #[test]
    fn only_numbers_inside_json_count() {
        assert_eq!(longest(r#"{"n": 12345, "m": [1, 22]}"#), 5);
        assert_eq!(longest("call me at 0123456789"), 0, "not JSON");
        assert_eq!(longest(r#"{"id": "98765432109876"}"#), 0, "a string");
        assert_eq!(longest(r#"{"s": "a \"12\" 3", "n": -1.25}"#), 2);
        assert_eq!(longest(r#"{"n": 1} and 123456"#), 1, "after the JSON");
    }

    #[test]
    fn the_state_carries_across_tokens() {
        let (state, _) = NumberRun::default().after(br#"{"n": 12"#);
        assert_eq!(state.digits(), 2);
        assert_eq!(state.after(b"345").1, 5);
        let (in_string, _) = NumberRun::default().after(br#"{"s": "ab\"#);
        assert_eq!(in_string.after(br#"" 123"#).1, 0, "still in the string");
    }
}

//! Stop strings in streamed text.
//!
//! Text is streamed as it is generated, but a stop string can arrive split
//! over several tokens (`Obser` + `vation:`). [`StopScanner`] holds back only
//! the tail that could still become a stop string and releases everything
//! else at once.

/// Finds stop strings in text that arrives piece by piece.
#[derive(Debug, Clone, Default)]
pub struct StopScanner {
    stops: Vec<String>,
    held: String,
}

/// What a piece of text amounts to once stop strings are considered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scanned {
    /// Text that is safe to emit now (possibly empty).
    Emit(String),
    /// A stop string was completed: emit the text before it, then stop.
    Stopped {
        /// Text before the stop string.
        before: String,
        /// The stop string that was found.
        stop: String,
    },
}

impl StopScanner {
    /// A scanner for these stop strings (empty strings are ignored).
    pub fn new(stops: &[String]) -> Self {
        StopScanner {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            held: String::new(),
        }
    }

    /// Adds text; returns what can be emitted, or the stop.
    pub fn push(&mut self, text: &str) -> Scanned {
        self.held.push_str(text);
        let first_stop = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()).map(|at| (at, s)))
            .min_by_key(|(at, s)| (*at, std::cmp::Reverse(s.len())));
        if let Some((at, stop)) = first_stop {
            let stop = stop.clone();
            let before = self.held[..at].to_string();
            self.held.clear();
            return Scanned::Stopped { before, stop };
        }
        let keep = self.partial_tail_len();
        let emit_to = self.held.len() - keep;
        let emitted = self.held[..emit_to].to_string();
        self.held.drain(..emit_to);
        Scanned::Emit(emitted)
    }

    /// Text held back at the end of the stream (no stop string came).
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }

    /// Length of the longest tail of the held text that is a proper prefix of
    /// some stop string.
    fn partial_tail_len(&self) -> usize {
        let mut best = 0;
        for stop in &self.stops {
            for (start, _) in self.held.char_indices() {
                let tail = &self.held[start..];
                if tail.len() < stop.len() && stop.starts_with(tail) {
                    best = best.max(tail.len());
                    break;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanner(stops: &[&str]) -> StopScanner {
        StopScanner::new(&stops.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn stop_split_across_pieces() {
        let mut s = scanner(&["Observation:"]);
        assert_eq!(
            s.push("Action: x\nObs"),
            Scanned::Emit("Action: x\n".into())
        );
        assert_eq!(s.push("erv"), Scanned::Emit(String::new()));
        assert_eq!(
            s.push("ation: 42"),
            Scanned::Stopped {
                before: String::new(),
                stop: "Observation:".into()
            }
        );
    }

    #[test]
    fn false_alarm_is_released() {
        let mut s = scanner(&["Observation:"]);
        assert_eq!(s.push("Obs"), Scanned::Emit(String::new()));
        assert_eq!(s.push("cure"), Scanned::Emit("Obscure".into()));
    }

    #[test]
    fn no_stops_emits_everything() {
        let mut s = scanner(&[]);
        assert_eq!(s.push("héllo"), Scanned::Emit("héllo".into()));
        assert_eq!(s.finish(), "");
    }

    #[test]
    fn earliest_stop_wins() {
        let mut s = scanner(&["B", "A"]);
        assert_eq!(
            s.push("xAyB"),
            Scanned::Stopped {
                before: "x".into(),
                stop: "A".into()
            }
        );
    }

    #[test]
    fn held_text_comes_out_at_the_end() {
        let mut s = scanner(&["\nUser:"]);
        assert_eq!(s.push("done\nUs"), Scanned::Emit("done".into()));
        assert_eq!(s.finish(), "\nUs");
    }
}

//! Where streamed text goes: a [`Route`] says which part of an LLM call's
//! text is reasoning and which is the answer to speak; a [`Router`] splits
//! the text along it as it streams, holding back only what might be the
//! start of a marker.

use super::parse::find_marker;

/// Where the text of an LLM call goes as it streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// All of it is reasoning.
    Thought,
    /// All of it is the answer.
    Answer,
    /// Reasoning until one of these markers (any case), the answer after it.
    AnswerAfter(&'static [&'static str]),
    /// The answer, unless the text starts with one of these (then reasoning:
    /// a tool call, not words to speak).
    AnswerUnlessStarts(&'static [&'static str]),
}

/// Splits streamed text into thought and answer along a [`Route`], holding
/// back only what might be the start of a marker.
#[derive(Debug)]
pub struct Router {
    route: Route,
    text: String,
    emitted: usize,
    answer_from: Option<usize>,
    answer_started: bool,
    decided: bool,
}

impl Router {
    /// A router for one LLM call.
    pub fn new(route: Route) -> Self {
        Router {
            route,
            text: String::new(),
            emitted: 0,
            answer_from: None,
            answer_started: false,
            decided: false,
        }
    }

    /// Takes new text; returns (thought, answer) ready to emit.
    pub fn push(&mut self, piece: &str) -> (String, String) {
        self.text.push_str(piece);
        self.route(false)
    }

    /// The end of the text: releases everything held back.
    pub fn finish(&mut self) -> (String, String) {
        self.route(true)
    }

    fn route(&mut self, last: bool) -> (String, String) {
        match self.route {
            Route::Thought => (self.take(self.text.len()), String::new()),
            Route::Answer => {
                let answer = self.take_answer(self.text.len());
                (String::new(), answer)
            }
            Route::AnswerAfter(markers) => self.route_after(markers, last),
            Route::AnswerUnlessStarts(prefixes) => self.route_unless(prefixes, last),
        }
    }

    fn route_after(&mut self, markers: &[&str], last: bool) -> (String, String) {
        if self.answer_from.is_none() {
            match find_marker(&self.text[self.emitted..], markers) {
                Some((_, end)) => {
                    let end = self.emitted + end;
                    let thought = self.take(end);
                    self.answer_from = Some(end);
                    let answer = self.take_answer(self.text.len());
                    return (thought, answer);
                }
                None => {
                    let longest = markers.iter().map(|m| m.len()).max().unwrap_or(0);
                    let safe = if last {
                        self.text.len()
                    } else {
                        floor_char_boundary(
                            &self.text,
                            self.text.len().saturating_sub(longest.saturating_sub(1)),
                        )
                        .max(self.emitted)
                    };
                    return (self.take(safe), String::new());
                }
            }
        }
        (String::new(), self.take_answer(self.text.len()))
    }

    fn route_unless(&mut self, prefixes: &[&str], last: bool) -> (String, String) {
        if !self.decided {
            let start = self.text.trim_start();
            let lower = start.to_ascii_lowercase();
            let matches = prefixes.iter().any(|p| lower.starts_with(p));
            let could_match = prefixes.iter().any(|p| p.starts_with(lower.as_str()));
            if matches {
                self.decided = true;
            } else if !could_match || last {
                self.decided = true;
                self.answer_from = Some(0);
            } else {
                return (String::new(), String::new());
            }
        }
        if self.answer_from.is_none() {
            return (self.take(self.text.len()), String::new());
        }
        let markers: Vec<&str> = prefixes.iter().copied().filter(|p| p.len() > 1).collect();
        if let Some((start, _)) = find_marker(&self.text[self.emitted..], &markers) {
            let answer = self.take_answer(self.emitted + start);
            self.answer_from = None;
            return (self.take(self.text.len()), answer);
        }
        let longest = markers.iter().map(|m| m.len()).max().unwrap_or(1);
        let safe = if last {
            self.text.len()
        } else {
            floor_char_boundary(&self.text, self.text.len().saturating_sub(longest - 1))
                .max(self.emitted)
        };
        (String::new(), self.take_answer(safe))
    }

    fn take(&mut self, upto: usize) -> String {
        let out = self.text[self.emitted..upto].to_string();
        self.emitted = upto;
        out
    }

    fn take_answer(&mut self, upto: usize) -> String {
        let out = self.take(upto);
        if self.answer_started {
            return out;
        }
        let out = out.trim_start().to_string();
        self.answer_started = !out.is_empty();
        out
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::FINAL_ANSWER;

    fn route_all(route: Route, pieces: &[&str]) -> (String, String) {
        let mut router = Router::new(route);
        let (mut thought, mut answer) = (String::new(), String::new());
        for piece in pieces {
            let (t, a) = router.push(piece);
            thought += &t;
            answer += &a;
        }
        let (t, a) = router.finish();
        (thought + &t, answer + &a)
    }

    #[test]
    fn router_finds_a_marker_split_across_pieces() {
        let (thought, answer) = route_all(
            Route::AnswerAfter(FINAL_ANSWER),
            &["Thought: ok\nFIN", "AL_ANS", "WER:", " It is", " noon."],
        );
        assert_eq!(thought, "Thought: ok\nFINAL_ANSWER:");
        assert_eq!(answer, "It is noon.");
    }

    #[test]
    fn router_without_marker_is_all_thought() {
        let (thought, answer) = route_all(Route::AnswerAfter(FINAL_ANSWER), &["héllo ", "wörld"]);
        assert_eq!(thought, "héllo wörld");
        assert_eq!(answer, "");
    }

    #[test]
    fn router_unless_starts() {
        let prefixes: &[&str] = &["<tool_call>", "{"];
        assert_eq!(
            route_all(Route::AnswerUnlessStarts(prefixes), &[" <tool", "_call>{}"]),
            (" <tool_call>{}".to_string(), String::new())
        );
        assert_eq!(
            route_all(Route::AnswerUnlessStarts(prefixes), &["<", "b>hi"]),
            (String::new(), "<b>hi".into())
        );
        assert_eq!(
            route_all(Route::AnswerUnlessStarts(prefixes), &["Hello", " there"]),
            (String::new(), "Hello there".into())
        );
        assert_eq!(
            route_all(
                Route::AnswerUnlessStarts(&["<tool_call>", "{"]),
                &["Let me check.", " <tool", "_call>{\"name\":\"x\"}"]
            ),
            (
                "<tool_call>{\"name\":\"x\"}".to_string(),
                "Let me check. ".into()
            )
        );
    }

    #[test]
    fn router_answer_drops_leading_space_only() {
        assert_eq!(
            route_all(Route::Answer, &["  ", " Hi", " you "]),
            (String::new(), "Hi you ".into())
        );
    }
}

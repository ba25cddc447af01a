//! Short-term memory: the last few turns of each session, so a follow-up
//! question ("and in Paris?") reaches the model with what came before.

use crate::brain::Message;
use std::collections::{HashMap, VecDeque};

/// One remembered exchange.
#[derive(Debug, Clone)]
struct Turn {
    question: String,
    answer: String,
}

/// The last `turns` exchanges of up to `sessions` sessions; the session
/// used least recently is forgotten first.
#[derive(Debug)]
pub struct Memory {
    turns: usize,
    sessions: usize,
    by_session: HashMap<String, Session>,
    clock: u64,
}

#[derive(Debug, Default)]
struct Session {
    turns: VecDeque<Turn>,
    used: u64,
}

impl Memory {
    /// Memory for `turns` exchanges per session and `sessions` sessions.
    pub fn new(turns: usize, sessions: usize) -> Self {
        Memory {
            turns,
            sessions: sessions.max(1),
            by_session: HashMap::new(),
            clock: 0,
        }
    }

    /// The session's remembered exchanges as user/assistant messages, oldest first.
    pub fn recall(&mut self, session: &str) -> Vec<Message> {
        self.clock += 1;
        let now = self.clock;
        let Some(s) = self.by_session.get_mut(session) else {
            return Vec::new();
        };
        s.used = now;
        s.turns
            .iter()
            .flat_map(|t| [Message::user(&t.question), Message::assistant(&t.answer)])
            .collect()
    }

    /// Remembers an exchange, forgetting the session's oldest one past the
    /// limit and the least recently used session past that limit.
    pub fn remember(&mut self, session: &str, question: &str, answer: &str) {
        if self.turns == 0 {
            return;
        }
        self.clock += 1;
        if !self.by_session.contains_key(session) && self.by_session.len() >= self.sessions {
            if let Some(oldest) = self
                .by_session
                .iter()
                .min_by_key(|(_, s)| s.used)
                .map(|(k, _)| k.clone())
            {
                self.by_session.remove(&oldest);
            }
        }
        let s = self.by_session.entry(session.to_string()).or_default();
        s.used = self.clock;
        s.turns.push_back(Turn {
            question: question.to_string(),
            answer: answer.to_string(),
        });
        while s.turns.len() > self.turns {
            s.turns.pop_front();
        }
    }

    /// How many sessions are remembered.
    pub fn sessions(&self) -> usize {
        self.by_session.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brain::Role;

    #[test]
    fn keeps_the_last_turns_of_each_session() {
        let mut m = Memory::new(2, 8);
        m.remember("a", "q1", "a1");
        m.remember("a", "q2", "a2");
        m.remember("a", "q3", "a3");
        m.remember("b", "other", "x");
        let a = m.recall("a");
        let texts: Vec<&str> = a.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["q2", "a2", "q3", "a3"]);
        assert_eq!(a[0].role, Role::User);
        assert_eq!(a[1].role, Role::Assistant);
        assert_eq!(m.recall("b").len(), 2);
        assert!(m.recall("c").is_empty());
    }

    #[test]
    fn forgets_the_least_recently_used_session() {
        let mut m = Memory::new(4, 2);
        m.remember("a", "q", "a");
        m.remember("b", "q", "a");
        m.recall("a");
        m.remember("c", "q", "a");
        assert_eq!(m.sessions(), 2);
        assert!(m.recall("b").is_empty());
        assert_eq!(m.recall("a").len(), 2);
    }

    #[test]
    fn zero_turns_remembers_nothing() {
        let mut m = Memory::new(0, 2);
        m.remember("a", "q", "a");
        assert!(m.recall("a").is_empty());
    }
}

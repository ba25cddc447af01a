//! The engine ids, as used on the CLI, in personas and on the bus: one
//! enum, so building an engine and listing its settings cannot miss one.

use std::fmt;
use std::str::FromStr;

/// Which agent loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EngineId {
    /// `react`: thought, action, observation (seeds 000, 001).
    React,
    /// `plan-execute`: a plan, then each step.
    PlanExecute,
    /// `reflexion`: attempt, evaluate, reflect, retry.
    Reflexion,
    /// `self-ask`: follow-up questions answered one by one.
    SelfAsk,
    /// `chain-of-thought`: numbered steps, then the answer, in one call.
    ChainOfThought,
    /// `critic`: answer, verify claims with tools, revise.
    Critic,
    /// `tree-of-thoughts`: a beam search over scored steps.
    TreeOfThoughts,
    /// `hybrid`: plan-execute with ReAct steps and checkpoints.
    Hybrid,
    /// `auto`: picks one of the others from the question.
    Auto,
    /// `native-tools`: the model's own tool-call format.
    NativeTools,
    /// `none`: one plain chat turn.
    None,
}

impl EngineId {
    /// Every engine, in the order lists show them.
    pub const ALL: [EngineId; 11] = [
        EngineId::React,
        EngineId::PlanExecute,
        EngineId::Reflexion,
        EngineId::SelfAsk,
        EngineId::ChainOfThought,
        EngineId::Critic,
        EngineId::TreeOfThoughts,
        EngineId::Hybrid,
        EngineId::Auto,
        EngineId::NativeTools,
        EngineId::None,
    ];

    /// The id as written (`plan-execute`).
    pub const fn as_str(self) -> &'static str {
        match self {
            EngineId::React => "react",
            EngineId::PlanExecute => "plan-execute",
            EngineId::Reflexion => "reflexion",
            EngineId::SelfAsk => "self-ask",
            EngineId::ChainOfThought => "chain-of-thought",
            EngineId::Critic => "critic",
            EngineId::TreeOfThoughts => "tree-of-thoughts",
            EngineId::Hybrid => "hybrid",
            EngineId::Auto => "auto",
            EngineId::NativeTools => "native-tools",
            EngineId::None => "none",
        }
    }
}

/// Every engine id as written, in [`EngineId::ALL`]'s order.
pub const ENGINES: [&str; EngineId::ALL.len()] = {
    let mut ids = [""; EngineId::ALL.len()];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = EngineId::ALL[i].as_str();
        i += 1;
    }
    ids
};

impl fmt::Display for EngineId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A loop id no engine has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown loop `{0}` (available: {list})", list = ENGINES.join(", "))]
pub struct UnknownEngine(pub String);

impl FromStr for EngineId {
    type Err = UnknownEngine;

    fn from_str(id: &str) -> Result<Self, UnknownEngine> {
        EngineId::ALL
            .into_iter()
            .find(|e| e.as_str() == id)
            .ok_or_else(|| UnknownEngine(id.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_back_as_written() {
        for id in EngineId::ALL {
            assert_eq!(id.as_str().parse::<EngineId>(), Ok(id));
            assert_eq!(id.to_string(), id.as_str());
        }
        let unknown = "nope".parse::<EngineId>().unwrap_err();
        assert!(unknown
            .to_string()
            .contains("available: react, plan-execute"));
    }
}

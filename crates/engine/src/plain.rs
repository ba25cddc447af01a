//! `none`: a plain chat turn, no loop. The model's reply is the answer; a
//! reply cut off by the token limit ends as `budget_exhausted`.

use super::{CallOptions, Engine, EngineFuture, Finish, Route, Run, Termination};
use loopd_brain::{EndReason, Message};
use serde::{Deserialize, Serialize};

/// `none` takes no settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlainConfig {}

/// One LLM call, streamed as the answer.
#[derive(Debug, Clone, Default)]
pub struct Plain;

impl Plain {
    /// The plain engine.
    pub fn new(_config: PlainConfig) -> Result<Self, String> {
        Ok(Plain)
    }
}

impl Engine for Plain {
    fn id(&self) -> &'static str {
        "none"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(async move {
            run.turn()?;
            let reply = run
                .generate(
                    "chat",
                    conversation.to_vec(),
                    CallOptions::default(),
                    Route::Answer,
                )
                .await?;
            let termination = match reply.end {
                EndReason::MaxTokens => Termination::BudgetExhausted,
                _ => Termination::Answered,
            };
            Ok(Finish {
                answer: reply.text,
                termination,
            })
        })
    }
}

//! CRITIC (seed 000): draft → critique with CLAIM/TOOL/TOOL INPUT blocks →
//! verify each claim with its tool → revise, up to `max_critique_rounds`.
//!
//! Without tools the draft is the answer, streamed live. With tools the
//! draft goes to the thought channel, and the model (shown the tools) either
//! writes `VERIFIED` or one block per claim to check. Every block is run
//! through its tool (plain-text input fills the tool's single required
//! string argument; bad input, unknown tools and failures come back as
//! `Error: …` results) and the model rewrites its answer from the results.
//! Complete blocks take priority over a stray `VERIFIED` in the same reply:
//! they are concrete work, while a small model may echo the word from the
//! instructions. A critique with neither is a format error and the answer
//! stands. The revision of the last round is not critiqued again, so it
//! streams live; any other accepted answer is spoken once at the end.
//!
//! The tools are described once, in the system prompt every call of a run
//! shares; critique and revision continue the conversation after the
//! answer, so they share that prefix (and the KV cache) with the draft.
//!
//! A question that a tool reads as asked, or that no tool can help with,
//! is answered before the draft ([`super::react::answer_first`]).
//!
//! Turns: one for the draft, one per critique round.

use super::grounding;
use super::parse;
use super::protocol;
use super::react::answer_first;
use super::{
    fill, tool_list, with_system, CallOptions, Engine, EngineFuture, Finish, Halt, LoopEvent,
    MAX_CALLS_PER_REPLY,
};
use super::{Route, Run};
use loopd_brain::Message;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const SYSTEM: &str = include_str!("prompts/critic_system.txt");
const CRITIQUE: &str = include_str!("prompts/critic_critique.txt");
const REVISE: &str = include_str!("prompts/critic_revise.txt");

/// CRITIC settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CriticConfig {
    /// Most critique → verify → revise rounds.
    pub max_critique_rounds: usize,
}

impl Default for CriticConfig {
    fn default() -> Self {
        CriticConfig {
            max_critique_rounds: 2,
        }
    }
}

/// The CRITIC engine.
#[derive(Debug, Clone)]
pub struct Critic {
    config: CriticConfig,
}

impl Critic {
    /// A CRITIC engine; `max_critique_rounds` must be at least 1.
    pub fn new(config: CriticConfig) -> Result<Self, String> {
        if config.max_critique_rounds == 0 {
            return Err("critic: max_critique_rounds must be at least 1".into());
        }
        Ok(Critic { config })
    }
}

impl Engine for Critic {
    fn id(&self) -> &'static str {
        "critic"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(self.critic(run, conversation))
    }
}

impl Critic {
    async fn critic(&self, run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
        run.turn()?;
        if run.tools().is_empty() {
            let draft = run
                .generate(
                    "draft",
                    conversation.to_vec(),
                    CallOptions::default(),
                    Route::Answer,
                )
                .await?;
            return Ok(Finish::answered(draft.text.trim()));
        }

        run.ground_in(conversation);
        if let Some(finish) = answer_first(run, conversation).await? {
            return Ok(finish);
        }
        let system = fill(SYSTEM.trim_end(), &[("tools", &tool_list(run.tools()))]);
        run.hold_answers();
        let request = conversation;
        let conversation = &with_system(conversation, &system);
        let draft = run
            .generate(
                "draft",
                conversation.to_vec(),
                CallOptions::default(),
                Route::Thought,
            )
            .await?;
        let mut answer = draft.text.trim().to_string();
        let critique_grammar = protocol::critic::grammar_for_critique(&run.tools().specs());

        for round in 1..=self.config.max_critique_rounds {
            run.turn()?;
            let reply = run
                .generate(
                    "critique",
                    after_answer(conversation, &answer, CRITIQUE.trim_end().to_string()),
                    CallOptions {
                        grammar: Some(critique_grammar.clone()),
                        max_tokens: Some(protocol::critic::MAX_CRITIQUE_TOKENS),
                        ..CallOptions::default()
                    },
                    Route::Thought,
                )
                .await?;
            let critique = parse_critique(&reply.text);
            if critique.incomplete > 0 {
                run.format_error(format!(
                    "{} CLAIM block(s) without a TOOL line",
                    critique.incomplete
                ));
            }
            if critique.checks.is_empty() {
                if !critique.verified {
                    run.format_error("a critique with neither VERIFIED nor CLAIM/TOOL blocks");
                }
                break;
            }
            run.emit(LoopEvent::Reflection {
                text: reply.text.trim().to_string(),
            });

            let mut results = Vec::new();
            for check in critique.checks.iter().take(MAX_CALLS_PER_REPLY) {
                results.push(verify(run, check).await?);
            }
            if critique.checks.len() > MAX_CALLS_PER_REPLY {
                run.format_error(format!(
                    "{} claims to check; only the first {MAX_CALLS_PER_REPLY} were",
                    critique.checks.len()
                ));
            }
            let last = round == self.config.max_critique_rounds;
            let route = if last { Route::Answer } else { Route::Thought };
            let request = fill(REVISE.trim_end(), &[("results", &results.join("\n\n"))]);
            let revision = run
                .generate(
                    "revise",
                    after_answer(conversation, &answer, request),
                    CallOptions {
                        grammar: Some(protocol::critic::grammar_for_revision()),
                        ..CallOptions::default()
                    },
                    route,
                )
                .await?;
            let revised = revision.text.trim();
            if revised.is_empty() {
                run.format_error("an empty revision; the previous answer stands");
                break;
            }
            answer = revised.to_string();
        }

        grounding::settle(run, request, answer).await
    }
}

/// The conversation with the answer so far and one more request about it.
fn after_answer(conversation: &[Message], answer: &str, request: String) -> Vec<Message> {
    let mut messages = conversation.to_vec();
    messages.push(Message::assistant(answer));
    messages.push(Message::user(request));
    messages
}

/// Runs one check's tool; returns the claim with its result, for the revision.
async fn verify(run: &mut Run, check: &Check) -> Result<String, Halt> {
    let result = match arguments(run, check) {
        Ok(arguments) => run.call_tool(&check.tool, arguments).await?.text,
        Err(reason) => {
            run.format_error(format!("TOOL INPUT for `{}`: {reason}", check.tool));
            format!("Error: {reason}")
        }
    };
    Ok(format!(
        "CLAIM: {}\nTOOL: {}\nRESULT: {result}",
        check.claim, check.tool
    ))
}

/// The arguments for a check's tool. An unknown tool gets the input as a
/// JSON object, or `{}`, so the tool call itself reports it as unknown.
fn arguments(run: &Run, check: &Check) -> Result<Value, String> {
    let input = check.input.as_deref().unwrap_or("");
    match run.tools().get(&check.tool) {
        Some(tool) => parse::tool_arguments(input, &tool.spec().argument_schema),
        None => Ok(parse::json_object(input).unwrap_or_else(|_| Value::Object(Default::default()))),
    }
}

/// One claim to verify with a tool.
#[derive(Debug, Clone, PartialEq)]
struct Check {
    claim: String,
    tool: String,
    input: Option<String>,
}

/// What a critique asked for.
#[derive(Debug, Clone, Default, PartialEq)]
struct Critique {
    /// The reply says `VERIFIED` (whole word, any case).
    verified: bool,
    /// Blocks with a tool, in order.
    checks: Vec<Check>,
    /// Blocks without a tool (dropped).
    incomplete: usize,
}

/// A block being read.
#[derive(Debug, Default)]
struct Block {
    claim: String,
    tool: Option<String>,
    input: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Label {
    Claim,
    Tool,
    ToolInput,
}

/// Reads `VERIFIED` and the CLAIM / TOOL / TOOL INPUT blocks of a critique.
/// A block starts at `CLAIM:` (or at a `TOOL:` when the block open already
/// has one); a `TOOL INPUT:` that opens a JSON object takes the lines up to
/// its closing brace.
fn parse_critique(text: &str) -> Critique {
    let mut critique = Critique {
        verified: parse::has_word(text, "verified"),
        ..Critique::default()
    };
    let mut open: Option<Block> = None;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        match label(lines[i]) {
            Some((Label::Claim, value)) => {
                close(&mut critique, open.take());
                open = Some(Block {
                    claim: value.to_string(),
                    ..Block::default()
                });
            }
            Some((Label::Tool, value)) => {
                if open.as_ref().is_some_and(|b| b.tool.is_some()) {
                    close(&mut critique, open.take());
                }
                let name = tool_name(value);
                open.get_or_insert_with(Block::default).tool = (!name.is_empty()).then_some(name);
            }
            Some((Label::ToolInput, _)) => {
                let rest = lines[i..].join("\n");
                let after_label = rest.split_once(':').map_or("", |(_, after)| after);
                let after_label = after_label.trim_start_matches(['*', ' ', '\t']);
                let input = parse::json_or_line(after_label);
                let end = (input.as_ptr() as usize)
                    .saturating_sub(after_label.as_ptr() as usize)
                    .saturating_add(input.len())
                    .min(after_label.len());
                i += after_label[..end].matches('\n').count();
                if let Some(block) = open.as_mut().filter(|b| b.input.is_none()) {
                    block.input = Some(input.trim_matches('*').trim().to_string());
                }
            }
            None => {}
        }
        i += 1;
    }
    close(&mut critique, open);
    critique
}

fn close(critique: &mut Critique, block: Option<Block>) {
    match block {
        Some(Block {
            claim,
            tool: Some(tool),
            input,
        }) => critique.checks.push(Check { claim, tool, input }),
        Some(_) => critique.incomplete += 1,
        None => {}
    }
}

/// The label a line starts with (`CLAIM:`, `**Tool:**`, `2. TOOL INPUT:`,
/// `Claim 1:`) and the value after it.
fn label(line: &str) -> Option<(Label, &str)> {
    let line = line.trim_start_matches(|c: char| {
        c.is_whitespace() || c.is_ascii_digit() || matches!(c, '*' | '#' | '-' | '>' | '.' | ')')
    });
    let lower = line.to_ascii_lowercase();
    let (kind, name_len) = [
        (Label::ToolInput, "tool input"),
        (Label::ToolInput, "tool_input"),
        (Label::Claim, "claim"),
        (Label::Tool, "tool"),
    ]
    .into_iter()
    .find(|(_, name)| lower.starts_with(name))
    .map(|(kind, name)| (kind, name.len()))?;
    let rest = line[name_len..]
        .trim_start_matches(|c: char| c.is_whitespace() || c.is_ascii_digit() || c == '*');
    let value = rest.strip_prefix(':')?;
    Some((kind, value.trim().trim_matches('*').trim()))
}

/// A tool name as models write it: `lookup`, `` `lookup` ``, `"lookup" (to check)`.
fn tool_name(value: &str) -> String {
    value
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c.is_whitespace())
        .split(|c: char| c.is_whitespace() || c == '(' || c == '`' || c == '"')
        .next()
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(claim: &str, tool: &str, input: Option<&str>) -> Check {
        Check {
            claim: claim.into(),
            tool: tool.into(),
            input: input.map(Into::into),
        }
    }

    #[test]
    fn verified_alone() {
        let c = parse_critique("VERIFIED: all claims are correct.");
        assert!(c.verified);
        assert!(c.checks.is_empty());
        assert_eq!(c.incomplete, 0);
        assert!(!parse_critique("UNVERIFIED claims remain").verified);
    }

    #[test]
    fn one_block_with_plain_input() {
        let c = parse_critique(
            "CLAIM: The tower was built in 1887\nTOOL: lookup\nTOOL INPUT: Eiffel Tower construction year",
        );
        assert_eq!(
            c.checks,
            vec![check(
                "The tower was built in 1887",
                "lookup",
                Some("Eiffel Tower construction year")
            )]
        );
        assert!(!c.verified);
    }

    #[test]
    fn several_blocks_with_decoration_and_json_over_lines() {
        let text = "Here are the claims:\n\n\
            1. **CLAIM:** 2 + 3 is 6\n   **TOOL:** `add`\n   **TOOL INPUT:** {\"a\": 2,\n \"b\": 3}\n\n\
            2. Claim 2: Paris is in France\n   Tool: lookup (search)\n   Tool Input: \"capital of France\"\n";
        let c = parse_critique(text);
        assert_eq!(
            c.checks,
            vec![
                check("2 + 3 is 6", "add", Some("{\"a\": 2,\n \"b\": 3}")),
                check(
                    "Paris is in France",
                    "lookup",
                    Some("\"capital of France\"")
                ),
            ]
        );
    }

    #[test]
    fn json_input_lines_are_not_read_as_labels() {
        let text = "CLAIM: a\nTOOL: lookup\nTOOL INPUT: {\n\"query\":\n\"CLAIM: b\"}\nCLAIM: c\nTOOL: add\nTOOL INPUT: {\"a\": 1, \"b\": 1}";
        let c = parse_critique(text);
        assert_eq!(c.checks.len(), 2);
        assert_eq!(
            c.checks[0].input.as_deref(),
            Some("{\n\"query\":\n\"CLAIM: b\"}")
        );
        assert_eq!(c.checks[1].claim, "c");
    }

    #[test]
    fn missing_tool_input_and_missing_tool() {
        let c = parse_critique("CLAIM: x\nTOOL: lookup\nCLAIM: y\nCLAIM: z\nTOOL: add");
        assert_eq!(
            c.checks,
            vec![check("x", "lookup", None), check("z", "add", None)]
        );
        assert_eq!(c.incomplete, 1);
    }

    #[test]
    fn tool_without_claim_and_two_tools_in_one_block() {
        let c = parse_critique("TOOL: lookup\nTOOL INPUT: a\nTOOL: lookup\nTOOL INPUT: b");
        assert_eq!(
            c.checks,
            vec![
                check("", "lookup", Some("a")),
                check("", "lookup", Some("b"))
            ]
        );
    }

    #[test]
    fn verified_mixed_with_blocks_keeps_both() {
        let c = parse_critique("CLAIM: x\nTOOL: lookup\nTOOL INPUT: x\nVERIFIED");
        assert!(c.verified);
        assert_eq!(c.checks.len(), 1);
    }

    #[test]
    fn unclosed_json_and_stray_input() {
        let c =
            parse_critique("TOOL INPUT: orphan\nCLAIM: x\nTOOL: add\nTOOL INPUT: {\"a\": 1\nmore");
        assert_eq!(c.checks, vec![check("x", "add", Some("{\"a\": 1"))]);
        assert_eq!(c.incomplete, 0);
    }

    #[test]
    fn prose_is_not_a_block() {
        for text in [
            "",
            "The claim is fine. Tools: none needed.",
            "The tool input was wrong",
            "CLAIM without colon\nTOOL lookup",
            "Toolbox: add",
        ] {
            assert_eq!(parse_critique(text), Critique::default(), "{text:?}");
        }
        let empty_tool = parse_critique("CLAIM: x\nTOOL:   \nTOOL INPUT: y");
        assert!(empty_tool.checks.is_empty());
        assert_eq!(empty_tool.incomplete, 1);
    }

    #[test]
    fn tool_names_are_cleaned() {
        assert_eq!(tool_name("`lookup`"), "lookup");
        assert_eq!(tool_name("\"add\" (to check)"), "add");
        assert_eq!(tool_name("lookup(query)"), "lookup");
        assert_eq!(tool_name(""), "");
    }

    #[test]
    fn config_is_validated() {
        assert!(Critic::new(CriticConfig::default()).is_ok());
        assert!(Critic::new(CriticConfig {
            max_critique_rounds: 0
        })
        .is_err());
    }
}

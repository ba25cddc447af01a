//! `auto` (seed 003's auto-selection): picks an engine from the request and
//! the toolset with a few transparent rules, says which and why
//! ([`LoopEvent::EngineChosen`](super::LoopEvent)), and runs it.
//!
//! The rules, first match wins (see [`RULES`]):
//! - no tools and arithmetic or logic → `chain-of-thought`;
//! - no tools → `none`;
//! - several sub-goals ("… and then …", numbered items, several questions) → `plan-execute`;
//! - a multi-hop question ("who is the mayor of the capital of …") and a
//!   lookup-style tool → `self-ask`;
//! - otherwise → `react`.
//!
//! Settings are shared: each key goes to the chosen engine when it accepts
//! it; a key that no engine accepts, or a value one of the engines that
//! accept the key refuses, is an error when `auto` is built.

use super::parse::{self, has_word};
use super::{accepted_keys, build, question, Engine, EngineFuture, Halt, Run};
use super::{Settings, Termination, ENGINES};
use loopd_brain::Message;
use loopd_tools::ToolSpec;

/// One selection rule: when it applies, which engine runs and why.
pub struct Rule {
    /// The engine it picks.
    pub engine: &'static str,
    /// Why, as reported in the `EngineChosen` event.
    pub reason: &'static str,
    /// Whether it applies to a request.
    pub applies: fn(&Signals) -> bool,
}

/// The rules, in order; the last always applies.
pub const RULES: &[Rule] = &[
    Rule {
        engine: "chain-of-thought",
        reason: "no tools, and the request looks like arithmetic or logic",
        applies: |s| !s.has_tools && s.reasoning,
    },
    Rule {
        engine: "none",
        reason: "no tools, and nothing to work out step by step",
        applies: |s| !s.has_tools,
    },
    Rule {
        engine: "plan-execute",
        reason: "the request has several sub-goals",
        applies: |s| s.sub_goals,
    },
    Rule {
        engine: "self-ask",
        reason: "a multi-hop question, and a lookup tool to answer each hop",
        applies: |s| s.multi_hop && s.lookup_tool,
    },
    Rule {
        engine: "react",
        reason: "tools are available for a single task",
        applies: |_| true,
    },
];

/// What the rules look at, read from the request and the tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Signals {
    /// The toolset is not empty.
    pub has_tools: bool,
    /// A tool looks things up (search, lookup, facts, wiki).
    pub lookup_tool: bool,
    /// The request looks like arithmetic or logic.
    pub reasoning: bool,
    /// The request has several sub-goals.
    pub sub_goals: bool,
    /// The request is a question that chains facts.
    pub multi_hop: bool,
}

impl Signals {
    /// Reads the signals of a request.
    pub fn read(request: &str, tools: &[&ToolSpec]) -> Self {
        let text = request.to_lowercase();
        Signals {
            has_tools: !tools.is_empty(),
            lookup_tool: tools.iter().any(|t| is_lookup(t)),
            reasoning: looks_like_reasoning(&text),
            sub_goals: has_sub_goals(request, &text),
            multi_hop: is_multi_hop(&text),
        }
    }
}

/// The engine auto picks for a request, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Engine id.
    pub engine: &'static str,
    /// The rule's reason.
    pub reason: &'static str,
}

/// Applies [`RULES`] to a request.
pub fn choose(request: &str, tools: &[&ToolSpec]) -> Choice {
    let signals = Signals::read(request, tools);
    let rule = RULES
        .iter()
        .find(|rule| (rule.applies)(&signals))
        .unwrap_or(&RULES[RULES.len() - 1]);
    Choice {
        engine: rule.engine,
        reason: rule.reason,
    }
}

const MATH_WORDS: &[&str] = &[
    "calculate",
    "compute",
    "solve",
    "how many",
    "how much",
    "sum of",
    "product of",
    "plus",
    "minus",
    "times",
    "divided",
    "multiplied",
    "percent",
    "average",
    "equation",
    "puzzle",
    "riddle",
    "logic",
    "deduce",
    "prove",
];

const OPERATORS: &[char] = &['+', '-', '*', '/', '×', '÷', '^', '=', '%'];

fn looks_like_reasoning(text: &str) -> bool {
    MATH_WORDS.iter().any(|w| has_word(text, w)) || has_arithmetic(text)
}

/// A digit, an operator, a digit (spaces allowed): `17 * 6`, `3+4`.
fn has_arithmetic(text: &str) -> bool {
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && OPERATORS.contains(&w[1]) && w[2].is_ascii_digit())
}

const SEQUENCE_WORDS: &[&str] = &["and then", "then", "after that", "afterwards", "finally"];

fn has_sub_goals(request: &str, text: &str) -> bool {
    let sequenced = SEQUENCE_WORDS.iter().any(|w| has_word(text, w)) && !has_word(text, "if");
    sequenced || parse::numbered_list(request).len() >= 2 || text.matches('?').count() >= 2
}

const QUESTION_WORDS: &[&str] = &["who", "what", "which", "where", "when", "how"];
const RELATIVE_WORDS: &[&str] = &["that", "which", "whose", "where", "who"];

/// A question whose subject is itself something to find out: two `of`s
/// ("the wife of the president of France") or an `of` followed by a
/// relative clause ("the president of the country that won …").
fn is_multi_hop(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    let question =
        text.trim_end().ends_with('?') || QUESTION_WORDS.iter().any(|w| has_word(first, w));
    let mut parts = text.split(" of ").skip(1);
    let Some(after_of) = parts.next() else {
        return false;
    };
    let chained = parts.next().is_some();
    question && (chained || RELATIVE_WORDS.iter().any(|w| has_word(after_of, w)))
}

const LOOKUP_WORDS: &[&str] = &[
    "search",
    "lookup",
    "look up",
    "looks",
    "wiki",
    "fact",
    "knowledge",
];

fn is_lookup(tool: &ToolSpec) -> bool {
    let text = format!("{} {}", tool.name, tool.description).to_lowercase();
    LOOKUP_WORDS.iter().any(|w| text.contains(w))
}

/// The auto-selecting engine.
#[derive(Debug, Clone)]
pub struct Auto {
    settings: Settings,
}

impl Auto {
    /// An auto engine with settings for whichever engine it picks; a key no
    /// engine accepts is an error.
    pub fn new(settings: &Settings) -> Result<Self, String> {
        let known: Vec<String> = ENGINES
            .iter()
            .filter(|&&id| id != "auto")
            .flat_map(|id| accepted_keys(id))
            .collect();
        if let Some(key) = settings.keys().find(|key| !known.contains(key)) {
            return Err(format!(
                "invalid setting for loop `auto`: no engine accepts `{key}`"
            ));
        }
        let auto = Auto {
            settings: settings.clone(),
        };
        for id in ENGINES.iter().filter(|&&id| id != "auto") {
            let settings = auto.settings_for(id);
            if !settings.is_empty() {
                super::build(id, &settings)?;
            }
        }
        Ok(auto)
    }

    /// The settings the chosen engine accepts.
    fn settings_for(&self, engine: &str) -> Settings {
        let accepted = accepted_keys(engine);
        self.settings
            .iter()
            .filter(|(key, _)| accepted.contains(key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    }
}

impl Engine for Auto {
    fn id(&self) -> &'static str {
        "auto"
    }

    fn run<'a>(&'a self, run: &'a mut Run, conversation: &'a [Message]) -> EngineFuture<'a> {
        Box::pin(async move {
            let choice = choose(question(conversation), &run.tools().specs());
            let engine =
                build(choice.engine, &self.settings_for(choice.engine)).map_err(|e| Halt {
                    termination: Termination::Error,
                    reason: format!("auto chose `{}`: {e}", choice.engine),
                })?;
            run.chose(choice.engine, choice.reason);
            engine.run(run, conversation).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: description.into(),
            argument_schema: json!({"type": "object"}),
            output_schema: json!({}),
        }
    }

    fn picks(request: &str, tools: &[ToolSpec]) -> &'static str {
        let tools: Vec<&ToolSpec> = tools.iter().collect();
        choose(request, &tools).engine
    }

    fn clock() -> ToolSpec {
        tool("get_time", "Current date and time in a timezone.")
    }

    fn search() -> ToolSpec {
        tool("web_search", "Searches the web.")
    }

    #[test]
    fn without_tools_arithmetic_and_logic_think_step_by_step() {
        assert_eq!(picks("What is 17 * 6 + 14?", &[]), "chain-of-thought");
        assert_eq!(picks("what's 3+4", &[]), "chain-of-thought");
        assert_eq!(
            picks("How many legs do 3 cats and 2 birds have?", &[]),
            "chain-of-thought"
        );
        assert_eq!(picks("Solve this riddle for me.", &[]), "chain-of-thought");
    }

    #[test]
    fn without_tools_anything_else_is_a_plain_turn() {
        assert_eq!(picks("Tell me a joke.", &[]), "none");
        assert_eq!(picks("Who wrote Hamlet?", &[]), "none");
        assert_eq!(picks("Sometimes I feel tired.", &[]), "none");
    }

    #[test]
    fn several_sub_goals_plan_first() {
        let tools = [clock()];
        assert_eq!(
            picks("Get the time in Paris and then the time in Tokyo.", &tools),
            "plan-execute"
        );
        assert_eq!(
            picks("Find the time. After that, convert it to UTC.", &tools),
            "plan-execute"
        );
        assert_eq!(
            picks("1. get the time\n2. add three hours", &tools),
            "plan-execute"
        );
        assert_eq!(
            picks("What time is it? And what day is it?", &tools),
            "plan-execute"
        );
        assert_eq!(picks("If it is late then say so.", &tools), "react");
    }

    #[test]
    fn multi_hop_questions_with_a_lookup_tool_self_ask() {
        let question = "Who is the president of the country that won the World Cup in 2022?";
        assert_eq!(picks(question, &[search()]), "self-ask");
        let lookup = [tool("lookup", "Looks a fact up.")];
        assert_eq!(
            picks("who is the wife of the president of France", &lookup),
            "self-ask"
        );
        assert_eq!(picks(question, &[clock()]), "react");
        assert_eq!(picks("Who is the CEO of Apple?", &[search()]), "react");
        assert_eq!(picks("What is the capital of the UK?", &lookup), "react");
        assert_eq!(
            picks(
                "Tell me the history of the city that hosts the Louvre",
                &[search()]
            ),
            "react"
        );
    }

    #[test]
    fn otherwise_react() {
        assert_eq!(picks("What time is it in Tokyo?", &[clock()]), "react");
        assert_eq!(picks("What is 2+2?", &[clock()]), "react");
    }

    #[test]
    fn every_choice_has_a_reason_and_the_last_rule_always_applies() {
        for rule in RULES {
            assert!(!rule.reason.is_empty());
            assert!(ENGINES.contains(&rule.engine), "{}", rule.engine);
        }
        let last = &RULES[RULES.len() - 1];
        assert!((last.applies)(&Signals::default()));
        assert_eq!(
            choose("Tell me a joke.", &[]),
            Choice {
                engine: "none",
                reason: "no tools, and nothing to work out step by step"
            }
        );
    }

    #[test]
    fn settings_go_to_the_chosen_engine_only() {
        let settings: Settings = [
            ("max_iterations".to_string(), json!(3)),
            ("extra_prompt".to_string(), json!("Be brief.")),
        ]
        .into_iter()
        .collect();
        let auto = Auto::new(&settings).unwrap();
        assert_eq!(auto.settings_for("react").len(), 1);
        assert_eq!(
            auto.settings_for("chain-of-thought")["extra_prompt"],
            "Be brief."
        );
        assert!(auto.settings_for("none").is_empty());
        let bogus: Settings = [("bogus".to_string(), json!(1))].into_iter().collect();
        assert!(Auto::new(&bogus).unwrap_err().contains("bogus"));
    }
}

//! Every tool engine offers the question (or each question of a compound
//! one) to the tools that read questions in words before its own method: a
//! tool that answers in words answers with no model call, a result read
//! from the question gets ReAct's answer step, and a question no tool can
//! help with goes to knowledge.

use crate::common::engines::ask_everyday;

/// The engines that use tools and read the question first.
const TOOL_ENGINES: [&str; 7] = [
    "react",
    "self-ask",
    "native-tools",
    "critic",
    "plan-execute",
    "hybrid",
    "reflexion",
];

#[test]
fn a_question_the_clock_answers_needs_no_model_call() {
    for engine in TOOL_ENGINES {
        let (outcome, brain) = ask_everyday(engine, "What time is it in Tokyo?", &[]);
        assert!(
            brain.requests().is_empty(),
            "{engine}: {:?}",
            brain.requests()
        );
        assert!(
            outcome.answer.starts_with("It is "),
            "{engine}: {outcome:?}"
        );
        assert!(outcome.answer.contains("in Tokyo"), "{engine}: {outcome:?}");
        assert_eq!(outcome.stats.tool_calls[0].name, "clock", "{engine}");
    }
}

#[test]
fn what_loopd_cannot_do_is_declined_with_no_model_call() {
    for engine in TOOL_ENGINES {
        let (outcome, brain) = ask_everyday(engine, "What's the weather like today?", &[]);
        assert!(brain.requests().is_empty(), "{engine}");
        assert!(
            outcome
                .answer
                .starts_with("Sorry, I can't check the weather"),
            "{engine}: {}",
            outcome.answer
        );
    }
}

#[test]
fn arithmetic_asked_in_words_is_said_with_no_model_call() {
    for engine in TOOL_ENGINES {
        let (outcome, brain) = ask_everyday(engine, "What is seventeen times twenty three?", &[]);
        assert!(
            brain.requests().is_empty(),
            "{engine}: {:?}",
            brain.requests()
        );
        assert_eq!(outcome.answer, "17 times 23 is 391.", "{engine}");
        assert_eq!(outcome.stats.tool_calls[0].name, "calculate", "{engine}");
    }
}

#[test]
fn a_question_a_tool_reads_is_answered_from_its_result_by_react_s_answer_step() {
    for engine in TOOL_ENGINES {
        let (outcome, brain) = ask_everyday(
            engine,
            "Dinner was 96 dollars, shared among 4 friends. How much does each pay?",
            &["Thought: I know the answer now.\nFINAL_ANSWER: Each friend pays 24 dollars."],
        );
        assert_eq!(outcome.answer, "Each friend pays 24 dollars.", "{engine}");
        assert_eq!(outcome.stats.tool_calls.len(), 1, "{engine}");
        assert_eq!(outcome.stats.tool_calls[0].name, "calculate", "{engine}");
        let requests = brain.requests();
        assert_eq!(requests.len(), 1, "{engine}: no plan, draft or follow-up");
        assert!(!requests[0].from_knowledge, "{engine}");
        let last = &requests[0].messages.last().unwrap().content;
        assert!(
            last.starts_with("Observation: {\"result\":24"),
            "{engine}: {last}"
        );
    }
}

#[test]
fn a_question_no_tool_reads_is_left_to_the_engine() {
    let (_, brain) = ask_everyday(
        "plan-execute",
        "If I buy 3 coffees at 4.50 each and a cake at 6, what do I pay?",
        &["1. Add up the coffees and the cake"],
    );
    let first = &brain.requests()[0];
    assert!(!first.from_knowledge);
    assert!(first.assistant_prefix.is_empty(), "{first:?}");
}

#[test]
fn a_question_no_tool_can_help_with_goes_to_knowledge_at_once() {
    for engine in [
        "self-ask",
        "native-tools",
        "critic",
        "plan-execute",
        "hybrid",
    ] {
        let (outcome, brain) = ask_everyday(
            engine,
            "What is the capital of France?",
            &[" The capital of France is Paris."],
        );
        assert_eq!(
            outcome.answer, "The capital of France is Paris.",
            "{engine}"
        );
        let requests = brain.requests();
        assert_eq!(requests.len(), 1, "{engine}");
        assert!(requests[0].from_knowledge, "{engine}");
        assert_eq!(requests[0].assistant_prefix, "FINAL_ANSWER:", "{engine}");
    }
}

#[test]
fn each_question_of_a_compound_one_is_read() {
    let (outcome, brain) = ask_everyday(
        "react",
        "What time is it in Tokyo and how much each if we split $85 between 5 people?",
        &["Thought: I know the answer now.\nFINAL_ANSWER: It is noon in Tokyo, and each pays 17 dollars."],
    );
    let tools: Vec<&str> = outcome
        .stats
        .tool_calls
        .iter()
        .map(|call| call.name.as_str())
        .collect();
    assert_eq!(tools, ["clock", "calculate"]);
    let messages = &brain.requests()[0].messages;
    let observations: Vec<&str> = messages
        .iter()
        .filter(|m| m.content.starts_with("Observation:"))
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(observations.len(), 2, "{messages:?}");
    assert!(observations[0].contains("in Tokyo"), "{observations:?}");
    assert!(
        observations[1].contains("\"result\":17"),
        "{observations:?}"
    );
}

#[test]
fn questions_the_clock_answers_in_words_are_said_together() {
    let (outcome, brain) = ask_everyday(
        "react",
        "What time is it in Tokyo and what time is it in London?",
        &[],
    );
    assert!(brain.requests().is_empty());
    let (tokyo, london) = outcome.answer.split_once(". ").expect("two sentences");
    assert!(tokyo.contains("in Tokyo"), "{}", outcome.answer);
    assert!(london.contains("in London"), "{}", outcome.answer);
}

#[test]
fn react_works_a_word_problem_a_step_a_line_with_the_calculator_s_arithmetic() {
    // Each reply carries the lines before it, as the model continues them.
    let (outcome, brain) = ask_everyday(
        "react",
        "Tom has 4 boxes of 15 pencils. He gives away 9 of them. How many pencils are left?",
        &[
            "Step 1: Tom has 4 * 15 = 50 pencils.\n",
            "Step 1: Tom has 4 * 15 = 60 pencils.\nStep 2: He has 60 - 9 = pencils left.\n",
            "Step 1: Tom has 4 * 15 = 60 pencils.\nStep 2: He has 60 - 9 = 51 pencils left.\n\
             FINAL ANSWER: Tom has 51 pencils left.",
        ],
    );
    assert_eq!(outcome.answer, "Tom has 51 pencils left.");
    let computed: Vec<_> = outcome
        .stats
        .tool_calls
        .iter()
        .map(|call| (call.name.as_str(), call.arguments["expression"].as_str()))
        .collect();
    assert_eq!(
        computed,
        [("calculate", Some("4 * 15")), ("calculate", Some("60 - 9"))]
    );
    assert_eq!(outcome.stats.ungrounded_answers, 0);
    let requests = brain.requests();
    let prefixes: Vec<&str> = requests
        .iter()
        .map(|r| r.assistant_prefix.as_str())
        .collect();
    assert_eq!(
        prefixes,
        [
            "",
            "Step 1: Tom has 4 * 15 = 60 pencils.\n",
            "Step 1: Tom has 4 * 15 = 60 pencils.\nStep 2: He has 60 - 9 = 51 pencils left.\n",
        ],
        "each line is written on with the calculator's result in it"
    );
    assert!(
        requests.iter().all(|r| r.from_knowledge),
        "the larger model works the steps"
    );
}

#[test]
fn a_worked_answer_with_a_number_no_step_gave_is_counted_ungrounded() {
    let (outcome, _) = ask_everyday(
        "react",
        "Tom has 4 boxes of 15 pencils. He gives away 9 of them. How many pencils are left?",
        &[
            "Step 1: Tom has 4 * 15 = 60 pencils.\n",
            "Step 1: Tom has 4 * 15 = 60 pencils.\nFINAL ANSWER: Tom has 50 pencils left.",
        ],
    );
    assert_eq!(outcome.stats.ungrounded_answers, 1);
    assert_eq!(outcome.answer, "Tom has 50 pencils left.");
}

/// A number in the answer to a question of remembered fact is said at
/// once: no tool here could give "7 continents", and sending it back cost
/// a second model call (seconds on a small board) for the same answer. A
/// day count for a question about time, which the tools could work out, is
/// still sent back.
#[test]
fn a_remembered_number_is_said_at_once_but_a_guessed_day_count_is_sent_back() {
    let (outcome, brain) = ask_everyday(
        "react",
        "How many continents are there?",
        &[" There are 7 continents."],
    );
    assert_eq!(outcome.answer, "There are 7 continents.");
    assert_eq!(outcome.stats.ungrounded_answers, 0, "{outcome:#?}");
    assert_eq!(brain.requests().len(), 1);
    assert!(brain.requests()[0].from_knowledge);

    let (outcome, brain) = ask_everyday(
        "react",
        "How many days are left until the summer holidays?",
        &[
            " There are 40 days left.",
            "Action: calculate\nAction Input: {\"expression\": \"40\"}",
            "Thought: I know the answer now.\nFINAL_ANSWER: I cannot tell.",
        ],
    );
    assert_eq!(outcome.stats.ungrounded_answers, 1, "{outcome:#?}");
    assert!(brain.requests().len() >= 2);
}

/// The numbers a question of fact says name what it asks about ("every
/// October 1", a spoken "quick one"): the larger model answers it, and a
/// year it remembers is said at once, not sent to the calculator (which
/// made up sums for it).
#[test]
fn a_remembered_year_is_said_at_once_after_numbers_that_only_name() {
    for question in [
        "In what year did Nigeria get independence from Britain? We celebrate it every October 1.",
        "quick one what year did the berlin wall come down",
        "Who captained England when they won the World Cup in 1966? Played for West Ham, I know that much.",
    ] {
        let (outcome, brain) = ask_everyday("react", question, &[" It was in 1989, with 1960 too."]);
        assert_eq!(outcome.answer, "It was in 1989, with 1960 too.", "{question}");
        assert_eq!(outcome.stats.ungrounded_answers, 0, "{question}: {outcome:#?}");
        assert_eq!(brain.requests().len(), 1, "{question}");
        assert!(brain.requests()[0].from_knowledge, "{question}");
    }

    let question =
        "wait whats the river between brooklyn and manhattan called the one under the brooklyn bridge";
    let (outcome, brain) = ask_everyday("react", question, &[" The East River."]);
    assert_eq!(outcome.answer, "The East River.");
    assert!(brain.requests()[0].from_knowledge, "`the one` is no number");
}

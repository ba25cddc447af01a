//! Worked steps: how ReAct solves a word problem that no tool reads
//! ("She sells the rest for $2 each…"). The model writes the solution a
//! step a line, as chain-of-thought does, and before it writes the next
//! line every computation in the last one (`60 - 8 = 53`) is done by the
//! calculator and its result written in (`60 - 8 = 52`), so the later
//! steps build on right numbers and the answer's numbers come from the
//! calculator. Small models set a problem out better than they do
//! arithmetic; this keeps the first and replaces the second.

use super::chain_of_thought;
use super::parse::{self, numbers, FINAL_ANSWER};
use super::protocol::chain_of_thought::grammar_for_line;
use super::sentences::{sentence_end, split_sentences};
use super::{CallOptions, Finish, Halt, Route, Run};
use loopd_brain::Message;
use loopd_tools::math::CALCULATE;
use serde_json::{json, Value};

/// Most step lines before the answer is asked for.
const MAX_STEPS: usize = 8;

/// Fewest words a one-sentence word problem has; a shorter question
/// with numbers ("a 15% tip on 62 dollars") is ReAct's, a call or two.
const MIN_WORDS: usize = 15;

/// Most tokens of one step line.
const STEP_TOKENS: usize = 96;

/// Whether the run can work steps out: it has the calculator.
pub(super) fn can_work(run: &Run) -> bool {
    run.tools().get(CALCULATE).is_some()
}

/// `conversation` with the prices of the question read out in words
/// written in digits ("at 52.40 dollars an hour" for "at fifty two
/// dollars and forty cents an hour"), and the other numbers said in
/// several words ("360 dollars" for "three hundred and sixty dollars"): a
/// small model takes such a price or number for two. Numbers said in one
/// word stay ("six nights"), unless beside an operator ("seventeen
/// times"), and so do numbers said one after another ("four fifty").
fn prices_in_digits(conversation: &[Message]) -> Vec<Message> {
    let mut conversation = conversation.to_vec();
    if let Some(asked) = conversation
        .iter_mut()
        .rev()
        .find(|m| m.role == loopd_brain::Role::User)
    {
        asked.content = loopd_tools::numbers::long_numbers_in_digits(
            &loopd_tools::numbers::prices_in_digits(&asked.content),
        );
    }
    conversation
}

/// Whether `question` is a word problem: two numbers or more to work
/// with, given in sentences before the question or in a long one, or one
/// number given before a question that counts over a period ("every 8
/// hours. How many pills is that in a week?"), whose other number is the
/// period's length.
pub(super) fn is_word_problem(question: &str) -> bool {
    let given = numbers(question).len() + parse::number_words(question).len();
    let question = question.trim();
    let told_first = sentence_end(question).is_some();
    let long = question.split_whitespace().count() >= MIN_WORDS;
    let over_a_period = told_first && given == 1 && asked_over_a_period(question);
    (given >= 2 && (told_first || long)) || over_a_period
}

/// Whether the last sentence of `question` asks about "a week", "a year",
/// "a month" or "a day" (an amount over it).
fn asked_over_a_period(question: &str) -> bool {
    let asked = split_sentences(question)
        .last()
        .map_or(String::new(), |s| s.to_lowercase());
    [
        "a week", "a year", "a month", "a day", "one week", "one year",
    ]
    .iter()
    .any(|period| asked.contains(period))
}

/// Solves the conversation's question a step a line, each step's
/// arithmetic done by the calculator, and says the answer.
pub(super) async fn solve(run: &mut Run, conversation: &[Message]) -> Result<Finish, Halt> {
    run.turn()?;
    run.use_knowledge_model();
    let messages = chain_of_thought::messages(&prices_in_digits(conversation));
    let mut steps = String::new();
    for n in 1..=MAX_STEPS {
        let call = CallOptions {
            stop: vec!["\n".into()],
            max_tokens: Some(STEP_TOKENS),
            prefix: steps.clone().into(),
            prefix_streamed: true,
            grammar: Some(grammar_for_line(n)),
            ..CallOptions::default()
        };
        let reply = run
            .generate(
                "worked-step",
                messages.clone(),
                call,
                Route::AnswerAfter(FINAL_ANSWER),
            )
            .await?;
        let line = reply.text[steps.len()..].trim();
        let line = match parse::find_marker(line, FINAL_ANSWER) {
            Some((0, _)) => {
                match parse::after_marker(line, FINAL_ANSWER).filter(|a| !a.is_empty()) {
                    Some(answer) => return Ok(Finish::answered(settle(run, answer))),
                    None => break,
                }
            }
            Some((at, _)) => line[..at].trim_end(),
            None => line,
        };
        if line.is_empty() {
            run.format_error("an empty step");
            break;
        }
        let line = computed(run, line).await?;
        if steps.lines().any(|earlier| earlier == line) {
            break;
        }
        steps.push_str(&line);
        steps.push('\n');
    }
    let answer = chain_of_thought::final_answer(run, messages, &steps).await?;
    Ok(Finish::answered(settle(run, answer)))
}

/// `line` with the result of each computation in it done by the
/// calculator (the model's own number replaced, or written in where it
/// left none); a computation the calculator cannot read stays as written.
async fn computed(run: &mut Run, line: &str) -> Result<String, Halt> {
    let mut line = line.to_string();
    for equation in parse::equations(&line).into_iter().rev() {
        let observed = run
            .call_tool(CALCULATE, json!({ "expression": equation.left }))
            .await?;
        if observed.is_error {
            continue;
        }
        let Some(result) = serde_json::from_str::<Value>(&observed.text)
            .ok()
            .and_then(|value| value["result"].as_f64())
        else {
            continue;
        };
        let written = spoken_number(result);
        let written = match equation.claimed_at.is_empty() {
            true => format!(" {written}"),
            false => written,
        };
        line.replace_range(equation.claimed_at, &written);
    }
    Ok(line)
}

/// A result as a step writes it: whole numbers without decimals, others
/// to at most three decimals.
fn spoken_number(value: f64) -> String {
    let rounded = (value * 1000.0).round() / 1000.0;
    let text = format!("{rounded:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The answer said: grounded numbers are, an answer whose numbers neither
/// the question nor a computation gave is counted as ungrounded and said
/// as written, since the steps it ends were checked.
fn settle(run: &mut Run, answer: String) -> String {
    let ungrounded = run.ungrounded(&answer);
    if !ungrounded.is_empty() {
        run.ungrounded_answer(&ungrounded);
    }
    run.deliver(&answer);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_problems_give_two_numbers_in_a_sentence() {
        assert!(is_word_problem(
            "My car does 30 miles per gallon. How many gallons for 240 miles?"
        ));
        assert!(is_word_problem(
            "A robe takes two bolts of blue fiber and half that much white fiber. How many bolts?"
        ));
        assert!(is_word_problem(
            "If a train leaves at 3 and travels for 4 hours at 60 miles an hour, how far does it go?"
        ));
        assert!(is_word_problem(
            "I have to take a pill every 8 hours. How many pills is that in a week?"
        ));
        assert!(!is_word_problem("How many hours are in a week?"));
        assert!(!is_word_problem("What is 17 times 23?"));
        assert!(!is_word_problem(
            "How much is a 15% tip on a 62 dollar bill?"
        ));
        assert!(!is_word_problem(
            "How many days are left until Christmas this year?"
        ));
    }

    #[test]
    fn results_are_written_as_steps_write_them() {
        assert_eq!(spoken_number(52.0), "52");
        assert_eq!(spoken_number(16.0 / 3.0), "5.333");
        assert_eq!(spoken_number(0.5), "0.5");
        assert_eq!(spoken_number(-4.0), "-4");
        assert_eq!(spoken_number(1e9), "1000000000");
    }
}

//! Fitting a conversation into the context window.
//!
//! The policy, in order, until the prompt fits in its budget:
//! 1. The system messages at the start and the newest message are kept.
//! 2. The oldest messages between them are dropped, so the conversation
//!    left still starts with a user turn (a tool result never loses the
//!    call it answers).
//! 3. If the kept messages alone are too long, the longest one loses its
//!    middle, replaced by [`CUT_MARKER`], until the prompt fits.
//!
//! Measuring is the caller's: a function from messages to their prompt's
//! length in tokens, so this works with any template and tokenizer.

use super::{Message, Role};

/// What replaces text cut out of a message.
pub const CUT_MARKER: &str = "\n[… cut to fit the context window …]\n";

/// How a conversation was made to fit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fitted {
    /// The messages to render.
    pub messages: Vec<Message>,
    /// Older messages dropped.
    pub dropped: usize,
    /// Characters cut out of kept messages.
    pub cut_chars: usize,
}

/// Fits `messages` into `budget` tokens as measured by `measure`; `None`
/// when even the system prompt and the newest message cut to a few
/// characters do not fit.
pub fn fit<E>(
    messages: &[Message],
    budget: usize,
    mut measure: impl FnMut(&[Message]) -> Result<usize, E>,
) -> Result<Option<Fitted>, E> {
    if measure(messages)? <= budget {
        return Ok(Some(Fitted {
            messages: messages.to_vec(),
            ..Fitted::default()
        }));
    }
    let system = messages
        .iter()
        .take_while(|m| m.role == Role::System)
        .count();
    let last = messages.len().saturating_sub(1).max(system);
    let starts = droppable_starts(messages, system, last);
    let keep_from = |start: usize| -> Vec<Message> {
        messages[..system]
            .iter()
            .chain(&messages[start..])
            .cloned()
            .collect()
    };
    let (mut lo, mut hi) = (0, starts.len() - 1);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if measure(&keep_from(starts[mid]))? <= budget {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let start = starts[lo];
    let mut kept = keep_from(start);
    let dropped = start - system;
    let mut cut_chars = 0;
    for _ in 0..8 {
        let length = measure(&kept)?;
        if length <= budget {
            return Ok(Some(Fitted {
                messages: kept,
                dropped,
                cut_chars,
            }));
        }
        let Some(longest) = (0..kept.len()).max_by_key(|&i| kept[i].content.chars().count()) else {
            break;
        };
        let chars = kept[longest].content.chars().count();
        let over = length - budget;
        let per_token = chars as f64 / length.max(1) as f64;
        let cut = ((over as f64 * per_token * 1.05) as usize + 16).min(chars);
        if cut == 0 {
            break;
        }
        kept[longest].content = cut_middle(&kept[longest].content, cut);
        cut_chars += cut;
    }
    let length = measure(&kept)?;
    Ok((length <= budget).then_some(Fitted {
        messages: kept,
        dropped,
        cut_chars,
    }))
}

/// Where the kept conversation may start after the system messages: at
/// each user message between them and `last`, then at `last` itself.
fn droppable_starts(messages: &[Message], system: usize, last: usize) -> Vec<usize> {
    let mut starts: Vec<usize> = (system..last)
        .filter(|&i| messages[i].role == Role::User)
        .collect();
    if starts.first() != Some(&system) {
        starts.insert(0, system);
    }
    starts.push(last);
    starts
}

/// `text` without `cut` characters from its middle, marked with [`CUT_MARKER`].
fn cut_middle(text: &str, cut: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let keep = chars.len().saturating_sub(cut);
    let head = keep / 2;
    let tail = keep - head;
    let mut out: String = chars[..head].iter().collect();
    out.push_str(CUT_MARKER);
    out.extend(&chars[chars.len() - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token per four characters, plus four per message.
    fn tokens(messages: &[Message]) -> Result<usize, ()> {
        Ok(messages
            .iter()
            .map(|m| 4 + m.content.chars().count() / 4)
            .sum())
    }

    fn conversation(turns: usize) -> Vec<Message> {
        let mut messages = vec![Message::system("Be brief.")];
        for i in 0..turns {
            messages.push(Message::user(format!("question {i} {}", "q".repeat(200))));
            messages.push(Message::assistant(format!(
                "answer {i} {}",
                "a".repeat(200)
            )));
        }
        messages.push(Message::user("the newest question"));
        messages
    }

    #[test]
    fn a_conversation_that_fits_is_untouched() {
        let messages = conversation(2);
        let fitted = fit(&messages, 10_000, tokens).unwrap().unwrap();
        assert_eq!(fitted.messages, messages);
        assert_eq!((fitted.dropped, fitted.cut_chars), (0, 0));
    }

    #[test]
    fn the_oldest_turns_go_first_and_the_system_prompt_and_newest_stay() {
        let messages = conversation(40);
        let budget = 400;
        assert!(tokens(&messages).unwrap() > 10 * budget);
        let fitted = fit(&messages, budget, tokens).unwrap().unwrap();
        assert!(tokens(&fitted.messages).unwrap() <= budget);
        assert_eq!(fitted.messages[0], messages[0]);
        assert_eq!(fitted.messages.last(), messages.last());
        assert_eq!(
            fitted.messages[1].role,
            Role::User,
            "starts with a user turn"
        );
        assert!(fitted.messages[1].content.starts_with("question 37"));
        assert_eq!(fitted.dropped, messages.len() - fitted.messages.len());
        assert_eq!(fitted.cut_chars, 0);
    }

    #[test]
    fn a_tool_result_is_not_kept_without_its_call() {
        let mut messages = vec![Message::system("s"), Message::user("u".repeat(400))];
        messages.push(Message::assistant("calling a tool"));
        messages.push(Message::new(Role::Tool, "r".repeat(400)));
        messages.push(Message::user("next"));
        let fitted = fit(&messages, 60, tokens).unwrap().unwrap();
        let roles: Vec<Role> = fitted.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, vec![Role::System, Role::User]);
        assert_eq!(fitted.messages[1].content, "next");
    }

    #[test]
    fn a_message_too_long_alone_loses_its_middle() {
        let long = format!("BEGIN {} END", "x".repeat(40_000));
        let messages = vec![Message::system("Be brief."), Message::user(long)];
        let fitted = fit(&messages, 1000, tokens).unwrap().unwrap();
        assert!(tokens(&fitted.messages).unwrap() <= 1000);
        let kept = &fitted.messages[1].content;
        assert!(kept.starts_with("BEGIN") && kept.ends_with("END"), "{kept}");
        assert!(kept.contains(CUT_MARKER));
        assert!(fitted.cut_chars > 30_000);
        assert_eq!(fitted.messages[0].content, "Be brief.");
    }

    #[test]
    fn a_budget_nothing_fits_in_is_none() {
        let messages = vec![Message::system("s".repeat(100)), Message::user("u")];
        assert_eq!(fit(&messages, 3, tokens).unwrap(), None);
    }
}

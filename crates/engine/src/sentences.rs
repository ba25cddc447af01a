//! Cuts a streamed answer into sentences a voice can speak one by one.

/// Words that end with a period without ending a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "vs", "jr", "sr", "e.g", "i.e", "approx",
];

/// Words a first clause needs before its comma ends it.
const CLAUSE_WORDS: usize = 5;

/// Words that begin a second clause of a sentence where a speaker may
/// pause ("The sky is blue | because …"): a first clause may end before one.
const JOINING_WORDS: &[&str] = &[
    "because", "but", "which", "although", "though", "while", "whereas", "since",
];

/// Words a first clause needs before a joining word ends it.
const JOINED_CLAUSE_WORDS: usize = 4;

/// Words after which a joining word joins no clause ("for a while", "even
/// though", "nothing but").
const NOT_JOINING_AFTER: &str = "a an the for even as not just only all nothing anything ever long";

/// Collects answer tokens and hands back each sentence once it is complete.
#[derive(Debug, Default)]
pub struct Sentences {
    pending: String,
    /// The first piece may end at a clause (a comma, a colon) as well.
    clause_first: bool,
    handed: bool,
}

impl Sentences {
    /// An empty splitter.
    pub fn new() -> Sentences {
        Sentences::default()
    }

    /// A splitter whose first piece ends at the first clause of five words
    /// or more (`It is 7:30 in the morning,`), or of four before a joining
    /// word (`The sky is blue` before `because`), when no sentence has
    /// ended sooner: a voice starts speaking while the rest is still
    /// written.
    pub fn clause_first() -> Sentences {
        Sentences {
            clause_first: true,
            ..Sentences::default()
        }
    }

    /// Adds streamed text; returns the sentences it completed, ready to speak.
    pub fn push(&mut self, text: &str) -> Vec<String> {
        self.pending.push_str(text);
        let mut done = Vec::new();
        while let Some(end) = self.next_end() {
            let rest = self.pending.split_off(end);
            let sentence = std::mem::replace(&mut self.pending, rest);
            let spoken = speakable(&sentence);
            self.handed |= spoken.is_some();
            done.extend(spoken);
        }
        done
    }

    fn next_end(&self) -> Option<usize> {
        sentence_end(&self.pending).or_else(|| match self.clause_first && !self.handed {
            true => clause_end(&self.pending),
            false => None,
        })
    }

    /// What is left once the answer has ended.
    pub fn finish(&mut self) -> Option<String> {
        speakable(&std::mem::take(&mut self.pending))
    }
}

/// The sentences of `text`, each trimmed, the last one as it is left
/// when it has no end mark; empty ones dropped.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut rest = text.trim();
    while let Some(end) = sentence_end(rest) {
        sentences.push(rest[..end].trim());
        rest = rest[end..].trim_start();
    }
    sentences.push(rest);
    sentences.retain(|s| !s.is_empty());
    sentences
}

/// The byte offset just after the first complete sentence, if one is
/// complete: terminal punctuation (and closing quotes) followed by
/// whitespace, or a line break.
pub fn sentence_end(text: &str) -> Option<usize> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if c == '\n' {
            return Some(at + 1);
        }
        if !matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？') {
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | '”' | '’' | '*') {
            j += 1;
        }
        let &(next_at, next) = chars.get(j)?;
        if matches!(c, '。' | '！' | '？') {
            return Some(next_at);
        }
        if next.is_whitespace() && !(c == '.' && abbreviation_before(&text[..at])) {
            return Some(next_at);
        }
    }
    None
}

/// The byte offset where the first clause ends: just after a comma,
/// semicolon, colon or dash followed by whitespace, with [`CLAUSE_WORDS`]
/// words or more before it; or at a [`JOINING_WORDS`] word (whole, followed
/// by whitespace) with [`JOINED_CLAUSE_WORDS`] words or more before it.
pub fn clause_end(text: &str) -> Option<usize> {
    let mut words = 0;
    let mut word_start = None;
    let mut previous = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_alphanumeric() {
            if word_start.is_none() {
                words += 1;
                word_start = Some(at);
            }
            continue;
        }
        if let Some(start) = word_start.take() {
            let word = text[start..at].to_lowercase();
            let joins = JOINING_WORDS.contains(&word.as_str())
                && !NOT_JOINING_AFTER.split(' ').any(|w| w == previous);
            if c.is_whitespace() && words > JOINED_CLAUSE_WORDS && joins {
                return Some(start);
            }
            previous = word;
        }
        let next_is_space = chars.peek().is_some_and(|(_, n)| n.is_whitespace());
        if matches!(c, ',' | ';' | ':' | '—') && next_is_space && words >= CLAUSE_WORDS {
            return Some(at + c.len_utf8());
        }
    }
    None
}

/// Whether the word before a period is an abbreviation or an initial.
fn abbreviation_before(text: &str) -> bool {
    let word = text
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_lowercase();
    let mut chars = word.chars();
    let initial = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic());
    initial || ABBREVIATIONS.contains(&word.as_str())
}

/// The sentence as it should be spoken: markdown marks removed, spaces
/// collapsed; `None` when nothing speakable is left.
fn speakable(sentence: &str) -> Option<String> {
    let mut words = Vec::new();
    for line in sentence.lines() {
        let line = line.trim_start();
        let line = line.trim_start_matches('#').trim_start();
        let line = ["- ", "* ", "• "]
            .iter()
            .find_map(|bullet| line.strip_prefix(bullet))
            .unwrap_or(line);
        words.extend(line.split_whitespace().map(unmark));
    }
    let text = words.join(" ");
    text.chars().any(char::is_alphanumeric).then_some(text)
}

/// A word without the markdown emphasis or code marks around it
/// (`**bold**`, `` `code` ``); a lone `*` (as in `12 * 7`) stays.
fn unmark(word: &str) -> String {
    let core = word.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '*' && c != '`');
    let tail = &word[core.len()..];
    let inner = core.trim_matches(['*', '`']);
    if inner.is_empty() {
        word.to_string()
    } else {
        format!("{inner}{tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(pieces: &[&str]) -> Vec<String> {
        let mut s = Sentences::new();
        let mut out: Vec<String> = pieces.iter().flat_map(|p| s.push(p)).collect();
        out.extend(s.finish());
        out
    }

    #[test]
    fn a_sentence_is_handed_back_once_the_next_one_starts() {
        let mut s = Sentences::new();
        assert!(s.push("It is ten").is_empty());
        assert!(s.push(" o'clock.").is_empty());
        assert_eq!(s.push(" Have"), vec!["It is ten o'clock."]);
        assert!(s.push(" a nice day!").is_empty());
        assert_eq!(s.finish().as_deref(), Some("Have a nice day!"));
        assert_eq!(s.finish(), None);
    }

    #[test]
    fn numbers_abbreviations_and_initials_do_not_end_a_sentence() {
        assert_eq!(
            split(&["Pi is 3.14 or so. Dr. Smith and J. R. R. Tolkien agree, e.g. here."]),
            vec![
                "Pi is 3.14 or so.",
                "Dr. Smith and J. R. R. Tolkien agree, e.g. here."
            ]
        );
        assert_eq!(
            split(&["It is 42. Yes?", " No."]),
            vec!["It is 42.", "Yes?", "No."]
        );
    }

    #[test]
    fn line_breaks_quotes_and_markdown() {
        assert_eq!(
            split(&["**Two** things:\n- one\n\n- `two`\nHe said \"go.\" Then left"]),
            vec!["Two things:", "one", "two", "He said \"go.\"", "Then left"]
        );
        assert_eq!(split(&["...", " "]), Vec::<String>::new());
        assert_eq!(
            split(&["* 12 * 7 = 84, and 3*4 is *twelve*."]),
            vec!["12 * 7 = 84, and 3*4 is twelve."]
        );
    }

    #[test]
    fn only_the_first_piece_may_end_at_a_long_enough_clause() {
        let mut s = Sentences::clause_first();
        assert!(s.push("Yes, it").is_empty());
        assert_eq!(
            s.push(" is 7:30 in the morning, and the"),
            vec!["Yes, it is 7:30 in the morning,"]
        );
        assert!(s.push(" sun rises at 7, so it is dark, still").is_empty());
        assert_eq!(
            s.push(". The rest, 1,000 words,"),
            vec!["and the sun rises at 7, so it is dark, still."]
        );
        assert_eq!(s.finish().as_deref(), Some("The rest, 1,000 words,"));
        assert_eq!(
            split(&["It is 7:30 in the morning, and dark."]),
            vec!["It is 7:30 in the morning, and dark."]
        );
    }

    #[test]
    fn a_first_clause_may_end_before_a_joining_word() {
        let mut s = Sentences::clause_first();
        assert!(
            s.push("The sky is blue because").is_empty(),
            "not yet whole"
        );
        assert_eq!(s.push(" of"), vec!["The sky is blue"]);
        assert!(s.push(" scattering, which is").is_empty(), "only the first");
        assert_eq!(
            s.finish().as_deref(),
            Some("because of scattering, which is")
        );
        assert_eq!(
            split(&["It is hot because of the sun."]),
            vec!["It is hot because of the sun."]
        );
        let mut s = Sentences::clause_first();
        assert!(s.push("Add the flour and the butter ").is_empty());
        assert!(s.push("butterfly but").is_empty(), "{:?}", s.pending);
        assert_eq!(clause_end("Add the flour and the butter"), None);
        assert_eq!(clause_end("Add the flour and butter but "), Some(25));
        for not_joining in [
            "Let the dough rest for a while ",
            "He went out even though ",
            "It was anything but ",
        ] {
            assert_eq!(clause_end(not_joining), None, "{not_joining}");
        }
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        assert_eq!(
            split(&["Ça va… Très bien！ 好。", "再见"]),
            vec!["Ça va…", "Très bien！", "好。", "再见"]
        );
    }
}

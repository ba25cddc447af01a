//! From text to the phonemes a Piper voice reads: the text cut into
//! clauses where espeak-ng cuts them, each spoken in IPA by espeak-ng (run
//! as a subprocess), and the clauses grouped into sentences with the
//! punctuation Piper puts after them.

use super::VoiceError;
use crate::speech::run_espeak;
use unicode_normalization::UnicodeNormalization;

/// Characters that may follow a clause's punctuation before the space that
/// confirms it ends the clause.
const CLOSERS: &[char] = &['"', '\'', ')', ']', '}', '”', '’', '»'];
/// Characters that end a clause when followed by a space or the end of text.
const PUNCTUATION: &[char] = &['.', ',', '?', '!', ':', ';', '…', '–', '—'];

/// A stretch of text espeak-ng speaks as one clause.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Clause {
    /// The words, with their punctuation, whitespace collapsed.
    text: String,
    /// The punctuation Piper puts after the clause's phonemes.
    terminator: Option<char>,
    /// Whether a sentence ends with the clause.
    ends_sentence: bool,
}

/// `text` cut into clauses the way espeak-ng cuts it: after punctuation
/// followed by a space (a lone period right before a space and a lower-case
/// word is an abbreviation's), and at blank lines, which end a sentence
/// without punctuation.
pub(super) fn clauses(text: &str) -> Vec<Clause> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Clause> = Vec::new();
    let mut current = String::new();
    let mut close = |current: &mut String, terminator: Option<char>, ends_sentence: bool| {
        let words = current.split_whitespace().collect::<Vec<_>>().join(" ");
        current.clear();
        let silent = words
            .chars()
            .all(|c| c == ' ' || PUNCTUATION.contains(&c) || CLOSERS.contains(&c));
        if !silent {
            out.push(Clause {
                text: words,
                terminator,
                ends_sentence,
            });
        } else if let Some(last) = out.last_mut().filter(|_| ends_sentence) {
            last.ends_sentence = true;
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() && chars[j] != '\n' {
                j += 1;
            }
            if chars.get(j) == Some(&'\n') {
                close(&mut current, None, true);
                i = j + 1;
            } else {
                current.push(' ');
                i += 1;
            }
            continue;
        }
        if !PUNCTUATION.contains(&c) {
            current.push(c);
            i += 1;
            continue;
        }
        let mut end = i;
        while end < chars.len() && PUNCTUATION.contains(&chars[end]) {
            end += 1;
        }
        let mut after = end;
        while after < chars.len() && CLOSERS.contains(&chars[after]) {
            after += 1;
        }
        let run = &chars[i..end];
        let spaced = chars.get(after).is_none_or(|c| c.is_whitespace());
        let abbreviation = run == ['.']
            && after == end
            && chars[after..]
                .iter()
                .find(|c| !c.is_whitespace())
                .is_some_and(|c| c.is_lowercase());
        current.extend(&chars[i..after]);
        i = after;
        if spaced && !abbreviation {
            let terminator = terminator(run);
            let ends_sentence = matches!(terminator, Some('.' | '?' | '!'));
            close(&mut current, terminator, ends_sentence);
        }
    }
    close(&mut current, None, true);
    out
}

/// The punctuation Piper keeps for a run of clause-ending characters, as
/// espeak-ng classifies them: a dash pauses like `;`; an ellipsis keeps
/// none.
fn terminator(run: &[char]) -> Option<char> {
    if run.contains(&'?') {
        Some('?')
    } else if run.contains(&'!') {
        Some('!')
    } else if run.contains(&'…') || run.iter().filter(|&&c| c == '.').count() > 1 {
        None
    } else if run.iter().any(|c| matches!(c, '–' | '—')) {
        Some(';')
    } else {
        run.first().copied()
    }
}

/// Each clause's IPA phonemes from one espeak-ng run, which prints a line
/// per clause; if the lines do not match the clauses one to one, one run
/// per clause.
pub(super) fn phonemize(voice: &str, clauses: &[Clause]) -> Result<Vec<String>, VoiceError> {
    let joined: Vec<&str> = clauses.iter().map(|c| c.text.as_str()).collect();
    let output = espeak(voice, &joined.join("\n\n"))?;
    let lines: Vec<&str> = output.lines().collect();
    if lines.len() == clauses.len() {
        return Ok(lines.iter().map(|l| l.trim().to_string()).collect());
    }
    clauses
        .iter()
        .map(|clause| {
            espeak(voice, &clause.text)
                .map(|out| out.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// espeak-ng's IPA for `text`, a line per clause.
fn espeak(voice: &str, text: &str) -> Result<String, VoiceError> {
    let ipa = run_espeak(&["-q", "-b", "1", "--ipa", "-v", voice, "--stdin"], text)?;
    Ok(String::from_utf8_lossy(&ipa).into_owned())
}

/// Phonemes grouped by sentence: each clause's phonemes with language-switch
/// marks such as `(fr)` taken out, then its punctuation, as NFD code points;
/// a space between clauses.
pub(super) fn sentences(clauses: &[Clause], phonemes: &[String]) -> Vec<Vec<char>> {
    let mut out = Vec::new();
    let mut sentence = String::new();
    for (clause, phonemes) in clauses.iter().zip(phonemes) {
        if !sentence.is_empty() && !sentence.ends_with(' ') {
            sentence.push(' ');
        }
        sentence.push_str(&without_language_marks(phonemes));
        if let Some(terminator) = clause.terminator {
            sentence.push(terminator);
            if matches!(terminator, ',' | ':' | ';') {
                sentence.push(' ');
            }
        }
        if clause.ends_sentence {
            out.push(std::mem::take(&mut sentence).nfd().collect());
        }
    }
    if !sentence.is_empty() {
        out.push(sentence.nfd().collect());
    }
    out
}

/// `phonemes` without espeak-ng's `(xx)` marks around words it reads in
/// another language.
fn without_language_marks(phonemes: &str) -> String {
    let mut out = String::with_capacity(phonemes.len());
    let mut rest = phonemes;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 1..];
        match inside.find(')') {
            Some(close) if close > 0 => rest = &inside[close + 1..],
            _ => {
                out.push('(');
                rest = inside;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clause(text: &str, terminator: Option<char>, ends_sentence: bool) -> Clause {
        Clause {
            text: text.into(),
            terminator,
            ends_sentence,
        }
    }

    #[test]
    fn cuts_clauses_where_espeak_does() {
        assert_eq!(
            clauses("What is twelve times twelve? Twelve times twelve is 144."),
            vec![
                clause("What is twelve times twelve?", Some('?'), true),
                clause("Twelve times twelve is 144.", Some('.'), true),
            ]
        );
        assert_eq!(
            clauses("Well, e.g. the U.S. Army: 3.5 km; $1,000 \"now.\" ok"),
            vec![
                clause("Well,", Some(','), false),
                clause("e.g. the U.S.", Some('.'), true),
                clause("Army:", Some(':'), false),
                clause("3.5 km;", Some(';'), false),
                clause("$1,000 \"now.\"", Some('.'), true),
                clause("ok", None, true),
            ]
        );
        assert_eq!(
            clauses("Wait... what?! A — b–c\nd\n \nnext …"),
            vec![
                clause("Wait...", None, false),
                clause("what?!", Some('?'), true),
                clause("A —", Some(';'), false),
                clause("b–c d", None, true),
                clause("next …", None, true),
            ]
        );
        assert_eq!(clauses(""), vec![]);
        assert_eq!(clauses(" \n\n ... "), vec![]);
        assert_eq!(clauses("Hi. ."), vec![clause("Hi.", Some('.'), true)]);
    }

    #[test]
    fn groups_phonemes_by_sentence_with_punctuation() {
        let clauses = [
            clause("Hi,", Some(','), false),
            clause("you…", None, false),
            clause("there.", Some('.'), true),
            clause("Ça", None, true),
        ];
        let phonemes = [
            "hˈaɪ".to_string(),
            "jˈuː".into(),
            "ðɛɹ".into(),
            "(fr)sˈa(en)".into(),
        ];
        let sentences = sentences(&clauses, &phonemes);
        let text: Vec<String> = sentences.iter().map(|s| s.iter().collect()).collect();
        assert_eq!(text, vec!["hˈaɪ, jˈuː ðɛɹ.", "sˈa"]);
        let decomposed = sentences_of("ç");
        assert_eq!(decomposed, vec!['c', '\u{327}']);
    }

    fn sentences_of(phonemes: &str) -> Vec<char> {
        sentences(&[clause("x", None, true)], &[phonemes.to_string()]).concat()
    }

    #[test]
    fn removes_only_language_marks() {
        assert_eq!(without_language_marks("(fr)kafe(en) ok"), "kafe ok");
        assert_eq!(without_language_marks("a()b(c"), "a()b(c");
    }
}

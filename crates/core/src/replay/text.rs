//! Text for synthetic streams: the sample responses shipped with the lab
//! (`public/samples/`) and a tokenizer-free split into token-sized pieces.
//!
//! **Pseudo tokens** approximate what a BPE tokenizer does to English text
//! and code, without a vocabulary: a piece is a run of letters/digits with the
//! whitespace before it, or a single other character (punctuation,
//! newline), and words longer than [`MAX_PIECE_CHARS`] characters are cut
//! into pieces of that length. English prose comes out at roughly 1.3 pieces
//! per word, close to real tokenizers. Concatenating the pieces always gives
//! back the text exactly.

/// Longest run of word characters kept as one piece.
pub const MAX_PIECE_CHARS: usize = 6;

/// A sample response shipped with the lab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Identifier (`chat`, `code`, `article`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The text (Markdown).
    pub text: &'static str,
}

/// The shipped samples.
pub const SAMPLES: [Sample; 3] = [
    Sample { id: "chat", name: "Chat answer", text: include_str!("../../../../public/samples/chat.md") },
    Sample { id: "code", name: "Code", text: include_str!("../../../../public/samples/code.md") },
    Sample {
        id: "article",
        name: "Long article",
        text: include_str!("../../../../public/samples/article.md"),
    },
];

/// A sample by id.
pub fn sample(id: &str) -> Option<&'static Sample> {
    SAMPLES.iter().find(|s| s.id == id)
}

/// Splits text into pseudo tokens (see the module docs).
pub fn pseudo_tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0; // start of the current piece (includes leading spaces)
    let mut word_chars = 0; // word characters in the current piece
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let is_word = c.is_alphanumeric() || c == '_' || c == '\'';
        if is_word {
            if word_chars == MAX_PIECE_CHARS || (word_chars == 0 && !in_space && i > start) {
                out.push(&text[start..i]);
                start = i;
                word_chars = 0;
            }
            word_chars += 1;
            in_space = false;
        } else if c == ' ' || c == '\t' {
            if word_chars > 0 || (!in_space && i > start) {
                out.push(&text[start..i]);
                start = i;
                word_chars = 0;
            }
            in_space = true;
        } else {
            // Punctuation, newline, symbols: one piece each (leading spaces attach).
            if word_chars > 0 {
                out.push(&text[start..i]);
                start = i;
            }
            let end = i + c.len_utf8();
            out.push(&text[start..end]);
            start = end;
            word_chars = 0;
            in_space = false;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Number of pseudo tokens in `text` (prompt length estimates).
pub fn count_tokens(text: &str) -> usize {
    pseudo_tokens(text).len()
}

/// The first `n` pseudo tokens of `text`, cycling through it again (after a
/// blank line) when it is shorter than `n`.
pub fn take_tokens(text: &str, n: usize) -> Vec<String> {
    let pieces = pseudo_tokens(text);
    if pieces.is_empty() {
        return vec![String::from(" ·"); n];
    }
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while out.len() < n {
        if i == pieces.len() {
            i = 0;
            if out.len() < n {
                out.push("\n\n".to_string());
            }
            continue;
        }
        out.push(pieces[i].to_string());
        i += 1;
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_concatenate_back_to_the_text() {
        for s in SAMPLES {
            assert_eq!(pseudo_tokens(s.text).concat(), s.text, "{}", s.id);
        }
        let odd = "  héllo,\tworld!! 你好🙂 supercalifragilistic x_y 'quoted'\n\n";
        assert_eq!(pseudo_tokens(odd).concat(), odd);
        assert!(pseudo_tokens("").is_empty());
    }

    #[test]
    fn english_prose_is_about_one_and_a_third_pieces_per_word() {
        let text = sample("article").unwrap().text;
        let words = text.split_whitespace().count() as f64;
        let ratio = pseudo_tokens(text).len() as f64 / words;
        assert!((1.1..1.6).contains(&ratio), "{ratio}");
    }

    #[test]
    fn words_keep_their_leading_space() {
        assert_eq!(pseudo_tokens("Hello big world."), ["Hello", " big", " world", "."]);
        assert_eq!(pseudo_tokens("internationalization"), ["intern", "ationa", "lizati", "on"]);
    }

    #[test]
    fn take_tokens_cycles_and_truncates() {
        assert_eq!(take_tokens("a b", 2), ["a", " b"]);
        assert_eq!(take_tokens("a b", 5), ["a", " b", "\n\n", "a", " b"]);
        assert_eq!(take_tokens("", 2).len(), 2);
        assert_eq!(take_tokens("x", 0).len(), 0);
    }
}

//! Commit trailers, read as git reads them: the message's last paragraph.
//!
//! Owns: a commit's subject, finding the trailer block and splitting it into `(key, value)` pairs, with
//! folded continuation lines unfolded. Used by `Spec-OK` acknowledgement (and by agent
//! trailer links).
//! Does not own: what a trailer means to a reader.

/// A commit's subject: the first line of its message.
pub fn subject(db: &dyn keel_engine::Db, commit: keel_engine::inputs::Commit) -> String {
    commit
        .message(db)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// One trailer line: `Key: value`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Trailer {
    pub key: String,
    pub value: String,
}

impl Trailer {
    /// True when the key equals `key` ignoring ASCII case, as git compares keys.
    pub fn has_key(&self, key: &str) -> bool {
        self.key.eq_ignore_ascii_case(key)
    }
}

/// Trailers git would recognise that git itself writes; one of them lets a partly
/// non-trailer block still count (git's 25% rule).
const GIT_GENERATED_PREFIXES: [&str; 2] = ["signed-off-by: ", "(cherry picked from commit "];

/// The trailers of a commit message.
///
/// The block is the last paragraph, and never the first (the subject): a one-paragraph
/// message has none. It counts when every line is a trailer or continuation, or when at
/// least a quarter of its lines are trailers and one is git-generated.
pub fn parse_trailers(message: &str) -> Vec<Trailer> {
    let Some(block) = last_paragraph(message) else {
        return Vec::new();
    };
    let mut trailers: Vec<Trailer> = Vec::new();
    let mut trailer_lines = 0usize;
    let mut other_lines = 0usize;
    let mut git_generated = false;
    for line in &block {
        if line.starts_with([' ', '\t']) {
            match trailers.last_mut() {
                Some(last) => {
                    last.value.push(' ');
                    last.value.push_str(line.trim());
                }
                None => other_lines += 1,
            }
            continue;
        }
        let lowered = line.to_ascii_lowercase();
        git_generated |= GIT_GENERATED_PREFIXES
            .iter()
            .any(|prefix| lowered.starts_with(prefix));
        match split_trailer(line) {
            Some(trailer) => {
                trailer_lines += 1;
                trailers.push(trailer);
            }
            None => other_lines += 1,
        }
    }
    let all_trailers = other_lines == 0 && trailer_lines > 0;
    let quarter_with_git = git_generated && trailer_lines * 4 >= trailer_lines + other_lines;
    if all_trailers || quarter_with_git {
        trailers
    } else {
        Vec::new()
    }
}

/// The lines of the message's last paragraph, if the message has more than one.
fn last_paragraph(message: &str) -> Option<Vec<&str>> {
    let lines: Vec<&str> = message.lines().collect();
    let end = lines.iter().rposition(|l| !l.trim().is_empty())? + 1;
    let start = lines[..end]
        .iter()
        .rposition(|l| l.trim().is_empty())
        .map_or(0, |blank| blank + 1);
    let has_earlier_text = lines[..start].iter().any(|l| !l.trim().is_empty());
    has_earlier_text.then(|| lines[start..end].to_vec())
}

/// `Key: value` where the key is letters, digits and dashes.
fn split_trailer(line: &str) -> Option<Trailer> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim_end();
    let valid_key = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    valid_key.then(|| Trailer {
        key: key.to_owned(),
        value: value.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(message: &str) -> Vec<(String, String)> {
        parse_trailers(message)
            .into_iter()
            .map(|t| (t.key, t.value))
            .collect()
    }

    fn pair(key: &str, value: &str) -> (String, String) {
        (key.to_owned(), value.to_owned())
    }

    #[test]
    fn last_paragraph_trailers_are_read() {
        let message = "Fix login\n\nBody text.\n\nSpec-OK: auth/login\nCo-authored-by: A <a@x>\n";
        assert_eq!(
            pairs(message),
            vec![
                pair("Spec-OK", "auth/login"),
                pair("Co-authored-by", "A <a@x>")
            ]
        );
    }

    #[test]
    fn subject_alone_is_never_a_trailer_block() {
        assert!(pairs("Spec-OK: auth/login\n").is_empty());
    }

    #[test]
    fn middle_paragraph_trailers_do_not_count() {
        let message = "Subject\n\nSpec-OK: auth\n\nJust prose at the end.\n";
        assert!(pairs(message).is_empty());
    }

    #[test]
    fn mixed_block_without_git_trailer_is_prose() {
        let message = "Subject\n\nSpec-OK: auth\nthis line is prose\n";
        assert!(pairs(message).is_empty());
    }

    #[test]
    fn mixed_block_with_signed_off_by_counts() {
        let message = "Subject\n\nprose line\nSigned-off-by: A <a@x>\nSpec-OK: auth\nmore prose\n";
        assert_eq!(
            pairs(message),
            vec![pair("Signed-off-by", "A <a@x>"), pair("Spec-OK", "auth")]
        );
    }

    #[test]
    fn continuation_lines_are_unfolded() {
        let message = "Subject\n\nNote: first\n  second\n";
        assert_eq!(pairs(message), vec![pair("Note", "first second")]);
    }

    #[test]
    fn keys_compare_without_case() {
        let trailers = parse_trailers("S\n\nspec-ok: a\n");
        assert!(trailers[0].has_key("Spec-OK"));
    }
}

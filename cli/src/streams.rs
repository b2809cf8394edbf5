//! stderr as keel writes it: every message, warning and refusal goes through
//! [`write_stderr`] (and its [`errln!`]), where a closed stderr drops the text instead of
//! panicking.
//!
//! Owns: writing to stderr. Does not own: stdout (`commands::write_stdout` and `outln!`,
//! which report a write error other than a closed pipe as the command's error) or what
//! is written.

/// Writes `text` to stderr. A failure to write there (a closed stderr: `keel … 2>&-`, a
/// reader gone) has nowhere left to be reported: the text is dropped and the command
/// ends as it would.
pub(crate) fn write_stderr(text: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// `eprintln!` through [`write_stderr`], so a closed stderr never panics (exit 101):
/// the crate denies `clippy::print_stderr`.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::streams::write_stderr(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use errln;

//! What a Python fixture really calls: the fixture written to a temporary folder and run
//! under `python3` with `sys.setprofile`, each call between two of its functions recorded
//! as keel names the two ends (`path#Qualified.name`, `path#<module>` for top-level code).
//! A test helper only: keel never runs Python.
//!
//! Owns: writing the fixture, the tracer (every `call` event whose frame and caller frame
//! are both code of the fixture; a lambda's or comprehension's frame stands for the named
//! callable around it, as keel places its calls; a call into one has no node and is left
//! out, and so is a class body's run, which keel does not count as a call), and reading
//! its pairs back.
//! Does not own: the graph the pairs are checked against (the tests).

use std::collections::BTreeSet;
use std::process::Command;

/// The tracer: runs the entry file as `__main__` with the fixture's folder first on
/// `sys.path`, and prints one `caller\tcallee` line per distinct pair.
const TRACER: &str = r##"
import os, runpy, sys
root = os.path.realpath(sys.argv[1])
entry = sys.argv[2]
if sys.version_info < (3, 11):
    sys.exit(3)  # co_qualname is 3.11's
ANON = ("<lambda>", "<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")
def node(code):
    path = os.path.realpath(code.co_filename)
    if not path.startswith(root + os.sep):
        return None, False
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    parts = [p for p in code.co_qualname.split(".") if p != "<locals>"]
    named = []
    for part in parts:
        if part in ANON:
            break
        named.append(part)
    anonymous = len(named) < len(parts)
    name = ".".join(named) if named and named != ["<module>"] else "<module>"
    return rel + "#" + name, anonymous
pairs = set()
def profile(frame, event, arg):
    if event != "call" or frame.f_back is None:
        return
    if not frame.f_code.co_flags & 1:
        return  # not a function's code (CO_OPTIMIZED): a class body keel does not call
    callee, anonymous = node(frame.f_code)
    caller, _ = node(frame.f_back.f_code)
    if callee is None or caller is None or anonymous:
        return
    pairs.add((caller, callee))
sys.path.insert(0, root)
sys.setprofile(profile)
try:
    runpy.run_path(os.path.join(root, entry), run_name="__main__")
finally:
    sys.setprofile(None)
for caller, callee in sorted(pairs):
    print(caller + "\t" + callee)
"##;

/// The `(caller, callee)` pairs running `entry` of `files` makes between the fixture's
/// own callables; `None` (with a note on stderr) when no `python3` of 3.11 or later
/// runs here. A fixture that fails under Python fails the test: its expected edges
/// would mean nothing.
pub(crate) fn runtime_pairs(
    files: &[(&str, &str)],
    entry: &str,
) -> Option<BTreeSet<(String, String)>> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (path, text) in files {
        let file = dir.path().join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).expect("the fixture's folders");
        }
        std::fs::write(&file, text).expect("the fixture's file");
    }
    let output = match Command::new("python3")
        .arg("-c")
        .arg(TRACER)
        .arg(dir.path())
        .arg(entry)
        .output()
    {
        Ok(output) => output,
        Err(error) => {
            eprintln!("note: python3 did not run ({error}): runtime pairs not checked");
            return None;
        }
    };
    if output.status.code() == Some(3) {
        eprintln!("note: python3 is older than 3.11: runtime pairs not checked");
        return None;
    }
    assert!(
        output.status.success(),
        "the fixture failed under python3:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("the tracer prints UTF-8");
    Some(
        stdout
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .map(|(caller, callee)| (caller.to_owned(), callee.to_owned()))
            .collect(),
    )
}

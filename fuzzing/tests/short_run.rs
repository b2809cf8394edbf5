//! The short run: every reader of outside bytes, a few thousand structure-aware random
//! inputs each, and no crash; plus the controls that prove the driver does report a crash
//! (so a run cannot pass because nothing was ever caught).
//!
//! The long run is `cargo run --release -p keel-benches --bin fuzz-bench`; coverage-guided
//! fuzzing is the cargo-fuzz crate in `fuzz/` (see fuzzing/README.md).

use keel_fuzzing::{READERS, Reader, RunReport, minimize, reader, run};

/// Executions per reader: each reader's seeds, then mutations of them.
const EXECUTIONS: u64 = 2_500;
/// The run's seed: a failure here reproduces with the same seed.
const SEED: u64 = 13;

fn describe(report: &RunReport) -> String {
    let mut text = format!(
        "{}: {} of {} executions crashed",
        report.reader,
        report.crashing_executions(),
        report.executions
    );
    for crash in &report.crashes {
        let input = String::from_utf8_lossy(&crash.input);
        let shown: String = input.chars().take(600).collect();
        text.push_str(&format!(
            "\n- {} ({} hits): {}\n  input ({} bytes): {shown:?}",
            crash.location,
            crash.hits,
            crash.message,
            crash.input.len()
        ));
    }
    text
}

fn short_run(name: &str) {
    let reader = reader(name).expect("the reader is in READERS");
    let report = run(reader, EXECUTIONS, SEED);
    assert_eq!(report.executions, EXECUTIONS);
    assert!(report.crashes.is_empty(), "{}", describe(&report));
}

#[test]
fn spec() {
    short_run("spec");
}

#[test]
fn settings() {
    short_run("settings");
}

#[test]
fn sessions() {
    short_run("sessions");
}

#[test]
fn decisions() {
    short_run("decisions");
}

#[test]
fn readings() {
    short_run("readings");
}

#[test]
fn claude() {
    short_run("claude");
}

#[test]
fn codex() {
    short_run("codex");
}

#[test]
fn gemini() {
    short_run("gemini");
}

#[test]
fn opencode() {
    short_run("opencode");
}

#[test]
fn patch() {
    short_run("patch");
}

#[test]
fn trailers() {
    short_run("trailers");
}

#[test]
fn every_reader_has_a_short_run() {
    let names: Vec<&str> = READERS.iter().map(|reader| reader.name).collect();
    assert_eq!(
        names,
        [
            "spec",
            "settings",
            "sessions",
            "decisions",
            "readings",
            "claude",
            "codex",
            "gemini",
            "opencode",
            "patch",
            "trailers"
        ]
    );
}

fn always_panics(_: &[u8]) {
    panic!("the control always panics");
}

fn panics_on_boom(bytes: &[u8]) {
    assert!(
        !bytes.windows(4).any(|window| window == b"boom"),
        "the control found its input"
    );
}

const CONTROL_TOKENS: keel_fuzzing::mutate::Tokens = &[&[b"boom", b"bo", b"om"]];

fn control_seeds() -> Vec<Vec<u8>> {
    vec![b"bo".to_vec(), b"om".to_vec(), b"a harmless seed".to_vec()]
}

#[test]
fn the_driver_counts_every_crash_of_a_panicking_target() {
    let control = Reader {
        name: "always-panics",
        target: always_panics,
        seeds: control_seeds,
        tokens: CONTROL_TOKENS,
    };
    let report = run(&control, 50, SEED);
    assert_eq!(report.crashes.len(), 1, "{}", describe(&report));
    assert_eq!(report.crashing_executions(), 50);
    assert_eq!(report.crashes[0].message, "the control always panics");
    assert!(report.crashes[0].location.contains("short_run.rs"));
}

#[test]
fn the_driver_finds_records_and_shrinks_a_crashing_input() {
    let control = Reader {
        name: "panics-on-boom",
        target: panics_on_boom,
        seeds: control_seeds,
        tokens: CONTROL_TOKENS,
    };
    let report = run(&control, 500, SEED);
    assert_eq!(report.crashes.len(), 1, "{}", describe(&report));
    let crash = &report.crashes[0];
    assert!((1..500).contains(&crash.hits), "{}", describe(&report));
    assert_eq!(crash.message, "the control found its input");
    assert!(crash.input.windows(4).any(|window| window == b"boom"));
    let shrunk = minimize(panics_on_boom, crash, 10_000);
    assert_eq!(shrunk.input, b"boom");
    assert_eq!(shrunk.location, crash.location);
}

//! cargo-fuzz target `sessions`: `sessions.jsonl`, through
//! `keel_fuzzing::targets::sessions` (the reader and its invariants, the same function the
//! short run and `fuzz-bench` drive).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| keel_fuzzing::targets::sessions(data));

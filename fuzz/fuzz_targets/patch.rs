//! cargo-fuzz target `patch`: the unified-diff patch of `keel impact`, through
//! `keel_fuzzing::targets::patch` (the reader and its invariants, the same function the
//! short run and `fuzz-bench` drive).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| keel_fuzzing::targets::patch(data));

//! cargo-fuzz target `trailers`: git trailers of a commit message, through
//! `keel_fuzzing::targets::trailers` (the reader and its invariants, the same function the
//! short run and `fuzz-bench` drive).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| keel_fuzzing::targets::trailers(data));

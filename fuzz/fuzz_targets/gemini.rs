//! cargo-fuzz target `gemini`: Gemini CLI chats, through `keel_fuzzing::targets::gemini`
//! (the reader and its invariants, the same function the short run and `fuzz-bench` drive).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| keel_fuzzing::targets::gemini(data));

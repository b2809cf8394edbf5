//! The memory allocator of keel's binaries: mimalloc, as ruff and ty use on most
//! platforms. keel's answers are built from many small allocations (syntax facts, call
//! sites, value sets, memo entries) and most of a memo is freed when a newer revision
//! replaces it; with the system allocator a fifth of a call-graph edit was `malloc` and
//! `free`. Built without transparent huge pages (`no_thp`): mimalloc otherwise advises
//! huge pages for its arenas, and a cold `keel lint` of pytest peaked about 40 MiB higher
//! (its time with and without them was within a loaded machine's noise). Built to
//! `override` the C allocator too (`malloc`, `free`, `realloc`, `calloc`): tree-sitter
//! allocates its parse trees through them, out of the Rust allocator's sight, and with
//! glibc's a cold TypeScript call graph spent a tenth of its CPU in `malloc` and `free`.
//! Version 2 of mimalloc (the `v2` build): version 3 keeps freed pages a second before
//! returning them, and a cold lint peaked 15-20 MB higher with it at the same speed.
//!
//! Owns: the one choice of allocator. Does not own: installing it — each binary that
//! runs keel (the `keel` command and the benches that time keel in process) declares
//! `#[global_allocator] static ALLOCATOR: keel_engine::allocator::Allocator =
//! keel_engine::allocator::Allocator;`. The C allocator is replaced in every program
//! that links this crate, tests included (their Rust allocations stay on the system
//! allocator's interface, which then calls mimalloc's `malloc`).

pub use mimalloc::MiMalloc as Allocator;

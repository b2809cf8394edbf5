//! keel-queries end-to-end tests on repositories built by `keel-fixtures`.
//!
//! `positive_control` proves the harness can observe a known hit before any other
//! comparison means anything; `drift` pins the seed's judgement rules; `incremental`
//! proves which queries re-run; `agreement` compares lint with an oracle built from the
//! git CLI.

mod agreement;
mod drift;
mod incremental;
mod positive_control;
mod support;

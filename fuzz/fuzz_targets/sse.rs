//! Fuzz target `sse`: see `lab_core::fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lab_core::fuzz::run("sse", data));

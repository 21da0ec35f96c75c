//! Fuzz target `files`: see `lab_core::fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lab_core::fuzz::run("files", data));

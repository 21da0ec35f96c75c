//! Fuzz target `import`: see `lab_core::fuzz`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lab_core::fuzz::run("import", data));

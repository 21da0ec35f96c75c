//! Replays every input kept in `fuzz/regressions/<target>/` (crashes the
//! fuzzer found, once fixed, and hand-made edge cases) through the same
//! harness the fuzzer runs (`lab_core::fuzz`): a fixed crash stays fixed.

use std::path::Path;

#[test]
fn every_kept_fuzz_input_passes_its_harness() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut ran = 0;
    for target in lab_core::fuzz::TARGETS {
        let Ok(dir) = std::fs::read_dir(root.join(target)) else { continue };
        for entry in dir.flatten() {
            let bytes = std::fs::read(entry.path()).expect("readable");
            let outcome = std::panic::catch_unwind(|| lab_core::fuzz::run(target, &bytes));
            assert!(outcome.is_ok(), "{target}: {} fails again", entry.path().display());
            ran += 1;
        }
    }
    assert!(ran >= 5, "the regression corpus is missing ({ran} inputs in {})", root.display());
}

//! What a visitor downloads, module by module, against the page's budgets
//! (`latency-lab size`, `./lab size`; `--check` in `./lab test`).
//!
//! A module is the files a browser fetches together: the app (its wasm and
//! JavaScript), the page around it (HTML, CSS, icon), the replay clock
//! worker, the import worker (fetched on the first import). Sizes are read
//! from the precompressed copies `latency-lab compress` wrote (computed
//! when a copy is missing or older than its file), so they are the bytes
//! `latency-lab serve` sends.
//!
//! [`BUDGETS`] holds two lines per module: the **budget**, which `--check`
//! enforces (a build over it fails `./lab test`, naming the module and the
//! bytes over), and the **target** of the page-load work (issue 31:
//! first-visit app ≤ 450 kB gzip, every on-demand module ≤ 200 kB), which
//! is printed with the distance to it until the budget reaches it.

use std::path::Path;

use lab_server::site::assets::{self, AssetError};

/// When a module is downloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loaded {
    /// On every first visit, before the landing replay plays (and before a
    /// participant's consent screen).
    FirstVisit,
    /// When first needed.
    OnDemand,
}

/// A module and its lines (gzip bytes).
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Its name.
    pub module: &'static str,
    /// Whether a file (path relative to `dist`, `/`-separated) belongs to it.
    pub holds: fn(&str) -> bool,
    /// When it is downloaded.
    pub loaded: Loaded,
    /// Enforced: gzip bytes it may not exceed.
    pub budget: u64,
    /// Where the page-load work is taking it.
    pub target: u64,
}

/// The modules, their budgets (a few kB over the build of 2026-12-05, so
/// it cannot grow unnoticed) and targets. Probe while loaded moved two
/// budgets on purpose (BENCHMARKS.md, "What the page downloads"): the app
/// from 635,000 (its runner, form fields and plan: +8.7 kB, of which about
/// 2 kB is the trace's load windows, which every module reading traces
/// decodes) and the run results from 465,000 (the probe view: +15.8 kB).
/// Workload files in the Import view moved two more: the run results' module
/// from 477,000 (the workload card: +11 kB) and the import worker from
/// 212,000 (the workload readers and summary: +15.8 kB). A probe run's
/// load from the load's own trace moved the run results' module from
/// 488,000 (reading the file, lining it up, the column and words: +4.8 kB).
/// Field data in the Import view moved the import worker from 229,000 (the
/// OTLP/Tempo/Jaeger readers and the span reading of core's `field` room:
/// +10.6 kB). The Field part of the Import view moved the run results'
/// module from 492,000 (its form, the collector hook and the P90 replay:
/// +10.7 kB; `gloo-net` for its GETs: +2.2 kB, measured side by side), then
/// 505,000 (its summary table and core's `field::summary`: +6.5 kB).
/// Every probe drawn (its lanes: +0.9 kB) and the built-in load's own
/// figures per window (the trace's new `load_failures`, which the library
/// reads and writes, and the DELETE reply: +2.6 kB) moved the app from
/// 641,000. The Field view's scenario score per group (the chooser, the
/// column, core's `field::scores` read) moved the run results' module
/// from 524,000 (+2.1 kB).
/// Issues 43 and 44 (2026-12-06) moved the app from 643,000 (to 646,732 B)
/// and the run results' module from 526,000 (to 527,981 B): two more fields
/// of every trace's meta (`start_at_ms`, `shard`, with the shard check's
/// words) and a character count on every chunk (`Chunk::chars`), read and
/// written by every module that decodes traces; the field replay's sample
/// text in recorded lengths; the focus hand-off of Start and Stop and the
/// skip link; the rate run naming its sender. Not measured one by one
/// (each side-by-side release build is 10 minutes on this machine).
/// Issue 44's second part (2026-12-06) moved the study view from 395,000
/// (to 397,390 B: declining the consent, Publish following the published
/// state, the draft renamed by its id) and the run results' module from
/// 529,000 (to 531,261 B: the workload's rate chart with axes and its run
/// command, the comparison's baseline and replay ticks, the picks' ranks,
/// the rough field scores, the probe sweep's words).
/// Issue 45 (2026-12-06) moved the app from 648,000 (to 661,389 B: +13.4 kB
/// for Live over every wire: core's decoders of seven wires, the framer,
/// each wire's body, route and auth headers, the Wire menu; Live is in the
/// first-visit module, so its decoders are too), the study view from
/// 398,000 (to 398,033 B) and the run results' module from 532,000 (to
/// 533,775 B: the trace's `wire` and usage's reasoning tokens, read and
/// written by every module that decodes traces). Not yet measured one by
/// one: whether the server-side encoders reach the page (dead code that
/// wasm-opt should drop) is the first thing to check. GenAI-Perf's
/// recorded streams in every wire moved the import worker from 240,000 (to
/// 248,097 B: +8.7 kB, the same decoders, framer and detection, which the
/// worker did not hold; measured side by side on one machine).
/// Issue 45's Compare endpoints (2026-12-07) moved the app *down* from
/// 662,000 to 650,000 (to 648,298 B): the commands between modules are
/// externally tagged now (`{"compare": …}`), where the internally tagged
/// enum had serde buffer each command and read it a second way, a second
/// copy of the study's and the endpoint config's readers (−25 kB in the app,
/// measured side by side); the comparison's run itself stays in Live (+2.7
/// kB) and its set-up is in the runs module, loaded when it is opened
/// (+4.6 kB in the app when it was not). The run results' module moved from
/// 534,000 to 564,000 (to 562,998 B: the set-up +9.5 kB, which reads the
/// stored endpoint and its presets; the results, `measure::compare` with
/// its bootstraps, the one-walk resampling and the table, +19 kB) and the study view from 399,000 to
/// 400,000 (to 399,139 B: writing the new command). Issue 47's workload
/// formats, one file each behind one list (`workload::format`: each
/// format's reader reached through its spec, and the first line read once
/// for every detector) moved the import worker from 250,000 (to 250,614 B:
/// +1,199 B gzip in the worker's wasm before wasm-opt, 2,225,571 against
/// 2,223,041 B raw, built side by side on one machine) to 251,000.
/// Issue 47's Field figures from the registry (2026-12-07: each latency
/// row's figure of one request, `LatencyRow::request`, and the new row
/// *longest paint gap*, which every module holding the registry now
/// carries; the Field summary's figures as one list of rows by id) moved
/// the app from 650,000 (to 650,337 B; +1,917 B in its wasm before
/// wasm-opt), the run results' module from 564,000 (to 566,809 B; +3,208 B
/// before wasm-opt, where the figures as a map by id had cost +6,389 B)
/// and the import worker from 251,000 (to 252,045 B; +1,601 B before
/// wasm-opt), each measured side by side against the build before.
/// A finished run measured once (2026-12-07: Live saves it and announces
/// its library entries; the results view reads it back, measures it once
/// per module with the comparisons' reading, and says a run it cannot read
/// back) moved the run results' module from 567,000 (to 570,041 B; +4,983
/// B before wasm-opt, not broken down further) while the app went down
/// (−937 B before wasm-opt: it no longer measures a finished run).
pub const BUDGETS: [Budget; 8] = [
    Budget {
        module: "app",
        holds: |f| f.starts_with("latency-lab-app"),
        loaded: Loaded::FirstVisit,
        budget: 651_000,
        target: 450_000,
    },
    Budget {
        module: "page (html, css, icon)",
        // The book (`docs/`, read at /docs/) and the demo pages are no
        // part of the app's page.
        holds: |f| {
            f == "index.html"
                || (f.ends_with(".css") && !f.starts_with("examples/") && !f.starts_with("docs/"))
                || f.starts_with("favicon")
        },
        loaded: Loaded::FirstVisit,
        budget: 12_000,
        target: 12_000,
    },
    Budget {
        module: "replay clock worker",
        holds: |f| f == "public/replay-clock.js",
        loaded: Loaded::FirstVisit,
        budget: 4_000,
        target: 4_000,
    },
    Budget {
        module: "study view",
        holds: |f| f.starts_with("study_module"),
        loaded: Loaded::OnDemand,
        budget: 400_000,
        target: 200_000,
    },
    Budget {
        module: "runs views (Import, Field data, Analyze, Library, run results)",
        holds: |f| f.starts_with("runs_module"),
        loaded: Loaded::OnDemand,
        budget: 570_500,
        target: 200_000,
    },
    Budget {
        module: "import worker",
        holds: |f| f.starts_with("import_worker") || f == "public/import-worker.js",
        loaded: Loaded::OnDemand,
        budget: 252_500,
        target: 200_000,
    },
    Budget {
        // What a site adds to its pages to send field data (the demo chat
        // page carries it; the demo's own files and SDK are not the lab's).
        module: "field snippet (on the pages of a site)",
        holds: |f| f == "examples/chat/field.js",
        loaded: Loaded::OnDemand,
        budget: 5_000,
        target: 3_500,
    },
    Budget {
        // What field.js fetches with a page's first answer (beside it, the
        // wire's own decoder of 0.4-0.6 kB; a build of one wire has all of
        // it in one file, which tests/e2e/field_decoding.test.mjs holds to
        // 5 kB).
        module: "field snippet's decoders (fetched with the first answer)",
        holds: |f| f == "examples/chat/decode.js" || f == "examples/chat/detect.js",
        loaded: Loaded::OnDemand,
        budget: 2_200,
        target: 2_200,
    },
];

/// Bytes of one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSize {
    /// Its name.
    pub module: &'static str,
    /// When it is downloaded.
    pub loaded: Loaded,
    /// Files in it.
    pub files: usize,
    /// Uncompressed bytes.
    pub raw: u64,
    /// gzip bytes.
    pub gzip: u64,
    /// Brotli bytes.
    pub brotli: u64,
    /// Its enforced budget (gzip).
    pub budget: u64,
    /// Its target (gzip).
    pub target: u64,
}

fn len_of(copy: &Path, of: &Path, data: &[u8], compress: fn(&[u8]) -> Vec<u8>) -> u64 {
    let fresh = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (std::fs::metadata(copy), fresh(copy), fresh(of)) {
        (Ok(m), Some(c), Some(f)) if c >= f => m.len(),
        _ => compress(data).len() as u64,
    }
}

/// The sizes of every module of the build in `dist`.
pub fn measure(dist: &Path, budgets: &[Budget]) -> Result<Vec<ModuleSize>, AssetError> {
    if !dist.join("index.html").is_file() {
        return Err(AssetError::NotBuilt(dist.to_path_buf()));
    }
    let files = assets::files(dist)?;
    let mut out: Vec<ModuleSize> = budgets
        .iter()
        .map(|b| ModuleSize {
            module: b.module,
            loaded: b.loaded,
            files: 0,
            raw: 0,
            gzip: 0,
            brotli: 0,
            budget: b.budget,
            target: b.target,
        })
        .collect();
    for path in files {
        let rel = path.strip_prefix(dist).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let Some(i) = budgets.iter().position(|b| (b.holds)(&rel)) else { continue };
        let data = std::fs::read(&path).map_err(|source| AssetError::Io { path: path.clone(), source })?;
        let m = &mut out[i];
        m.files += 1;
        m.raw += data.len() as u64;
        m.gzip += len_of(&assets::sibling(&path, "gz"), &path, &data, assets::gzip);
        m.brotli += len_of(&assets::sibling(&path, "br"), &path, &data, assets::brotli);
    }
    Ok(out)
}

/// One line per module that fails `--check`: over its budget (its name and
/// the bytes over), or missing from the build (no file of it in `dist`: a
/// module that was not built cannot pass its budget by weighing nothing).
pub fn over_budget(sizes: &[ModuleSize]) -> Vec<String> {
    sizes
        .iter()
        .filter_map(|m| {
            if m.files == 0 {
                Some(format!("{}: no file of it in the build (was it built and copied to dist?)", m.module))
            } else if m.gzip > m.budget {
                Some(format!(
                    "{}: {} B gzip, {} B over its budget of {} B",
                    m.module,
                    m.gzip,
                    m.gzip - m.budget,
                    m.budget
                ))
            } else {
                None
            }
        })
        .collect()
}

/// The Markdown table of `sizes`, with the totals of a first visit.
pub fn table(sizes: &[ModuleSize]) -> String {
    let mut s = String::from(
        "| module | loaded | files | raw B | gzip B | Brotli B | budget (gzip) | target (gzip) |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for m in sizes {
        let when = match m.loaded {
            Loaded::FirstVisit => "first visit",
            Loaded::OnDemand => "on demand",
        };
        let target = if m.gzip > m.target {
            format!("{} ({} over)", m.target, m.gzip - m.target)
        } else {
            m.target.to_string()
        };
        s.push_str(&format!(
            "| {} | {when} | {} | {} | {} | {} | {} | {target} |\n",
            m.module, m.files, m.raw, m.gzip, m.brotli, m.budget
        ));
    }
    let first: Vec<&ModuleSize> = sizes.iter().filter(|m| m.loaded == Loaded::FirstVisit).collect();
    let sum = |f: fn(&ModuleSize) -> u64| first.iter().map(|m| f(m)).sum::<u64>();
    let total = format!("{} | {} | {}", sum(|m| m.raw), sum(|m| m.gzip), sum(|m| m.brotli));
    s.push_str(&format!("| **first visit** | | | {total} | | |\n"));
    // A participant link loads the same modules as a first visit today.
    s.push_str(&format!("| **participant link, before consent** | | | {total} | | |\n"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(dir: &Path, app_bytes: usize) {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir.join("public")).unwrap();
        std::fs::write(dir.join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(dir.join("public/replay-clock.js"), "postMessage(1)").unwrap();
        // Bytes that do not compress (a xorshift stream), like a big wasm.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let noise: Vec<u8> = (0..app_bytes)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        std::fs::write(dir.join("latency-lab-app-0123456789abcdef_bg.wasm"), noise).unwrap();
        // One small file of every on-demand module.
        std::fs::create_dir_all(dir.join("examples/chat")).unwrap();
        // The book's style sheet is no module's (the app page's budget is
        // 12 kB; the book's CSS alone is more).
        std::fs::create_dir_all(dir.join("docs/css")).unwrap();
        std::fs::write(dir.join("docs/css/general.css"), "a{}").unwrap();
        assert!(BUDGETS.iter().all(|b| !(b.holds)("docs/css/general.css")));
        for f in [
            "study_module-0a.js",
            "runs_module-0b.js",
            "public/import-worker.js",
            "examples/chat/field.js",
            "examples/chat/decode.js",
        ] {
            std::fs::write(dir.join(f), "export {}").unwrap();
        }
    }

    /// The check of `./lab test`: a build within budget passes, an
    /// oversized one fails naming the module and the bytes over.
    #[test]
    fn an_oversized_build_fails_its_budget_by_name() {
        let dir = std::env::temp_dir().join(format!("lab-size-{}", std::process::id()));
        build(&dir, 10_000);
        let sizes = measure(&dir, &BUDGETS).unwrap();
        assert_eq!(over_budget(&sizes), Vec::<String>::new());
        let app = &sizes[0];
        assert_eq!((app.module, app.files, app.raw), ("app", 1, 10_000));
        assert!(app.gzip > 10_000 && app.brotli > 9_000, "noise does not compress: {app:?}");

        build(&dir, 1_000_000);
        lab_server::site::assets::compress_dist(&dir).unwrap();
        let sizes = measure(&dir, &BUDGETS).unwrap();
        let over = over_budget(&sizes);
        assert_eq!(over.len(), 1, "{over:?}");
        let gzip = std::fs::metadata(dir.join("latency-lab-app-0123456789abcdef_bg.wasm.gz")).unwrap().len();
        assert_eq!(sizes[0].gzip, gzip, "read from the precompressed copy");
        let budget = BUDGETS[0].budget;
        assert_eq!(over[0], format!("app: {gzip} B gzip, {} B over its budget of {budget} B", gzip - budget));
        let t = table(&sizes);
        assert!(t.contains("| app | first visit | 1 | 1000000 |"), "{t}");
        assert!(t.contains(&format!("450000 ({} over)", gzip - 450_000)), "{t}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A module with no file in the build fails the check by name.
    #[test]
    fn a_missing_module_fails_the_check() {
        let dir = std::env::temp_dir().join(format!("lab-size-missing-{}", std::process::id()));
        build(&dir, 1_000);
        std::fs::remove_file(dir.join("runs_module-0b.js")).unwrap();
        let over = over_budget(&measure(&dir, &BUDGETS).unwrap());
        assert_eq!(
            over,
            vec![
                "runs views (Import, Field data, Analyze, Library, run results): no file of it in the build \
                 (was it built and copied to dist?)"
                    .to_string()
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

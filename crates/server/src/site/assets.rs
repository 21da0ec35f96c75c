//! The built app's files as they travel: precompressed copies, how long a
//! browser may keep each, and the size budgets of what a visitor downloads.
//!
//! - `latency-lab compress --dist dist` (run by `./lab build`) writes
//!   `<file>.br` (Brotli, quality [`BROTLI_QUALITY`]) and `<file>.gz` (gzip,
//!   level [`GZIP_LEVEL`]) beside every text or wasm file of the build;
//!   `latency-lab serve` answers with the copy the browser accepts
//!   (`Content-Encoding`, `Vary: Accept-Encoding`), so nothing is
//!   compressed per request. Each copy is written to a temporary name and
//!   renamed, so a build stopped midway leaves no half-written file.
//! - [`cache_control`]: names carrying Trunk's content hash never change,
//!   so they are `immutable` for a year; everything else (`index.html`, the
//!   worker scripts, `public/`) is revalidated on every load (`no-cache`).
//! - `latency-lab size --dist dist` prints raw, gzip and Brotli bytes of
//!   every module and the totals a first visit and a participant download;
//!   `--check` fails (exit 1) when a module is over its [`BUDGETS`] line,
//!   naming it and the bytes over (`./lab test` runs it).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Brotli quality (the highest: files are compressed once, at build time).
pub const BROTLI_QUALITY: u32 = 11;
/// Brotli window (log2 bytes): 4 MiB, more than the largest file.
pub const BROTLI_WINDOW: u32 = 22;
/// gzip level (the highest).
pub const GZIP_LEVEL: u32 = 9;
/// Extensions compressed at build time (images other than SVG already are).
pub const COMPRESSED: [&str; 9] = ["wasm", "js", "mjs", "css", "html", "svg", "json", "md", "txt"];
/// `Cache-Control` of content-hashed files.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of everything else: use it, but ask first.
pub const REVALIDATE: &str = "no-cache";

/// Why the build's files could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// Where.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// No app build where one was expected.
    #[error("{0} holds no built app (no index.html); run ./lab build")]
    NotBuilt(PathBuf),
    /// An on-demand module the build should hold is not there.
    #[error("the build holds no {0}.js and {0}_bg.wasm (nor renamed ones); run ./lab build")]
    MissingModule(&'static str),
}

pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AssetError + '_ {
    move |source| AssetError::Io { path: path.to_path_buf(), source }
}

/// Every file under `dir` (recursively), sorted, without precompressed copies.
pub fn files(dir: &Path) -> Result<Vec<PathBuf>, AssetError> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).map_err(io(&d))? {
            let path = entry.map_err(io(&d))?.path();
            if path.is_dir() {
                todo.push(path);
            } else if !matches!(ext(&path), "br" | "gz") && !name(&path).starts_with('.') {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn ext(path: &Path) -> &str {
    path.extension().and_then(|e| e.to_str()).unwrap_or("")
}

fn name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Brotli bytes of `data` at [`BROTLI_QUALITY`].
pub fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 3);
    let params = brotli::enc::BrotliEncoderParams {
        quality: BROTLI_QUALITY as i32,
        lgwin: BROTLI_WINDOW as i32,
        ..Default::default()
    };
    // Writing to a Vec cannot fail.
    let _ = brotli::BrotliCompress(&mut &data[..], &mut out, &params);
    out
}

/// gzip bytes of `data` at [`GZIP_LEVEL`].
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

/// Writes `bytes` to `path` through a temporary file in the same directory.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), AssetError> {
    let tmp = path.with_extension(format!("{}.part", ext(path)));
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// Writes `.br` and `.gz` beside every compressible file of `dist`;
/// returns how many files were compressed.
pub fn compress_dist(dist: &Path) -> Result<usize, AssetError> {
    if !dist.join("index.html").is_file() {
        return Err(AssetError::NotBuilt(dist.to_path_buf()));
    }
    let mut n = 0;
    for path in files(dist)? {
        if !COMPRESSED.contains(&ext(&path)) {
            continue;
        }
        let data = std::fs::read(&path).map_err(io(&path))?;
        write_whole(&sibling(&path, "br"), &brotli(&data))?;
        write_whole(&sibling(&path, "gz"), &gzip(&data))?;
        n += 1;
    }
    Ok(n)
}

/// `app.wasm` → `app.wasm.br`: where a file's precompressed copy lives.
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".");
    s.push(suffix);
    PathBuf::from(s)
}

/// Whether a file name carries Trunk's content hash (`name-<hex>.ext` or
/// `name-<hex>_bg.wasm`, 12 or more hex digits).
pub fn is_hashed(file_name: &str) -> bool {
    file_name.split(['-']).skip(1).any(|part| {
        let hex: String = part.chars().take_while(char::is_ascii_hexdigit).collect();
        let rest = &part[hex.len()..];
        hex.len() >= 12 && (rest.starts_with('.') || rest.starts_with("_bg."))
    })
}

/// Whether URL path `path` names a file (its last segment has an
/// extension) that `dist` does not hold: such a request gets 404, not the
/// app's page. (Served as the page, a missing script or wasm would be
/// cached under its name and, once the file is back, revalidated as "not
/// modified" against the page's date, so a Retry would get the page again.)
/// Paths with `..` or escapes are left to the file service, which refuses
/// or decodes them itself.
pub fn missing_asset(dist: &Path, path: &str) -> bool {
    let rel = path.trim_start_matches('/');
    let last = rel.rsplit('/').next().unwrap_or("");
    if !last.contains('.') || rel.contains("..") || rel.contains('%') || rel.contains('\\') {
        return false;
    }
    !dist.join(rel).is_file()
}

/// The `Cache-Control` of the app file at URL path `path`.
pub fn cache_control(path: &str) -> &'static str {
    let file = path.rsplit('/').next().unwrap_or("");
    if is_hashed(file) { IMMUTABLE } else { REVALIDATE }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_are_immutable_the_rest_revalidated() {
        for hashed in [
            "/latency-lab-app-f1d751d8f4d68970_bg.wasm",
            "/latency-lab-app-f1d751d8f4d68970.js",
            "/main-1c5767024720ec9.css",
            "/favicon-4290b7ceb3e9a802.svg",
        ] {
            assert_eq!(cache_control(hashed), IMMUTABLE, "{hashed}");
        }
        for plain in
            ["/", "/index.html", "/import_worker.js", "/public/replay-clock.js", "/s/abc", "/my-app.js"]
        {
            assert_eq!(cache_control(plain), REVALIDATE, "{plain}");
        }
    }

    #[test]
    fn missing_files_are_not_the_page() {
        let dir = std::env::temp_dir().join(format!("lab-missing-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("public")).unwrap();
        std::fs::write(dir.join("index.html"), "x").unwrap();
        std::fs::write(dir.join("public/clock.js"), "x").unwrap();
        assert!(missing_asset(&dir, "/import_worker.js"));
        assert!(missing_asset(&dir, "/public/gone.wasm"));
        for kept in
            ["/", "/index.html", "/public/clock.js", "/s/abc123", "/live", "/../secret.txt", "/a%2e%2e/x.js"]
        {
            assert!(!missing_asset(&dir, kept), "{kept}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn compressed_copies_round_trip_and_replace_whole() {
        let dir = std::env::temp_dir().join(format!("lab-assets-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("public")).unwrap();
        let text = "let x = 1;\n".repeat(2000);
        std::fs::write(dir.join("index.html"), "<!doctype html><title>x</title>").unwrap();
        std::fs::write(dir.join("app-0123456789abcdef.js"), &text).unwrap();
        std::fs::write(dir.join("public/clock.js"), &text).unwrap();
        std::fs::write(dir.join("public/photo.png"), [0u8, 1, 2]).unwrap();
        assert_eq!(compress_dist(&dir).unwrap(), 3, "html and two scripts; the png is left alone");
        let gz = std::fs::read(dir.join("public/clock.js.gz")).unwrap();
        let mut back = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut back).unwrap();
        assert_eq!(back, text);
        let br = std::fs::read(dir.join("app-0123456789abcdef.js.br")).unwrap();
        let mut back = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut back).unwrap();
        assert_eq!(back, text.as_bytes());
        assert!(br.len() < gz.len() && gz.len() < text.len() / 20, "{} {}", br.len(), gz.len());
        // Again: the copies are replaced, never compressed themselves.
        assert_eq!(compress_dist(&dir).unwrap(), 3);
        assert!(!dir.join("public/clock.js.gz.gz").exists());
        assert!(files(&dir).unwrap().iter().all(|p| !p.to_string_lossy().ends_with(".part")));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(compress_dist(&dir), Err(AssetError::NotBuilt(_))));
    }
}

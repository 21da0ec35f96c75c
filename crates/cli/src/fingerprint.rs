//! `latency-lab fingerprint`: content-hashed names for the page's on-demand
//! modules (`lab_core::share::modules`), so browsers keep them for a year
//! instead of revalidating them on every use.
//!
//! Each module's script and wasm get one name from the SHA-256 of both
//! (first [`HASH_DIGITS`] hex digits): `study_module-<hash>.js`,
//! `study_module-<hash>_bg.wasm`. The names go into `index.html` as the
//! [`META`] tag, which the page reads. Run after Trunk and before
//! `compress` (`./lab build`); a second run finds the names it gave.

use std::path::Path;

use lab_core::share::modules::{HASH_DIGITS, META, MODULES};
use sha2::{Digest, Sha256};

use lab_server::site::assets::{AssetError, io, write_whole};

/// Renames the on-demand modules of `dist` and lists them in its
/// `index.html`; returns their new stems.
pub fn fingerprint(dist: &Path) -> Result<Vec<String>, AssetError> {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index).map_err(|_| AssetError::NotBuilt(dist.to_path_buf()))?;
    let mut stems = Vec::new();
    for module in MODULES {
        let js = dist.join(format!("{module}.js"));
        let wasm = dist.join(format!("{module}_bg.wasm"));
        let stem = if js.is_file() && wasm.is_file() {
            let mut hash = Sha256::new();
            hash.update(std::fs::read(&js).map_err(io(&js))?);
            hash.update(std::fs::read(&wasm).map_err(io(&wasm))?);
            let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
            let stem = format!("{module}-{}", &hex[..HASH_DIGITS]);
            std::fs::rename(&js, dist.join(format!("{stem}.js"))).map_err(io(&js))?;
            std::fs::rename(&wasm, dist.join(format!("{stem}_bg.wasm"))).map_err(io(&wasm))?;
            stem
        } else {
            given(dist, module)?.ok_or(AssetError::MissingModule(module))?
        };
        stems.push(stem);
    }
    let tag = format!(r#"<meta name="{META}" content="{}">"#, stems.join(" "));
    let kept: Vec<&str> = html.lines().filter(|l| !l.contains(&format!(r#"name="{META}""#))).collect();
    let kept = kept.join("\n");
    let Some(at) = kept.find("</head>") else { return Err(AssetError::NotBuilt(dist.to_path_buf())) };
    write_whole(&index, format!("{}  {tag}\n  {}\n", &kept[..at], &kept[at..]).as_bytes())?;
    Ok(stems)
}

/// The name an earlier run gave `module` (its hashed script in `dist`).
fn given(dist: &Path, module: &str) -> Result<Option<String>, AssetError> {
    for entry in std::fs::read_dir(dist).map_err(io(dist))? {
        let name = entry.map_err(io(dist))?.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".js")
            && lab_core::share::modules::named(&format!("{module}.js"), stem) == name
        {
            return Ok(Some(stem.to_string()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab_core::share::modules::named;

    #[test]
    fn modules_get_content_names_listed_in_the_page_and_a_second_run_keeps_them() {
        let dist = std::env::temp_dir().join(format!("lab-fingerprint-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(
            dist.join("index.html"),
            "<html><head>\n  <title>x</title>\n</head><body></body></html>\n",
        )
        .unwrap();
        for m in MODULES {
            std::fs::write(dist.join(format!("{m}.js")), format!("// {m}")).unwrap();
            std::fs::write(dist.join(format!("{m}_bg.wasm")), format!("wasm of {m}")).unwrap();
        }
        let stems = fingerprint(&dist).unwrap();
        let html = std::fs::read_to_string(dist.join("index.html")).unwrap();
        let listed = stems.join(" ");
        assert!(html.contains(&format!(r#"<meta name="latency-lab-modules" content="{listed}">"#)), "{html}");
        for m in MODULES {
            assert!(!dist.join(format!("{m}.js")).exists(), "the plain name is gone");
            for ending in [".js", "_bg.wasm"] {
                let path = named(&format!("./{m}{ending}"), &listed);
                assert_ne!(path, format!("./{m}{ending}"));
                assert!(dist.join(&path[2..]).is_file(), "{path}");
                assert!(lab_server::site::assets::is_hashed(&path[2..]), "{path} is served as immutable");
            }
        }
        // Other content, other name.
        assert_ne!(stems[0][stems[0].len() - HASH_DIGITS..], stems[1][stems[1].len() - HASH_DIGITS..]);
        // Again: the same names, one tag.
        assert_eq!(fingerprint(&dist).unwrap(), stems);
        let again = std::fs::read_to_string(dist.join("index.html")).unwrap();
        assert_eq!(again.matches("latency-lab-modules").count(), 1, "{again}");
        std::fs::remove_dir_all(&dist).unwrap();
    }
}

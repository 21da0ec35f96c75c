//! Where the study server keeps its state: the data directory (`--data`,
//! default [`DEFAULT_DATA_DIR`], created on first start), the database
//! (`--db`, default the SQLite file [`DB_FILE`] in it) and the researcher
//! token (`--token-file`, default [`TOKEN_FILE`] in it).
//!
//! The token is made from 32 random bytes of the operating system on first
//! start, written with owner-only permissions (0600) and printed once; later
//! starts read it and print only where it is. It is never logged again.

use std::io::Write;
use std::path::{Path, PathBuf};

use lab_core::serve::token::{self, TOKEN_BYTES};

/// Default data directory (relative to where `serve` starts).
pub const DEFAULT_DATA_DIR: &str = "latency-lab-data";
/// SQLite database file in the data directory.
pub const DB_FILE: &str = "studies.db";
/// Researcher token file in the data directory.
pub const TOKEN_FILE: &str = "researcher-token";

/// Why the study server could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The data directory or the token file could not be made or read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The token file holds no token.
    #[error("{0}: not a researcher token (delete the file to make a new one)")]
    BadToken(PathBuf),
    /// No random bytes from the OS.
    #[error("no random bytes from the operating system: {0}")]
    Random(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SetupError + '_ {
    move |source| SetupError::Io { path: path.to_path_buf(), source }
}

/// Fresh random bytes from the operating system.
pub fn random<const N: usize>() -> Result<[u8; N], SetupError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| SetupError::Random(e.to_string()))?;
    Ok(bytes)
}

/// The database URL: `db` if given, else the SQLite file in `data`
/// (made with the directory if missing).
pub fn database_url(data: &Path, db: Option<&str>) -> Result<String, SetupError> {
    if let Some(url) = db {
        return Ok(url.to_string());
    }
    std::fs::create_dir_all(data).map_err(io(data))?;
    Ok(format!("sqlite://{}?mode=rwc", data.join(DB_FILE).display()))
}

/// The researcher token, and whether it was made now (then it is shown).
pub fn researcher_token(path: &Path) -> Result<(String, bool), SetupError> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let t = text.trim();
            let hex = t.strip_prefix("llr_").unwrap_or("");
            if hex.len() != 2 * TOKEN_BYTES || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(SetupError::BadToken(path.to_path_buf()));
            }
            Ok((t.to_string(), false))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(io(dir))?;
            }
            let t = token::from_bytes(&random::<TOKEN_BYTES>()?);
            write_private(path, &t).map_err(io(path))?;
            Ok((t, true))
        }
        Err(e) => Err(io(path)(e)),
    }
}

/// Writes a new file only its owner can read.
pub fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(path)?;
    f.write_all(format!("{text}\n").as_bytes())?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_made_once_private_and_read_back() {
        let dir = std::env::temp_dir().join(format!("lab-token-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("nested").join(TOKEN_FILE);
        let (t, made) = researcher_token(&path).unwrap();
        assert!(made && t.starts_with("llr_") && t.len() == 68);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_eq!(researcher_token(&path).unwrap(), (t.clone(), false));
        std::fs::write(&path, "not a token").unwrap();
        assert!(matches!(researcher_token(&path), Err(SetupError::BadToken(_))));
        let url = database_url(&dir.join("data"), None).unwrap();
        assert!(url.starts_with("sqlite://") && url.ends_with("studies.db?mode=rwc"), "{url}");
        assert!(dir.join("data").is_dir());
        assert_eq!(database_url(&dir, Some("postgres://x")).unwrap(), "postgres://x");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

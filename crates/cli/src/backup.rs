//! `latency-lab backup --data DIR OUT`: a consistent copy of the study
//! database while `serve` keeps writing to it.
//!
//! It uses SQLite's online backup API (`sqlite3_backup_*`, through
//! `rusqlite` over the same SQLite library the server links) and copies
//! every page in one step, inside one read transaction: the copy is the
//! database as it was at one instant, holding every answer acknowledged
//! before the backup began. In WAL mode the server's writes go on beside it.
//! The copy is written next to `OUT` and renamed into place once checked
//! (`PRAGMA integrity_check`), so a backup cut short never leaves a
//! half-written `OUT`.
//!
//! PostgreSQL (`serve --db postgres://…`) has its own tool for this:
//! `pg_dump --format=custom --file OUT 'postgres://…'` (consistent while
//! serving; `pg_restore` reads it back).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use lab_server::db::setup::DB_FILE;

/// Arguments of `backup`.
#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    /// The data directory `serve --data` uses.
    #[arg(long, default_value = lab_server::db::setup::DEFAULT_DATA_DIR)]
    pub data: PathBuf,
    /// The database `serve --db` uses, if not the data directory's SQLite
    /// file (a PostgreSQL URL is refused with the command that backs it up).
    #[arg(long)]
    pub db: Option<String>,
    /// Where to write the copy (a SQLite file).
    pub out: PathBuf,
}

/// How long the backup retries while the database is locked.
pub const BUSY_FOR: Duration = Duration::from_secs(30);

/// What was copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    /// Published studies.
    pub studies: i64,
    /// Participants' answers.
    pub answers: i64,
}

/// Why there is no backup.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// A PostgreSQL database.
    #[error(
        "this database is PostgreSQL: back it up with `pg_dump --format=custom --file {out} '<your --db URL>'` (consistent while serving; restore with pg_restore)"
    )]
    Postgres {
        /// The output the user asked for.
        out: String,
    },
    /// There is no database to copy.
    #[error("{0}: no study database here (serve --data names the directory)")]
    Missing(PathBuf),
    /// `OUT` is the database itself.
    #[error("{0}: that is the database itself; write the backup elsewhere")]
    SameFile(PathBuf),
    /// SQLite failed.
    #[error("{path}: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// Why.
        source: rusqlite::Error,
    },
    /// The copy is damaged.
    #[error("{0}: the copy failed its integrity check: {1}")]
    Damaged(PathBuf, String),
    /// Moving the copy into place.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The SQLite file to copy.
fn source(args: &BackupArgs) -> Result<PathBuf, BackupError> {
    match args.db.as_deref() {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Err(BackupError::Postgres { out: args.out.display().to_string() })
        }
        Some(url) => {
            let path = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
            Ok(PathBuf::from(path.split('?').next().unwrap_or(path)))
        }
        None => Ok(args.data.join(DB_FILE)),
    }
}

/// Copies the database named by `args` to `args.out`.
pub fn run(args: &BackupArgs) -> Result<Copied, BackupError> {
    let from = source(args)?;
    if !from.is_file() {
        return Err(BackupError::Missing(from));
    }
    let same =
        |a: &Path, b: &Path| a.canonicalize().ok().zip(b.canonicalize().ok()).is_some_and(|(a, b)| a == b);
    if same(&from, &args.out) {
        return Err(BackupError::SameFile(args.out.clone()));
    }
    fn sqlite(path: &Path) -> impl FnOnce(rusqlite::Error) -> BackupError + '_ {
        move |source| BackupError::Sqlite { path: path.to_path_buf(), source }
    }
    let partial = args.out.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let src = Connection::open_with_flags(&from, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite(&from))?;
    src.busy_timeout(Duration::from_secs(5)).map_err(sqlite(&from))?;
    {
        let mut dst = Connection::open(&partial).map_err(sqlite(&partial))?;
        let backup = Backup::new(&src, &mut dst).map_err(sqlite(&from))?;
        let start = Instant::now();
        // All pages in one step: one read transaction, one instant.
        loop {
            match backup.step(-1).map_err(sqlite(&from))? {
                StepResult::Done => break,
                _ if start.elapsed() > BUSY_FOR => {
                    let busy = rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
                        Some(format!("still locked after {} s", BUSY_FOR.as_secs())),
                    );
                    return Err(sqlite(&from)(busy));
                }
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
    let copied = check(&partial)?;
    std::fs::rename(&partial, &args.out)
        .map_err(|source| BackupError::Io { path: args.out.clone(), source })?;
    Ok(copied)
}

/// Checks the copy and counts what it holds.
fn check(path: &Path) -> Result<Copied, BackupError> {
    let fail = |source| BackupError::Sqlite { path: path.to_path_buf(), source };
    let db = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(fail)?;
    let verdict: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).map_err(fail)?;
    if verdict != "ok" {
        return Err(BackupError::Damaged(path.to_path_buf(), verdict));
    }
    let count =
        |table: &str| db.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get::<_, i64>(0));
    Ok(Copied { studies: count("studies").map_err(fail)?, answers: count("answers").map_err(fail)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(db: Option<&str>, out: &str) -> BackupArgs {
        BackupArgs {
            data: PathBuf::from("/nonexistent-lab-data"),
            db: db.map(str::to_string),
            out: out.into(),
        }
    }

    #[test]
    fn postgres_and_missing_databases_say_what_to_do() {
        let e = run(&args(Some("postgres://u@h/db"), "/tmp/x.dump")).unwrap_err().to_string();
        assert!(e.contains("pg_dump --format=custom --file /tmp/x.dump"), "{e}");
        let e = run(&args(None, "/tmp/x.db")).unwrap_err();
        assert!(matches!(&e, BackupError::Missing(p) if p.ends_with(DB_FILE)), "{e}");
        assert_eq!(
            source(&args(Some("sqlite:///var/lib/lab/s.db?mode=rwc"), "o")).unwrap(),
            PathBuf::from("/var/lib/lab/s.db")
        );
    }
}

//! The server's database: SQLite (a file, WAL mode) by default, PostgreSQL
//! with a `postgres://` URL so several servers share one. One query layer
//! for both (`sqlx`'s `Any` driver, queries checked at run time, so building
//! needs no database); the schema is the versioned migrations in
//! `crates/server/migrations`, applied on connect. The study server
//! ([`crate::studies`]) and the field collector ([`crate::field`]) keep
//! their tables in it; [`setup`] finds the data directory, the database and
//! the researcher token.
//!
//! A write is acknowledged only after its statement committed (SQLite: WAL
//! with `synchronous=FULL`), so a server killed right after cannot lose it.

pub mod setup;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, Connection, Row};

/// Why the database failed. Each keeps its source; the server log says it
/// and the client gets a 500 or 503 that says nothing was saved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A query, a connection or a row the driver read.
    #[error("{}", sql_words(.0))]
    Sql(#[from] sqlx::Error),
    /// The schema could not be brought up to date.
    #[error("database migrations failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A stored JSON record (a study, an answer) the lab cannot read back or
    /// write.
    #[error("stored record: {0}")]
    Json(#[from] serde_json::Error),
    /// A stored value out of its range or shape (names the row and column).
    #[error("stored value: {0}")]
    Stored(String),
    /// The URL names neither database.
    #[error("the database must be postgres://user@host/db (or sqlite://path)")]
    Url,
    /// The database did not answer the readiness check in time.
    #[error("the database did not answer within {} s", READY_WITHIN.as_secs())]
    NotReady,
    /// Another server (or an older build) has not applied this build's
    /// migrations.
    #[error("{applied} of {expected} migrations applied")]
    Behind {
        /// Migrations the database has.
        applied: i64,
        /// Migrations this build has.
        expected: i64,
    },
}

/// sqlx's own words, except its pool time-out, which hides why no
/// connection came (PostgreSQL down or refusing, or every connection busy):
/// that is said in words an operator acts on.
fn sql_words(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::PoolTimedOut => format!(
            "no database connection within {} s: the database is down, unreachable or refusing connections, or every connection is busy",
            ACQUIRE_WITHIN.as_secs()
        ),
        e => format!("database: {e}"),
    }
}

impl StoreError {
    /// A stored value that is not what the lab wrote.
    pub fn stored(what: impl std::fmt::Display) -> Self {
        Self::Stored(what.to_string())
    }
}

/// How long a query waits for a connection. sqlx's own default (30 s)
/// holds every request that long while PostgreSQL refuses connections
/// (sqlx keeps trying until then); this answers a 503 that says the
/// database failed instead, well before an OTLP exporter's own 10 s
/// timeout. Under load a connection is free within milliseconds
/// (BENCHMARKS.md, "The collector under load"); SQLite's writers wait as
/// long for the database's lock (`busy_timeout`).
pub const ACQUIRE_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Connections per server process.
pub const POOL_SIZE: u32 = 8;

/// How long `/readyz` waits for the database.
pub const READY_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// Reading connections of a SQLite database (WAL lets readers run beside
/// the one writer).
pub const SQLITE_READERS: u32 = 4;

/// The database at a URL (`sqlite://path?mode=rwc` or `postgres://…`).
pub struct Database {
    /// Writes (SQLite: one connection, the database's one writer).
    pub(crate) pool: AnyPool,
    /// Reads (SQLite: a pool of its own; PostgreSQL: the same pool).
    pub(crate) read: AnyPool,
}

impl Database {
    /// Connects, prepares SQLite for durable concurrent writes, and brings
    /// the schema up to date.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        install_default_drivers();
        let sqlite = url.starts_with("sqlite:");
        if !(sqlite || url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(StoreError::Url);
        }
        // One plain connection first: a pool would retry a refused or
        // misconfigured database until its timeout and then say only that
        // it timed out; this says why at once.
        let probe = sqlx::AnyConnection::connect(url).await?;
        let _ = probe.close().await;
        let pool = Self::pool(url, if sqlite { 1 } else { POOL_SIZE }).await?;
        sqlx::migrate!("./migrations").run(&pool).await?;
        let read = if sqlite { Self::pool(url, SQLITE_READERS).await? } else { pool.clone() };
        Ok(Self { pool, read })
    }

    /// Whether the database answers, within [`READY_WITHIN`], with every
    /// migration of this build applied.
    pub async fn ready(&self) -> Result<(), StoreError> {
        let expected = sqlx::migrate!("./migrations").iter().count() as i64;
        let query = sqlx::query("SELECT COUNT(*) FROM _sqlx_migrations WHERE success").fetch_one(&self.pool);
        let row = tokio::time::timeout(READY_WITHIN, query).await.map_err(|_| StoreError::NotReady)??;
        let applied: i64 = row.try_get(0)?;
        if applied < expected {
            return Err(StoreError::Behind { applied, expected });
        }
        Ok(())
    }

    /// The writing and the reading pool.
    pub fn pools(&self) -> (AnyPool, AnyPool) {
        (self.pool.clone(), self.read.clone())
    }

    /// Closes every connection (SQLite then checkpoints its log).
    pub async fn close(&self) {
        self.read.close().await;
        self.pool.close().await;
    }

    async fn pool(url: &str, connections: u32) -> Result<AnyPool, StoreError> {
        let sqlite = url.starts_with("sqlite:");
        let pool = AnyPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(ACQUIRE_WITHIN)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if sqlite {
                        for pragma in
                            ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA busy_timeout=5000"]
                        {
                            sqlx::query(pragma).execute(&mut *conn).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await?;
        Ok(pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_time_out_says_what_to_check_and_keeps_its_source() {
        let e = StoreError::from(sqlx::Error::PoolTimedOut);
        assert!(e.to_string().contains("down, unreachable or refusing"), "{e}");
        assert!(matches!(e, StoreError::Sql(sqlx::Error::PoolTimedOut)));
        let e = StoreError::from(serde_json::from_str::<u32>("x").unwrap_err());
        assert!(std::error::Error::source(&e).is_some(), "the JSON error is kept as the source");
    }

    #[test]
    fn a_url_of_another_database_is_refused_before_connecting() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let e = rt.block_on(Database::connect("mysql://x@y/z")).err().unwrap();
        assert!(matches!(e, StoreError::Url), "{e}");
    }
}

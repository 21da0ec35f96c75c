//! The study store on the server's database ([`crate::db`]: SQLite or
//! PostgreSQL, one query layer).
//!
//! An answer is acknowledged only after its `INSERT` committed (SQLite:
//! WAL with `synchronous=FULL`), so a server killed right after cannot
//! lose it.

use std::time::{SystemTime, UNIX_EPOCH};

use lab_core::study::Study;
use lab_core::study::results::Response;
use sqlx::Row;

use super::store::{Listed, Namer, Published, StudyStore};
use crate::db::{Database, StoreError};

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl StudyStore for Database {
    async fn publish(&self, p: &Published) -> Result<bool, StoreError> {
        let r = sqlx::query(
            "INSERT INTO studies (id, study_json, is_open, published_ms, title, design_id) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .bind(&p.id)
        .bind(p.study.to_json())
        .bind(i64::from(p.open))
        .bind(now_ms())
        .bind(&p.study.title)
        .bind(&p.study.id)
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    async fn study(&self, id: &str) -> Result<Option<Published>, StoreError> {
        let row = sqlx::query("SELECT study_json, is_open FROM studies WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.read)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let json: String = row.try_get(0)?;
        let open: i64 = row.try_get(1)?;
        let study = Study::from_json(&json).map_err(|e| StoreError::stored(format!("study {id}: {e}")))?;
        Ok(Some(Published { id: id.to_string(), study, open: open != 0 }))
    }

    async fn is_open(&self, id: &str) -> Result<Option<bool>, StoreError> {
        let row = sqlx::query("SELECT is_open FROM studies WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.read)
            .await?;
        row.map(|r| r.try_get::<i64, _>(0).map(|o| o != 0).map_err(StoreError::from)).transpose()
    }

    async fn close(&self, id: &str) -> Result<bool, StoreError> {
        let r =
            sqlx::query("UPDATE studies SET is_open = 0 WHERE id = $1").bind(id).execute(&self.pool).await?;
        Ok(r.rows_affected() == 1)
    }

    async fn join(&self, id: &str, name: &Namer) -> Result<Option<(u32, String)>, StoreError> {
        // One transaction: the counter's increment hands out the number
        // (atomic on both databases, also with several servers).
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query("UPDATE studies SET joined = joined + 1 WHERE id = $1 RETURNING joined")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let joined: i64 = row.try_get(0)?;
        let number = u32::try_from(joined - 1).map_err(StoreError::stored)?;
        let participant = name(number);
        sqlx::query(
            "INSERT INTO participants (study_id, participant, number, joined_ms) VALUES ($1, $2, $3, $4)",
        )
        .bind(id)
        .bind(&participant)
        .bind(i64::from(number))
        .bind(now_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some((number, participant)))
    }

    async fn number(&self, id: &str, participant: &str) -> Result<Option<u32>, StoreError> {
        let row = sqlx::query("SELECT number FROM participants WHERE study_id = $1 AND participant = $2")
            .bind(id)
            .bind(participant)
            .fetch_optional(&self.read)
            .await?;
        row.map(|r| {
            r.try_get::<i64, _>(0)
                .map_err(StoreError::from)
                .and_then(|n| u32::try_from(n).map_err(StoreError::stored))
        })
        .transpose()
    }

    async fn list(&self) -> Result<Vec<Listed>, StoreError> {
        let rows = sqlx::query(
            "SELECT s.id, s.title, s.design_id, s.is_open, s.joined, \
             (SELECT COUNT(*) FROM answers a WHERE a.study_id = s.id) \
             FROM studies s ORDER BY s.published_ms DESC, s.id",
        )
        .fetch_all(&self.read)
        .await?;
        rows.iter()
            .map(|row| {
                let count =
                    |i: usize| row.try_get::<i64, _>(i).map_err(StoreError::from).map(|n| n.max(0) as u64);
                Ok(Listed {
                    id: row.try_get(0)?,
                    title: row.try_get(1)?,
                    study_id: row.try_get(2)?,
                    open: count(3)? != 0,
                    participants: count(4)?,
                    answers: count(5)?,
                    url: None,
                })
            })
            .collect()
    }

    async fn add_answer(&self, id: &str, r: &Response) -> Result<bool, StoreError> {
        let json = serde_json::to_string(r)?;
        let done = sqlx::query(
            "INSERT INTO answers (study_id, participant, trial, question, response_json, received_ms) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(&r.participant)
        .bind(i64::try_from(r.trial).map_err(StoreError::stored)?)
        .bind(&r.question)
        .bind(json)
        .bind(now_ms())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn answers(&self, id: &str) -> Result<Vec<Response>, StoreError> {
        let rows = sqlx::query(
            "SELECT response_json FROM answers WHERE study_id = $1 ORDER BY received_ms, participant, trial, question",
        )
        .bind(id)
        .fetch_all(&self.read)
        .await
        ?;
        responses(&rows)
    }

    async fn answers_of(&self, id: &str, participant: &str) -> Result<Vec<Response>, StoreError> {
        let rows = sqlx::query(
            "SELECT response_json FROM answers WHERE study_id = $1 AND participant = $2 ORDER BY trial, question",
        )
        .bind(id)
        .bind(participant)
        .fetch_all(&self.read)
        .await
        ?;
        responses(&rows)
    }
}

/// The responses of rows whose first column is `response_json`.
fn responses(rows: &[sqlx::any::AnyRow]) -> Result<Vec<Response>, StoreError> {
    rows.iter()
        .map(|row| {
            let json: String = row.try_get(0)?;
            serde_json::from_str(&json).map_err(StoreError::from)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::service::tests::answer_body as answer;
    use super::super::service::{Studies, Submitted};
    use super::*;

    #[test]
    fn sqlite_keeps_studies_and_answers_across_restarts() {
        let dir = std::env::temp_dir().join(format!("lab-sql-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        keeps_across_restarts(&format!("sqlite://{}?mode=rwc", dir.join("studies.db").display()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn postgres_keeps_studies_and_answers_across_restarts() {
        let pg = lab_testkit::pg_cluster::PgCluster::start("store");
        keeps_across_restarts(&pg.url());
    }

    #[test]
    fn a_threshold_study_takes_its_pairs_in_order_and_rebuilds_them() {
        use lab_core::study::results::Answer;
        use lab_core::study::session::Session;
        use lab_core::study::submit::Submission;
        use lab_core::study::threshold::design::{Dimension, ThresholdDesign};
        use lab_core::study::threshold::in_study::{QUESTION, trials_of};
        let dir = std::env::temp_dir().join(format!("lab-sql-threshold-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.join("studies.db").display());
        let study = Study::new_threshold(ThresholdDesign::new(
            Dimension::Stall,
            "ttft=100,tpot=20,tokens=20".into(),
            3,
        ));
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let studies = Studies::new(Database::connect(&url).await.unwrap());
            let p = studies.publish(study.to_json().as_bytes(), || [4; 5]).await.unwrap().published;
            let who = studies.join(&p.id, 0.0, [1; 5]).await.unwrap();
            let mut session = Session::new(&study, who.participant.clone(), who.number);
            let mut bodies = Vec::new();
            for i in 0..12 {
                session.answer(&study, QUESTION, Answer::Choice(u8::from(i % 3 == 0)), 600.0).unwrap();
                let sub = Submission::of(session.responses.last().unwrap(), who.number);
                bodies.push(serde_json::to_vec(&sub).unwrap());
            }
            let e = studies.answer(&p.id, &bodies[1], 0.0).await.unwrap_err();
            assert_eq!(e.status(), 400, "trial 1 before trial 0");
            for (i, b) in bodies.iter().enumerate() {
                assert_eq!(studies.answer(&p.id, b, i as f64).await.unwrap(), Submitted::Saved, "trial {i}");
            }
            assert_eq!(studies.answer(&p.id, &bodies[5], 20.0).await.unwrap(), Submitted::AlreadySaved);
            let r = studies.results(&p.id).await.unwrap().unwrap();
            assert_eq!(trials_of(&r.responses), trials_of(&session.responses), "level and placement kept");
        });
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Two server processes in turn on one database.
    fn keeps_across_restarts(url: &str) {
        let url = url.to_string();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let study = Study::example();
        let (id, p1) = rt.block_on(async {
            let studies = Studies::new(Database::connect(&url).await.unwrap());
            let p = studies.publish(study.to_json().as_bytes(), || [9; 5]).await.unwrap().published;
            let p1 = studies.join(&p.id, 0.0, [1; 5]).await.unwrap();
            let p2 = studies.join(&p.id, 0.0, [2; 5]).await.unwrap();
            assert_eq!((p1.number, p2.number), (0, 1));
            assert_eq!(studies.answer(&p.id, &answer(&study, &p1, 0), 0.0).await.unwrap(), Submitted::Saved);
            assert_eq!(
                studies.answer(&p.id, &answer(&study, &p1, 0), 1.0).await.unwrap(),
                Submitted::AlreadySaved
            );
            studies.answer(&p.id, &answer(&study, &p2, 1), 2.0).await.unwrap();
            (p.id, p1)
        });
        // A new process on the same file: everything is there, once.
        rt.block_on(async {
            let studies = Studies::new(Database::connect(&url).await.unwrap());
            let r = studies.results(&id).await.unwrap().unwrap();
            assert_eq!(r.responses.len(), 2);
            assert_eq!(r.study_id, study.id);
            assert!(studies.close(&id).await.unwrap());
            assert_eq!(studies.answer(&id, &answer(&study, &p1, 2), 3.0).await.unwrap_err().status(), 410);
            assert!(studies.results("none").await.unwrap().is_none());
            let listed = studies.list().await.unwrap();
            assert_eq!((listed[0].participants, listed[0].answers, listed[0].open), (2, 2, false));
            let p3 = studies.join(&id, 4.0, [3; 5]).await.unwrap_err();
            assert_eq!(p3.status(), 410, "closed: nobody joins");
        });
    }
}

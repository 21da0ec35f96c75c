-- Published studies and their participants' answers. Portable SQL: the
-- same file runs on SQLite and PostgreSQL.
CREATE TABLE studies (
    id TEXT PRIMARY KEY,
    study_json TEXT NOT NULL,
    is_open BIGINT NOT NULL,
    published_ms BIGINT NOT NULL
);

-- One row per (participant, trial, question): a retried answer is a no-op.
CREATE TABLE answers (
    study_id TEXT NOT NULL REFERENCES studies (id),
    participant TEXT NOT NULL,
    trial BIGINT NOT NULL,
    question TEXT NOT NULL,
    response_json TEXT NOT NULL,
    received_ms BIGINT NOT NULL,
    PRIMARY KEY (study_id, participant, trial, question)
);

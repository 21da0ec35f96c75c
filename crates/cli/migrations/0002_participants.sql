-- Participants join a published study and the server numbers them (the
-- number picks their row of the Latin square), so remote participants are
-- balanced. `joined` counts them; incrementing it is the atomic step that
-- hands out numbers, also with several servers on one database.
ALTER TABLE studies ADD COLUMN joined BIGINT NOT NULL DEFAULT 0;

CREATE TABLE participants (
    study_id TEXT NOT NULL REFERENCES studies (id),
    participant TEXT NOT NULL,
    number BIGINT NOT NULL,
    joined_ms BIGINT NOT NULL,
    PRIMARY KEY (study_id, participant)
);

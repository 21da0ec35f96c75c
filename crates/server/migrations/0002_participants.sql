-- Participants join a published study and the server numbers them (the
-- number picks their row of the Latin square), so remote participants are
-- balanced. `joined` counts them; incrementing it is the atomic step that
-- hands out numbers, also with several servers on one database.
ALTER TABLE studies ADD COLUMN joined BIGINT NOT NULL DEFAULT 0;

-- The title and the design's own id, for the researcher's list, which is
-- read every few seconds while the Results view is open: kept beside the
-- design so listing never parses it.
ALTER TABLE studies ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE studies ADD COLUMN design_id TEXT NOT NULL DEFAULT '';

CREATE TABLE participants (
    study_id TEXT NOT NULL REFERENCES studies (id),
    participant TEXT NOT NULL,
    number BIGINT NOT NULL,
    joined_ms BIGINT NOT NULL,
    PRIMARY KEY (study_id, participant)
);

-- Field data (latency-lab serve's collector, POST /v1/traces).
--
-- A site is a product whose pages send spans: its ingest key is kept as
-- its SHA-256 (the key itself is shown once, by `latency-lab field
-- add-site`), with the origins its pages are served from (one per line;
-- only those get CORS answers).
CREATE TABLE field_sites (
    name TEXT PRIMARY KEY,
    key_sha256 TEXT NOT NULL UNIQUE,
    origins TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

-- One streamed completion a real user's browser saw: its timings as the
-- lab reads them (JSON, never the prompt or the answer), and the columns
-- the Field view filters and orders by. (site, span_id) is unique, so a
-- beacon sent twice is kept once.
CREATE TABLE field_requests (
    site TEXT NOT NULL REFERENCES field_sites (name),
    span_id TEXT NOT NULL,
    received_ms BIGINT NOT NULL,
    sent_us BIGINT NOT NULL,
    model TEXT,
    browser TEXT,
    request TEXT NOT NULL,
    PRIMARY KEY (site, span_id)
);
CREATE INDEX field_requests_by_time ON field_requests (sent_us);

-- The share of requests each page reported (the snippet's sampleRate,
-- latency_lab.sample_rate; NULL: all of them): a summary counts each stored
-- request as 1 / rate of them (lab_core::field::row::FieldRow::weight).
-- Requests kept before this migration count as one each.
ALTER TABLE field_requests ADD COLUMN sample_rate DOUBLE PRECISION;
-- The summary's covering index (migration 0005) with the rate in it.
DROP INDEX field_requests_summary;
CREATE INDEX field_requests_summary ON field_requests
    (site, sent_us, sample, browser, model, ttft_ms, first_paint_ms, failed, paint_lag_ms, paint_gap_ms, stalls, qoe, sample_rate);

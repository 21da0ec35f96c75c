-- Every latency figure of each request, by the ids of the lab's metric
-- registry (lab_core::measure::registry; written by
-- lab_core::field::row::Figures::to_text, `ttft=212.5;ttfp=230.25;…`), so
-- a figure added to the registry is kept and summarised with no migration.
-- Requests kept before this migration have it NULL: the summary reads their
-- ttft_ms, first_paint_ms, paint_lag_ms and paint_gap_ms instead
-- (crates/cli/src/field/rows.rs, LEGACY); new requests leave those NULL.
ALTER TABLE field_requests ADD COLUMN figures TEXT;
-- The summary's covering index (migration 0006) with the figures in it.
DROP INDEX field_requests_summary;
CREATE INDEX field_requests_summary ON field_requests
    (site, sent_us, sample, browser, model, failed, stalls, qoe, sample_rate, figures,
     ttft_ms, first_paint_ms, paint_lag_ms, paint_gap_ms);

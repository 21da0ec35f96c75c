-- More of each request for the Field view's summary (GET /v1/field/summary):
-- its median paint lag, its longest gap between paints, its stalls and its
-- QoE (lab_core::field::row::FieldRow). Requests kept before this
-- migration have them empty: counted, without those figures.
ALTER TABLE field_requests ADD COLUMN paint_lag_ms DOUBLE PRECISION;
ALTER TABLE field_requests ADD COLUMN paint_gap_ms DOUBLE PRECISION;
ALTER TABLE field_requests ADD COLUMN stalls INTEGER;
ALTER TABLE field_requests ADD COLUMN qoe DOUBLE PRECISION;
-- Each request's draw for samples (0 to 2^31 - 1; field::store::draw): a
-- period too large to load is read as the requests under one threshold.
-- Those kept before draw the low 31 bits of their send time.
ALTER TABLE field_requests ADD COLUMN sample BIGINT;
UPDATE field_requests SET sample = sent_us % 2147483648;
-- A summary reads only these columns (a sample's read its draw first): an index holding them all answers it
-- without reading the rows (whose request JSON comes first and is long), so
-- a million requests summarise from the index alone.
CREATE INDEX field_requests_summary ON field_requests
    (site, sent_us, sample, browser, model, ttft_ms, first_paint_ms, failed, paint_lag_ms, paint_gap_ms, stalls, qoe);

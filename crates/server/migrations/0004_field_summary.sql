-- Field data at a glance (GET /v1/field/summary): what a summary reads of
-- each request, kept beside its JSON so a million requests summarise
-- without reading their chunks (lab_core::field::summary::FieldRow).
-- Requests kept before this migration have them empty: they are counted,
-- without a TTFT or a first paint.
ALTER TABLE field_requests ADD COLUMN ttft_ms DOUBLE PRECISION;
ALTER TABLE field_requests ADD COLUMN first_paint_ms DOUBLE PRECISION;
ALTER TABLE field_requests ADD COLUMN failed INTEGER;
CREATE INDEX field_requests_by_site_time ON field_requests (site, sent_us);

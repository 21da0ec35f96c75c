-- More of each request for the Field view's summary (GET /v1/field/summary):
-- its median paint lag, its longest gap between paints, its stalls and its
-- QoE (lab_core::field::row::FieldRow). Requests kept before this
-- migration have them empty: counted, without those figures.
ALTER TABLE field_requests ADD COLUMN paint_lag_ms DOUBLE PRECISION;
ALTER TABLE field_requests ADD COLUMN paint_gap_ms DOUBLE PRECISION;
ALTER TABLE field_requests ADD COLUMN stalls INTEGER;
ALTER TABLE field_requests ADD COLUMN qoe DOUBLE PRECISION;

//! Number formatting shared by the views.

/// Milliseconds with two decimals (the precision vLLM prints).
pub fn ms(v: f64) -> String {
    format!("{v:.2}")
}

/// An optional value, or an em dash.
pub fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".to_string())
}

/// A 0..1 ratio as a percentage with one decimal.
pub fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

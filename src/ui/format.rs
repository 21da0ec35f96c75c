//! Number formatting shared by the views.

/// Milliseconds with two decimals (the precision vLLM prints).
pub fn ms(v: f64) -> String {
    format!("{v:.2}")
}

/// A duration: whole milliseconds, or seconds from 10 s on.
pub fn ms_or_s(v: f64) -> String {
    if v >= 10_000.0 { format!("{:.1} s", v / 1000.0) } else { format!("{v:.0} ms") }
}

/// A duration with a tenth of a millisecond, or seconds from 10 s on.
pub fn ms1_or_s(v: f64) -> String {
    if v >= 10_000.0 { format!("{:.1} s", v / 1000.0) } else { format!("{v:.1} ms") }
}

/// An optional value, or an em dash.
pub fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".to_string())
}

/// A 0..1 ratio as a percentage with one decimal.
pub fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// A size in bytes for people (B, kB, MB, GB; decimal units).
pub fn size(bytes: f64) -> String {
    match bytes {
        b if b >= 1e9 => format!("{:.2} GB", b / 1e9),
        b if b >= 1e6 => format!("{:.1} MB", b / 1e6),
        b if b >= 1e3 => format!("{:.0} kB", b / 1e3),
        b => format!("{b:.0} B"),
    }
}

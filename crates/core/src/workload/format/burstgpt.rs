//! BurstGPT (CSV): `Timestamp` in seconds, `Request tokens`, `Response
//! tokens`; `Model` and `Log Type` kept, `Total tokens` checked against
//! the two.
//!
//! ```text
//! Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
//! 5,ChatGPT,472,18,490,Conversation log
//! ```

use super::{CsvRow, Head, Layout, Spec};
use crate::workload::{Request, WorkloadError};

/// The columns read, in [`CsvRow`]'s order.
const FIELDS: &[&str] =
    &["Timestamp", "Request tokens", "Response tokens", "Model", "Log Type", "Total tokens"];

/// What the readers need to know of it.
pub const SPEC: Spec = Spec {
    label: "BurstGPT",
    layout: Layout::Csv { fields: FIELDS, row },
    timed: true,
    block_tokens: None,
    detect,
};

/// A header naming the time and both token columns.
fn detect(head: &Head<'_>) -> bool {
    head.columns_have(&FIELDS[..3])
}

fn row(r: &CsvRow<'_>) -> Result<Request, WorkloadError> {
    let (input_tokens, output_tokens) = (r.tokens(1)?, r.tokens(2)?);
    let t = r.get(0).parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0);
    let t = t.ok_or_else(|| r.bad(format!("Timestamp: seconds ≥ 0, found \"{}\"", r.get(0))))?;
    let total = r.tokens(5)?;
    if u64::from(total) != u64::from(input_tokens) + u64::from(output_tokens) {
        return Err(r.bad(format!(
            "Total tokens = Request tokens + Response tokens ({input_tokens} + {output_tokens}), found {total}"
        )));
    }
    Ok(Request {
        at_ms: t * 1000.0,
        input_tokens,
        output_tokens,
        model: r.text(3),
        kind: r.text(4),
        line: r.line,
        ..Request::default()
    })
}

//! Azure's LLM inference traces, 2023 and 2024 (CSV): `TIMESTAMP` a date
//! and time (UTC), `ContextTokens`, `GeneratedTokens`.
//!
//! ```text
//! TIMESTAMP,ContextTokens,GeneratedTokens
//! 2023-11-16 18:15:46.6805900,374,44
//! ```

use super::{CsvRow, Head, Layout, Spec};
use crate::trace::dates::datetime_ms;
use crate::workload::{Request, WorkloadError};

/// The columns read, in [`CsvRow`]'s order.
const FIELDS: &[&str] = &["TIMESTAMP", "ContextTokens", "GeneratedTokens"];

/// What the readers need to know of it.
pub const SPEC: Spec = Spec {
    label: "Azure LLM inference",
    layout: Layout::Csv { fields: FIELDS, row },
    timed: true,
    block_tokens: None,
    detect,
};

/// A header naming its three columns.
fn detect(head: &Head<'_>) -> bool {
    head.columns_have(FIELDS)
}

fn row(r: &CsvRow<'_>) -> Result<Request, WorkloadError> {
    let (input_tokens, output_tokens) = (r.tokens(1)?, r.tokens(2)?);
    let at_ms = datetime_ms(r.get(0)).ok_or_else(|| {
        r.bad(format!("TIMESTAMP: a date and time as 2023-11-16 18:15:46.68, found \"{}\"", r.get(0)))
    })?;
    Ok(Request { at_ms, input_tokens, output_tokens, line: r.line, ..Request::default() })
}

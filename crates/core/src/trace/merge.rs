//! One run from the traces of its shards (`latency-lab run --shard I/N
//! --start-at T` on several machines): their requests together, in the
//! order they were scheduled (else sent). Every shard timed its requests from
//! the same instant `T`, so their times are on one clock. The metadata is
//! the first shard's, labelled with how many were merged.

use super::Trace;

/// Why shards cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no trace to merge")]
    Empty,
    /// A request id appears in two shards (a shard given twice, or shards
    /// of different runs).
    #[error("request {0} is in two of the traces: give each shard once, all of one run")]
    Twice(String),
}

/// The shards' requests as one run.
pub fn merge(parts: Vec<Trace>) -> Result<Trace, MergeError> {
    let n = parts.len();
    let mut parts = parts.into_iter();
    let mut out = parts.next().ok_or(MergeError::Empty)?;
    for p in parts {
        out.requests.extend(p.requests);
    }
    let mut seen = std::collections::HashSet::new();
    for r in &out.requests {
        if let Some(id) = &r.id
            && !seen.insert(id.as_str())
        {
            return Err(MergeError::Twice(id.clone()));
        }
    }
    let at = |r: &super::RequestTrace| r.scheduled_ms.unwrap_or(r.sent_ms);
    out.requests.sort_by(|a, b| at(a).total_cmp(&at(b)));
    if n > 1 {
        let label = out.meta.label.take().unwrap_or_else(|| "run".into());
        out.meta.label = Some(format!("{label} (merged from {n} shards)"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::RequestTrace;

    fn shard(ids: &[(&str, f64)]) -> Trace {
        Trace {
            requests: ids
                .iter()
                .map(|(id, at)| RequestTrace {
                    id: Some((*id).into()),
                    scheduled_ms: Some(*at),
                    sent_ms: *at + 0.1,
                    ..RequestTrace::default()
                })
                .collect(),
            ..Trace::default()
        }
    }

    #[test]
    fn shards_interleave_on_their_shared_clock() {
        let m = merge(vec![shard(&[("a", 0.0), ("c", 20.0)]), shard(&[("b", 10.0), ("d", 30.0)])]).unwrap();
        let ids: Vec<_> = m.requests.iter().map(|r| r.id.clone().unwrap()).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        assert!(m.meta.label.unwrap().ends_with("(merged from 2 shards)"));
        assert_eq!(
            merge(vec![shard(&[("a", 0.0)]), shard(&[("a", 5.0)])]),
            Err(MergeError::Twice("a".into()))
        );
        assert_eq!(merge(vec![]), Err(MergeError::Empty));
    }
}

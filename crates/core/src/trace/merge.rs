//! One run from the traces of its shards (`latency-lab run --shard I/N
//! --start-at T` on several machines): their requests together, in the
//! order they were scheduled (else sent). Every shard timed its requests from
//! the same instant `T`, so their times are on one clock — which is checked
//! first ([`super::shard::check`]): a shard that started late, or whose 0 is
//! elsewhere, is refused and named. The metadata is the first shard's,
//! labelled with how many were merged.

use super::Trace;
use super::shard::{self, ClockError};

/// Why shards cannot be merged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no trace to merge")]
    Empty,
    /// A request id appears in two shards (a shard given twice, or shards
    /// of different runs).
    #[error("request {0} is in two of the traces: give each shard once, all of one run")]
    Twice(String),
    /// The shards' clocks disagree.
    #[error(transparent)]
    Clock(#[from] ClockError),
}

/// What the merged trace says when no shard recorded when its clock started.
pub const CLOCKS_NOT_COMPARED: &str = "the shards do not say when their clocks started \
     (meta.clock_epoch_ms), so they are merged as if they started together: check that they were given one --start-at";

/// The shards' requests as one run; each shard is named (its file) for the
/// errors.
pub fn merge(parts: Vec<(String, Trace)>) -> Result<Trace, MergeError> {
    let n = parts.len();
    let metas: Vec<_> = parts.iter().map(|(name, t)| (name.as_str(), &t.meta)).collect();
    let compared = shard::check(&metas)?;
    let mut parts = parts.into_iter().map(|(_, t)| t);
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
        out.meta.shard = None;
        if !compared {
            out.meta.notes.push(CLOCKS_NOT_COMPARED.into());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::RequestTrace;

    /// 2026-12-05T10:00:00Z.
    const T: f64 = 1_796_508_000_000.0;

    fn shard(ids: &[(&str, f64)]) -> (String, Trace) {
        let name = format!("{}.json", ids.first().map_or("none", |i| i.0));
        let trace = Trace {
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
        };
        (name, trace)
    }

    fn on(clock_epoch_ms: f64, (name, mut t): (String, Trace)) -> (String, Trace) {
        t.meta.clock_epoch_ms = Some(clock_epoch_ms);
        t.meta.start_at_ms = Some(T);
        (name, t)
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
        // Neither says when its clock started: merged, and the run says so.
        assert_eq!(m.meta.notes, [CLOCKS_NOT_COMPARED]);
    }

    #[test]
    fn shards_whose_clocks_agree_merge_and_those_that_disagree_are_refused() {
        let (a, b) = (shard(&[("a", 0.0), ("c", 20.0)]), shard(&[("b", 10.0)]));
        let m = merge(vec![on(T, a.clone()), on(T + 1.99, b.clone())]).unwrap();
        assert_eq!(m.requests.len(), 3);
        assert!(m.meta.notes.is_empty(), "{:?}", m.meta.notes);
        let e = merge(vec![on(T, a.clone()), on(T + 2.01, b.clone())]).unwrap_err();
        assert!(
            matches!(&e, MergeError::Clock(ClockError::LateStart { part, .. }) if part == "b.json"),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("b.json started 2.010 ms after its --start-at"), "{e}");
        // One shard alone is checked too: its own start.
        assert!(merge(vec![on(T + 2.01, b)]).is_err());
        let (_, mut old) = shard(&[("b", 10.0)]);
        old.meta.clock_epoch_ms = Some(T - 2.01);
        let e = merge(vec![on(T, a), ("old.json".into(), old)]).unwrap_err();
        assert!(e.to_string().starts_with("old.json has its clock's 0 at 1796507999997.990"), "{e}");
    }
}

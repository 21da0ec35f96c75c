//! Client-side measurements against the server's own clock.
//!
//! With `latency-lab serve`, the server records when it handed each chunk
//! to its HTTP writer ([`ServerTiming`]). The two clocks are different
//! machines' (or at least processes') clocks, so only intervals are
//! compared:
//! - **TTFT**: client (first chunk arrived − request sent) vs server (first
//!   chunk sent − request received). The difference is the network and
//!   browser overhead in both directions.
//! - **ITL**: median of the client's gaps vs median of the server's gaps.
//! - **Per-chunk delivery delay**: for chunk i, (client arrival − client
//!   first arrival) − (server send − server first send); its spread shows
//!   how much delivery jitter the path added.

use serde::Serialize;

use crate::measure::stats::{Samples, Summary};
use crate::trace::{RequestTrace, ServerTiming};

/// One request's client vs server timing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingComparison {
    /// Client TTFT (ms).
    pub ttft_client_ms: f64,
    /// Server TTFT (ms).
    pub ttft_server_ms: f64,
    /// client − server (ms).
    pub ttft_delta_ms: f64,
    /// Median client ITL (ms), when there are gaps.
    pub itl_median_client_ms: Option<f64>,
    /// Median server ITL (ms).
    pub itl_median_server_ms: Option<f64>,
    /// client − server median ITL (ms).
    pub itl_median_delta_ms: Option<f64>,
    /// Per-chunk delivery delay relative to the first chunk (ms).
    pub delivery_delay_ms: Option<Summary>,
    /// Chunks compared (the shorter of the two lists).
    pub chunks: usize,
}

fn median_gap(times: &[f64]) -> Option<f64> {
    let s = Samples::from_finite(times.windows(2).map(|w| w[1] - w[0]));
    s.summary().map(|s| s.median)
}

/// Reads the JSON of `GET /v1/lab/requests/{id}` (from `latency-lab serve`)
/// into a [`ServerTiming`]; `None` when it is not such a record.
pub fn parse_server_timing(json: &str) -> Option<ServerTiming> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let chunks = v.get("chunks")?.as_array()?;
    let field = |c: &serde_json::Value, k: &str| c.get(k).and_then(serde_json::Value::as_f64);
    Some(ServerTiming {
        request_id: v.get("id")?.as_str()?.to_string(),
        headers_sent_ms: v.get("headers_sent_ms").and_then(serde_json::Value::as_f64),
        chunks_sent_ms: chunks.iter().filter_map(|c| field(c, "sent_ms")).collect(),
        chunks_due_ms: chunks.iter().filter_map(|c| field(c, "due_ms")).collect(),
    })
}

/// Compares a request with its server record (`None` without one, or
/// without any chunk on either side).
pub fn compare(r: &RequestTrace) -> Option<TimingComparison> {
    let server: &ServerTiming = r.server.as_ref()?;
    let client: Vec<f64> = r.chunks.iter().filter(|c| c.tokens > 0).map(|c| c.arrived_ms).collect();
    let (&c0, &s0) = (client.first()?, server.chunks_sent_ms.first()?);
    let n = client.len().min(server.chunks_sent_ms.len());
    let ttft_client_ms = c0 - r.sent_ms;
    let (ci, si) = (median_gap(&client[..n]), median_gap(&server.chunks_sent_ms[..n]));
    let delivery = Samples::from_finite(
        client[..n].iter().zip(&server.chunks_sent_ms[..n]).map(|(c, s)| (c - c0) - (s - s0)),
    );
    Some(TimingComparison {
        ttft_client_ms,
        ttft_server_ms: s0,
        ttft_delta_ms: ttft_client_ms - s0,
        itl_median_client_ms: ci,
        itl_median_server_ms: si,
        itl_median_delta_ms: ci.zip(si).map(|(c, s)| c - s),
        delivery_delay_ms: delivery.summary(),
        chunks: n,
    })
}

/// The median TTFT difference and the median ITL-median difference (client
/// − server, ms) over compared requests.
pub fn median_deltas<'a>(
    rows: impl IntoIterator<Item = &'a TimingComparison> + Clone,
) -> (Option<f64>, Option<f64>) {
    let med = |v: Vec<f64>| crate::measure::stats::Samples::from_finite(v).summary().map(|s| s.median);
    let ttft = med(rows.clone().into_iter().map(|c| c.ttft_delta_ms).collect());
    let itl = med(rows.into_iter().filter_map(|c| c.itl_median_delta_ms).collect());
    (ttft, itl)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Chunk;

    #[test]
    fn compares_intervals_not_clocks() {
        let chunk = |t: f64| Chunk {
            arrived_ms: t,
            text: "x".into(),
            tokens: 1,
            kind: Default::default(),
            painted_ms: None,
            due_ms: None,
            tool: None,
            chars: None,
        };
        let r = RequestTrace {
            sent_ms: 1000.0,
            chunks: vec![chunk(1302.0), chunk(1322.5), chunk(1342.0)],
            server: Some(ServerTiming {
                request_id: "lab-1".into(),
                headers_sent_ms: Some(0.2),
                chunks_sent_ms: vec![300.0, 320.0, 340.0],
                chunks_due_ms: vec![300.0, 320.0, 340.0],
            }),
            ..RequestTrace::default()
        };
        let c = compare(&r).unwrap();
        assert_eq!((c.ttft_client_ms, c.ttft_server_ms, c.ttft_delta_ms), (302.0, 300.0, 2.0));
        assert_eq!(c.itl_median_client_ms, Some(20.0)); // gaps 20.5 and 19.5
        assert_eq!(c.itl_median_delta_ms, Some(0.0));
        assert_eq!(c.delivery_delay_ms.unwrap().max, 0.5);
        assert_eq!(c.chunks, 3);
        let mut other = c.clone();
        other.ttft_delta_ms = 4.0;
        other.itl_median_delta_ms = None;
        let mut third = c.clone();
        third.ttft_delta_ms = 3.0;
        assert_eq!(median_deltas([&c, &other, &third]), (Some(3.0), Some(0.0)));
        assert_eq!(median_deltas(std::iter::empty()), (None, None));
        assert!(compare(&RequestTrace::default()).is_none());
        let st = parse_server_timing(
            r#"{"id":"lab-7","headers_sent_ms":0.3,"chunks":[{"due_ms":100,"sent_ms":100.2,"tokens":1}],"complete":true}"#,
        )
        .unwrap();
        assert_eq!(
            (st.request_id.as_str(), st.chunks_sent_ms[0], st.chunks_due_ms[0]),
            ("lab-7", 100.2, 100.0)
        );
        assert!(parse_server_timing("{}").is_none());
    }
}

//! Faults a replay endpoint can inject, to see how a client (the lab, or
//! your own product) copes. Written as `key=value` pairs separated by commas,
//! after a `|` in the model name (`profile:fast-start|drop_after=5`), in the
//! `X-Latency-Lab-Fault` header, or with `latency-lab serve --fault`:
//!
//! | key | effect |
//! |---|---|
//! | `status=N` | answer HTTP N with an OpenAI-style JSON error body, no stream |
//! | `retry_after=S` | with `status`, a `Retry-After: S` header |
//! | `headers_delay_ms=M` | hold the response headers (and everything after) M ms |
//! | `stall_after=K,stall_ms=M` | pause M ms before text chunk K (0-based) |
//! | `drop_after=K` | cut the connection after K text chunks (no `[DONE]`) |
//! | `malformed_after=K` | after K text chunks, send an event that is not JSON |
//! | `garbage_after=K` | after K text chunks, send bytes that are not SSE or UTF-8 |
//! | `oversized=B` | make the first text chunk B bytes long |
//! | `every=N` | inject the other faults only into every Nth request (1 in N fails) |

use std::str::FromStr;

use crate::serve::plan::{Plan, PlannedEvent};

/// Largest oversized chunk (64 MiB).
pub const MAX_OVERSIZED: usize = 64 * 1024 * 1024;

/// A set of faults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fault {
    /// Answer with this HTTP status instead of streaming.
    pub status: Option<u16>,
    /// `Retry-After` seconds for `status`.
    pub retry_after: Option<u32>,
    /// Delay of the headers (ms).
    pub headers_delay_ms: f64,
    /// Pause before text chunk `.0` of `.1` ms.
    pub stall: Option<(usize, f64)>,
    /// Cut after this many text chunks.
    pub drop_after: Option<usize>,
    /// Malformed event after this many text chunks.
    pub malformed_after: Option<usize>,
    /// Garbage bytes after this many text chunks.
    pub garbage_after: Option<usize>,
    /// Size of an oversized first chunk.
    pub oversized: Option<usize>,
    /// Only every Nth request (by the server's request count) gets the faults.
    pub every: Option<u64>,
}

/// Why a fault spec could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fault \"{item}\": {why}")]
pub struct FaultError {
    /// The item.
    pub item: String,
    /// The rule.
    pub why: &'static str,
}

impl FromStr for Fault {
    type Err = FaultError;

    fn from_str(s: &str) -> Result<Self, FaultError> {
        let mut f = Fault::default();
        let mut stall_after = None;
        let mut stall_ms = None;
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let bad = |why| FaultError { item: item.to_string(), why };
            let (k, v) = item.split_once('=').ok_or_else(|| bad("expected key=value"))?;
            let count = || v.parse::<usize>().map_err(|_| bad("expected a whole number"));
            match k {
                "status" => {
                    f.status = Some(
                        v.parse()
                            .ok()
                            .filter(|s| (400..=599).contains(s))
                            .ok_or_else(|| bad("a status in 400-599"))?,
                    )
                }
                "retry_after" => f.retry_after = Some(v.parse().map_err(|_| bad("seconds, a whole number"))?),
                "headers_delay_ms" => {
                    f.headers_delay_ms = v
                        .parse()
                        .ok()
                        .filter(|d: &f64| d.is_finite() && *d >= 0.0)
                        .ok_or_else(|| bad("ms ≥ 0"))?
                }
                "stall_after" => stall_after = Some(count()?),
                "stall_ms" => {
                    stall_ms = Some(
                        v.parse()
                            .ok()
                            .filter(|d: &f64| d.is_finite() && *d >= 0.0)
                            .ok_or_else(|| bad("ms ≥ 0"))?,
                    )
                }
                "drop_after" => f.drop_after = Some(count()?),
                "malformed_after" => f.malformed_after = Some(count()?),
                "garbage_after" => f.garbage_after = Some(count()?),
                "oversized" => f.oversized = Some(count()?.min(MAX_OVERSIZED)),
                "every" => {
                    f.every =
                        Some(v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| bad("a whole number ≥ 1"))?)
                }
                _ => return Err(bad("unknown fault")),
            }
        }
        match (stall_after, stall_ms) {
            (Some(k), Some(m)) => f.stall = Some((k, m)),
            (None, None) => {}
            _ => return Err(FaultError { item: s.to_string(), why: "stall_after and stall_ms go together" }),
        }
        Ok(f)
    }
}

/// Not SSE, not UTF-8: a NUL, invalid bytes, a lone CR.
pub const GARBAGE: &[u8] = b"\x00\xff\xfe\xc3(garbage \x9f\x92\x96 not an event)\r";

/// A plan with faults applied, plus what the server must do at the end.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultyPlan {
    /// The (modified) plan.
    pub plan: Plan,
    /// Raw byte events to insert: (index in `plan.events` before which to
    /// send, bytes).
    pub raw: Vec<(usize, Vec<u8>)>,
    /// Close the connection abruptly after the last event.
    pub abort_connection: bool,
}

impl Fault {
    /// True when nothing is injected.
    pub fn is_none(&self) -> bool {
        *self == Fault::default()
    }

    /// The faults for request number `seq` (1-based): all of them, or none
    /// when `every=N` leaves this request alone.
    pub fn for_request(self, seq: u64) -> Fault {
        match self.every {
            Some(n) if !seq.is_multiple_of(n) => Fault::default(),
            _ => Fault { every: None, ..self },
        }
    }

    /// Applies the stream faults (not `status`, which replaces the stream).
    pub fn apply(&self, mut plan: Plan) -> FaultyPlan {
        let mut raw = Vec::new();
        plan.headers_at_ms += self.headers_delay_ms;
        for e in &mut plan.events {
            e.at_ms += self.headers_delay_ms;
        }
        // Index (in events) of text chunk k.
        let text_index = |plan: &Plan, k: usize| {
            plan.events.iter().enumerate().filter(|(_, e)| e.tokens > 0).nth(k).map(|(i, _)| i)
        };
        if let Some(bytes) = self.oversized
            && let Some(i) = text_index(&plan, 0)
        {
            let big = "x".repeat(bytes);
            let at = plan.events[i].at_ms;
            plan.events[i] = PlannedEvent {
                at_ms: at,
                data: plan.events[i].data.replacen(&first_text(&plan.events[i].data), &big, 1),
                tokens: plan.events[i].tokens,
            };
        }
        if let Some((k, ms)) = self.stall
            && let Some(i) = text_index(&plan, k)
        {
            for e in &mut plan.events[i..] {
                e.at_ms += ms;
            }
        }
        let mut abort_connection = false;
        if let Some(k) = self.drop_after {
            let cut = text_index(&plan, k).unwrap_or(plan.events.len());
            plan.events.truncate(cut);
            abort_connection = true;
        }
        if let Some(k) = self.malformed_after {
            let i = text_index(&plan, k).unwrap_or(plan.events.len());
            let at = plan.events.get(i.saturating_sub(1)).map_or(plan.headers_at_ms, |e| e.at_ms);
            plan.events.insert(
                i,
                PlannedEvent {
                    at_ms: at,
                    data: "data: {\"choices\": [{\"delta\": {\"content\": \"cut\n\n".into(),
                    tokens: 0,
                },
            );
        }
        if let Some(k) = self.garbage_after {
            let i = text_index(&plan, k).unwrap_or(plan.events.len());
            raw.push((i, GARBAGE.to_vec()));
        }
        FaultyPlan { plan, raw, abort_connection }
    }
}

/// The JSON-escaped text of an OpenAI chunk event (for replacing it).
fn first_text(data: &str) -> String {
    let v: Option<serde_json::Value> =
        data.strip_prefix("data: ").and_then(|j| serde_json::from_str(j.trim()).ok());
    let text = v
        .as_ref()
        .and_then(|v| v.pointer("/choices/0/delta/content").or_else(|| v.pointer("/choices/0/text")))
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    serde_json::to_string(text).unwrap_or_default().trim_matches('"').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::profile::{Jitter, Profile};
    use crate::serve::plan::{PlanRequest, from_profile};
    use crate::stream::openai::encode::StreamWriter;
    use crate::stream::record::{Recorder, StreamEnd};
    use crate::trace::{ApiFlavor, FailureKind};

    fn plan() -> Plan {
        let mut p = Profile::simple("p", 100.0, 10.0, 10);
        p.jitter = Jitter::Constant;
        let req = PlanRequest {
            writer: StreamWriter { id: "x".into(), model: "m".into(), created: 0, api: ApiFlavor::Chat },
            wire: crate::stream::wire::Wire::Chat,
            ollama_generate: false,
            prompt_tokens: 1,
            cached_tokens: 0,
            max_tokens: None,
            min_tokens: None,
            ignore_eos: false,
            include_usage: false,
            request_index: 0,
        };
        from_profile(&p, &req)
    }

    fn play(f: &FaultyPlan) -> crate::trace::RequestTrace {
        let mut r = Recorder::new(0.0);
        r.on_headers(f.plan.headers_at_ms, 200);
        for (i, e) in f.plan.events.iter().enumerate() {
            for (at, bytes) in &f.raw {
                if *at == i {
                    r.on_bytes(e.at_ms, bytes);
                }
            }
            r.on_bytes(e.at_ms, e.data.as_bytes());
        }
        let end =
            if f.abort_connection { StreamEnd::Broken("connection reset".into()) } else { StreamEnd::Closed };
        r.finish(1e6, end)
    }

    #[test]
    fn parses_and_refuses() {
        let f: Fault = "status=429,retry_after=7".parse().unwrap();
        assert_eq!((f.status, f.retry_after), (Some(429), Some(7)));
        assert!("status=200".parse::<Fault>().is_err());
        assert!("stall_after=3".parse::<Fault>().is_err());
        assert!("explode=1".parse::<Fault>().is_err());
        assert!("".parse::<Fault>().unwrap().is_none());
        assert!("every=0".parse::<Fault>().is_err());
    }

    #[test]
    fn every_nth_request() {
        let f: Fault = "status=503,every=3".parse().unwrap();
        let hit: Vec<u64> = (1..=9).filter(|&n| f.clone().for_request(n).status.is_some()).collect();
        assert_eq!(hit, [3, 6, 9]);
        assert_eq!(f.clone().for_request(4), Fault::default());
        let always: Fault = "drop_after=2".parse().unwrap();
        assert_eq!(always.clone().for_request(5), always);
    }

    #[test]
    fn each_fault_shows_up_as_the_right_failure() {
        let drop = "drop_after=4".parse::<Fault>().unwrap().apply(plan());
        let t = play(&drop);
        assert_eq!((t.chunks.len(), t.failure.unwrap().kind), (4, FailureKind::Truncated));

        let bad = "malformed_after=3".parse::<Fault>().unwrap().apply(plan());
        let t = play(&bad);
        assert_eq!(t.failure.unwrap().kind, FailureKind::Malformed);
        assert_eq!(t.chunks.len(), 10, "text after the bad event still arrives");

        let garbage = "garbage_after=2".parse::<Fault>().unwrap().apply(plan());
        assert_eq!(play(&garbage).failure.unwrap().kind, FailureKind::Malformed);

        let stall = "stall_after=5,stall_ms=700,headers_delay_ms=50".parse::<Fault>().unwrap().apply(plan());
        let t = play(&stall);
        assert!(t.failure.is_none());
        assert_eq!(t.headers_ms, Some(50.0));
        assert_eq!(t.chunks[5].arrived_ms - t.chunks[4].arrived_ms, 710.0);

        let big = "oversized=100000".parse::<Fault>().unwrap().apply(plan());
        let t = play(&big);
        assert!(t.failure.is_none());
        assert_eq!(t.chunks[0].text.len(), 100_000);
    }
}

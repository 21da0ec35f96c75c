//! The replay endpoint's **capacity model**: a server that decodes at most
//! `slots` requests at once, as an engine with a fixed batch does.
//!
//! - A request that finds every slot taken **waits in a queue** (first
//!   come, first served) until one frees; its response headers go out at
//!   once (as OpenAI-compatible servers send them), its first token comes
//!   after the wait, then the profile's prefill and TTFT. The wait is the
//!   **queueing delay** users feel as a longer TTFT.
//! - While `a` requests decode together, each one's inter-token time is the
//!   profile's × [`tpot_factor`]`(a)` = 1 + [`SLOWDOWN_PER_REQUEST`]·(a − 1):
//!   decode shares the accelerator's memory bandwidth, so every extra
//!   request slows each a little while the system's tokens/s still grows,
//!   until the slots are full; past that, requests queue and TTFT climbs:
//!   the **saturation knee** sits at `slots`.
//! - Simplification: a request's factor is fixed when it takes its slot,
//!   from the number decoding then (itself included).
//!
//! The model is pure; the server holds the slots (a fair semaphore) and
//! applies [`queued`] to the plan once a request is admitted.

use super::plan::Plan;

/// Inter-token slowdown per extra request decoding beside one (10 %).
pub const SLOWDOWN_PER_REQUEST: f64 = 0.10;

/// Most slots a profile may ask for (defined beside the profile that asks).
pub use crate::replay::profile::MAX_SLOTS;

/// Inter-token time factor with `active` requests decoding (≥ 1).
pub fn tpot_factor(active: u32) -> f64 {
    1.0 + SLOWDOWN_PER_REQUEST * f64::from(active.max(1) - 1)
}

/// The plan of a request admitted after waiting `wait_ms` for a slot, with
/// `active` requests decoding (itself included): body events move later by
/// the wait, and the gaps after the first token stretch by
/// [`tpot_factor`]`(active)`. Headers stay where they were.
pub fn queued(mut plan: Plan, wait_ms: f64, active: u32) -> Plan {
    let factor = tpot_factor(active);
    let wait = wait_ms.max(0.0);
    let first = plan.events.iter().find(|e| e.tokens > 0).map(|e| e.at_ms);
    for e in &mut plan.events {
        let stretched = match first {
            Some(f) if e.at_ms > f => f + (e.at_ms - f) * factor,
            _ => e.at_ms,
        };
        // The role chunk goes with the headers; everything else waits.
        if !(e.tokens == 0 && e.at_ms <= plan.headers_at_ms && first.is_some_and(|f| f > e.at_ms)) {
            e.at_ms = stretched + wait;
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::profile::{Jitter, Profile};
    use crate::serve::plan::{PlanRequest, from_profile};
    use crate::stream::openai::encode::StreamWriter;
    use crate::trace::ApiFlavor;

    fn plan() -> Plan {
        let mut p = Profile::simple("p", 100.0, 10.0, 4);
        p.jitter = Jitter::Constant;
        let writer = StreamWriter { id: "x".into(), model: "m".into(), created: 0, api: ApiFlavor::Chat };
        let req = PlanRequest {
            writer,
            wire: crate::stream::wire::Wire::Chat,
            ollama_generate: false,
            prompt_tokens: 0,
            cached_tokens: 0,
            max_tokens: None,
            min_tokens: None,
            ignore_eos: false,
            include_usage: false,
            request_index: 0,
        };
        from_profile(&p, &req)
    }

    fn token_times(p: &Plan) -> Vec<f64> {
        p.events.iter().filter(|e| e.tokens > 0).map(|e| e.at_ms).collect()
    }

    #[test]
    fn profiles_name_their_server_model() {
        let p: Profile = "ttft=50,prefill=0.5,slots=4".parse().unwrap();
        assert_eq!((p.slots, p.caches_prefixes()), (Some(4), true), "cache on by default with prefill");
        assert!(p.to_string().ends_with(",slots=4"));
        let p: Profile = "prefill=0.5,cache=off".parse().unwrap();
        assert!(!p.caches_prefixes());
        assert_eq!(p.to_string().parse::<Profile>().unwrap(), p);
        assert!(!"ttft=50".parse::<Profile>().unwrap().caches_prefixes(), "no prefill, nothing to save");
        assert!("slots=0".parse::<Profile>().is_err());
        assert!("cache=maybe".parse::<Profile>().is_err());
    }

    #[test]
    fn the_factor_grows_by_a_tenth_per_extra_request() {
        assert_eq!(tpot_factor(0), 1.0);
        assert_eq!(tpot_factor(1), 1.0);
        assert!((tpot_factor(4) - 1.3).abs() < 1e-12);
    }

    #[test]
    fn a_queued_request_starts_later_and_decodes_slower() {
        let p = plan();
        assert_eq!(token_times(&p), [100.0, 110.0, 120.0, 130.0]);
        let q = queued(p.clone(), 250.0, 3);
        assert_eq!(token_times(&q), [350.0, 362.0, 374.0, 386.0]);
        assert_eq!(q.headers_at_ms, 0.0);
        assert_eq!(q.events[0].at_ms, 0.0, "the role chunk goes with the headers");
        assert_eq!(q.events.last().unwrap().at_ms, 386.0, "[DONE] with the last token");
        assert_eq!(queued(p.clone(), 0.0, 1), p, "alone and not waiting: unchanged");
    }
}

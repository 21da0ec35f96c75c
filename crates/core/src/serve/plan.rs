//! The emission plan of a replayed response: which bytes a replay endpoint
//! sends, and when (ms after the request arrived). Pure; the server only
//! waits and writes.
//!
//! - From a **profile**: the profile's schedule for this request (prompt
//!   length and max tokens taken from the request). Headers go out at once.
//! - From a **recorded request**: chunk times relative to its `sent_ms`;
//!   headers at its `headers_ms`; text and reasoning as recorded. A request
//!   that failed replays what it received before failing.
//! - Around the text: chat streams get the role-only chunk with the headers;
//!   after the last text chunk, at the same instant, the `finish_reason`
//!   chunk, the usage chunk when asked for, and `[DONE]`.

use crate::replay::profile::Profile;
use crate::stream::openai::encode::{DONE, StreamWriter};
use crate::stream::wire::Wire;
use crate::stream::wire::encode::{Finish, Totals, WireEncoder};
use crate::trace::{ChunkKind, RequestTrace, ToolCallRef};

/// One generated piece: due (ms), text, tokens, kind, and the call of a
/// tool-call fragment.
type Piece = (f64, String, u32, ChunkKind, Option<ToolCallRef>);

/// What the client asked for.
#[derive(Debug, Clone)]
pub struct PlanRequest {
    /// Writer (id, model, API shape) of OpenAI Chat and Completions streams.
    pub writer: StreamWriter,
    /// The wire to answer in (every wire but Chat is written by
    /// [`WireEncoder`], with the writer's id, model and creation time).
    pub wire: Wire,
    /// Ollama's `/api/generate` rather than `/api/chat`.
    pub ollama_generate: bool,
    /// Prompt length in tokens (estimated by the server).
    pub prompt_tokens: u64,
    /// Prompt tokens found in the prefix cache ([`super::cache`]): they
    /// cost no prefill, and usage reports them.
    pub cached_tokens: u64,
    /// `max_tokens` / `max_completion_tokens`.
    pub max_tokens: Option<u32>,
    /// `min_tokens` (vLLM's extension): at least this many, whatever the
    /// profile would stop at.
    pub min_tokens: Option<u32>,
    /// `ignore_eos`: generate until `max_tokens`, as engines do when asked.
    pub ignore_eos: bool,
    /// `stream_options.include_usage`.
    pub include_usage: bool,
    /// Sequence number of this request for the source (seeds profiles).
    pub request_index: u64,
}

/// One write of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedEvent {
    /// When to write it (ms after the request arrived).
    pub at_ms: f64,
    /// The bytes.
    pub data: String,
    /// Tokens this event carries (0 for control events).
    pub tokens: u32,
}

/// Everything the endpoint sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// When to send the response headers (ms after arrival).
    pub headers_at_ms: f64,
    /// Body events in order, `at_ms` non-decreasing.
    pub events: Vec<PlannedEvent>,
    /// Full generated text.
    pub text: String,
    /// Tokens generated.
    pub completion_tokens: u64,
    /// `stop`, `length` or `tool_calls`.
    pub finish_reason: &'static str,
}

impl Plan {
    /// Due time of the last text event (ms after arrival), 0 without text.
    pub fn last_token_ms(&self) -> f64 {
        self.events.iter().rev().find(|e| e.tokens > 0).map_or(0.0, |e| e.at_ms)
    }
}

fn assemble(req: &PlanRequest, headers_at_ms: f64, pieces: Vec<Piece>, capped: bool) -> Plan {
    if req.wire != Wire::Chat {
        return assemble_wire(req, headers_at_ms, pieces, capped);
    }
    let w = &req.writer;
    let mut events = Vec::with_capacity(pieces.len() + 4);
    if let Some(role) = w.role() {
        events.push(PlannedEvent { at_ms: headers_at_ms, data: role, tokens: 0 });
    }
    let content = w.text_template(ChunkKind::Content);
    let reasoning = w.text_template(ChunkKind::Reasoning);
    let mut text = String::new();
    let mut completion_tokens = 0u64;
    let mut last = headers_at_ms;
    let mut called = false;
    for (at, piece, tokens, kind, tool) in pieces {
        let at_ms = at.max(last);
        last = at_ms;
        completion_tokens += u64::from(tokens);
        let data = match kind {
            ChunkKind::Content => {
                text.push_str(&piece);
                content.render(&piece)
            }
            ChunkKind::Reasoning => reasoning.render(&piece),
            ChunkKind::ToolCall => {
                called = true;
                w.tool_call(&tool.unwrap_or_default(), &piece)
            }
        };
        events.push(PlannedEvent { at_ms, data, tokens });
    }
    let finish_reason = match (capped, called) {
        (true, _) => "length",
        (false, true) => "tool_calls",
        (false, false) => "stop",
    };
    events.push(PlannedEvent { at_ms: last, data: w.finish(finish_reason), tokens: 0 });
    if req.include_usage {
        events.push(PlannedEvent {
            at_ms: last,
            data: w.usage_cached(req.prompt_tokens, completion_tokens, req.cached_tokens),
            tokens: 0,
        });
    }
    events.push(PlannedEvent { at_ms: last, data: DONE.to_string(), tokens: 0 });
    Plan { headers_at_ms, events, text, completion_tokens, finish_reason }
}

/// [`assemble`] for every wire but Chat.
fn assemble_wire(req: &PlanRequest, headers_at_ms: f64, pieces: Vec<Piece>, capped: bool) -> Plan {
    let w = &req.writer;
    let mut e = WireEncoder::new(req.wire, &w.id, &w.model, w.created);
    if req.ollama_generate {
        e = e.generating();
    }
    let pieces = if req.wire.whole_calls() { whole_calls(pieces) } else { pieces };
    let mut events = Vec::with_capacity(pieces.len() + 2);
    events.push(PlannedEvent {
        at_ms: headers_at_ms,
        data: e.head(req.prompt_tokens, req.cached_tokens),
        tokens: 0,
    });
    let (mut text, mut completion_tokens, mut reasoning) = (String::new(), 0u64, 0u64);
    let (mut last, mut first) = (headers_at_ms, None);
    let mut called = false;
    for (at, piece, tokens, kind, tool) in pieces {
        let at_ms = at.max(last);
        last = at_ms;
        first.get_or_insert(at_ms);
        completion_tokens += u64::from(tokens);
        match kind {
            ChunkKind::Content => text.push_str(&piece),
            ChunkKind::Reasoning => reasoning += u64::from(tokens),
            ChunkKind::ToolCall => called = true,
        }
        let data = e.piece(kind, &piece, tool.as_ref());
        // A piece the wire cannot carry (plain text's reasoning and calls)
        // is generated, not sent: no event, so ground truth lists none.
        if !data.is_empty() {
            events.push(PlannedEvent { at_ms, data, tokens });
        }
    }
    let (finish, finish_reason) = match (capped, called) {
        (true, _) => (Finish::Length, "length"),
        (false, true) => (Finish::ToolCalls, "tool_calls"),
        (false, false) => (Finish::Stop, "stop"),
    };
    let totals = Totals {
        prompt: req.prompt_tokens,
        cached: req.cached_tokens,
        completion: completion_tokens,
        reasoning,
        first_ms: first.unwrap_or(last),
        last_ms: last,
    };
    let tail = e.tail(finish, totals);
    if !tail.is_empty() {
        events.push(PlannedEvent { at_ms: last, data: tail, tokens: 0 });
    }
    Plan { headers_at_ms, events, text, completion_tokens, finish_reason }
}

/// Each call's fragments joined into one piece, due with its last fragment
/// and carrying all its tokens (for wires that send calls whole).
fn whole_calls(pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for p in pieces {
        let continues = p.3 == ChunkKind::ToolCall
            && p.4.as_ref().is_none_or(|t| t.name.is_none())
            && out.last().is_some_and(|l| l.3 == ChunkKind::ToolCall);
        match out.last_mut() {
            Some(l) if continues => {
                l.0 = p.0;
                l.1.push_str(&p.1);
                l.2 += p.2;
            }
            _ => out.push(p),
        }
    }
    out
}

/// The plan of a profile for this request.
///
/// The answer has the profile's length, cut at `max_tokens`; `min_tokens`
/// lengthens it, and `ignore_eos` (with a `max_tokens`) makes it exactly
/// `max_tokens` long, as a workload's requests ask.
pub fn from_profile(profile: &Profile, req: &PlanRequest) -> Plan {
    let computed = req.prompt_tokens.saturating_sub(req.cached_tokens);
    let natural = profile.output_tokens;
    let wanted = match (req.ignore_eos, req.max_tokens) {
        (true, Some(_)) => u32::MAX,
        _ => req.min_tokens.map_or(natural, |m| natural.max(m)),
    };
    let capped = req.max_tokens.is_some_and(|m| m < wanted);
    let s = if wanted == natural {
        profile.schedule(req.request_index, computed, req.max_tokens)
    } else {
        let longer =
            Profile { output_tokens: req.max_tokens.map_or(wanted, |m| m.min(wanted)), ..profile.clone() };
        longer.schedule(req.request_index, computed, req.max_tokens)
    };
    let pieces = s.chunks.into_iter().map(|c| (c.due_ms, c.text, c.tokens, c.kind, c.tool)).collect();
    assemble(req, 0.0, pieces, capped)
}

/// The plan replaying a recorded request (cut at `max_tokens` when given).
pub fn from_recorded(r: &RequestTrace, req: &PlanRequest) -> Plan {
    let headers = r.headers_ms.map_or(0.0, |h| (h - r.sent_ms).max(0.0));
    let mut pieces = Vec::new();
    let mut tokens = 0u64;
    let mut capped = false;
    for c in r.chunks.iter().filter(|c| c.tokens > 0 || !c.text.is_empty()) {
        if let Some(max) = req.max_tokens
            && tokens >= u64::from(max)
        {
            capped = true;
            break;
        }
        tokens += u64::from(c.tokens);
        pieces.push(((c.arrived_ms - r.sent_ms).max(0.0), c.text.clone(), c.tokens, c.kind, c.tool.clone()));
    }
    assemble(req, headers, pieces, capped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::record::{Recorder, StreamEnd};
    use crate::trace::{ApiFlavor, Trace};

    fn req(include_usage: bool, max_tokens: Option<u32>) -> PlanRequest {
        PlanRequest {
            writer: StreamWriter { id: "x".into(), model: "m".into(), created: 0, api: ApiFlavor::Chat },
            wire: Wire::Chat,
            ollama_generate: false,
            prompt_tokens: 12,
            cached_tokens: 0,
            max_tokens,
            min_tokens: None,
            ignore_eos: false,
            include_usage,
            request_index: 0,
        }
    }

    fn play(plan: &Plan) -> RequestTrace {
        let mut r = Recorder::new(0.0);
        r.on_headers(plan.headers_at_ms, 200);
        for e in &plan.events {
            r.on_bytes(e.at_ms, e.data.as_bytes());
        }
        r.finish(plan.events.last().unwrap().at_ms, StreamEnd::Closed)
    }

    #[test]
    fn profile_plan_plays_back_with_its_times() {
        let mut p = Profile::simple("p", 300.0, 20.0, 30);
        p.jitter = crate::replay::profile::Jitter::Constant;
        let plan = from_profile(&p, &req(true, None));
        let t = play(&plan);
        assert_eq!(t.failure, None);
        assert_eq!(t.chunks.len(), 30);
        assert_eq!(t.chunks[0].arrived_ms, 300.0);
        assert_eq!(t.usage.unwrap().completion_tokens, Some(30));
        assert_eq!(plan.finish_reason, "stop");
        assert!((plan.last_token_ms() - (300.0 + 29.0 * 20.0)).abs() < 1e-9);
        let capped = from_profile(&p, &req(false, Some(5)));
        assert_eq!((capped.completion_tokens, capped.finish_reason), (5, "length"));
        assert!(play(&capped).usage.is_none());
    }

    /// Reasoning, an answer, then a call, as every wire sends them.
    #[test]
    fn every_wire_plays_a_profile_with_its_times() {
        use crate::stream::wire::WIRES;
        let p: Profile =
            "ttft=100,tpot=10,jitter=constant,reasoning=3,tokens=5,tool_call=f:3".parse().unwrap();
        for wire in WIRES {
            let plan = from_profile(&p, &PlanRequest { wire, ..req(true, None) });
            let mut r = Recorder::with_wire(0.0, wire);
            r.on_headers(plan.headers_at_ms, 200);
            for e in &plan.events {
                r.on_bytes(e.at_ms, e.data.as_bytes());
            }
            let t = r.finish(plan.last_token_ms(), StreamEnd::Closed);
            let name = wire.name();
            assert_eq!(t.failure, None, "{name}");
            assert_eq!(plan.completion_tokens, 12, "{name}: 3 + 5 + a call of 4 fragments");
            let first = if wire == Wire::Text { 130.0 } else { 100.0 };
            assert_eq!(t.chunks[0].arrived_ms, first, "{name}: the first token at the profile's TTFT");
            assert_eq!(t.chunks.iter().filter(|c| c.kind == ChunkKind::Content).count(), 5, "{name}");
            let last = t.chunks.last().unwrap().arrived_ms;
            let expected = if wire == Wire::Text { 170.0 } else { 100.0 + 11.0 * 10.0 };
            assert_eq!(last, expected, "{name}: the last piece when the profile has it");
            if !matches!(wire, Wire::Text | Wire::UiStream) {
                assert_eq!(t.usage.and_then(|u| u.completion_tokens), Some(12), "{name}");
            }
        }
    }

    #[test]
    fn tool_call_profiles_play_back_as_calls() {
        use crate::trace::tool_calls;
        let p: Profile =
            "ttft=100,tpot=10,jitter=constant,tokens=0,tool_call=get_weather:4+get_time:2".parse().unwrap();
        assert_eq!(p.to_string().split(',').next_back(), Some("tool_call=get_weather:4+get_time:2"));
        let plan = from_profile(&p, &req(true, None));
        assert_eq!(plan.finish_reason, "tool_calls");
        let t = play(&plan);
        assert_eq!(t.failure, None, "a call-only response is complete");
        let calls = tool_calls(&t);
        assert_eq!(
            calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            vec!["get_weather", "get_time"]
        );
        assert!(calls.iter().all(|c| c.valid_json && c.complete_ms.is_some()));
        assert_eq!(calls[0].first_ms, 100.0);
        assert_eq!(calls[1].complete_ms, Some(100.0 + 7.0 * 10.0), "5 + 3 fragments, 10 ms apart");
        assert_eq!(t.usage.unwrap().completion_tokens, Some(8));
        // Text first, then the call; and the recorded trace replays the same calls.
        let p: Profile = "ttft=50,tpot=5,jitter=constant,tokens=3,tool_call=f:3".parse().unwrap();
        let t = play(&from_profile(&p, &req(false, None)));
        assert!(!t.text().is_empty());
        assert_eq!(tool_calls(&t)[0].first_ms, 50.0 + 3.0 * 5.0);
        let again = play(&from_recorded(&t, &req(false, None)));
        assert_eq!(tool_calls(&again), tool_calls(&t));
    }

    #[test]
    fn a_reasoning_phase_streams_as_reasoning_content() {
        use crate::measure::metrics::{MetricsConfig, RequestMetrics};
        let p: Profile = "ttft=100,tpot=10,jitter=constant,reasoning=20,tokens=5".parse().unwrap();
        assert!(p.to_string().contains(",reasoning=20"));
        let t = play(&from_profile(&p, &req(false, None)));
        assert_eq!(t.failure, None);
        let kinds: Vec<ChunkKind> = t.chunks.iter().map(|c| c.kind).collect();
        assert_eq!(kinds.iter().filter(|k| **k == ChunkKind::Reasoning).count(), 20);
        assert_eq!(kinds[20..], [ChunkKind::Content; 5]);
        let m = RequestMetrics::of(0, &t, &MetricsConfig::default());
        assert_eq!(m.ttft_ms, Some(100.0));
        assert_eq!(m.time_to_first_answer_ms, Some(100.0 + 20.0 * 10.0));
        assert_eq!(m.reasoning_ms, Some(200.0));
        assert_eq!(m.output_tokens, 25);
    }

    #[test]
    fn recorded_request_replays_relative_times() {
        let trace = Trace::from_json(include_str!("../../../../tests/fixtures/hand.trace.json")).unwrap();
        let b = &trace.requests[1]; // sent 1000, headers 1030, chunks 1200 (1), 1240 (4), 1260 (1)
        let plan = from_recorded(b, &req(true, None));
        assert_eq!(plan.headers_at_ms, 30.0);
        let t = play(&plan);
        assert_eq!(t.chunks.iter().map(|c| c.arrived_ms).collect::<Vec<_>>(), [200.0, 240.0, 260.0]);
        assert_eq!(t.text(), b.text());
        assert_eq!(plan.completion_tokens, 6);
        let cut = from_recorded(b, &req(false, Some(1)));
        assert_eq!((cut.completion_tokens, cut.finish_reason), (1, "length"));
    }

    #[test]
    fn min_tokens_and_ignore_eos_give_the_length_a_workload_asks() {
        let p = Profile::simple("p", 50.0, 5.0, 10);
        let tokens = |r: &PlanRequest| from_profile(&p, r).completion_tokens;
        let mut r = req(false, Some(40));
        assert_eq!(tokens(&r), 10, "the profile's own length under max_tokens");
        r.min_tokens = Some(25);
        assert_eq!(tokens(&r), 25);
        r.min_tokens = None;
        r.ignore_eos = true;
        assert_eq!(tokens(&r), 40, "ignore_eos: up to max_tokens");
        assert_eq!(from_profile(&p, &r).finish_reason, "length");
        let short = PlanRequest { ignore_eos: true, ..req(false, Some(4)) };
        assert_eq!(tokens(&short), 4);
        let unbounded = PlanRequest { ignore_eos: true, ..req(false, None) };
        assert_eq!(tokens(&unbounded), 10, "ignore_eos without max_tokens changes nothing");
    }
}

//! Self-contained HTML reports, for people who were not in the room.
//!
//! Pure exporters: they return one HTML document as a `String` (inline CSS,
//! inline SVG charts, no script, no external resource), so the file can be
//! mailed, attached to a ticket or opened offline. Every piece of text that
//! came from a trace, a file or a person is escaped ([`escape`]).
//!
//! - [`run_report`]: a run's latency rows (every row of
//!   [`crate::measure::registry::LATENCY`] the run has: mean and percentiles of TTFT, TPOT,
//!   ITL, E2EL), throughput, goodput, scenario scores with their
//!   explanations, and a per-request timeline (waiting for the first token,
//!   then streaming).
//! - [`study_report`]: a study's conditions, mean ratings with 95%
//!   confidence intervals (table and chart), 2AFC preference shares with
//!   binomial p-values, the placement-bias check and the per-participant
//!   table.

use std::fmt::Write as _;

use crate::chart::{LinearScale, nice_ticks};
use crate::measure::analysis::Analysis;
use crate::measure::metrics::{MetricsConfig, RequestMetrics};
use crate::measure::registry::{LATENCY, LatencyRow};
use crate::measure::stats::Summary as Stats;
use crate::share::library::EntryStatus;
use crate::study::results::Summary as StudySummary;
use crate::study::{ConditionSource, Question, Study};
use crate::trace::Trace;

/// Requests drawn in a run report's timeline (the rest are counted).
pub const TIMELINE_MAX_REQUESTS: usize = 200;

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}\
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ccd;padding-bottom:.2rem}\
table{border-collapse:collapse;margin:.5rem 0}th,td{padding:.25rem .6rem;border-bottom:1px solid #e3e6ea;text-align:right}\
th:first-child,td:first-child{text-align:left}.muted{color:#5b6570}svg{max-width:100%;height:auto;font:11px sans-serif}\
@media (prefers-color-scheme:dark){body{background:#15181c;color:#e6e8eb}th,td{border-color:#2c3238}}";

pub(crate) fn page(title: &str, generated_at: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>{t}</title><style>{STYLE}</style></head><body>\
<h1>{t}</h1><p class=\"muted\">Latency Lab report, generated {g}.</p>{body}</body></html>\n",
        t = escape(title),
        g = escape(generated_at),
    )
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.filter(|v| v.is_finite()).map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}"))
}

fn stats_row(out: &mut String, row: &LatencyRow, s: Option<&Stats>) {
    let _ = write!(
        out,
        "<tr data-metric=\"{}\"><td title=\"{}\">{}</td>",
        row.id,
        escape(row.what),
        escape(row.label)
    );
    match s {
        Some(s) => {
            for v in [s.mean, s.p50, s.p90, s.p95, s.p99, s.max] {
                let _ = write!(out, "<td>{v:.1}</td>");
            }
            let _ = write!(out, "<td>{}</td></tr>", s.count);
        }
        None => out.push_str("<td colspan=\"7\" class=\"muted\">no data</td></tr>"),
    }
}

/// "N (C completed, F failed)". In a partial run, a request that had not
/// ended when the run was saved (no end, no failure) is named apart: its
/// figures count what it had received, but it did not complete.
fn requests_fact(trace: &Trace, per_request: &[RequestMetrics], status: EntryStatus) -> String {
    let open = match status {
        EntryStatus::Complete => 0,
        EntryStatus::Recording | EntryStatus::Interrupted => per_request
            .iter()
            .filter(|m| m.completed && trace.requests.get(m.index).is_some_and(|r| r.end_ms.is_none()))
            .count(),
    };
    let completed = per_request.iter().filter(|m| m.completed).count() - open;
    let failed = per_request.len() - completed - open;
    let mut fact = format!("{} ({completed} completed, {failed} failed", per_request.len());
    if open > 0 {
        let how = if status == EntryStatus::Recording { "still streaming" } else { "cut off" };
        let _ = write!(fact, ", {open} {how} when saved");
    }
    fact.push(')');
    fact
}

/// A run report (see the module docs). `generated_at` is printed as given;
/// a run that is not complete says so before anything else.
pub fn run_report(trace: &Trace, analysis: &Analysis, generated_at: &str, status: EntryStatus) -> String {
    let m = &analysis.metrics;
    let mut b = String::new();
    let title = analysis.label.clone().unwrap_or_else(|| "Run".into());
    if let Some(caveat) = status.caveat() {
        let _ = write!(b, "<p class=\"caveat\" role=\"note\"><strong>{}</strong></p>", escape(caveat));
    }
    b.push_str("<table>");
    let facts = [
        ("Model", trace.meta.model.clone()),
        ("Endpoint", trace.meta.endpoint.clone()),
        ("Recorded", trace.meta.created_at.clone()),
        ("Source", Some(format!("{:?}", trace.meta.source).to_lowercase())),
        ("Requests", Some(requests_fact(trace, &m.per_request, status))),
        ("Output tokens/s (system)", Some(num(m.output_tokens_per_s, 1))),
    ];
    for (k, v) in facts {
        if let Some(v) = v {
            let _ = write!(b, "<tr><th scope=\"row\">{k}</th><td>{}</td></tr>", escape(&v));
        }
    }
    b.push_str("</table>");
    b.push_str("<h2>Latency (ms)</h2><table><thead><tr><th>metric</th><th>mean</th><th>P50</th><th>P90</th><th>P95</th><th>P99</th><th>max</th><th>n</th></tr></thead><tbody>");
    for r in LATENCY.iter().filter(|r| r.shown_for(m)) {
        stats_row(&mut b, r, (r.get)(m).as_ref());
    }
    b.push_str("</tbody></table>");
    b.push_str("<h2>How it felt</h2><p>");
    b.push_str(&escape(&crate::measure::analysis::feel_lines(m)).replace('\n', "<br>"));
    b.push_str("</p>");
    if let Some(g) = &analysis.goodput {
        let _ = write!(
            b,
            "<h2>Goodput</h2><p>{} of {} requests ({:.1}%) met every SLO ({}).</p><ul>",
            g.good,
            g.total,
            g.ratio * 100.0,
            escape(&g.slos)
        );
        for s in &g.per_slo {
            let _ = write!(
                b,
                "<li>{} ≤ {} ms: {:.1}%</li>",
                escape(&s.slo.metric.to_string()),
                s.slo.threshold_ms,
                s.ratio * 100.0
            );
        }
        b.push_str("</ul>");
    }
    b.push_str("<h2>Scores per scenario</h2><table><thead><tr><th>scenario</th><th>score</th><th>verdict</th></tr></thead><tbody>");
    for s in &analysis.scores {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&s.name),
            num(s.score, 0),
            s.verdict.map_or("–", |v| v.word())
        );
    }
    b.push_str("</tbody></table><ul>");
    // Each explanation is a sentence that starts with the scenario's name.
    for s in &analysis.scores {
        let _ = write!(b, "<li>{}</li>", escape(&s.explanation));
    }
    b.push_str("</ul>");
    b.push_str(&timeline(trace));
    page(&title, generated_at, &b)
}

/// A per-request timeline: a light bar while waiting for the first token,
/// a dark bar while streaming.
fn timeline(trace: &Trace) -> String {
    let cfg = MetricsConfig::default();
    let per: Vec<RequestMetrics> =
        trace.requests.iter().enumerate().map(|(i, r)| RequestMetrics::of(i, r, &cfg)).collect();
    let shown: Vec<&RequestMetrics> = per.iter().take(TIMELINE_MAX_REQUESTS).collect();
    if shown.is_empty() {
        return String::new();
    }
    let t0 = shown.iter().map(|r| r.sent_ms).fold(f64::INFINITY, f64::min);
    let end = shown.iter().map(|r| r.last_event_ms - t0).fold(1.0, f64::max);
    let (w, row, left) = (720.0, 6.0, 40.0);
    let h = shown.len() as f64 * row + 30.0;
    let x = LinearScale::new((0.0, end), (left, w - 10.0));
    let mut s = format!(
        "<h2>Timeline</h2><p class=\"muted\">One row per request{}: light = waiting for the first token, dark = streaming, red = failed.</p>\
<svg viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Request timeline\">",
        if per.len() > shown.len() {
            format!(" (first {} of {})", shown.len(), per.len())
        } else {
            String::new()
        }
    );
    for (i, r) in shown.iter().enumerate() {
        let y = 4.0 + i as f64 * row;
        let start = r.sent_ms - t0;
        let first = r.ttft_ms.map_or(r.last_event_ms - t0, |t| start + t);
        let last = r.last_event_ms - t0;
        let wait_color = if r.completed { "#9fb7d9" } else { "#e07a7a" };
        let _ = write!(
            s,
            "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{wait_color}\"/>",
            x.map(start),
            (x.map(first) - x.map(start)).max(0.5),
            row - 1.0
        );
        if r.ttft_ms.is_some() {
            let _ = write!(
                s,
                "<rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#2b5ea7\"/>",
                x.map(first),
                (x.map(last) - x.map(first)).max(0.5),
                row - 1.0
            );
        }
    }
    let axis_y = h - 22.0;
    for t in nice_ticks(0.0, end, 6) {
        if t <= end {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\">{}</text>",
                x.map(t),
                axis_y + 16.0,
                fmt_tick(t)
            );
        }
    }
    s.push_str("</svg>");
    s
}

fn fmt_tick(ms: f64) -> String {
    if ms >= 1000.0 { format!("{:.1} s", ms / 1000.0) } else { format!("{ms:.0} ms") }
}

fn source_text(c: &ConditionSource) -> String {
    match c {
        ConditionSource::Profile(spec) => spec.clone(),
        ConditionSource::Recorded(r) => format!("recorded request ({} chunks)", r.chunks.len()),
    }
}

/// A study report (see the module docs).
pub fn study_report(study: &Study, summary: &StudySummary, generated_at: &str) -> String {
    let name = |id: &str| {
        study.conditions.iter().find(|c| c.id == id).map_or_else(|| id.to_string(), |c| c.name.clone())
    };
    let mut b = format!(
        "<p>{} participant(s); {} repetition(s); order: {}.</p><h2>Conditions</h2><table><thead><tr><th>id</th><th>name</th><th>what plays</th></tr></thead><tbody>",
        summary.participants,
        study.repetitions,
        match study.order {
            crate::study::Order::LatinSquare => "balanced Latin square".to_string(),
            crate::study::Order::Random { seed } => format!("random (seed {seed})"),
        }
    );
    for c in &study.conditions {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            escape(&c.id),
            escape(&c.name),
            escape(&source_text(&c.source))
        );
    }
    b.push_str("</tbody></table>");
    for q in &study.questions {
        match q {
            Question::Rating { id, prompt, points, low, high } => {
                let rows: Vec<_> = summary.ratings.iter().filter(|r| &r.question == id).collect();
                let _ = write!(
                    b,
                    "<h2>“{}”</h2><p class=\"muted\">Rating 1 ({}) to {points} ({}); mean with 95% confidence interval (t distribution).</p>\
<table><thead><tr><th>condition</th><th>n</th><th>mean</th><th>95% CI</th><th>SD</th></tr></thead><tbody>",
                    escape(prompt),
                    escape(low),
                    escape(high)
                );
                for r in &rows {
                    let (n, mean, ci, sd) = match &r.ci {
                        Some(c) => (
                            c.n.to_string(),
                            format!("{:.2}", c.mean),
                            r.interval_text(),
                            format!("{:.2}", c.sd),
                        ),
                        None => ("0".into(), "–".into(), "–".into(), "–".into()),
                    };
                    let _ = write!(
                        b,
                        "<tr><td>{}</td><td>{n}</td><td>{mean}</td><td>{ci}</td><td>{sd}</td></tr>",
                        escape(&r.name)
                    );
                }
                b.push_str("</tbody></table>");
                b.push_str(&rating_chart(&rows, f64::from(*points)));
            }
            Question::Choice { id, prompt } => {
                let _ = write!(
                    b,
                    "<h2>“{}”</h2><p class=\"muted\">Two-alternative forced choice; p = exact two-sided binomial test against 50/50.</p>\
<table><thead><tr><th>pair</th><th>n</th><th>first chosen</th><th>share</th><th>p</th></tr></thead><tbody>",
                    escape(prompt)
                );
                for r in summary.choices.iter().filter(|r| &r.question == id) {
                    let _ = write!(
                        b,
                        "<tr><td>{} vs {}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td></tr>",
                        escape(&name(&r.a)),
                        escape(&name(&r.b)),
                        r.n,
                        r.a_chosen,
                        r.share_a.map_or("–".into(), |s| format!("{:.0}%", s * 100.0)),
                        r.p_value
                    );
                }
                b.push_str("</tbody></table>");
            }
        }
    }
    if let Some((share, p)) = summary.left_share {
        let _ = write!(
            b,
            "<p>Placement check: the left sample (A) was chosen {:.0}% of the time (p = {p:.4} against 50%).</p>",
            share * 100.0
        );
    }
    b.push_str("<h2>Participants</h2><table><thead><tr><th>participant</th><th>answers</th>");
    for c in &study.conditions {
        let _ = write!(b, "<th>{} mean</th>", escape(&c.name));
    }
    b.push_str("<th>median RT (ms)</th></tr></thead><tbody>");
    for p in &summary.per_participant {
        let _ = write!(b, "<tr><td>{}</td><td>{}</td>", escape(&p.participant), p.answers);
        for r in &p.mean_rating {
            let _ = write!(b, "<td>{}</td>", num(*r, 2));
        }
        let _ = write!(b, "<td>{}</td></tr>", num(p.median_rt_ms, 0));
    }
    b.push_str("</tbody></table>");
    page(&study.title, generated_at, &b)
}

/// Dots (means) with whiskers (95% CI) per condition on the rating scale.
fn rating_chart(rows: &[&crate::study::results::RatingRow], top: f64) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let (w, row, left) = (640.0, 26.0, 200.0);
    let h = rows.len() as f64 * row + 30.0;
    let x = LinearScale::new((1.0, top), (left, w - 20.0));
    let mut s =
        format!("<svg viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"Mean ratings with 95% intervals\">");
    for (i, r) in rows.iter().enumerate() {
        let y = 14.0 + i as f64 * row;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"currentColor\">{}</text>",
            left - 10.0,
            y + 4.0,
            escape(&r.name)
        );
        if let Some(c) = &r.ci {
            if let (Some(lo), Some(hi)) = (c.low, c.high) {
                let _ = write!(
                    s,
                    "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#2b5ea7\" stroke-width=\"2\"/>",
                    x.map(lo.max(1.0)),
                    x.map(hi.min(top))
                );
            }
            let _ = write!(s, "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"#2b5ea7\"/>", x.map(c.mean));
        }
    }
    let axis = h - 8.0;
    for t in 1..=(top as u32) {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{axis:.1}\" text-anchor=\"middle\" fill=\"currentColor\">{t}</text>",
            x.map(f64::from(t))
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::analysis::AnalysisOptions;
    use crate::replay::profile::Profile;
    use crate::study::results::{Answer, summarize};
    use crate::study::session::Session;

    #[test]
    fn escapes_everything_that_could_be_markup() {
        assert_eq!(escape("<img src=x onerror='a'>&\""), "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;&quot;");
    }

    #[test]
    fn run_report_is_self_contained_and_escaped() {
        let mut t = Profile::simple("p", 150.0, 10.0, 20).to_trace(5, 10);
        t.meta.label = Some("<script>alert(1)</script>".into());
        let a = Analysis::of(&t, &AnalysisOptions { slos: "ttft:200".parse().ok(), ..Default::default() });
        let html = run_report(&t, &a, "2026-12-02", EntryStatus::Complete);
        assert!(html.starts_with("<!doctype html>"));
        assert!(!html.contains("Partial"));
        for s in &a.scores {
            let doubled = format!("{}: {}:", s.name, s.name);
            assert!(!html.contains(&escape(&doubled)), "{doubled}");
            assert_eq!(html.matches(&escape(&s.explanation)).count(), 1, "{}", s.explanation);
        }
        let partial = run_report(&t, &a, "2026-12-02", EntryStatus::Recording);
        assert!(partial.contains("Partial: this run was still recording"), "a partial run says so");
        assert!(html.contains("<td>5 (5 completed, 0 failed)</td>"), "a finished run counts its requests");
        assert!(!html.contains("<script"), "label must be escaped");
        assert!(html.contains("&lt;script&gt;"));
        assert!(!html.contains("src=\"http"), "no external resources");
        assert!(html.contains("5 of 5 requests (100.0%) met every SLO"));
        assert_eq!(html.matches("fill=\"#2b5ea7\"").count(), 5, "one streaming bar per request");
        assert!(html.contains("<td>150.0</td>"), "TTFT mean printed");
    }

    #[test]
    fn a_report_scores_and_counts_goodput_as_live_does() {
        // The walk of 2026-12-04: Library → Report showed the five presets
        // only and no goodput, while Live scored a saved scenario too.
        let t = Profile::simple("p", 150.0, 10.0, 20).to_trace(3, 10);
        let mut mine = crate::measure::score::preset("chat").unwrap();
        mine.id = "chat-perceived".into();
        mine.name = "Interactive chat (perceived, ttft-jnd)".into();
        let scenarios = crate::measure::score::custom::all(&[mine]);
        let a = Analysis::of(&t, &AnalysisOptions::standard(scenarios));
        let html = run_report(&t, &a, "2026-12-04", EntryStatus::Complete);
        assert_eq!(a.scores.len(), 6);
        assert!(html.contains("<td>Interactive chat (perceived, ttft-jnd)</td>"), "{html}");
        assert!(html.contains("<h2>Goodput</h2><p>3 of 3 requests (100.0%) met every SLO"), "{html}");
        assert!(html.contains("<li>ttft ≤ 200 ms: 100.0%</li><li>tpot ≤ 15 ms: 100.0%</li>"), "{html}");
    }

    #[test]
    fn study_report_shows_the_statistics() {
        let study = Study::example();
        let mut results = None;
        for p in 0..4u32 {
            let mut s = Session::new(&study, format!("p{p}"), p);
            while let Some(trial) = s.current(&study).cloned() {
                for q in Session::questions(&study, &trial) {
                    let a = match q {
                        Question::Rating { .. } => {
                            Answer::Rating(if trial.conditions[0] == "c2" { 3 } else { 6 })
                        }
                        Question::Choice { .. } => Answer::Choice(0),
                    };
                    s.answer(&study, q.id(), a, 500.0).unwrap();
                }
            }
            match &mut results {
                None => results = Some(s.results()),
                Some(r) => r.merge(&s.results()).unwrap(),
            }
        }
        let sum = summarize(&study, &results.unwrap());
        let html = study_report(&study, &sum, "now");
        assert!(html.contains("4 participant(s)"));
        assert!(html.contains("<td>slow start, fast stream</td><td>4</td><td>3.00</td>"), "{html}");
        assert_eq!(html.matches("<circle").count(), 3);
        assert!(html.contains("Placement check: the left sample (A) was chosen 100%"));
    }

    #[test]
    fn a_partial_run_does_not_count_its_open_request_as_completed() {
        let mut t = Profile::simple("p", 150.0, 10.0, 20).to_trace(3, 10);
        t.requests[2].end_ms = None;
        let a = Analysis::of(&t, &AnalysisOptions::default());
        let recording = run_report(&t, &a, "2026-12-03", EntryStatus::Recording);
        assert!(recording.contains("<td>3 (2 completed, 0 failed, 1 still streaming when saved)</td>"));
        let cut = run_report(&t, &a, "2026-12-03", EntryStatus::Interrupted);
        assert!(cut.contains("<td>3 (2 completed, 0 failed, 1 cut off when saved)</td>"));
        // A finished run whose file has no end times (imports) is complete.
        let done = run_report(&t, &a, "2026-12-03", EntryStatus::Complete);
        assert!(done.contains("<td>3 (3 completed, 0 failed)</td>"));
    }
}

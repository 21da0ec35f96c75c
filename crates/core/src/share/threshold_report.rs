//! A threshold study's results as one self-contained HTML page (no
//! scripts, nothing fetched): what was varied and how, the pooled curve
//! with its band, the fit and its sentence, each participant's threshold.
//! Every text from the study or a participant id is escaped.

use std::fmt::Write as _;

use super::report::{escape, page};
use crate::chart::threshold::{MARGIN, curve};
use crate::study::Study;
use crate::study::threshold::Procedure;
use crate::study::threshold::analysis::{ThresholdSummary, spread_heading};

/// Where a tick label at `x` in a chart `width` wide is anchored, so the
/// labels at the ends stay inside it ("1000" at the right edge).
pub fn tick_anchor(x: f64, width: f64) -> &'static str {
    if x > width - 24.0 {
        "end"
    } else if x < MARGIN + 8.0 {
        "start"
    } else {
        "middle"
    }
}

/// The report of `study`'s results `summary`, dated `generated_at`.
pub fn threshold_report(study: &Study, summary: &ThresholdSummary, generated_at: &str) -> String {
    let Some(d) = &study.threshold else {
        return page(&study.title, generated_at, "<p>Not a threshold study.</p>");
    };
    let dim = d.dimension;
    let how = match d.procedure {
        Procedure::Staircase(r) => format!(
            "{}-down-1-up staircase, steps ×{} then ×{:.3}, stopped after {} reversals (threshold: geometric mean of the last {}), at most {} pairs",
            r.down, r.first_step, r.step, r.reversals, r.average, r.max_trials
        ),
        Procedure::Psi { trials } => {
            format!("Psi method, {trials} pairs (threshold: posterior mean, 95% credible interval)")
        }
    };
    let answers: usize = summary.participants.iter().map(|p| p.track.len()).sum();
    let mut b = format!(
        "<p>{} participant(s), {answers} answer(s). What varied: {}; reference <code>{}</code>; levels {}–{}; {}. Question: “{}”.</p>",
        summary.participants.len(),
        escape(dim.label()),
        escape(&d.reference),
        dim.number(d.range.0),
        dim.format(d.range.1),
        escape(&how),
        escape(study.questions.first().map_or("", |q| q.prompt()))
    );
    let _ = write!(
        b,
        "<p><strong>{}</strong></p>",
        escape(summary.sentence.as_deref().unwrap_or("No answers yet."))
    );
    if let Some(fit) = &summary.pooled {
        let c = curve(fit, &summary.data, d.range, 520.0, 220.0);
        let _ = write!(
            b,
            "<h2>Pooled psychometric function</h2><svg viewBox=\"0 0 520 220\" role=\"img\" aria-label=\"share picking the reference by level\">\
<polygon points=\"{}\" fill=\"#3b82f6\" fill-opacity=\"0.18\"/><polyline points=\"{}\" fill=\"none\" stroke=\"#1f5fd1\" stroke-width=\"2\"/>",
            c.band, c.curve
        );
        if let Some(y) = c.chance_y {
            let _ = write!(
                b,
                "<line x1=\"{MARGIN}\" x2=\"512\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"currentColor\" stroke-dasharray=\"3 3\" stroke-opacity=\"0.5\"/>"
            );
        }
        for (x, y, r, label) in &c.dots {
            let _ = write!(
                b,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" fill=\"none\" stroke=\"currentColor\"><title>{}</title></circle>",
                escape(label)
            );
        }
        for (x, l) in &c.x_ticks {
            let _ = write!(
                b,
                "<text x=\"{x:.1}\" y=\"216\" text-anchor=\"{}\" fill=\"currentColor\">{l}</text>",
                tick_anchor(*x, 520.0)
            );
        }
        for (y, l) in &c.y_ticks {
            let _ = write!(b, "<text x=\"2\" y=\"{:.1}\" fill=\"currentColor\">{l}</text>", y + 4.0);
        }
        let _ = write!(
            b,
            "<text x=\"40\" y=\"14\" fill=\"currentColor\">share picking the reference</text>\
<text x=\"512\" y=\"190\" text-anchor=\"end\" fill=\"currentColor\">difference from the reference ({})</text></svg>",
            dim.unit()
        );
        let f = fit.fit;
        let _ = write!(
            b,
            "<table><tbody><tr><th>threshold α (half notice)</th><td>{} (95% CI {}–{})</td></tr>\
<tr><th>slope β</th><td>{}</td></tr><tr><th>lapse rate λ</th><td>{:.1}%</td></tr></tbody></table>\
<p class=\"muted\">Logistic in log level, guess rate 0.5, by maximum likelihood; intervals from 200 parametric-bootstrap datasets.</p>",
            dim.format(f.alpha),
            dim.number(fit.alpha_ci.0),
            dim.number(fit.alpha_ci.1),
            fit.beta_text(),
            f.lapse * 100.0
        );
    }
    let _ = write!(
        b,
        "<h2>Participants</h2><table><thead><tr><th>participant</th><th>pairs</th><th>reversals</th><th>threshold</th><th>{}</th></tr></thead><tbody>",
        escape(&spread_heading(&d.procedure))
    );
    for p in &summary.participants {
        let t = p.threshold.map_or_else(|| "not reached".into(), |(t, _)| dim.format(t));
        let ci = p
            .spread(&d.procedure)
            .map_or_else(|| "–".into(), |(lo, hi)| format!("{}–{}", dim.number(lo), dim.number(hi)));
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{t}</td><td>{ci}</td></tr>",
            escape(&p.participant),
            p.track.len(),
            p.reversals.len()
        );
    }
    b.push_str("</tbody></table>");
    page(&study.title, generated_at, &b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::threshold::analysis::{ParticipantThreshold, summarize};
    use crate::study::threshold::design::{Dimension, ThresholdDesign};

    #[test]
    fn the_report_says_what_varied_and_escapes_what_people_typed() {
        let mut s = Study::new_threshold(ThresholdDesign::new(
            Dimension::Stall,
            "ttft=100,tpot=20,tokens=20".into(),
            1,
        ));
        s.title = "<script>x</script>".into();
        let empty = summarize(s.threshold.as_ref().unwrap(), &[], 1);
        let html = threshold_report(&s, &empty, "today");
        assert!(html.contains("&lt;script&gt;") && !html.contains("<script>"));
        assert!(html.contains("Stall length") && html.contains("No answers yet."));
        let mut with = empty.clone();
        with.participants.push(ParticipantThreshold {
            participant: "p<1>".into(),
            track: vec![(100.0, true)],
            reversals: vec![],
            threshold: Some((150.0, None)),
        });
        let html = threshold_report(&s, &with, "today");
        assert!(html.contains("<td>p&lt;1&gt;</td><td>1</td><td>0</td><td>150 ms</td>"), "{html}");
    }

    #[test]
    fn the_chart_has_its_axes_inside_the_page() {
        // The walk of 2026-12-04: no y labels, and "1000" cut at the right edge.
        let mut s =
            Study::new_threshold(ThresholdDesign::new(Dimension::Ttft, "ttft=200,tokens=20".into(), 1));
        s.edit_threshold(|d| d.range = (10.0, 1000.0));
        let trials: Vec<_> = (0..40)
            .map(|i| {
                let level = [20.0, 50.0, 100.0, 200.0, 500.0][i % 5];
                crate::study::threshold::analysis::ThresholdTrial {
                    participant: "p1".into(),
                    trial: i,
                    level,
                    reference_first: true,
                    chosen: u8::from(i % 7 == 0 && level < 60.0),
                    rt_ms: 500.0,
                }
            })
            .collect();
        let summary = summarize(s.threshold.as_ref().unwrap(), &trials, 1);
        assert!(summary.pooled.is_some());
        let html = threshold_report(&s, &summary, "today");
        assert!(html.contains(">50%</text>") && html.contains(">100%</text>"), "y labels");
        assert!(
            html.contains("text-anchor=\"end\" fill=\"currentColor\">1000</text>"),
            "the last tick inside"
        );
        assert!(html.contains("difference from the reference (ms)"));
        assert_eq!(tick_anchor(515.0, 520.0), "end");
        assert_eq!(tick_anchor(260.0, 520.0), "middle");
    }
}

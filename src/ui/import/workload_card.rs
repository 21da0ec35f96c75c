//! A workload file as the Import view shows it (core's
//! `workload::summary::Digest`, the same figures as `latency-lab analyze`):
//! its rate over time (a chart with axes), lengths, sessions and prefix
//! reuse, and the command that sends it as it is (core's
//! `workload::command`) to this lab's replay endpoint.

use lab_core::workload::command::{LAB_SERVER_MODEL, run_command};
use lab_core::workload::summary::{Digest, LengthDigest};
use leptos::prelude::*;

use crate::browser::importer::LoadedWorkload;
use crate::browser::page;
use crate::ui::charts::WorkloadRateChart;
use crate::ui::format::{opt, percent};

fn lengths(l: &LengthDigest) -> String {
    let p = |v: Option<u32>| v.map_or("–".into(), |v| v.to_string());
    format!(
        "mean {}, P50 {}, P90 {}, P99 {}, max {}",
        opt(l.mean, |m| format!("{m:.0}")),
        p(l.p50),
        p(l.p90),
        p(l.p99),
        l.max
    )
}

/// The digest's rows: (what, value).
fn rows(d: &Digest) -> Vec<(&'static str, String)> {
    let approx = if d.approximate_counts > 0 {
        " (approximate: the lab's pseudo tokens; latency-lab analyze counts cl100k tokens)"
    } else {
        ""
    };
    let mut out = vec![("requests", d.requests.to_string())];
    match (d.duration_s, d.mean_rate) {
        (Some(span), Some(rate)) => {
            out.push(("span", format!("{span:.1} s")));
            out.push((
                "request rate",
                format!("mean {rate:.2}/s, busiest second {}", d.peak_rate_1s.unwrap_or(0)),
            ));
            out.push((
                "burstiness",
                opt(d.burstiness_cv, |b| format!("{b:.2} (CV of the gaps between sends; Poisson = 1)")),
            ));
        }
        _ => out
            .push(("send times", "none in the file (sent one after another, or at a rate you give)".into())),
    }
    out.push(("input tokens", format!("{}{approx}", lengths(&d.input_tokens))));
    out.push(("output tokens", format!("{}{approx}", lengths(&d.output_tokens))));
    if let (Some(mean), Some(max)) = (d.turns_mean, d.turns_max) {
        out.push(("sessions", format!("{} (turns: mean {mean:.1}, most {max})", d.sessions)));
    }
    if let (Some(reuse), Some(saved)) = (d.prefix_reuse, d.prompt_tokens_saved) {
        out.push((
            "prefix reuse",
            format!(
                "{} of {} blocks seen before: an unbounded prefix cache skips {} of prompt tokens",
                percent(reuse),
                d.blocks,
                percent(saved)
            ),
        ));
    }
    out
}

/// One workload file.
#[component]
pub fn WorkloadCard(workload: LoadedWorkload) -> impl IntoView {
    let d = workload.digest;
    let rate = d.rate_over_time.clone();
    let title = format!("{} · {} workload", workload.file, d.format.clone().unwrap_or_default());
    let command = run_command(&workload.file, &page::origin(), LAB_SERVER_MODEL, d.output_tokens.max > 0);
    view! {
        <article class="run-card" data-testid="workload-card">
            <h3>{title}</h3>
            <table class="metrics"><tbody>
                {rows(&d).into_iter().map(|(k, v)| view! { <tr><th scope="row">{k}</th><td>{v}</td></tr> }).collect_view()}
            </tbody></table>
            {(!rate.is_empty()).then(|| view! { <WorkloadRateChart points=rate/> })}
            <p class="hint">
                "Send it open loop at its own times, each answer as long as its row asks, to this lab's replay endpoint as a serving engine (prefill, a prefix cache, 4 decode slots), and feel it while it runs (Live, probe while loaded): "
                <code data-testid="workload-command">{command}</code>
                " Against your own server: its address in --target and its model in --model."
            </p>
        </article>
    }
}

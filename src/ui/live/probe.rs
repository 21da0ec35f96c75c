//! A probe run's results (`lab_core::workload::probe`): per window the load
//! offered and the server's queueing beside what the probes felt, judged by
//! a chosen scenario; the speed sweep's breaking point in words; and two
//! windows' typical probes played side by side in the Replay lab. A run
//! probed beside another tool's load takes that load's own trace
//! ([`crate::browser::use_load_trace`]).

use lab_core::measure::metrics::MetricsConfig;
use lab_core::share::command::{Command, RecordedPane};
use lab_core::trace::Trace;
use lab_core::workload::probe::{PASS_SCORE, ProbeReport, ProbeWindow};
use leptos::prelude::*;

use crate::browser::files::take_chosen;
use crate::browser::use_commands;
use crate::browser::use_load_trace::{UseLoadTrace, use_load_trace};
use crate::browser::use_scenarios::UseScenarios;
use crate::ui::format::{ms, opt, percent};

/// The probe run's section (nothing for other runs).
#[component]
pub fn ProbeResults(trace: Trace, config: MetricsConfig) -> impl IntoView {
    let scenarios = expect_context::<UseScenarios>();
    let chosen = RwSignal::new("chat".to_string());
    // Windows without a speed were loaded by another tool: its trace can be added.
    let external = trace.meta.load.iter().all(|w| w.speed.is_none());
    let load = use_load_trace(trace);
    let report = Memo::new(move |_| {
        let id = chosen.get();
        let s = scenarios.all.with(|all| all.iter().find(|s| s.id == id).or(all.first()).cloned())?;
        load.trace.with(|t| ProbeReport::of(t, &s, &config))
    });
    move || {
        report.get().map(|r| {
            let verdict = r.words.last().cloned().unwrap_or_default();
            let sentences = r.words[..r.words.len().saturating_sub(1)].to_vec();
            view! {
                <section class="probe" data-testid="probe">
                    <h4>"Felt while loaded"</h4>
                    <label>"judged as "
                        <select data-testid="probe-scenario" prop:value=move || chosen.get()
                            on:change=move |ev| chosen.set(event_target_value(&ev))>
                            {move || scenarios.all.get().into_iter().map(|s| view! { <option value=s.id.clone()>{s.name}</option> }).collect_view()}
                        </select>
                    </label>
                    <ProbeTable windows=r.windows.clone()/>
                    {external.then(|| view! { <AddLoad load=load/> })}
                    <p data-testid="probe-breaking"><b>{verdict}</b></p>
                    <ul class="probe-words" data-testid="probe-words">
                        {sentences.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}
                    </ul>
                    <FeelWindows windows=r.windows trace=load.trace/>
                </section>
            }
        })
    }
}

/// The table's columns after the window's own.
const COLUMNS: [&str; 11] = [
    "offered req/s",
    "admitted req/s",
    "queued",
    "queue P90",
    "load's TTFT P90",
    "probes",
    "TTFT P50",
    "TTFT P90",
    "first paint P50",
    "QoE P50",
    "score",
];

/// A window's cells, in [`COLUMNS`] order.
fn cells(w: &ProbeWindow) -> Vec<String> {
    let rate = |v: Option<f64>| opt(v, |v| format!("{v:.1}"));
    vec![
        rate(w.load.offered_per_s),
        rate(w.admitted_per_s),
        opt(w.queued_share, percent),
        opt(w.queued_ms.map(|q| q.p90), ms),
        opt(w.load_ttft_ms.map(|q| q.p90), ms),
        format!("{} / {}", w.answered, w.requests.len()),
        opt(w.ttft_ms.map(|s| s.p50), ms),
        opt(w.ttft_ms.map(|s| s.p90), ms),
        match w.first_paint_ms {
            // A run recorded when overlapping probes were not drawn.
            Some(s) if s.count < w.answered => format!("{} ({} drawn)", ms(s.p50), s.count),
            s => opt(s.map(|s| s.p50), ms),
        },
        opt(w.qoe, |v| format!("{v:.2}")),
        opt(w.score, |v| format!("{v:.0}")),
    ]
}

/// The load's own trace, added to a run probed beside another tool.
#[component]
fn AddLoad(load: UseLoadTrace) -> impl IntoView {
    let said = move || match load.said.get()? {
        Ok((name, n)) => Some(format!("{name}: {n} of its requests fell in these windows.")),
        Err(why) => Some(why),
    };
    view! {
        <p class="actions">
            <label>"Add the load's own trace (latency-lab run -o …) "
                <input type="file" accept=".json,application/json" data-testid="probe-load-file"
                    on:change=move |ev| load.add(take_chosen(&ev))/>
            </label>
            " " <span data-testid="probe-load-said" role="status">{said}</span>
        </p>
    }
}

/// One row per window.
#[component]
fn ProbeTable(windows: Vec<ProbeWindow>) -> impl IntoView {
    view! {
        <div class="table-scroll" tabindex="0">
            <table class="metrics" data-testid="probe-table">
                <thead><tr>
                    <th scope="col">"load"</th>
                    {COLUMNS.map(|c| view! { <th scope="col">{c}</th> }).collect_view()}
                </tr></thead>
                <tbody>
                    {windows.iter().map(|w| view! {
                        <tr data-testid="probe-row" class:fails=w.score.is_some_and(|s| s < PASS_SCORE)>
                            <th scope="row">{w.load.label.clone()}</th>
                            {cells(w).into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

/// Two windows' typical probes, side by side in the Replay lab.
#[component]
fn FeelWindows(windows: Vec<ProbeWindow>, trace: RwSignal<Trace>) -> impl IntoView {
    let playable: Vec<(String, usize)> =
        windows.iter().filter_map(|w| w.typical.map(|i| (w.load.label.clone(), i))).collect();
    if playable.len() < 2 {
        return None;
    }
    let (a, b) = (RwSignal::new(0usize), RwSignal::new(playable.len() - 1));
    let list = StoredValue::new(playable);
    let options = move || {
        list.with_value(|l| {
            l.iter()
                .enumerate()
                .map(|(k, (label, _))| view! { <option value=k.to_string()>{label.clone()}</option> })
                .collect_view()
        })
    };
    let feel = move |_| {
        let pane = |k: usize| {
            let (label, i) = list.with_value(|l| l[k.min(l.len() - 1)].clone());
            let request = trace.with_untracked(|t| t.requests[i].clone());
            let title = format!("{label} · typical probe");
            RecordedPane { title: title.clone(), label: format!("probe while loaded · {title}"), request }
        };
        use_commands::send(&Command::Replay {
            panes: vec![pane(a.get_untracked()), pane(b.get_untracked())],
        });
    };
    let pick = |s: RwSignal<usize>, id: &'static str| {
        view! {
            <select data-testid=id prop:value=move || s.get().to_string()
                on:change=move |ev| s.set(event_target_value(&ev).parse().unwrap_or(0))>{options()}</select>
        }
    };
    Some(view! {
        <p class="actions">"Feel " {pick(a, "probe-feel-a")} " against " {pick(b, "probe-feel-b")} " "
            <button type="button" data-testid="probe-feel" on:click=feel>"Play side by side"</button>
        </p>
    })
}

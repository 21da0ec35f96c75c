//! Compare runs: imported and recorded runs side by side, in one table with
//! deltas to a baseline (the first compared, or the one chosen) and one
//! chart of their TTFT CDFs. Imported runs and live runs are compared as
//! they come; replays played in the lab are listed but left out until
//! ticked (a comparison starts from what the user measured or loaded).

use lab_core::AnalysisOptions;
use lab_core::chart::{LinearScale, step_polyline};
use lab_core::import::digest::{Delta, RunDigest, browsers_note, compare_runs, compared};
use lab_core::measure::slo::SloSet;
use lab_core::trace::SourceKind;
use leptos::prelude::*;

use crate::browser::importer::Importer;
use crate::browser::library::PageRuns;

/// Most runs drawn at once (the palette has this many colours).
pub const MAX_COMPARED: usize = 6;

const W: f64 = 640.0;
const H: f64 = 300.0;
const PAD_L: f64 = 48.0;
const PAD_B: f64 = 36.0;
const PAD_T: f64 = 10.0;
const PAD_R: f64 = 16.0;

fn cell(d: &Delta, unit: &str, baseline: bool) -> (String, String, &'static str) {
    let value = match d.value {
        Some(v) if unit == "%" => format!("{v:.1}%"),
        Some(v) if unit == "ratio" => format!("{v:.2}"),
        Some(v) if unit.is_empty() => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
        None => "—".into(),
    };
    if baseline {
        return (value, "baseline".into(), "");
    }
    let delta = match (d.diff, d.relative) {
        (Some(x), _) if unit == "ratio" => format!("{x:+.2}"),
        (Some(x), Some(r)) => format!("{x:+.1}{unit} ({:+.0}%)", r * 100.0),
        (Some(x), None) => format!("{x:+.1}{unit}"),
        _ => String::new(),
    };
    let class = match d.improved {
        Some(true) => "better",
        Some(false) => "worse",
        None => "",
    };
    (value, delta, class)
}

/// A run that can be compared: where it came from and its digest.
#[derive(Clone, PartialEq)]
struct Candidate {
    id: String,
    digest: RunDigest,
    /// A playback in the Replay lab (left out until ticked).
    replay: bool,
}

/// The comparison section.
#[component]
pub fn CompareRuns() -> impl IntoView {
    let importer = expect_context::<Importer>();
    let runs = expect_context::<PageRuns>();
    // Runs ticked or unticked against their default (by id); compared: up
    // to MAX_COMPARED of those on.
    let toggled = RwSignal::new(Vec::<String>::new());
    let baseline = RwSignal::new(None::<String>);
    let on = move |c: &Candidate| c.replay == toggled.with(|t| t.contains(&c.id));
    let candidates = Memo::new(move |_| {
        let slos = importer.slos.with(|s| s.parse::<SloSet>().ok());
        let opts = AnalysisOptions { slos, ..AnalysisOptions::default() };
        let mut all: Vec<Candidate> = importer
            .runs
            .get()
            .into_iter()
            .map(|r| Candidate { id: format!("import-{}", r.key), digest: r.digest, replay: false })
            .collect();
        all.extend(runs.runs.get().into_iter().map(|r| Candidate {
            id: format!("run-{}", r.id),
            replay: r.run.trace.meta.source == SourceKind::Replay,
            digest: RunDigest::of_metrics(
                &r.run.trace,
                r.run.analysis.metrics,
                &format!("session run {}", r.id),
                &opts,
            ),
        }));
        all
    });
    let chosen = Signal::derive(move || {
        let mut runs: Vec<Candidate> =
            candidates.get().into_iter().filter(|c| on(c)).take(MAX_COMPARED).collect();
        if let Some(k) = baseline.with(|b| b.as_ref().and_then(|b| runs.iter().position(|c| &c.id == b))) {
            let base = runs.remove(k);
            runs.insert(0, base);
        }
        runs
    });
    view! {
        <section class="compare-runs" data-testid="compare-runs">
            <h3>"Compare runs"</h3>
            <p class="hint">
                "Loaded runs and this session's live runs, side by side (replays played in the lab join when ticked); "
                "the others show their difference to the baseline (green better, red worse). Untick a run to leave it out; "
                {format!("at most {MAX_COMPARED} are drawn.")}
            </p>
            <fieldset class="compare-pick">
                <legend>"Runs"</legend>
                {move || candidates.get().into_iter().map(|c| {
                    let id = c.id.clone();
                    let checked = on(&c);
                    view! {
                        <label class="inline">
                            <input type="checkbox" data-testid="compare-toggle" data-replay=c.replay.to_string() prop:checked=checked
                                on:change=move |_| toggled.update(|t| if t.contains(&id) { t.retain(|x| x != &id) } else { t.push(id.clone()) })/>
                            " "{c.digest.label.clone()}{c.replay.then_some(" (replay)")}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <Show when=move || chosen.with(|c| c.len() > 1)>
                <label>"Baseline "
                    <select data-testid="compare-baseline" on:change=move |ev| baseline.set(Some(event_target_value(&ev)))>
                        {move || chosen.get().into_iter().map(|c| view! { <option value=c.id.clone()>{c.digest.label.clone()}</option> }).collect_view()}
                    </select>
                </label>
            </Show>
            {move || {
                let runs = chosen.get();
                browsers_note(&runs.iter().map(|c| &c.digest).collect::<Vec<_>>())
                    .map(|note| view! { <p class="notice" data-testid="compare-browsers">{note}</p> })
            }}
            <CompareTable runs=chosen/>
            <figure class="chart-figure">
                <TtftCdf runs=chosen/>
                <figcaption>
                    "Share of requests whose first token came within x ms (TTFT CDF). A curve further left is faster; "
                    "where the curves part at the top is the tail users feel."
                </figcaption>
            </figure>
        </section>
    }
}

/// The runs, with deltas to the first: one column per run, one row per
/// figure. (Runs as rows made 13 columns, and at 1280 px the E2EL ones were
/// cut off; at most [`MAX_COMPARED`] runs fit across.)
#[component]
fn CompareTable(runs: Signal<Vec<Candidate>>) -> impl IntoView {
    let deltas = Memo::new(move |_| {
        runs.with(|runs| compare_runs(&runs.iter().map(|c| &c.digest.analysis).collect::<Vec<_>>()))
    });
    let figures = move || {
        compared()
            .into_iter()
            .enumerate()
            .map(|(k, f)| {
                let unit = (!f.unit.is_empty() && f.unit != "%" && f.unit != "ratio").then(|| format!(" ({})", f.unit));
                let cells = move || {
                    deltas.with(|d| {
                        d.iter()
                            .enumerate()
                            .map(|(i, run)| {
                                let (value, delta, class) = cell(&run[k], f.unit, i == 0);
                                view! { <td class=class data-run=i><span class="value">{value}</span><span class="delta">{delta}</span></td> }
                            })
                            .collect_view()
                    })
                };
                view! { <tr data-testid="compare-figure"><th scope="row">{f.label}{unit}</th>{cells}</tr> }
            })
            .collect_view()
    };
    view! {
        <div class="table-scroll" tabindex="0">
            <table class="metrics compare" data-testid="compare-table">
                <thead><tr>
                    <th scope="col">"figure"</th>
                    {move || runs.get().into_iter().enumerate().map(|(i, c)| view! {
                        <th scope="col" data-testid="compare-run" data-run=i><span class=format!("swatch series-{i}")></span>{c.digest.label.clone()}</th>
                    }).collect_view()}
                </tr></thead>
                <tbody>
                    <tr><th scope="row">"completed"</th>
                        {move || runs.get().into_iter().enumerate().map(|(i, c)| view! {
                            <td data-run=i>{c.digest.analysis.metrics.completed}" / "{c.digest.analysis.metrics.requests}</td>
                        }).collect_view()}
                    </tr>
                    {figures}
                </tbody>
            </table>
        </div>
    }
}

/// The runs' TTFT CDFs in one chart.
#[component]
fn TtftCdf(runs: Signal<Vec<Candidate>>) -> impl IntoView {
    move || {
        let runs = runs.get();
        let max = runs.iter().filter_map(|c| c.digest.ttft_cdf.last().map(|p| p.0)).fold(0.0, f64::max);
        // The axis starts at 0 ms: how far from instant each run is shows.
        let (x, xticks) = LinearScale::new((0.0, max.max(1.0)), (PAD_L, W - PAD_R)).nice(6);
        let y = LinearScale::new((0.0, 1.0), (H - PAD_B, PAD_T));
        let describe: Vec<String> = runs
            .iter()
            .map(|c| {
                let t = c.digest.analysis.metrics.ttft_ms;
                let f = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.0} ms"));
                format!("{}: median {}, P99 {}", c.digest.label, f(t.map(|s| s.p50)), f(t.map(|s| s.p99)))
            })
            .collect();
        view! {
            <svg viewBox=format!("0 0 {W} {H}") class="chart cdf" role="img"
                aria-label=format!("TTFT distribution (CDF) of the compared runs. {}", describe.join("; "))
                data-testid="ttft-cdf">
                {xticks.iter().map(|t| {
                    let px = x.map(*t);
                    view! {
                        <line class="grid" x1=px x2=px y1=PAD_T y2=H - PAD_B/>
                        <text class="tick" x=px y=H - PAD_B + 16.0 text-anchor="middle">{format!("{t}")}</text>
                    }
                }).collect_view()}
                {[0.0, 0.25, 0.5, 0.75, 0.9, 1.0].iter().map(|t| {
                    let py = y.map(*t);
                    view! {
                        <line class="grid" x1=PAD_L x2=W - PAD_R y1=py y2=py/>
                        <text class="tick" x=PAD_L - 6.0 y=py + 4.0 text-anchor="end">{format!("{:.0}%", t * 100.0)}</text>
                    }
                }).collect_view()}
                <text class="axis-label" x=(PAD_L + W - PAD_R) / 2.0 y=H - 4.0 text-anchor="middle">"time to first token (ms)"</text>
                {runs.iter().enumerate().map(|(i, c)| view! {
                    <polyline class=format!("series series-{i}") fill="none" points=step_polyline(&c.digest.ttft_cdf, &x, &y)>
                        <title>{c.digest.label.clone()}</title>
                    </polyline>
                }).collect_view()}
            </svg>
        }
    }
}

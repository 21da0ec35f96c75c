//! Feeling an imported run: replay its typical (P50), P90 and worst (P99)
//! request by a chosen metric, or any request, side by side. Each pick says
//! its rank, and when P90 and worst are one request (few requests) or the
//! table's P90 lies between two.

use lab_core::import::digest::{PickBy, Picked, RunDigest};
use leptos::prelude::*;

use crate::browser::importer::{Importer, Pick, replay_pair};
use crate::ui::format::{ms, opt};

/// The replay section of run `key`.
#[component]
pub fn ReplayPicker(key: u32, digest: RunDigest) -> impl IntoView {
    let importer = expect_context::<Importer>();
    let by = RwSignal::new(PickBy::Ttft);
    let pick = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let requests = digest.analysis.metrics.requests;
    let d = StoredValue::new(digest);
    let at = move |p: f64| d.with_value(|d| d.request_at(by.get(), p).map(|r| r.index));
    let named = move |i: Option<usize>, what: &str| {
        let by = by.get_untracked().label();
        let label = match what {
            "worst" => format!("worst (P99 {by})"),
            "typical" => format!("typical (P50 {by})"),
            other => format!("{other} ({by})"),
        };
        i.map(|i| (i, label))
    };
    let go = move |a: Option<Pick>, b: Option<Pick>| match (a, b) {
        (Some(a), Some(b)) => replay_pair(importer, key, d.with_value(|d| d.label.clone()), a, b, error),
        _ => error.set(Some("no completed request to replay in this run".into())),
    };
    let picked = move |_| {
        let n = d.with_value(|d| d.rows.len());
        match pick.get_untracked().trim().parse::<usize>() {
            Ok(i) if (1..=n).contains(&i) => {
                go(Some((i - 1, "picked".to_string())), named(at(50.0), "typical"))
            }
            _ => error.set(Some(format!("pick a request number from 1 to {n}"))),
        }
    };
    let summary = move || {
        let by = by.get();
        d.with_value(|d| {
            let (t, p90, w) = (d.pick_at(by, 50.0), d.pick_at(by, 90.0), d.pick_at(by, 99.0));
            let f = |name: &str, k: Option<Picked>| {
                k.map_or_else(
                    || format!("{name}: —."),
                    |k| {
                        let r = k.row;
                        format!(
                            "{name}: #{} (TTFT {}, TPOT {}, E2EL {}), {} of {} by {}.",
                            r.index + 1,
                            opt(r.ttft_ms, ms),
                            opt(r.tpot_ms, ms),
                            opt(r.e2el_ms, ms),
                            k.rank,
                            k.of,
                            by.label()
                        )
                    },
                )
            };
            let mut out = [f("Typical (P50)", t), f("P90", p90), f("Worst (P99)", w)].join(" ");
            if let (Some(a), Some(b)) = (p90, w)
                && a.row.index == b.row.index
            {
                out.push_str(&format!(
                    " With {} requests the P90's rank is already the last, so P90 and worst play the same request.",
                    a.of
                ));
            }
            if let Some(k) = p90
                && by.value_of(k.row).is_some_and(|v| (v - k.table_value).abs() > 0.01 * k.table_value.abs().max(1.0))
            {
                out.push_str(&format!(
                    " The table's P90 ({}) lies between two requests; the pane plays the request at its rank.",
                    ms(k.table_value)
                ));
            }
            out
        })
    };
    view! {
        <section class="replay-picker" aria-label="Replay requests of this run">
            <h4>"Feel it: replay requests of this run"</h4>
            <label>"Typical and worst by "
                <select data-testid="import-pick-by" on:change=move |ev| {
                    let v = event_target_value(&ev);
                    by.set(PickBy::ALL.into_iter().find(|p| format!("{p:?}") == v).unwrap_or(PickBy::Ttft));
                }>
                    {PickBy::ALL.iter().map(|p| view! { <option value=format!("{p:?}")>{p.label()}</option> }).collect_view()}
                </select>
            </label>
            <button type="button" data-testid="replay-worst" on:click=move |_| go(named(at(99.0), "worst"), named(at(50.0), "typical"))>"Replay worst (P99) vs typical"</button>
            <button type="button" class="secondary" data-testid="replay-p90" on:click=move |_| go(named(at(90.0), "P90"), named(at(50.0), "typical"))>"Replay P90 vs typical"</button>
            <button type="button" class="secondary" data-testid="replay-typical" on:click=move |_| go(named(at(50.0), "typical"), named(at(99.0), "worst"))>"Replay typical (P50) vs worst"</button>
            <label>"or request # "
                <input type="number" min="1" max=requests.to_string() data-testid="import-pick" prop:value=move || pick.get()
                    on:input=move |ev| pick.set(event_target_value(&ev))/>
            </label>
            <button type="button" class="secondary" data-testid="replay-pick" on:click=picked>"Replay it vs typical"</button>
            <p class="hint" data-testid="replay-picks">{summary}</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="import-replay-error">{e}</p> })}
        </section>
    }
}

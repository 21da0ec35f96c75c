//! The fields of the chosen run shape: N and rounds for levels, the
//! longest prompt of a sweep, a conversation's turns, a request rate's
//! rate, burstiness, length and ramp, a probe run's windows and speeds.

use lab_core::load::arrivals::http1_note;
use lab_core::load::shape::ShapeForm;
use leptos::prelude::*;

/// A number field bound to one part of the form, updated as it is typed:
/// text that is not (yet) a number, or that reads as the value already
/// there (`0.` while typing `0.5`), leaves the form alone, so the field is
/// never rewritten under the cursor.
fn number(
    id: &'static str,
    label: &'static str,
    step: &'static str,
    form: RwSignal<ShapeForm>,
    get: fn(&ShapeForm) -> String,
    set: fn(&mut ShapeForm, &str),
) -> impl IntoView {
    view! {
        <label>{label}" "
            <input type="number" min="0" step=step data-testid=id prop:value=move || form.with(get)
                on:input=move |ev| {
                    let mut next = form.get_untracked();
                    set(&mut next, event_target_value(&ev).trim());
                    if next != form.get_untracked() {
                        form.set(next);
                    }
                }/>
        </label>
    }
}

fn whole(s: &str, old: u32) -> u32 {
    s.parse().ok().filter(|v| *v > 0).unwrap_or(old)
}

fn positive(s: &str, old: f64) -> f64 {
    s.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).unwrap_or(old)
}

fn optional(s: &str) -> Option<f64> {
    s.parse().ok().filter(|v: &f64| v.is_finite() && *v > 0.0)
}

fn opt_text(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// The fields `kind` needs.
#[component]
pub fn ShapeFields(kind: Signal<String>, form: RwSignal<ShapeForm>) -> impl IntoView {
    let is = move |k: &'static [&'static str]| move || k.contains(&kind.get().as_str());
    view! {
        <Show when=is(&["repeat", "concurrent", "sweep"])>
            {number("run-n", "N", "1", form, |f| f.n.to_string(), |f, v| f.n = whole(v, f.n))}
        </Show>
        <Show when=is(&["sweep", "prompt_sweep"])>
            {number("run-rounds", "rounds per level", "1", form, |f| f.rounds.to_string(), |f, v| f.rounds = whole(v, f.rounds))}
        </Show>
        <Show when=is(&["prompt_sweep"])>
            <label>"longest prompt "
                <select data-testid="run-prompt-max" prop:value=move || form.with(|f| f.max_prompt_tokens.to_string())
                    on:change=move |ev| form.update(|f| f.max_prompt_tokens = whole(&event_target_value(&ev), f.max_prompt_tokens))>
                    {[1024, 2048, 4096, 8192, 16384].map(|n| view! { <option value=n.to_string()>{format!("{n} tokens")}</option> }).collect_view()}
                </select>
            </label>
        </Show>
        <Show when=is(&["conversation"])>
            {number("run-turns", "turns", "1", form, |f| f.turns.to_string(), |f, v| f.turns = whole(v, f.turns))}
        </Show>
        <Show when=is(&["rate"])>
            {number("run-rate", "requests/s", "0.1", form, |f| f.rate_per_s.to_string(), |f, v| f.rate_per_s = positive(v, f.rate_per_s))}
            {number("run-rate-n", "requests", "1", form, |f| f.rate_requests.to_string(), |f, v| f.rate_requests = whole(v, f.rate_requests))}
            {number("run-burstiness", "burstiness (1 = Poisson)", "0.1", form, |f| f.burstiness.to_string(), |f, v| f.burstiness = positive(v, f.burstiness))}
            {number("run-duration", "for seconds (else N requests)", "1", form, |f| opt_text(f.duration_s), |f, v| f.duration_s = optional(v))}
            {number("run-ramp-from", "ramp from requests/s", "0.1", form, |f| opt_text(f.ramp_from_per_s), |f, v| f.ramp_from_per_s = optional(v))}
            <p class="hint" data-testid="run-rate-note">{move || http1_note(form.with(|f| f.rate_per_s))}</p>
        </Show>
        <Show when=is(&["probe", "probe_external"])>
            {number("probe-window", "seconds per window", "1", form, |f| f.probe.window_s.to_string(), |f, v| f.probe.window_s = positive(v, f.probe.window_s))}
            {number("probe-every", "a probe every (s)", "0.1", form, |f| f.probe.probe_every_s.to_string(), |f, v| f.probe.probe_every_s = positive(v, f.probe.probe_every_s))}
        </Show>
        <Show when=is(&["probe"])>
            {number("probe-max-speed", "top speed (×)", "0.5", form, |f| f.probe.max_speed.to_string(), |f, v| f.probe.max_speed = positive(v, f.probe.max_speed))}
            <p class="hint">"The built-in load of latency-lab serve sends its sample workload at 1×, 1.5×, 2×, 3× … the trace's rate, a window each, to the model of this form (a profile with slots shares them with the probes)."</p>
        </Show>
        <Show when=is(&["probe_external"])>
            {number("probe-windows", "windows", "1", form, |f| f.probe.windows.to_string(), |f, v| f.probe.windows = whole(v, f.probe.windows))}
            <p class="hint">"Start the load yourself (latency-lab run WORKLOAD --target …, or any tool); against latency-lab serve each window also shows the server's queueing."</p>
        </Show>
    }
}

//! Editing a pane's profile: TTFT, TPOT, jitter, stalls, bursts, length,
//! text, prefill and seed. Every change validates through `lab_core` and
//! shows the reason when a number is out of range.

use lab_core::replay::profile::{Jitter, Profile, StallModel, TextSource};
use lab_core::replay::text::SAMPLES;
use leptos::prelude::*;

/// A profile being edited, with the prompt length for its prefill model.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileDraft {
    /// The profile.
    pub profile: Profile,
    /// Prompt tokens fed to the prefill model.
    pub prompt_tokens: u64,
}

fn jitter_kind(j: &Jitter) -> &'static str {
    match j {
        Jitter::Constant => "constant",
        Jitter::Normal { .. } => "normal",
        Jitter::LogNormal { .. } => "lognormal",
        Jitter::Gamma { .. } => "gamma",
        Jitter::Empirical { .. } => "empirical",
    }
}

fn jitter_cv(j: &Jitter) -> f64 {
    match j {
        Jitter::Normal { cv } | Jitter::LogNormal { cv } | Jitter::Gamma { cv } => *cv,
        _ => 0.0,
    }
}

/// The editor. `on_apply` receives a valid draft.
#[component]
pub fn ProfileEditor(index: usize, draft: ProfileDraft, on_apply: Callback<ProfileDraft>) -> impl IntoView {
    let d = RwSignal::new(draft);
    let error = RwSignal::new(None::<String>);
    let num = move |f: fn(&mut ProfileDraft, f64)| {
        move |ev: web_sys::Event| {
            let raw = event_target_value(&ev);
            match raw.trim().parse::<f64>() {
                Ok(v) => {
                    d.update(|d| f(d, v));
                    error.set(d.with_untracked(|d| d.profile.validate().err().map(|e| e.to_string())));
                }
                Err(_) => error.set(Some(format!("\"{raw}\" is not a number"))),
            }
        }
    };
    let field = move |label: &'static str,
                      key: &'static str,
                      get: fn(&ProfileDraft) -> f64,
                      set: fn(&mut ProfileDraft, f64),
                      step: &'static str| {
        view! {
            <label>
                {label}
                <input
                    type="number"
                    step=step
                    data-testid=format!("pane-{index}-edit-{key}")
                    prop:value=move || d.with(|d| get(d).to_string())
                    on:change=num(set)
                />
            </label>
        }
    };
    view! {
        <div class="profile-editor">
            {field("TTFT (ms)", "ttft", |d| d.profile.ttft_ms, |d, v| d.profile.ttft_ms = v, "10")}
            {field("TPOT (ms)", "tpot", |d| d.profile.tpot_ms, |d, v| d.profile.tpot_ms = v, "1")}
            <label>
                "Jitter"
                <select
                    data-testid=format!("pane-{index}-edit-jitter")
                    prop:value=move || d.with(|d| jitter_kind(&d.profile.jitter))
                    on:change=move |ev| {
                        let kind = event_target_value(&ev);
                        d.update(|d| {
                            let cv = jitter_cv(&d.profile.jitter).max(0.1);
                            d.profile.jitter = match kind.as_str() {
                                "constant" => Jitter::Constant,
                                "normal" => Jitter::Normal { cv },
                                "lognormal" => Jitter::LogNormal { cv },
                                _ => Jitter::Gamma { cv },
                            };
                        });
                    }
                >
                    <option value="constant">"constant"</option>
                    <option value="normal">"normal"</option>
                    <option value="lognormal">"log-normal"</option>
                    <option value="gamma">"gamma"</option>
                    <option value="empirical" disabled=true>"from a trace"</option>
                </select>
            </label>
            {field(
                "Jitter CV",
                "cv",
                |d| jitter_cv(&d.profile.jitter),
                |d, v| {
                    d.profile.jitter = match d.profile.jitter {
                        Jitter::Normal { .. } => Jitter::Normal { cv: v },
                        Jitter::LogNormal { .. } => Jitter::LogNormal { cv: v },
                        Jitter::Gamma { .. } => Jitter::Gamma { cv: v },
                        ref other => other.clone(),
                    }
                },
                "0.05",
            )}
            {field(
                "Stall chance",
                "stall-p",
                |d| d.profile.stall.map_or(0.0, |s| s.probability),
                |d, v| {
                    let s = d.profile.stall.unwrap_or(StallModel { probability: 0.0, mean_ms: 800.0, cv: 0.5 });
                    d.profile.stall = (v > 0.0).then_some(StallModel { probability: v, ..s });
                },
                "0.01",
            )}
            {field(
                "Stall (ms)",
                "stall-ms",
                |d| d.profile.stall.map_or(800.0, |s| s.mean_ms),
                |d, v| {
                    if let Some(s) = &mut d.profile.stall {
                        s.mean_ms = v;
                    }
                },
                "50",
            )}
            {field("Burst (tokens)", "burst", |d| f64::from(d.profile.burst), |d, v| d.profile.burst = v.max(0.0) as u32, "1")}
            {field("Tokens", "tokens", |d| f64::from(d.profile.output_tokens), |d, v| d.profile.output_tokens = v.max(0.0) as u32, "10")}
            {field("Prompt tokens", "prompt", |d| d.prompt_tokens as f64, |d, v| d.prompt_tokens = v.max(0.0) as u64, "100")}
            {field("Prefill (ms/token)", "prefill", |d| d.profile.prefill_ms_per_token, |d, v| d.profile.prefill_ms_per_token = v, "0.05")}
            {field("Seed", "seed", |d| d.profile.seed as f64, |d, v| d.profile.seed = v.max(0.0) as u64, "1")}
            <label>
                "Text"
                <select
                    data-testid=format!("pane-{index}-edit-text")
                    prop:value=move || d.with(|d| match &d.profile.text {
                        TextSource::Sample { id } => id.clone(),
                        _ => "custom".into(),
                    })
                    on:change=move |ev| {
                        let id = event_target_value(&ev);
                        if id != "custom" {
                            d.update(|d| d.profile.text = TextSource::Sample { id });
                        }
                    }
                >
                    {SAMPLES.iter().map(|s| view! { <option value=s.id>{s.name}</option> }).collect_view()}
                    <option value="custom" disabled=true>"(own text)"</option>
                </select>
            </label>
            <label class="wide">
                "Or your own text"
                <textarea
                    rows="2"
                    data-testid=format!("pane-{index}-edit-own-text")
                    on:change=move |ev| {
                        let text = event_target_value(&ev);
                        if !text.trim().is_empty() {
                            d.update(|d| d.profile.text = TextSource::Custom { text });
                        }
                    }
                ></textarea>
            </label>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <button
                type="button"
                data-testid=format!("pane-{index}-apply")
                on:click=move |_| match d.with_untracked(|d| d.profile.validate()) {
                    Ok(()) => {
                        error.set(None);
                        on_apply.run(d.get_untracked());
                    }
                    Err(e) => error.set(Some(e.to_string())),
                }
            >
                "Apply"
            </button>
        </div>
    }
}

//! The study designer: conditions (profile specs or recorded requests),
//! the text shown, questions, repetitions, order, consent and instructions.
//! Every edit is validated by `lab_core::study` and shown in words.

use lab_core::replay::profile;
use lab_core::replay::text::SAMPLES;
use lab_core::study::plan::{Block, plan};
use lab_core::study::{Condition, ConditionSource, MAX_CONDITIONS, Order, Question, Study};
use lab_core::trace::{MAX_TRACE_BYTES, Trace};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser::files;

fn next_id(study: &Study, prefix: &str) -> String {
    (1..)
        .map(|i| format!("{prefix}{i}"))
        .find(|id| {
            !study.conditions.iter().any(|c| &c.id == id) && !study.questions.iter().any(|q| q.id() == id)
        })
        .unwrap_or_default()
}

fn spec_of(c: &Condition) -> String {
    match &c.source {
        ConditionSource::Profile(s) => s.clone(),
        ConditionSource::Recorded(_) => String::new(),
    }
}

/// The designer form over `draft`.
#[component]
pub fn StudyDesigner(draft: RwSignal<Study>) -> impl IntoView {
    let file_error = RwSignal::new(None::<String>);
    let edit = move |f: Box<dyn FnOnce(&mut Study)>| draft.update(|s| f(s));
    let validity = move || draft.with(|s| s.validate().err().map(|e| e.to_string()));
    let trials = move || {
        draft.with(|s| {
            if s.validate().is_err() {
                return None;
            }
            let p = plan(s, 0);
            let r = p.iter().filter(|t| t.block == Block::Rating).count();
            Some(format!(
                "Each participant sees {} trial(s): {} single sample(s) to rate and {} A/B pair(s).",
                p.len(),
                r,
                p.len() - r
            ))
        })
    };
    let add_recorded = move |file: web_sys::File| {
        spawn_local(async move {
            let name = file.name();
            let r = files::read_text(&file, MAX_TRACE_BYTES as u64)
                .await
                .map_err(|e| e.to_string())
                .and_then(|t| Trace::from_json(&t).map_err(|e| format!("{name}: {e}")));
            match r {
                Ok(t) => match t.requests.into_iter().find(|r| r.chunks.iter().any(|c| c.tokens > 0)) {
                    Some(req) => {
                        file_error.set(None);
                        draft.update(|s| {
                            if s.conditions.len() < MAX_CONDITIONS {
                                let id = next_id(s, "c");
                                s.conditions.push(Condition {
                                    id,
                                    name: t.meta.label.clone().unwrap_or_else(|| name.clone()),
                                    source: ConditionSource::Recorded(Box::new(req)),
                                });
                            }
                        });
                    }
                    None => file_error.set(Some(format!("{name}: no request with generated tokens"))),
                },
                Err(e) => file_error.set(Some(e)),
            }
        });
    };

    view! {
        <div class="designer" data-testid="study-designer">
            <div class="form-grid">
                <label>"Title"<input type="text" data-testid="study-title" prop:value=move || draft.with(|s| s.title.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| s.title = v)); }/></label>
                <label>"Study id (in results files)"<input type="text" data-testid="study-id" prop:value=move || draft.with(|s| s.id.clone())
                    on:change=move |ev| { let v: String = event_target_value(&ev).trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect(); edit(Box::new(move |s| s.id = v)); }/></label>
                <label>"Text streamed in every sample"
                    <select data-testid="study-text" prop:value=move || draft.with(|s| s.text.clone())
                        on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| s.text = v)); }>
                        {SAMPLES.iter().map(|t| view! { <option value=t.id>{t.name}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Repetitions"<input type="number" min="1" max="20" data-testid="study-reps" prop:value=move || draft.with(|s| s.repetitions.to_string())
                    on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(1); edit(Box::new(move |s| s.repetitions = v)); }/></label>
                <label>"Order"
                    <select data-testid="study-order" prop:value=move || draft.with(|s| match s.order { Order::LatinSquare => "latin", Order::Random { .. } => "random" })
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            edit(Box::new(move |s| s.order = if v == "random" { Order::Random { seed: 1 } } else { Order::LatinSquare }));
                        }>
                        <option value="latin">"balanced Latin square"</option>
                        <option value="random">"random with a seed"</option>
                    </select>
                </label>
                {move || match draft.with(|s| s.order) {
                    Order::Random { seed } => Some(view! {
                        <label>"Seed"<input type="number" min="0" data-testid="study-seed" prop:value=seed.to_string()
                            on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(0); edit(Box::new(move |s| s.order = Order::Random { seed: v })); }/></label>
                    }),
                    Order::LatinSquare => None,
                }}
            </div>
            <label class="block">"Instructions"<textarea rows="3" data-testid="study-instructions" prop:value=move || draft.with(|s| s.instructions.clone())
                on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| s.instructions = v)); }></textarea></label>
            <label class="inline"><input type="checkbox" data-testid="study-consent-on" prop:checked=move || draft.with(|s| s.consent.is_some())
                on:change=move |ev| { let on = event_target_checked(&ev); edit(Box::new(move |s| s.consent = on.then(|| s.consent.clone().unwrap_or_else(|| "I agree that my answers are recorded anonymously.".into())))); }/>
                " Ask for consent first"</label>
            {move || draft.with(|s| s.consent.clone()).map(|c| view! {
                <label class="block">"Consent text"<textarea rows="2" data-testid="study-consent" prop:value=c
                    on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| s.consent = Some(v))); }></textarea></label>
            })}

            <h3>"Conditions"</h3>
            <p class="hint">"Participants never see these names: samples are labelled only “Sample n”, “A” and “B”. A condition is a profile spec (e.g. "<code>"ttft=300,tpot=20,jitter=gamma:0.5"</code>") or a request recorded in a trace."</p>
            <div class="table-scroll" tabindex="0">
            <table class="metrics conditions" data-testid="study-conditions">
                <thead><tr><th scope="col">"id"</th><th scope="col">"name (researcher only)"</th><th scope="col">"profile"</th><th scope="col">""</th></tr></thead>
                <tbody>
                    {move || draft.with(|s| s.conditions.clone()).into_iter().enumerate().map(|(i, c)| {
                        let recorded = matches!(c.source, ConditionSource::Recorded(_));
                        view! {
                            <tr data-testid="condition-row">
                                <th scope="row">{c.id.clone()}</th>
                                <td><input type="text" data-testid="condition-name" aria-label="condition name" prop:value=c.name.clone()
                                    on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| if let Some(c) = s.conditions.get_mut(i) { c.name = v })); }/></td>
                                <td>
                                    {if recorded {
                                        view! { <span>"recorded request"</span> }.into_any()
                                    } else {
                                        view! {
                                            <input type="text" class="spec" data-testid="condition-spec" aria-label="profile spec" prop:value=spec_of(&c)
                                                on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| if let Some(c) = s.conditions.get_mut(i) { c.source = ConditionSource::Profile(v) })); }/>
                                            <select aria-label="fill from a preset" data-testid="condition-preset"
                                                on:change=move |ev| {
                                                    let name = event_target_value(&ev);
                                                    if let Some(p) = profile::preset(&name) {
                                                        let spec = p.to_string();
                                                        edit(Box::new(move |s| if let Some(c) = s.conditions.get_mut(i) { c.source = ConditionSource::Profile(spec); if c.name.is_empty() { c.name = name; } }));
                                                    }
                                                }>
                                                <option value="">"preset…"</option>
                                                {profile::presets().into_iter().map(|p| view! { <option value=p.name.clone()>{p.name.clone()}</option> }).collect_view()}
                                            </select>
                                        }.into_any()
                                    }}
                                </td>
                                <td><button type="button" class="secondary" data-testid="condition-remove"
                                    on:click=move |_| edit(Box::new(move |s| { if i < s.conditions.len() { s.conditions.remove(i); } }))>"Remove"</button></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
            <div class="row-actions">
                <button type="button" class="secondary" data-testid="condition-add" prop:disabled=move || draft.with(|s| s.conditions.len() >= MAX_CONDITIONS)
                    on:click=move |_| edit(Box::new(|s| {
                        let id = next_id(s, "c");
                        s.conditions.push(Condition { id: id.clone(), name: format!("condition {id}"), source: ConditionSource::Profile("ttft=500,tpot=30,tokens=60".into()) });
                    }))>"Add condition"</button>
                <label class="file">"or a recorded request from a trace file "
                    <input type="file" accept=".json,application/json" data-testid="condition-file"
                        on:change=move |ev| {
                            if let Some(f) = files::take_chosen(&ev).into_iter().next() { add_recorded(f); }
                        }/>
                </label>
            </div>
            {move || file_error.get().map(|m| view! { <p class="error" role="alert">{m}</p> })}

            <h3>"Questions"</h3>
            {move || draft.with(|s| s.questions.clone()).into_iter().enumerate().map(|(i, q)| {
                let remove = move |_| edit(Box::new(move |s| { if i < s.questions.len() { s.questions.remove(i); } }));
                match q {
                    Question::Rating { prompt, points, low, high, .. } => view! {
                        <fieldset class="question-edit" data-testid="question-edit-rating">
                            <legend>"Rating after each sample"</legend>
                            <label>"Question"<input type="text" prop:value=prompt data-testid="rating-prompt"
                                on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| if let Some(Question::Rating { prompt, .. }) = s.questions.get_mut(i) { *prompt = v })); }/></label>
                            <label>"Points"
                                <select prop:value=points.to_string() on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(7); edit(Box::new(move |s| if let Some(Question::Rating { points, .. }) = s.questions.get_mut(i) { *points = v })); }>
                                    <option value="5">"5"</option><option value="7">"7"</option>
                                </select>
                            </label>
                            <label>"Label of 1"<input type="text" prop:value=low on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| if let Some(Question::Rating { low, .. }) = s.questions.get_mut(i) { *low = v })); }/></label>
                            <label>"Label of the top"<input type="text" prop:value=high on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| if let Some(Question::Rating { high, .. }) = s.questions.get_mut(i) { *high = v })); }/></label>
                            <button type="button" class="secondary" data-testid="question-remove" on:click=remove>"Remove"</button>
                        </fieldset>
                    }.into_any(),
                    Question::Choice { prompt, .. } => view! {
                        <fieldset class="question-edit" data-testid="question-edit-choice">
                            <legend>"A/B choice after each pair (2AFC)"</legend>
                            <label>"Question"<input type="text" prop:value=prompt data-testid="choice-prompt"
                                on:change=move |ev| { let v = event_target_value(&ev); edit(Box::new(move |s| if let Some(Question::Choice { prompt, .. }) = s.questions.get_mut(i) { *prompt = v })); }/></label>
                            <button type="button" class="secondary" data-testid="question-remove" on:click=remove>"Remove"</button>
                        </fieldset>
                    }.into_any(),
                }
            }).collect_view()}
            <div class="row-actions">
                <button type="button" class="secondary" data-testid="question-add-rating" on:click=move |_| edit(Box::new(|s| {
                    let id = next_id(s, "q");
                    s.questions.push(Question::Rating { id, prompt: "How responsive did this answer feel?".into(), points: 7, low: "very sluggish".into(), high: "very responsive".into() });
                }))>"Add a rating question"</button>
                <button type="button" class="secondary" data-testid="question-add-choice" on:click=move |_| edit(Box::new(|s| {
                    let id = next_id(s, "q");
                    s.questions.push(Question::Choice { id, prompt: "Which one felt faster?".into() });
                }))>"Add an A/B question"</button>
            </div>
            <p class="hint" data-testid="study-plan">{trials}</p>
            {move || validity().map(|m| view! { <p class="error" role="alert" data-testid="study-invalid">{m}</p> })}
        </div>
    }
}

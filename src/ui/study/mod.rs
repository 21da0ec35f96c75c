//! UX studies: design a blind, randomized study of latency profiles, run it
//! as a participant (full screen), and read or export the results.

mod designer;
mod participant;
mod results;

use lab_core::share::link::Shared;
use lab_core::study::Study;
use leptos::prelude::*;
use leptos::task::spawn_local;

pub use designer::StudyDesigner;
pub use participant::{ParticipantFlow, ParticipantMode, Step, condition_pane};
pub use results::StudyResultsView;

use crate::browser::files::{self, download_text, js_message};
use crate::browser::library::Library;
use crate::browser::{share, study_store};

/// Largest study file read (bytes).
pub const MAX_STUDY_BYTES: u64 = 16 * 1024 * 1024;

/// The study view.
#[component]
pub fn StudyView() -> impl IntoView {
    let lib = expect_context::<Library>();
    let flow = expect_context::<ParticipantFlow>();
    let draft = RwSignal::new(Study::example());
    let saved = RwSignal::new(Vec::<Study>::new());
    let loaded = RwSignal::new(false);
    let message = RwSignal::new(None::<String>);
    let link = RwSignal::new(None::<String>);
    let refresh = RwSignal::new(0u32);

    let reload_list = move || {
        spawn_local(async move {
            if let Ok(list) = study_store::studies(&lib).await {
                saved.set(list);
            }
        });
    };
    // The study open last time comes back.
    spawn_local(async move {
        if let Some(s) = study_store::current_study(&lib).await {
            draft.set(s);
        }
        loaded.set(true);
        reload_list();
    });
    // Every valid edit is saved.
    Effect::new(move |_| {
        let s = draft.get();
        if !loaded.get_untracked() || s.validate().is_err() {
            return;
        }
        link.set(None);
        spawn_local(async move {
            match study_store::save_study(&lib, &s).await {
                Ok(()) => reload_list(),
                Err(e) => message.set(Some(format!("The study could not be saved: {e}"))),
            }
        });
    });

    let open_file = move |file: web_sys::File| {
        spawn_local(async move {
            let name = file.name();
            let r = files::read_text(&file, MAX_STUDY_BYTES)
                .await
                .map_err(|e| e.to_string())
                .and_then(|t| Study::from_json(&t).map_err(|e| e.to_string()));
            match r {
                Ok(s) => {
                    message.set(Some(format!("Opened {name}.")));
                    draft.set(s);
                }
                Err(e) => message.set(Some(format!("{name}: {e}"))),
            }
        });
    };
    let download = move |_| {
        let s = draft.get_untracked();
        if let Err(e) = download_text(&format!("{}.study.json", s.id), "application/json", &s.to_json()) {
            message.set(Some(js_message(&e)));
        }
    };
    let make_link = move |_| {
        let s = draft.get_untracked();
        match s.validate() {
            Ok(()) => {
                let url = share::link_for(&Shared::Study(Box::new(s)));
                share::copy(&url);
                link.set(Some(url));
            }
            Err(e) => message.set(Some(e.to_string())),
        }
    };
    let run = move |_| {
        let s = draft.get_untracked();
        match s.validate() {
            Ok(()) => flow.begin(lib, s),
            Err(e) => message.set(Some(format!("The study cannot run yet: {e}"))),
        }
    };
    // Back from a participant session: refresh the results.
    Effect::new(move |_| {
        if !flow.study.with(Option::is_some) {
            refresh.update(|n| *n += 1);
        }
    });

    view! {
        <section class="panel study" data-testid="study-view">
            <h2>"UX study"</h2>
            <p class="hint">
                "Measure how people perceive latency: participants watch samples stream with different profiles, "
                "blind and in a balanced order, and rate them or pick the faster of two. Designs and answers stay in this browser; "
                "send a participant the study link, and merge the answer files they send back."
            </p>
            {move || message.get().map(|m| view! { <p class="notice" role="status" data-testid="study-message">{m}</p> })}
            <div class="row-actions">
                <button type="button" data-testid="study-run" on:click=run>"Run as participant"</button>
                <button type="button" class="secondary" data-testid="study-share" on:click=make_link>"Share link"</button>
                <button type="button" class="secondary" data-testid="study-download" on:click=download>"Download study JSON"</button>
                <label class="file">"Open a study file "
                    <input type="file" accept=".json,application/json" data-testid="study-file"
                        on:change=move |ev| {
                            if let Some(f) = files::take_chosen(&ev).into_iter().next() { open_file(f); }
                        }/>
                </label>
                <label>"Saved studies "
                    <select data-testid="study-saved" on:change=move |ev| {
                        let id = event_target_value(&ev);
                        if id == "~new" {
                            let mut s = Study::example();
                            s.id = format!("study-{}", js_sys::Date::now() as u64);
                            draft.set(s);
                        } else if let Some(s) = saved.with_untracked(|l| l.iter().find(|s| s.id == id).cloned()) {
                            draft.set(s);
                        }
                    }>
                        <option value="">"(this one)"</option>
                        <option value="~new">"new study from the example"</option>
                        {move || saved.get().into_iter().map(|s| view! { <option value=s.id.clone()>{format!("{} ({})", s.title, s.id)}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            {move || link.get().map(|url| view! {
                <div class="share-link">
                    <label>"Study link (copied): "<input type="text" readonly data-testid="study-link" prop:value=url.clone()/></label>
                    {(url.len() > lab_core::share::link::LONG_LINK_BYTES).then(|| view! {
                        <p class="warn">"This link is long (recorded requests are inside it); send the study JSON file instead if your messenger cuts it."</p>
                    })}
                </div>
            })}
            <details open>
                <summary><h3 class="inline-heading">"Design"</h3></summary>
                <StudyDesigner draft=draft/>
            </details>
            <h3>"Results"</h3>
            <StudyResultsView study=draft.into() refresh=refresh/>
        </section>
    }
}

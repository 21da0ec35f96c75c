//! UX studies: design a blind, randomized study of latency profiles, run it
//! as a participant (full screen), and read or export the results (state:
//! [`crate::browser::study`]).

mod browsers;
mod conditions;
mod designer;
mod participant;
mod questions;
mod results;
mod server;
mod steps;
mod threshold;
mod threshold_results;

use lab_core::share::link::LONG_LINK_BYTES;
use leptos::prelude::*;

pub use designer::StudyDesigner;
pub use participant::ParticipantMode;
pub use results::StudyResultsView;

use crate::browser::files;
use crate::browser::library::Library;
use crate::browser::study::{
    UseStudyResultsOptions, UseStudyServerOptions, use_study_designer, use_study_results, use_study_server,
};
use crate::browser::use_route::UseRoute;
use lab_core::share::route::View;
use lab_core::study::Study;
use lab_core::study::version::Frozen;

/// The study view (the study module's: `ui::study_module`); `run_test`
/// runs a study as a test participant.
#[component]
pub fn StudyView(run_test: Callback<Study>) -> impl IntoView {
    let lib = expect_context::<Library>();
    let d = use_study_designer(lib, run_test);
    let route = expect_context::<UseRoute>();
    // Shown while the route is `#study`: a participant session (`#participate`)
    // hides it, and its end shows it again, when the results are read anew.
    let shown = Signal::derive(move || route.route.with(|r| r.view() == View::Study));
    let closed = shown;
    let server = use_study_server(UseStudyServerOptions { lib, draft: d.draft.into(), shown });
    let results = use_study_results(UseStudyResultsOptions {
        lib,
        draft: d.draft.into(),
        published: server.design.into(),
        closed,
        server: server.results.into(),
    });
    // A draft with answers, or published, changes only as a new version.
    Effect::new(move |_| {
        let id = d.draft.with(|s| s.id.clone());
        let published = server.published.with(|p| p.iter().any(|l| l.study_id == id));
        d.frozen.set(Frozen::of(results.answered.get(), published));
    });
    view! {
        <section class="panel study" data-testid="study-view">
            <h2>"UX study"</h2>
            <p class="hint">
                "Measure how people perceive latency: participants watch samples stream with different profiles, "
                "blind and in a balanced order, and rate them or pick the faster of two. Publish the study to this server and share its link: "
                "answers arrive here as they are given. Without a server, send the study link and merge the answer files participants send back."
            </p>
            {move || d.message.get().map(|m| view! { <p class="notice" role="status" data-testid="study-message">{m}</p> })}
            // Nothing is done with the draft before the study open last time is
            // read (hidden, not left out: the view's code stays one type).
            <p class="hint" hidden=move || d.ready.get() data-testid="study-reading">"Reading the study open last time…"</p>
            <div hidden=move || !d.ready.get()>
                <div class="row-actions">
                    <button type="button" data-testid="study-run" on:click=move |_| d.run()>"Run as participant"</button>
                    <button type="button" class="secondary" data-testid="study-share" on:click=move |_| d.share()>"Share link"</button>
                    <button type="button" class="secondary" data-testid="study-download" on:click=move |_| d.download()>"Download study JSON"</button>
                    <label class="file">"Open a study file "
                        <input type="file" accept=".json,application/json" data-testid="study-file"
                            on:change=move |ev| files::take_chosen(&ev).into_iter().take(1).for_each(|f| d.open_file(f))/>
                    </label>
                    <label>"Saved studies "
                        <select data-testid="study-saved" on:change=move |ev| {
                            let id = event_target_value(&ev);
                            d.open((id != "~new").then_some(id.as_str()));
                        }>
                            <option value="">"(this one)"</option>
                            <option value="~new">"new study from the example"</option>
                            {move || d.saved.get().into_iter().map(|s| view! { <option value=s.id.clone()>{format!("{} ({})", s.title, s.id)}</option> }).collect_view()}
                        </select>
                    </label>
                </div>
                {move || d.link.get().map(|url| view! {
                    <div class="share-link">
                        <label>"Study link (copied): "<input type="text" readonly data-testid="study-link" prop:value=url.clone()/></label>
                        {(url.len() > LONG_LINK_BYTES).then(|| view! {
                            <p class="warn">"This link is long (recorded requests are inside it); send the study JSON file instead if your messenger cuts it."</p>
                        })}
                    </div>
                })}
            </div>
            <h3>"Study server"</h3>
            <server::ServerPanel server=server/>
            <details open hidden=move || !d.ready.get()>
                <summary><h3 class="inline-heading">"Design"</h3></summary>
                <StudyDesigner designer=d/>
            </details>
            <h3>"Results"</h3>
            <StudyResultsView study=results.design.into() results=results/>
        </section>
    }
}

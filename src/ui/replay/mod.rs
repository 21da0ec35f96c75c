//! The replay lab: 2–4 panes of profiles or recorded requests played side
//! by side with a precise scheduler, to feel "same tokens/s, different
//! experience".

mod editor;
mod pane;

use lab_core::replay::profile::{self, Profile};
use lab_core::replay::story::{self, Story};
use lab_core::share::link::{Shared, SharedPane};
use lab_core::trace::{MAX_TRACE_BYTES, Trace};
use leptos::prelude::*;
use leptos::task::spawn_local;

pub use editor::{ProfileDraft, ProfileEditor};
pub use pane::{PaneCard, PaneConfig, PaneSource};

use crate::browser::files;
use crate::browser::library::{Library, trace_id};
use crate::browser::paint::measure_refresh_hz;
use crate::browser::runner::RunOutput;
use crate::browser::scheduler::{MAX_PANES, PaneInput, SchedulerKind, use_replay_engine};
use crate::browser::sink::RenderMode;
use crate::ui::runs::RunLog;

fn panes_of(s: &Story) -> Vec<PaneConfig> {
    s.panes
        .iter()
        .map(|p| PaneConfig {
            title: p.title.clone(),
            source: PaneSource::Profile(ProfileDraft {
                profile: p.profile.clone(),
                prompt_tokens: p.prompt_tokens,
            }),
        })
        .collect()
}

fn profile_pane(p: Profile) -> PaneConfig {
    PaneConfig {
        title: p.name.clone(),
        source: PaneSource::Profile(ProfileDraft { profile: p, prompt_tokens: 200 }),
    }
}

const SPEEDS: [f64; 6] = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0];

/// The replay view. `active` is false while another tab is shown (the
/// replay pauses then).
#[component]
pub fn ReplayView(active: Signal<bool>, autoplay: bool) -> impl IntoView {
    let engine = use_replay_engine(None);
    let log = expect_context::<RunLog>();
    let lib = expect_context::<Library>();
    let stories = story::stories();
    let story_id = RwSignal::new(stories[0].id.clone());
    let panes = RwSignal::new(panes_of(&stories[0]));
    let render = RwSignal::new(RenderMode::Text);
    let scheduler = RwSignal::new(SchedulerKind::Precise);
    let speed = RwSignal::new(1.0f64);
    let looping = RwSignal::new(false);
    let file_error = RwSignal::new(None::<String>);
    let outputs: [NodeRef<leptos::html::Div>; MAX_PANES] = std::array::from_fn(|_| NodeRef::new());

    spawn_local(async move {
        if let Some(hz) = measure_refresh_hz(20).await {
            engine.set_refresh_hz(hz);
        }
    });

    let load = move |play: bool| {
        let cfgs = panes.get_untracked();
        let inputs: Vec<PaneInput> = cfgs
            .iter()
            .zip(outputs.iter())
            .filter_map(|(c, out)| {
                let el: web_sys::Element = AsRef::<web_sys::Element>::as_ref(&out.get_untracked()?).clone();
                Some(PaneInput {
                    title: c.title.clone(),
                    source: c.source_name(),
                    chunks: c.chunks(),
                    output: el,
                })
            })
            .collect();
        engine.load(inputs, render.get_untracked(), scheduler.get_untracked());
        if play {
            engine.play();
        }
    };

    // First visit: the landing story starts playing as soon as the panes exist.
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        if outputs[0].get().is_some() && !started.get_value() {
            started.set_value(true);
            load(false);
            if autoplay && active.get_untracked() {
                spawn_local(async move {
                    engine.ready().await;
                    if !engine.playing.get_untracked() {
                        engine.play();
                    }
                });
            }
        }
    });
    Effect::new(move |_| {
        if !active.get() {
            engine.pause();
        }
    });
    // Every finished replay joins the session's runs.
    let seen = StoredValue::new(0usize);
    Effect::new(move |_| {
        let done = engine.finished.get();
        for t in done.iter().skip(seen.get_value()) {
            lib.save_trace(trace_id(t), t, true);
            log.add(RunOutput { trace: t.clone(), levels: vec![(1, t.clone())] });
        }
        seen.set_value(done.len());
    });

    // Panes handed over by another view (an imported run's requests): take
    // them, play them.
    if let Some(inbox) = use_context::<crate::ui::ReplayInbox>() {
        Effect::new(move |_| {
            let Some(list) = inbox.0.get() else { return };
            inbox.0.set(None);
            if list.is_empty() {
                return;
            }
            story_id.set(String::new());
            panes.set(list.into_iter().take(MAX_PANES).collect());
            load(false);
            spawn_local(async move {
                engine.ready().await;
                engine.play();
            });
        });
    }

    let choose_story = move |id: String| {
        if let Some(s) = story::story(&id) {
            story_id.set(id);
            panes.set(panes_of(&s));
            load(true);
        }
    };
    let on_edit = Callback::new(move |(i, d): (usize, ProfileDraft)| {
        panes.update(|p| {
            if let Some(c) = p.get_mut(i) {
                c.source = PaneSource::Profile(d);
            }
        });
        load(false);
    });
    let set_source = move |i: usize, value: String| {
        let cfg = if let Some(name) = value.strip_prefix("profile:") {
            profile::preset(name).map(profile_pane)
        } else if let Some(rest) = value.strip_prefix("run:") {
            let (run, req) = rest.split_once(':').unwrap_or((rest, "0"));
            let (run, req): (usize, usize) = (run.parse().unwrap_or(0), req.parse().unwrap_or(0));
            log.runs.with_untracked(|runs| {
                let r = runs.iter().find(|r| r.id == run)?;
                let request = r.output.trace.requests.get(req)?.clone();
                let label = format!(
                    "{} #{}",
                    r.output.trace.meta.label.clone().unwrap_or_else(|| format!("run {run}")),
                    req + 1
                );
                Some(PaneConfig {
                    title: label.clone(),
                    source: PaneSource::Recorded { label, request: Box::new(request) },
                })
            })
        } else {
            None
        };
        if let Some(c) = cfg {
            panes.update(|p| {
                if let Some(slot) = p.get_mut(i) {
                    *slot = c;
                }
            });
            load(false);
        }
    };
    let load_file = move |i: usize, file: web_sys::File| {
        spawn_local(async move {
            let name = file.name();
            let result = files::read_text(&file, MAX_TRACE_BYTES as u64)
                .await
                .map_err(|e| e.to_string())
                .and_then(|t| Trace::from_json(&t).map_err(|e| format!("{name}: {e}")));
            match result {
                Ok(trace) => match trace.requests.iter().find(|r| r.chunks.iter().any(|c| c.tokens > 0)) {
                    Some(r) => {
                        file_error.set(None);
                        let label = name.clone();
                        panes.update(|p| {
                            if let Some(slot) = p.get_mut(i) {
                                *slot = PaneConfig {
                                    title: trace.meta.label.clone().unwrap_or_else(|| label.clone()),
                                    source: PaneSource::Recorded { label, request: Box::new(r.clone()) },
                                };
                            }
                        });
                        load(false);
                    }
                    None => {
                        file_error.set(Some(format!("{name}: no request with generated tokens to replay")))
                    }
                },
                Err(e) => file_error.set(Some(e)),
            }
        });
    };

    // Share links: profiles only (recorded requests go as trace files).
    let share_link = RwSignal::new(None::<Result<String, String>>);
    let share = move |only: Option<usize>| {
        let cfgs = panes.get_untracked();
        let chosen: Vec<&PaneConfig> =
            cfgs.iter().enumerate().filter(|(i, _)| only.is_none_or(|o| o == *i)).map(|(_, c)| c).collect();
        let shared: Result<Vec<SharedPane>, String> = chosen
            .iter()
            .map(|c| match &c.source {
                PaneSource::Profile(d) => Ok(SharedPane { title: c.title.clone(), profile: d.profile.to_string(), prompt_tokens: d.prompt_tokens }),
                PaneSource::Recorded { .. } => Err(format!(
                    "“{}” replays a recorded request, which does not fit in a link: download its trace and send the file instead.",
                    c.title
                )),
            })
            .collect();
        let title = match only {
            Some(i) => cfgs.get(i).map(|c| c.title.clone()).unwrap_or_default(),
            None => story::story(&story_id.get_untracked())
                .map_or_else(|| "Side by side".to_string(), |s| s.title),
        };
        share_link.set(Some(shared.map(|panes| {
            let url = crate::browser::share::link_for(&Shared::Panes { title, panes });
            crate::browser::share::copy(&url);
            url
        })));
    };
    let story_info = move || story::story(&story_id.get());
    let n = move || panes.with(Vec::len);
    view! {
        <section class="panel replay" data-testid="replay-view">
            <h2>"Replay: feel the difference"</h2>
            <div class="stories" role="group" aria-label="Stories">
                {stories.iter().map(|s| {
                    let id = s.id.clone();
                    let id2 = s.id.clone();
                    view! {
                        <button
                            type="button"
                            class="chip"
                            data-testid=format!("story-{}", s.id)
                            aria-pressed=move || (story_id.get() == id).to_string()
                            on:click=move |_| choose_story(id2.clone())
                        >
                            {s.title.clone()}
                        </button>
                    }
                }).collect_view()}
            </div>
            <p class="story-explanation" data-testid="story-explanation">{move || story_info().map(|s| s.explanation)}</p>
            <div class="replay-controls">
                <button type="button" data-testid="play" on:click=move |_| if engine.playing.get_untracked() { engine.pause() } else { engine.play() }>
                    {move || if engine.playing.get() { "Pause" } else { "Play" }}
                </button>
                <button type="button" class="secondary" data-testid="restart" on:click=move |_| engine.restart()>"Restart"</button>
                <label class="inline">
                    <input type="checkbox" data-testid="loop" prop:checked=move || looping.get()
                        on:change=move |ev| { let v = event_target_checked(&ev); looping.set(v); engine.set_loop(v); }/>
                    " Loop"
                </label>
                <label>
                    "Speed "
                    <select data-testid="speed" prop:value=move || speed.get().to_string()
                        on:change=move |ev| { let v: f64 = event_target_value(&ev).parse().unwrap_or(1.0); speed.set(v); engine.set_speed(v); }>
                        {SPEEDS.iter().map(|s| view! { <option value=s.to_string()>{format!("×{s}")}</option> }).collect_view()}
                    </select>
                </label>
                <label>
                    "Render "
                    <select data-testid="render-mode"
                        on:change=move |ev| {
                            render.set(if event_target_value(&ev) == "markdown" { RenderMode::Markdown } else { RenderMode::Text });
                            load(false);
                        }>
                        <option value="text">"plain text"</option>
                        <option value="markdown">"Markdown"</option>
                    </select>
                </label>
                <label>
                    "Scheduler "
                    <select data-testid="scheduler"
                        on:change=move |ev| {
                            scheduler.set(if event_target_value(&ev) == "naive" { SchedulerKind::Naive } else { SchedulerKind::Precise });
                            load(false);
                        }>
                        <option value="precise">"precise"</option>
                        <option value="naive">"naive setTimeout (for comparison)"</option>
                    </select>
                </label>
                <button type="button" class="secondary" data-testid="add-pane" prop:disabled=move || { n() >= MAX_PANES }
                    on:click=move |_| {
                        panes.update(|p| if p.len() < MAX_PANES { p.push(profile_pane(profile::presets()[2].clone())) });
                        load(false);
                    }>"Add pane"</button>
                <button type="button" class="secondary" data-testid="remove-pane" prop:disabled=move || { n() <= 2 }
                    on:click=move |_| { panes.update(|p| if p.len() > 2 { p.pop(); }); load(false); }>"Remove pane"</button>
                <button type="button" class="secondary" data-testid="replay-share" on:click=move |_| share(None)>"Share link"</button>
            </div>
            {move || share_link.get().map(|r| match r {
                Ok(url) => view! {
                    <p class="share-link">
                        <label>"Link to these panes (copied): "<input type="text" readonly data-testid="replay-link" prop:value=url/></label>
                        " "<button type="button" class="link" on:click=move |_| share_link.set(None)>"Hide"</button>
                    </p>
                }.into_any(),
                Err(m) => view! { <p class="error" role="alert" data-testid="replay-link-error">{m}</p> }.into_any(),
            })}
            {move || engine.notice.get().map(|m| view! { <p class="warn" role="status" data-testid="replay-notice">{m}</p> })}
            {move || file_error.get().map(|m| view! { <p class="error" role="alert" data-testid="replay-file-error">{m}</p> })}
            <div class="panes" style=move || format!("--panes: {}", n())>
                {(0..MAX_PANES).map(|i| {
                    let cfg = Signal::derive(move || panes.with(|p| p.get(i).cloned()));
                    view! {
                        <div class="pane-slot" hidden=move || { n() <= i }>
                            <div class="pane-source">
                                <label>
                                    "Source "
                                    <select data-testid=format!("pane-{i}-source")
                                        on:change=move |ev| set_source(i, event_target_value(&ev))>
                                        <option value="">"(keep)"</option>
                                        <optgroup label="Profiles">
                                            {profile::presets().into_iter().map(|p| view! {
                                                <option value=format!("profile:{}", p.name)>{p.name.clone()}</option>
                                            }).collect_view()}
                                        </optgroup>
                                        <optgroup label="Runs of this session">
                                            {move || log.runs.get().into_iter().flat_map(|r| {
                                                let label = r.output.trace.meta.label.clone().unwrap_or_default();
                                                (0..r.output.trace.requests.len().min(20)).map(move |k| view! {
                                                    <option value=format!("run:{}:{k}", r.id)>{format!("Run {} · {label} · request {}", r.id, k + 1)}</option>
                                                }).collect::<Vec<_>>()
                                            }).collect_view()}
                                        </optgroup>
                                    </select>
                                </label>
                                <button type="button" class="link" data-testid=format!("pane-{i}-share") on:click=move |_| share(Some(i))>"Link to this profile"</button>
                                <label class="file">
                                    "or a trace file "
                                    <input type="file" accept=".json,application/json" data-testid=format!("pane-{i}-file")
                                        on:change=move |ev| {
                            if let Some(f) = files::take_chosen(&ev).into_iter().next() { load_file(i, f); }
                        }/>
                                </label>
                            </div>
                            <PaneCard index=i config=cfg signals=engine.panes[i] output=outputs[i] on_edit=on_edit/>
                        </div>
                    }
                }).collect_view()}
            </div>
            {move || {
                let cfg = lab_core::measure::metrics::MetricsConfig::default();
                let series: Vec<(String, lab_core::chart::plot::Timeline)> = (0..n())
                    .filter_map(|i| {
                        let r = engine.panes[i].result.get()?;
                        let req = r.trace.requests.first()?;
                        let title = panes.with(|p| p.get(i).map(|c| c.title.clone())).unwrap_or_default();
                        Some((title, lab_core::chart::plot::token_timeline(req, &cfg)))
                    })
                    .collect();
                (series.len() >= 2).then(|| view! {
                    <crate::ui::charts::TimelineChart id="chart-replay-timeline".to_string()
                        title="The panes overlaid: tokens over time".to_string() series=series/>
                })
            }}
        </section>
    }
}

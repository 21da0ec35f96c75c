//! Component tests in headless Chromium (as in Leptos's examples): each
//! mounts one component on its hooks, drives it the way a person does
//! (events that bubble, as the browser sends them) and asserts its DOM.

use std::time::Duration;

use lab_core::measure::run::MeasuredRun;
use lab_core::replay::profile::Profile;
use lab_core::study::{ConditionSource, Study};
use latency_lab_app::browser::library::use_library;
use latency_lab_app::browser::study::{UseParticipantFlow, use_participant_flow};
use latency_lab_app::browser::use_endpoint_settings::{API_KEY, CONFIG_KEY, use_endpoint_settings};
use latency_lab_app::browser::use_route::use_route;
use latency_lab_app::ui::ParticipantMode;
use latency_lab_app::ui::field::FieldSummary as FieldSummaryView;
use latency_lab_app::ui::live::{EndpointForm, RunResults};
use latency_lab_app::ui::replay::PaneOutcome;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh element to mount into.
fn container() -> HtmlElement {
    let doc = document();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    div.unchecked_into()
}

fn by_id(root: &HtmlElement, id: &str) -> Option<HtmlElement> {
    root.query_selector(&format!("[data-testid=\"{id}\"]")).unwrap().map(JsCast::unchecked_into)
}

fn text(root: &HtmlElement, id: &str) -> String {
    by_id(root, id).map(|e| e.inner_text()).unwrap_or_default()
}

/// Types `value` into a field as a person does: `input` as it is typed,
/// then the `change` the edit ends with.
fn change(input: &HtmlElement, value: &str) {
    input.unchecked_ref::<HtmlInputElement>().set_value(value);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    for kind in ["input", "change"] {
        input.dispatch_event(&web_sys::Event::new_with_event_init_dict(kind, &init).unwrap()).unwrap();
    }
}

async fn sleep(d: Duration) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ =
            window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, d.as_millis() as i32);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Waits (up to `limit`) until `ok` holds.
async fn until(what: &str, limit: Duration, ok: impl Fn() -> bool) {
    let step = Duration::from_millis(20);
    let mut waited = Duration::ZERO;
    while !ok() {
        assert!(waited < limit, "timed out waiting for {what}");
        sleep(step).await;
        waited += step;
    }
}

fn focused_id() -> String {
    document().active_element().and_then(|e| e.get_attribute("data-testid")).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn endpoint_form_keeps_settings_and_never_stores_the_key_in_the_config() {
    let local = window().local_storage().unwrap().unwrap();
    let session = window().session_storage().unwrap().unwrap();
    local.clear().unwrap();
    session.clear().unwrap();
    let root = container();
    let disabled = RwSignal::new(false);
    let _handle = mount_to(root.clone(), move || {
        let settings = use_endpoint_settings();
        view! { <EndpointForm settings=settings disabled=disabled.into()/> }
    });
    sleep(Duration::from_millis(30)).await;
    let base = by_id(&root, "base-url").expect("base URL field");
    let origin = window().location().origin().unwrap();
    assert_eq!(base.unchecked_ref::<HtmlInputElement>().value(), format!("{origin}/v1"), "the replay preset");
    change(&base, "http://127.0.0.1:9/v1");
    change(&by_id(&root, "model").unwrap(), "my-model");
    change(&by_id(&root, "api-key").unwrap(), "sk-planted-0123");
    let config = local.get_item(CONFIG_KEY).unwrap().unwrap_or_default();
    assert!(config.contains("http://127.0.0.1:9/v1") && config.contains("my-model"), "{config}");
    assert!(!config.contains("sk-planted"), "the key is not part of the config");
    assert_eq!(
        session.get_item(API_KEY).unwrap().as_deref(),
        Some("sk-planted-0123"),
        "the tab keeps the key"
    );
    assert_eq!(local.get_item(API_KEY).unwrap(), None, "not on the device unless remembered");
    // Remembering moves it; the form shows what is stored.
    let remember = by_id(&root, "remember-key").unwrap();
    remember.click();
    assert_eq!(local.get_item(API_KEY).unwrap().as_deref(), Some("sk-planted-0123"));
    assert_eq!(session.get_item(API_KEY).unwrap(), None);
    // While a run is going, the fields are locked.
    disabled.set(true);
    sleep(Duration::from_millis(30)).await;
    let fieldsets = root.query_selector_all("fieldset").unwrap();
    assert!(fieldsets.length() >= 2);
    for i in 0..fieldsets.length() {
        let f: web_sys::HtmlFieldSetElement = fieldsets.get(i).unwrap().unchecked_into();
        assert!(f.disabled(), "fieldset {i} is disabled while running");
    }
    local.clear().unwrap();
    session.clear().unwrap();
}

#[wasm_bindgen_test]
fn run_results_show_the_figures_measured_once() {
    let trace = Profile::simple("steady", 150.0, 10.0, 20).to_trace(5, 10);
    let run = MeasuredRun::of(trace, &[]);
    let m = run.analysis.metrics.clone();
    let root = container();
    let shown = run.clone();
    let _handle = mount_to(root.clone(), move || view! { <RunResults run=shown.clone()/> });
    assert!(by_id(&root, "run-results").is_some());
    assert!(by_id(&root, "download-trace").is_some());
    assert_eq!(text(&root, "requests"), m.requests.to_string());
    assert_eq!(text(&root, "completed"), m.completed.to_string());
    assert_eq!(text(&root, "failed"), "0");
    let ttft_p50 = m.ttft_ms.as_ref().unwrap().p50;
    let shown_p50: f64 = text(&root, "metric-ttft-p50").trim().parse().expect("a number");
    assert!((shown_p50 - ttft_p50).abs() <= 0.005 + 1e-9, "{shown_p50} vs {ttft_p50}");
    assert!(by_id(&root, "http1-warning").is_none(), "one request at a time needs no HTTP/1.1 warning");
    assert!(
        root.query_selector("[data-testid^=score-]").unwrap().is_some(),
        "scenario scores are part of the results"
    );
}

/// Ids of the elements with `data-metric` under `selector` in `root`.
fn metric_ids(root: &HtmlElement, selector: &str) -> Vec<String> {
    let rows = root.query_selector_all(selector).unwrap();
    (0..rows.length())
        .filter_map(|i| rows.get(i)?.dyn_into::<web_sys::Element>().ok()?.get_attribute("data-metric"))
        .collect()
}

#[wasm_bindgen_test]
async fn the_web_table_the_report_and_the_json_show_the_same_latency_rows() {
    use lab_core::measure::registry::LATENCY;
    // An agent's run: tool calls, so the rows measured only sometimes show too.
    let profile: Profile = "ttft=120,tpot=8,tokens=12,tool_call=search:6".parse().unwrap();
    let mut trace = profile.to_trace(3, 10);
    for r in &mut trace.requests {
        for c in &mut r.chunks {
            c.painted_ms = Some(c.arrived_ms + 6.0);
        }
    }
    let run = MeasuredRun::of(trace.clone(), &[]);
    let m = &run.analysis.metrics;
    let want: Vec<String> = LATENCY.iter().filter(|r| r.shown_for(m)).map(|r| r.id.to_string()).collect();
    assert!(want.iter().any(|id| id == "tool_calls_complete"), "the fixture has tool calls: {want:?}");
    assert_eq!(want.len(), LATENCY.len(), "every row has data for this fixture");
    let root = container();
    let shown = run.clone();
    let _handle = mount_to(root.clone(), move || view! { <RunResults run=shown.clone()/> });
    assert_eq!(metric_ids(&root, "[data-testid=metrics-table] tr[data-metric]"), want, "the web table");
    let report = lab_core::share::report::run_report(
        &trace,
        &run.analysis,
        "2026-12-05",
        lab_core::share::library::EntryStatus::Complete,
    );
    let doc = web_sys::window().unwrap().document().unwrap();
    let holder: HtmlElement = doc.create_element("div").unwrap().unchecked_into();
    holder.set_inner_html(&report);
    assert_eq!(metric_ids(&holder, "tr[data-metric]"), want, "the HTML report");
    let json: serde_json::Value = serde_json::from_str(&run.analysis.to_json()).unwrap();
    for r in LATENCY.iter().filter(|r| r.shown_for(m)) {
        assert!(json[r.json_key()].get("p99").is_some(), "analyze --json has {}", r.json_key());
    }
    // The Field view: the same requests as field data, every row a figure
    // to choose, each rendered when chosen.
    use lab_core::field::span::FieldSpan;
    use lab_core::field::summary::{FieldRow, FieldSummary, GroupBy};
    let rows: Vec<FieldRow> = trace
        .requests
        .iter()
        .map(|request| FieldRow::of(&FieldSpan::recorded(request.clone(), 1.8e12, Some("shop"))))
        .collect();
    let summary = FieldSummary::of(&rows, GroupBy::Site);
    let field = container();
    let _field = mount_to(field.clone(), move || view! { <FieldSummaryView summary=summary.clone()/> });
    let options = field.query_selector_all("[data-testid=field-figure] option").unwrap();
    let offered: Vec<String> = (0..options.length())
        .filter_map(|i| options.get(i)?.dyn_into::<web_sys::HtmlOptionElement>().ok().map(|o| o.value()))
        .collect();
    assert_eq!(offered, want, "the Field summary");
    let select: web_sys::HtmlSelectElement =
        field.query_selector("[data-testid=field-figure]").unwrap().unwrap().unchecked_into();
    for id in &want {
        select.set_value(id);
        select.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
        let shown = || {
            field
                .query_selector("[data-testid=field-summary]")
                .unwrap()
                .and_then(|t| t.get_attribute("data-figure"))
        };
        until(&format!("the Field table of {id}"), Duration::from_secs(2), || shown().as_deref() == Some(id))
            .await;
        assert!(
            text(&field, "field-p90").chars().next().is_some_and(|c| c.is_ascii_digit()),
            "{id}: {}",
            text(&field, "field-p90")
        );
    }
}

#[wasm_bindgen_test]
fn an_early_paint_stamp_is_shown_in_live_results_and_in_a_replay_pane() {
    // A live run whose second chunk was stamped painted 2 ms before it arrived.
    let mut trace = Profile::simple("steady", 150.0, 10.0, 20).to_trace(1, 10);
    for c in &mut trace.requests[0].chunks {
        c.painted_ms = Some(c.arrived_ms + 8.0);
    }
    let early = trace.requests[0].chunks[1].arrived_ms - 2.0;
    trace.requests[0].chunks[1].painted_ms = Some(early);
    let clean = MeasuredRun::of(Profile::simple("steady", 150.0, 10.0, 20).to_trace(1, 10), &[]);
    let run = MeasuredRun::of(trace.clone(), &[]);
    let root = container();
    let (a, b) = (run.clone(), clean.clone());
    let _live =
        mount_to(root.clone(), move || view! { <RunResults run=a.clone()/> <RunResults run=b.clone()/> });
    let flags = root.query_selector_all("[data-testid=early-stamps]").unwrap();
    assert_eq!(flags.length(), 1, "only the run with an early stamp is flagged");
    let said = flags.get(0).unwrap().text_content().unwrap_or_default();
    assert!(
        said.contains("1 paint stamp(s) earlier than their chunk's arrival (by up to 2.00 ms)"),
        "{said}"
    );
    // A replay pane's trace: due times, one paint before its release.
    for c in &mut trace.requests[0].chunks {
        c.due_ms = Some(c.arrived_ms - 0.2);
    }
    trace.meta.replay =
        Some(lab_core::trace::ReplayInfo { scheduler: "precise".into(), ..Default::default() });
    let pane = MeasuredRun::of(trace, &[]);
    let root = container();
    let _pane = mount_to(root.clone(), move || view! { <PaneOutcome index=0 run=pane.clone()/> });
    let fidelity = text(&root, "pane-0-fidelity");
    assert!(fidelity.contains("Early stamps: 1 paint stamp(s)"), "{fidelity}");
}

/// A study whose samples are short (a trial plays in well under a second).
fn quick_study() -> Study {
    let mut s = Study::example();
    s.id = "component-test".into();
    s.title = "Component test".into();
    for c in &mut s.conditions {
        c.source = ConditionSource::Profile("ttft=30,tpot=5,jitter=constant,tokens=8,text=chat".into());
    }
    s
}

/// The library's reads fail typed: an entry whose data is not there.
#[wasm_bindgen_test]
async fn a_library_entry_that_is_not_there_is_missing() {
    use latency_lab_app::browser::idb::StoreError;
    let lib = StoredValue::new_local(None);
    let _handle = mount_to(container(), move || {
        lib.set_value(Some(use_library()));
    });
    let lib = lib.get_value().unwrap();
    let err = lib.trace("no-such-entry").await.unwrap_err();
    assert_eq!(err, StoreError::Missing("its data"));
    assert_eq!(err.to_string(), "its data is missing from browser storage");
    assert!(matches!(lib.file("no-such-entry").await, Err(StoreError::Missing("its file"))));
}

#[wasm_bindgen_test]
async fn participant_flow_moves_focus_through_a_trial() {
    let root = container();
    let flow = StoredValue::new_local(None::<UseParticipantFlow>);
    let _handle = mount_to(root.clone(), move || {
        let route = use_route();
        let lib = use_library();
        let f = use_participant_flow(lib, route);
        flow.set_value(Some(f));
        provide_context(f);
        view! { <ParticipantMode/> }
    });
    let f = flow.get_value().unwrap();
    f.run_test(quick_study());
    let limit = Duration::from_secs(10);
    until("the consent", limit, || by_id(&root, "participant-consent").is_some()).await;
    assert!(!by_id(&root, "participant").unwrap().hidden(), "the overlay is shown");
    until("focus on I agree", limit, || focused_id() == "consent-accept").await;
    assert!(text(&root, "participant-announce").contains("please read the consent"));
    by_id(&root, "consent-accept").unwrap().click();
    until("focus on Begin", limit, || focused_id() == "participant-begin").await;
    by_id(&root, "participant-begin").unwrap().click();
    until("focus on Play", limit, || focused_id() == "trial-play").await;
    assert!(text(&root, "participant-announce").ends_with("press Play."));
    assert!(!text(&root, "trial-title").is_empty());
    by_id(&root, "trial-play").unwrap().click();
    until("the question", limit, || root.query_selector("fieldset.question").unwrap().is_some()).await;
    // The question itself takes the focus, not its first answer (a stray
    // Enter would record it).
    let first = if by_id(&root, "question-rating").is_some() { "question-rating" } else { "question-choice" };
    until("focus on the question", limit, || focused_id() == first).await;
    let legend = root.query_selector("fieldset.question legend").unwrap().unwrap();
    let prompt = legend.text_content().unwrap_or_default();
    assert!(text(&root, "participant-announce").ends_with(&prompt), "the question is announced");
    // The samples played in the panes, as text.
    assert!(!text(&root, "trial-output-0").is_empty());
    // Answer every question of the first trial.
    for _ in 0..4 {
        let id = focused_id();
        if id == "trial-play" || id == "participant-download" {
            break;
        }
        // Which question has the focus: the next one may be of the same kind.
        let asked =
            || document().active_element().and_then(|e| e.get_attribute("data-question")).unwrap_or_default();
        let was = asked();
        by_id(&root, if id == "question-rating" { "rate-4" } else { "choose-a" }).unwrap().click();
        until("the next step", limit, || {
            focused_id() != id || asked() != was || document().active_element().is_none()
        })
        .await;
        sleep(Duration::from_millis(50)).await;
    }
    until("the next trial", limit, || matches!(focused_id().as_str(), "trial-play" | "participant-download"))
        .await;
    assert!(
        text(&root, "participant-progress").starts_with("1 of "),
        "{}",
        text(&root, "participant-progress")
    );
    f.leave();
}

#[wasm_bindgen_test]
async fn the_designer_turns_a_study_into_a_threshold_study_and_back() {
    use latency_lab_app::browser::study::use_study_designer;
    use latency_lab_app::ui::study::StudyDesigner;
    let root = container();
    let designer = StoredValue::new_local(None::<latency_lab_app::browser::study::UseStudyDesigner>);
    let _handle = mount_to(root.clone(), move || {
        let route = use_route();
        let lib = use_library();
        let flow = use_participant_flow(lib, route);
        let d = use_study_designer(lib, Callback::new(move |s| flow.run_test(s)));
        designer.set_value(Some(d));
        view! { <StudyDesigner designer=d/> }
    });
    let d = designer.get_value().unwrap();
    let limit = Duration::from_secs(5);
    // The study open last time is read first (it would replace this draft).
    until("the saved study read", limit, || d.ready.get_untracked()).await;
    d.draft.set(quick_study());
    until("the conditions", limit, || by_id(&root, "study-threshold").is_none()).await;
    change(&by_id(&root, "study-kind").unwrap(), "threshold");
    until("the threshold fields", limit, || by_id(&root, "study-threshold").is_some()).await;
    assert!(root.query_selector("[data-testid=condition-row]").unwrap().is_none(), "no conditions");
    assert!(
        text(&root, "study-plan").starts_with("Each participant sees up to 80 pairs"),
        "{}",
        text(&root, "study-plan")
    );
    change(&by_id(&root, "threshold-dimension").unwrap(), "jitter");
    until("the jitter question", limit, || {
        by_id(&root, "threshold-question")
            .is_some_and(|q| q.unchecked_ref::<HtmlInputElement>().value() == "Which one felt smoother?")
    })
    .await;
    change(&by_id(&root, "threshold-high").unwrap(), "0.01");
    until("the range refused", limit, || text(&root, "study-invalid").contains("range")).await;
    change(&by_id(&root, "threshold-high").unwrap(), "1.5");
    change(&by_id(&root, "threshold-procedure").unwrap(), "psi");
    until("Psi's trials", limit, || by_id(&root, "threshold-trials").is_some()).await;
    assert!(text(&root, "study-plan").contains("Psi method"), "{}", text(&root, "study-plan"));
    d.draft.with_untracked(|s| s.validate()).unwrap();
    change(&by_id(&root, "study-kind").unwrap(), "comparison");
    until("the conditions back", limit, || by_id(&root, "study-threshold").is_none()).await;
    assert_eq!(d.draft.with_untracked(|s| s.conditions.len()), 3);
}

#[wasm_bindgen_test]
fn saved_scenarios_join_the_presets_and_leave_again() {
    use latency_lab_app::browser::use_scenarios::{SCENARIOS_KEY, use_scenarios};
    let storage = window().local_storage().unwrap().unwrap();
    storage.remove_item(SCENARIOS_KEY).unwrap();
    let owner = Owner::new();
    owner.with(|| {
        let s = use_scenarios();
        let presets = lab_core::measure::score::presets().len();
        assert_eq!(s.all.get_untracked().len(), presets);
        let mut mine = lab_core::measure::score::preset("chat").unwrap();
        mine.id = "chat-perceived".into();
        s.save(mine.clone()).unwrap();
        assert_eq!(s.all.get_untracked().len(), presets + 1);
        let stored = storage.get_item(SCENARIOS_KEY).unwrap().unwrap();
        assert!(stored.contains("chat-perceived"), "kept in localStorage");
        // A damaged entry is left out with its reason; the rest still scores.
        storage
            .set_item(SCENARIOS_KEY, &format!("[{},{{\"id\":\"x\"}}]", serde_json::to_string(&mine).unwrap()))
            .unwrap();
        let again = use_scenarios();
        assert_eq!(again.custom.get_untracked().len(), 1);
        assert!(again.problem.get_untracked().is_some_and(|p| p.contains("left out")));
        again.remove("chat-perceived").unwrap();
        assert_eq!(again.all.get_untracked().len(), presets);
        assert!(storage.get_item(SCENARIOS_KEY).unwrap().is_none(), "the key goes with the last one");
    });
}

/// Issue 46: pages that sample report some of their answers; the Field
/// view's counts say what the recorded ones stand for, as an estimate, and
/// a period of unsampled pages says nothing of the kind.
#[wasm_bindgen_test]
fn a_sampled_period_counts_its_requests_back_and_says_it_estimates() {
    use lab_core::field::summary::{FieldRow, FieldSummary, GroupBy};
    let row = |i: u32, rate: Option<f64>| FieldRow {
        at_unix_ms: 1.8e12 + f64::from(i) * 1000.0,
        browser: Some("Firefox".into()),
        model: None,
        site: Some("shop".into()),
        figures: {
            let mut f = lab_core::field::row::Figures::default();
            f.set("ttft", Some(300.0 + f64::from(i)));
            f.set("ttfp", Some(320.0 + f64::from(i)));
            f
        },
        stalls: 0,
        qoe: None,
        failed: false,
        sample_rate: rate,
    };
    let sampled =
        FieldSummary::of(&(0..100).map(|i| row(i, Some(0.5))).collect::<Vec<_>>(), GroupBy::Browser);
    let root = container();
    let _handle = mount_to(root.clone(), move || view! { <FieldSummaryView summary=sampled.clone()/> });
    let caption = text(&root, "field-caption");
    assert!(caption.starts_with("100 requests recorded, standing for ≈ 200 (an estimate"), "{caption}");
    assert_eq!(text(&root, "field-requests"), "100 (≈ 200)");
    let chart = |root: &HtmlElement| {
        root.query_selector("svg[role=img]")
            .unwrap()
            .and_then(|e| e.get_attribute("aria-label"))
            .unwrap_or_default()
    };
    assert!(chart(&root).starts_with("100 requests recorded, ≈ 200 estimated"), "{}", chart(&root));

    let all = FieldSummary::of(&(0..100).map(|i| row(i, None)).collect::<Vec<_>>(), GroupBy::Browser);
    let root = container();
    let _handle = mount_to(root.clone(), move || view! { <FieldSummaryView summary=all.clone()/> });
    assert!(text(&root, "field-caption").starts_with("100 requests by browser"));
    assert_eq!(text(&root, "field-requests"), "100");
    assert!(chart(&root).starts_with("100 requests in "), "{}", chart(&root));
}

/// Issue 47: Live hands a finished run to the runs module by its library
/// entry, not by its JSON; that module reads it back and measures it, and
/// says so when it cannot (an entry gone) or when the library could not
/// keep the run (which then travels in the announcement itself).
#[wasm_bindgen_test]
async fn a_finished_run_is_read_back_from_the_library_and_a_failed_hand_over_is_said() {
    use lab_core::share::command::{FinishedRun, RUN_EVENT, Unsaved};
    use latency_lab_app::browser::library::Library;
    use latency_lab_app::browser::page::dispatch;
    use latency_lab_app::ui::live::FinishedRunResults;
    use std::cell::Cell;
    use std::rc::Rc;
    let holder: Rc<Cell<Option<Library>>> = Rc::new(Cell::new(None));
    let root = container();
    let keep = holder.clone();
    let _handle = mount_to(root.clone(), move || {
        let lib = use_library();
        keep.set(Some(lib));
        provide_context(lib);
        view! { <FinishedRunResults/> }
    });
    let lib = holder.get().expect("the library");
    let mut trace = Profile::simple("steady", 150.0, 10.0, 20).to_trace(3, 10);
    trace.meta.created_at = Some("2026-12-07T15:00:00.000Z".into());
    trace.meta.source = lab_core::trace::SourceKind::Live;
    let id = lib.saved_trace(&trace, true).await.expect("saved");
    let announce = |run: &FinishedRun| dispatch(RUN_EVENT, &run.to_json());
    announce(&FinishedRun {
        entries: vec![id.clone()],
        levels: vec![(1, 1), (2, 2)],
        compare: false,
        unsaved: None,
    });
    until("the run's results", Duration::from_secs(5), || by_id(&root, "run-results").is_some()).await;
    assert_eq!(text(&root, "requests"), "3");
    let levels = root.query_selector_all("[data-testid=sweep-row]").unwrap().length();
    assert_eq!(levels, 2, "its two levels, from the announced counts");
    announce(&FinishedRun {
        entries: vec!["live-gone".into()],
        levels: vec![],
        compare: false,
        unsaved: None,
    });
    until("the failure said", Duration::from_secs(5), || by_id(&root, "run-handover-failed").is_some()).await;
    assert!(text(&root, "run-handover-failed").contains("cannot be read back from the library"));
    assert!(by_id(&root, "run-results").is_none());
    let unsaved = Unsaved { error: "browser storage is full".into(), traces: vec![trace] };
    announce(&FinishedRun { entries: vec![], levels: vec![], compare: false, unsaved: Some(unsaved) });
    until("the unsaved run's results", Duration::from_secs(5), || by_id(&root, "run-results").is_some())
        .await;
    assert!(text(&root, "run-unsaved").contains("browser storage is full"));
    dispatch(RUN_EVENT, "{\"entries\": 3}");
    until("a broken announcement said", Duration::from_secs(5), || {
        by_id(&root, "run-handover-failed").is_some()
    })
    .await;
    assert!(text(&root, "run-handover-failed").contains("announcement cannot be read"));
}

//! The only code that touches `web-sys` / `js-sys`, shaped as hooks in the
//! style of `leptos-use`: options in, signals and callbacks out, listeners
//! released when their owner is cleaned up. Each piece of state has one
//! owner here; the views in [`crate::ui`] only render it.
//!
//! | hook | owns |
//! |---|---|
//! | [`use_route`] | the view the URL names (Back, Forward, reload, pasted links) |
//! | [`use_links`] | what a share link or a published study's link opens |
//! | [`use_theme`] | the colour theme, stored |
//! | [`use_storage`] | one Web Storage key, followed across tabs |
//! | [`use_endpoint_settings`] | the Live endpoint's settings and key, stored; the model list |
//! | [`live::use_live_run`] | a live run: its requests, the one recorder of each, live figures, checkpoints |
//! | [`use_replay_lab`] | the replay lab's panes, stories and files ([`replay_links`]: its share links) |
//! | [`replay::use_replay_engine`] | playback with exact timing, paint stamps, late frames |
//! | [`study::use_participant_flow`] | a participant's way through a study, saved after every answer |
//! | [`study::use_outbox`] | answers waiting for the study server, sent in order |
//! | [`study::use_study_designer`], [`study::use_study_results`] | a study's design and its results |
//! | [`study::use_study_server`] | publishing, polling and closing studies on the study server |
//! | [`library::use_library`], [`use_library_view`] | everything saved in IndexedDB |
//! | [`importer::use_importer`] | the import worker and the runs it holds |
//! | [`use_session_runs`] | the runs of this page, for replay panes and comparisons |
//! | [`use_scenarios`] | the scenarios every analysis scores: presets and saved custom ones |
//! | [`use_trace_file`], [`use_file_drop`] | a trace file chosen or dropped |
//! | [`use_load_trace`] | a probe run with its load's own trace added |
//! | [`use_frame_loop`], [`use_visibility`] | animation frames; whether the page is hidden |
//! | [`use_focus_handoff`] | keyboard focus between two buttons that disable each other (Start, Stop) |
//! | [`use_prefetch`] | on-demand modules fetched in idle time once the landing replay has played |
//! | [`use_module`] | a view in an on-demand module: fetched when first shown, mounted, Retry |
//! | [`use_commands`] | what on-demand modules ask of the main one (run a study as a participant) |
//!
//! A hook taking more than two settings takes an options struct
//! (`Use…Options`); each lives in the file named after it. Errors are typed
//! per family, with the sentence people read in their `Display`:
//! [`fetch::FetchError`], [`idb::StoreError`] (IndexedDB and Web Storage),
//! [`files::FileError`], [`study::server::StudyServerError`],
//! [`importer::ImporterError`] and core's `ShareError`.
//!
//! Plain adapters beside them: [`clock`] (the page clock), [`page`] (the
//! page's address, wall clock, clipboard…), [`stream`] (reading a body),
//! [`fetch`], [`files`], [`paint`], [`render`], [`markdown_dom`], [`resource`], [`idb`],
//! [`share`], [`chart_export`], and the import worker's side,
//! [`import_worker`].

pub mod chart_export;
pub mod clock;
pub mod fetch;
pub mod files;
pub mod idb;
pub mod import_worker;
pub mod import_workload;
pub mod importer;
pub mod library;
pub mod live;
pub mod markdown_dom;
pub mod page;
pub mod paint;
pub mod render;
pub mod replay;
pub mod replay_links;
pub mod resource;
pub mod share;
pub mod stream;
pub mod study;
pub mod use_commands;
pub mod use_endpoint_settings;
pub mod use_field_collector;
pub mod use_file_drop;
pub mod use_finished_run;
pub mod use_focus_handoff;
pub mod use_frame_loop;
pub mod use_library_view;
pub mod use_links;
pub mod use_load_trace;
pub mod use_module;
pub mod use_prefetch;
pub mod use_replay_lab;
pub mod use_route;
pub mod use_run_announcer;
pub mod use_scenarios;
pub mod use_session_runs;
pub mod use_shared;
pub mod use_storage;
pub mod use_stored_endpoint;
pub mod use_theme;
pub mod use_trace_file;
pub mod use_visibility;

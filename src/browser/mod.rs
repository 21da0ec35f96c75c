//! The only code that touches `web-sys` / `js-sys`, shaped as hooks in the
//! style of `leptos-use`: options in, signals and callbacks out, listeners
//! released when their owner is cleaned up. Each piece of state has one
//! owner here; the views in [`crate::ui`] only render it.
//!
//! | hook | owns |
//! |---|---|
//! | [`use_route`] | the view the URL names (Back, Forward, reload, pasted links) |
//! | [`use_theme`] | the colour theme, stored |
//! | [`use_endpoint_settings`] | the Live endpoint's settings and key, stored; the model list |
//! | [`live::use_live_run`] | a live run: its requests, the one recorder of each, live figures, checkpoints |
//! | [`replay_lab::use_replay_lab`] | the replay lab's panes, stories, files and share links |
//! | [`replay::use_replay_engine`] | playback with exact timing, paint stamps, late frames |
//! | [`study::use_participant_flow`] | a participant's way through a study, saved after every answer |
//! | [`study::use_study_designer`], [`study::use_study_results`] | a study's design and its results |
//! | [`library::use_library`], [`library::use_library_view`] | everything saved in IndexedDB |
//! | [`importer::use_importer`] | the import worker and the runs it holds |
//! | [`session_runs::use_session_runs`] | the runs of this page, for replay panes and comparisons |
//! | [`use_scenarios`] | the scenarios every analysis scores: presets and saved custom ones |
//! | [`use_file_drop`] | a drop zone for files |
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
pub mod importer;
pub mod library;
pub mod live;
pub mod markdown_dom;
pub mod page;
pub mod paint;
pub mod render;
pub mod replay;
pub mod replay_lab;
pub mod resource;
pub mod session_runs;
pub mod share;
pub mod storage;
pub mod stream;
pub mod study;
pub mod use_endpoint_settings;
pub mod use_file_drop;
pub mod use_frame_loop;
pub mod use_links;
pub mod use_route;
pub mod use_scenarios;
pub mod use_theme;
pub mod use_trace_file;
pub mod use_visibility;

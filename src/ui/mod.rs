//! Components. They render signals and call the callbacks they are given;
//! state and browser access are [`crate::browser`]'s hooks, computing is
//! `lab_core`'s.

mod analysis;
mod analyze;
mod app;
pub mod charts;
mod environment;
pub mod field;
mod format;
pub mod import;
mod lazy;
pub mod library;
pub mod live;
pub mod replay;
mod runs_module;
mod shell;
pub mod study;
mod study_module;

pub use analysis::AnalysisPanel;
pub use analyze::AnalyzeView;
pub use app::App;
pub use environment::EnvironmentBadge;
pub use field::FieldView;
pub use import::ImportView;
pub use lazy::LazyView;
pub use library::LibraryView;
pub use live::LiveView;
pub use replay::ReplayView;
pub use runs_module::{RunsModule, RunsModuleProps};
pub use study::{ParticipantMode, StudyView};
pub use study_module::StudyModule;

//! UX studies in the browser: designs and sessions kept in IndexedDB
//! ([`store`]), the participant flow that plays trials and saves every
//! answer ([`use_participant_flow`]), the designer's draft
//! ([`use_study_designer`]) and the results of every session and merged file
//! ([`use_study_results`]). A study published on a `latency-lab serve`
//! ([`server`]) is joined from its link (`join.rs`) and each answer travels
//! through an outbox ([`use_outbox`]); the researcher publishes and reads its
//! answers with [`use_study_server`]. What a study *is* and how it is
//! summarized is `lab_core::study`'s.

mod join;
pub mod server;
pub mod store;
mod timing_check;
pub mod use_outbox;
mod use_participant_flow;
mod use_study_designer;
mod use_study_results;
mod use_study_server;

pub use use_participant_flow::{UseParticipantFlow, use_participant_flow};
pub use use_study_designer::{MAX_STUDY_BYTES, UseStudyDesigner, use_study_designer};
pub use use_study_results::{MAX_RESULTS_BYTES, UseStudyResults, UseStudyResultsOptions, use_study_results};
pub use use_study_server::{TOKEN_KEY, UseStudyServer, UseStudyServerOptions, use_study_server};

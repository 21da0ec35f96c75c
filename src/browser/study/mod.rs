//! UX studies in the browser: designs and sessions kept in IndexedDB
//! ([`store`]), the participant flow that plays trials and saves every
//! answer ([`use_participant_flow`]), the designer's draft
//! ([`use_study_designer`]) and the results of every session and merged file
//! ([`use_study_results`]). What a study *is* and how it is summarized is
//! `lab_core::study`'s.

mod designer;
mod flow;
mod results;
pub mod store;

pub use designer::{MAX_STUDY_BYTES, UseStudyDesigner, use_study_designer};
pub use flow::{UseParticipantFlow, use_participant_flow};
pub use results::{MAX_RESULTS_BYTES, UseStudyResults, use_study_results};

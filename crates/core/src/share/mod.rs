//! # Share: what leaves the lab and comes back
//!
//! - [`link`]: share links (`#share=v1.…`): a profile, panes side by side or
//!   a study in the URL, with no field for secrets.
//! - [`library`]: the records of the run library and its export bundles.
//! - [`report`]: self-contained HTML reports of runs and studies.
//! - [`route`]: the app's own addresses (`#live`, `#participate`, …): which
//!   view a URL opens.
//! - [`command`]: what one module of the page asks another to do.
//! - [`modules`]: the content-hashed names of the page's on-demand modules.

pub mod command;
pub mod library;
pub mod link;
pub mod modules;
pub mod report;
pub mod route;
pub mod threshold_report;

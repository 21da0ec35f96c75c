//! Feeling an imported run: two of its requests, fetched whole from the
//! worker, handed to the replay lab side by side, and the replay view shown.

use lab_core::replay::pane::PaneConfig;
use lab_core::share::route::{Route, View};
use leptos::prelude::*;

use super::Importer;
use crate::browser::use_replay_lab::UseReplayLab;
use crate::browser::use_route::UseRoute;

/// A request to replay: its index in the run and what it is ("worst (P99
/// TTFT)").
pub type Pick = (usize, String);

/// Where a replayed pair goes: the lab plays it, the route shows it.
#[derive(Clone, Copy)]
pub struct ReplayTarget {
    /// The replay lab.
    pub lab: UseReplayLab,
    /// The app's route.
    pub route: UseRoute,
}

/// Replays requests `a` and `b` of run `key` (labelled `label`); `error`
/// hears why not.
pub fn replay_pair(
    importer: Importer,
    to: ReplayTarget,
    key: u32,
    label: String,
    a: Pick,
    b: Pick,
    error: RwSignal<Option<String>>,
) {
    let ReplayTarget { lab, route } = to;
    let pane = move |(index, what): &Pick, trace| {
        let title = format!("{what} · request #{}", index + 1);
        PaneConfig::recorded(title.clone(), format!("{label} · {title}"), trace)
    };
    importer.request(key, a.0, move |first| match first {
        Err(e) => error.set(Some(e.to_string())),
        Ok(first) => importer.request(key, b.0, move |second| match second {
            Err(e) => error.set(Some(e.to_string())),
            Ok(second) => {
                error.set(None);
                lab.show(vec![pane(&a, first), pane(&b, second)]);
                route.go(Route::View(View::Replay));
            }
        }),
    });
}

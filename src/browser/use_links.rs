//! What the app does when the URL changes: a share link opens the panes
//! or the study it holds, `#participate` returns to the session in progress,
//! and leaving `#participate` closes the participant overlay (the session
//! stays saved, and Forward comes back to it). `#s/<id>` (a study
//! server's participant link) joins or resumes that published study.
//!
//! A damaged share link lands on the landing page with one plain sentence
//! ([`DAMAGED_LINK`]); a study link, once read, is replaced in the history
//! by `#participate`, so Back does not start another participant.

use lab_core::share::link::{ShareError, Shared};
use lab_core::share::route::{Route, View};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::share;
use super::study::UseParticipantFlow;
use super::use_replay_lab::UseReplayLab;
use super::use_route::UseRoute;

/// What a damaged share link says.
pub const DAMAGED_LINK: &str = "This shared link is damaged (perhaps cut or changed when it was copied), so it cannot open. Ask whoever sent it for the link again.";

/// The notice a share link leaves, for people.
fn notice_of(e: &ShareError) -> String {
    match e {
        ShareError::Damaged(_) | ShareError::NotALink => DAMAGED_LINK.to_string(),
        other => format!("This shared link cannot open: {other}."),
    }
}

/// What [`use_links`] opens links with.
#[derive(Clone, Copy)]
pub struct UseLinksOptions {
    /// The page's route.
    pub route: UseRoute,
    /// Plays shared panes.
    pub lab: UseReplayLab,
    /// Runs shared and published studies.
    pub flow: UseParticipantFlow,
    /// Receives what people should know (opened, damaged, closed).
    pub notice: RwSignal<Option<String>>,
}

/// Follows the route: opens share links and published studies.
pub fn use_links(options: UseLinksOptions) {
    let UseLinksOptions { route, lab, flow, notice } = options;
    Effect::new(move |_| {
        let r = route.route.get();
        let open = flow.flow.with_untracked(Option::is_some);
        if r != Route::Participate && open {
            flow.close();
        }
        match r {
            Route::Share(payload) => spawn_local(async move {
                match share::decode(&payload).await {
                    Ok(Shared::Panes { title, panes, markdown, speed }) => {
                        match lab.show_shared(&panes, markdown, speed) {
                            Ok(()) => notice.set(Some(format!("Opened the shared replay “{title}”."))),
                            Err(e) => notice.set(Some(format!("The shared link cannot play: {e}"))),
                        }
                    }
                    Ok(Shared::Study(study)) => flow.open_link(*study),
                    Err(e) => {
                        notice.set(Some(notice_of(&e)));
                        route.replace(Route::Landing);
                    }
                }
            }),
            Route::Published(id) if !flow.starting() => spawn_local(async move {
                if let Err(e) = flow.open_published(id).await {
                    notice.set(Some(e.to_string()));
                    route.replace(Route::Landing);
                }
            }),
            Route::Participate if !open && !flow.starting() => {
                spawn_local(async move {
                    if !flow.resume().await {
                        route.replace(Route::View(View::Study));
                    }
                });
            }
            _ => {}
        }
    });
}

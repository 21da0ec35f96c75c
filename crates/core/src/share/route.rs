//! The app's addresses: which view a URL fragment opens. Fragments (not
//! paths) so the built app works from any static host, and every view has
//! its own history entry (Back and Forward move between views, a reload or
//! a pasted URL lands on the same view).
//!
//! | fragment | opens |
//! |---|---|
//! | none (or one the lab does not know) | the landing page: the first story playing in the replay view |
//! | `#replay`, `#live`, `#import`, `#field`, `#analyze`, `#study`, `#library` | that view |
//! | `#participate` | the participant session in progress in this browser |
//! | `#share=v1.…` | a shared link ([`super::link`]): panes in the replay view, or a study's participant flow |

use super::link::FRAGMENT_KEY;

/// The app's views, in the order of its tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// Profiles and traces side by side.
    Replay,
    /// Streaming from an endpoint.
    Live,
    /// Other tools' results.
    Import,
    /// What real users' browsers saw (the field collector).
    Field,
    /// One trace file's analysis.
    Analyze,
    /// UX studies: design and results.
    Study,
    /// Everything saved in this browser.
    Library,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 7] =
        [Self::Replay, Self::Live, Self::Import, Self::Field, Self::Analyze, Self::Study, Self::Library];

    /// Its name in the URL (and in test ids).
    pub fn id(self) -> &'static str {
        match self {
            Self::Replay => "replay",
            Self::Live => "live",
            Self::Import => "import",
            Self::Field => "field",
            Self::Analyze => "analyze",
            Self::Study => "study",
            Self::Library => "library",
        }
    }

    /// Its tab's label.
    pub fn label(self) -> &'static str {
        match self {
            Self::Replay => "Replay",
            Self::Live => "Live",
            Self::Import => "Import results",
            Self::Field => "Field data",
            Self::Analyze => "Analyze a trace",
            Self::Study => "UX study",
            Self::Library => "Library",
        }
    }

    /// Its page of the book, relative to the app (the book is built into
    /// the app's `docs/`): the view's help link.
    pub fn help_page(self) -> &'static str {
        match self {
            Self::Replay => "docs/guide/replay.html",
            Self::Live => "docs/guide/live.html",
            Self::Import => "docs/guide/import.html",
            Self::Field => "docs/guide/field.html",
            Self::Analyze => "docs/guide/analyze.html",
            Self::Study => "docs/guide/studies.html",
            Self::Library => "docs/guide/library.html",
        }
    }

    /// The view named `id`.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.id() == id)
    }
}

/// Where a URL fragment leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// No fragment: the landing page.
    Landing,
    /// A view.
    View(View),
    /// The participant session in progress.
    Participate,
    /// A share link; the payload after `share=`.
    Share(String),
    /// A study published on the server; its id.
    Published(String),
}

/// Start of the fragment of a published study (`#s/<id>`).
pub const PUBLISHED: &str = "s/";

/// The fragment of the participant session.
pub const PARTICIPATE: &str = "participate";

impl Route {
    /// Reads a fragment, with or without its `#`.
    pub fn parse(fragment: &str) -> Self {
        let f = fragment.strip_prefix('#').unwrap_or(fragment);
        if let Some(payload) = f.strip_prefix(FRAGMENT_KEY) {
            return Self::Share(payload.to_string());
        }
        if let Some(id) = f.strip_prefix(PUBLISHED).filter(|id| !id.is_empty()) {
            return Self::Published(id.to_string());
        }
        match f {
            PARTICIPATE => Self::Participate,
            _ => View::from_id(f).map_or(Self::Landing, Self::View),
        }
    }

    /// The fragment that leads here (with its `#`; empty for the landing).
    pub fn fragment(&self) -> String {
        match self {
            Self::Landing => String::new(),
            Self::View(v) => format!("#{}", v.id()),
            Self::Participate => format!("#{PARTICIPATE}"),
            Self::Share(p) => format!("#{FRAGMENT_KEY}{p}"),
            Self::Published(id) => format!("#{PUBLISHED}{id}"),
        }
    }

    /// The view shown under this route (before a share link is read: the
    /// view it opens is known once it is decoded).
    pub fn view(&self) -> View {
        match self {
            Self::View(v) => *v,
            Self::Participate | Self::Published(_) => View::Study,
            Self::Landing | Self::Share(_) => View::Replay,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_and_routes_round_trip() {
        for v in View::ALL {
            let r = Route::View(v);
            assert_eq!(Route::parse(&r.fragment()), r);
            assert_eq!(r.view(), v);
        }
        for r in [
            Route::Landing,
            Route::Participate,
            Route::Share("v1.abc".into()),
            Route::Published("k3x9".into()),
        ] {
            assert_eq!(Route::parse(&r.fragment()), r);
        }
        assert_eq!(Route::parse("live"), Route::View(View::Live));
        assert_eq!(Route::parse("#share=v1.x&y"), Route::Share("v1.x&y".into()));
        assert_eq!(Route::parse("#nowhere"), Route::Landing);
        assert_eq!(Route::parse("#s/"), Route::Landing, "a published study needs its id");
        assert_eq!(Route::Published("a".into()).view(), View::Study);
        assert_eq!(Route::parse(""), Route::Landing);
        assert_eq!(Route::Participate.view(), View::Study);
        assert_eq!(View::from_id("library"), Some(View::Library));
        assert_eq!(View::ALL.map(View::label)[0], "Replay");
    }
}

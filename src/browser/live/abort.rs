//! A stop button for one or more live requests: the page's
//! `AbortController`, kept by the run and handed to each request it sends.

/// A stop button for one or more requests.
#[derive(Clone)]
pub struct Abort(web_sys::AbortController);

impl Abort {
    /// A fresh controller.
    pub fn new() -> Option<Self> {
        web_sys::AbortController::new().ok().map(Self)
    }
    /// Aborts every request using it.
    pub fn abort(&self) {
        self.0.abort();
    }
    /// True once aborted.
    pub fn aborted(&self) -> bool {
        self.0.signal().aborted()
    }
    pub(super) fn signal(&self) -> web_sys::AbortSignal {
        self.0.signal()
    }
}

//! [`use_shared`]: state that every view of an on-demand module shares.
//!
//! A module that holds several views mounts each into its own element, as
//! its own root; what they share (one importer, one library) is made once,
//! by the first view mounted, and handed to the others. Module views stay
//! mounted for the page's lifetime, so its owner outlives them all.

use std::any::Any;
use std::cell::RefCell;

thread_local! {
    static SHARED: RefCell<Vec<Box<dyn Any>>> = RefCell::new(Vec::new());
}

/// The module's one `T`, made by `make` the first time it is asked for.
pub fn use_shared<T: Copy + 'static>(make: impl FnOnce() -> T) -> T {
    if let Some(t) = SHARED.with(|s| s.borrow().iter().find_map(|b| b.downcast_ref::<T>().copied())) {
        return t;
    }
    let t = make();
    SHARED.with(|s| s.borrow_mut().push(Box::new(t)));
    t
}

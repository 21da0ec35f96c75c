//! A loop of animation frames: `callback(now_ms)` once per frame between
//! [`FrameLoop::resume`] and [`FrameLoop::pause`] (a callback may pause it:
//! no frame is requested after that). Stops with its owner.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use super::clock::now_ms;

/// The per-frame closure handed to `requestAnimationFrame`.
type FrameCallback = Closure<dyn FnMut(f64)>;

struct Loop {
    active: Cell<bool>,
    handle: Cell<Option<i32>>,
    frame: RefCell<Option<FrameCallback>>,
}

impl Loop {
    fn request(&self) {
        if self.handle.get().is_some() {
            return;
        }
        if let Some(f) = self.frame.borrow().as_ref() {
            self.handle.set(window().request_animation_frame(f.as_ref().unchecked_ref()).ok());
        }
    }
}

/// The loop's controls (cheap to copy).
#[derive(Clone, Copy)]
pub struct FrameLoop {
    inner: StoredValue<Rc<Loop>, LocalStorage>,
}

/// A stopped loop around `callback`.
pub fn use_frame_loop(callback: impl Fn(f64) + 'static) -> FrameLoop {
    let inner =
        Rc::new(Loop { active: Cell::new(false), handle: Cell::new(None), frame: RefCell::new(None) });
    let weak = Rc::downgrade(&inner);
    let frame = FrameCallback::new(move |_ts: f64| {
        let Some(l) = weak.upgrade() else { return };
        l.handle.set(None);
        if l.active.get() {
            callback(now_ms());
        }
        if l.active.get() {
            l.request();
        }
    });
    inner.frame.replace(Some(frame));
    let looped = FrameLoop { inner: StoredValue::new_local(inner) };
    on_cleanup(move || looped.pause());
    looped
}

impl FrameLoop {
    /// Runs the callback every frame from the next one on.
    pub fn resume(&self) {
        if let Some(l) = self.inner.try_get_value() {
            l.active.set(true);
            l.request();
        }
    }

    /// Stops after the frame in progress (if any).
    pub fn pause(&self) {
        if let Some(l) = self.inner.try_get_value() {
            l.active.set(false);
            if let Some(h) = l.handle.take() {
                let _ = window().cancel_animation_frame(h);
            }
        }
    }
}

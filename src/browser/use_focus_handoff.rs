//! Keyboard focus that a disabled button would drop: Start is disabled as
//! a run starts and Stop as it ends, and the browser then moves the focus
//! to the page itself (no ring, the next Tab from the top). The partner
//! that is now enabled takes it instead; focus anywhere else (a field
//! being typed in while a run ends on its own) is left where it is.

use leptos::html::Button;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The two buttons and which one is enabled.
pub struct UseFocusHandoffOptions {
    /// Enabled while `first_enabled` is true (Start).
    pub first: NodeRef<Button>,
    /// Enabled while it is false (Stop).
    pub second: NodeRef<Button>,
    /// Whether `first` is the enabled one.
    pub first_enabled: Signal<bool>,
}

/// Hands the focus to whichever of the two buttons became enabled, after
/// the frame in which the other was disabled, when the focus was on that
/// one or had already fallen to the page.
pub fn use_focus_handoff(options: UseFocusHandoffOptions) {
    let UseFocusHandoffOptions { first, second, first_enabled } = options;
    Effect::new(move |before: Option<bool>| {
        let now = first_enabled.get();
        if before.is_some_and(|b| b != now) {
            let (from, to) = if now { (second, first) } else { (first, second) };
            // After the render that disabled one and enabled the other.
            request_animation_frame(move || hand_over(from, to));
        }
        now
    });
}

fn hand_over(from: NodeRef<Button>, to: NodeRef<Button>) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let active = doc.active_element();
    let fell = match &active {
        None => true,
        Some(a) => doc.body().is_some_and(|b| b.is_same_node(Some(a))),
    };
    let was_on = from.get_untracked().zip(active).is_some_and(|(f, a)| f.is_same_node(Some(&a)));
    let target = to.get_untracked().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(el) = target.filter(|_| fell || was_on) {
        let _ = el.focus();
    }
}

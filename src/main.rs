//! Entry point of the Latency Lab web app (thin, as in Leptos's examples).

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(latency_lab_app::ui::App);
}

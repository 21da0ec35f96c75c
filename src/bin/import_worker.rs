//! The import worker: reads and analyses benchmark result files off the
//! page's main thread (see `latency_lab_app::browser::import_worker`).

fn main() {
    console_error_panic_hook::set_once();
    latency_lab_app::browser::import_worker::run();
}

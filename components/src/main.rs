fn main() {
    console_error_panic_hook::set_once();
    // The same wasm runs the page and, instantiated by the page, the checker worker.
    if fencelab_app::worker::in_worker() {
        fencelab_app::worker::serve();
    } else {
        leptos::mount::mount_to_body(fencelab_app::App);
    }
}

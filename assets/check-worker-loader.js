// Starts the checker worker (Cargo bin `check-worker`, built by trunk as a no-modules
// worker). Ours rather than trunk's loader shim, which uses the deprecated init form.
importScripts("./check-worker.js");
wasm_bindgen({ module_or_path: "./check-worker_bg.wasm" });

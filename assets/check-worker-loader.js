// The checker worker (a module worker). It runs the page's own wasm: the page sends the
// URL of its wasm-bindgen glue (index.html does so as soon as the worker exists, so the
// glue loads while the page compiles the wasm) and then its compiled WebAssembly.Module,
// so nothing is fetched or compiled twice. Instantiating runs the wasm's `main`, which
// sees a worker scope and installs the request handler (components/src/worker.rs);
// `checker` says when it fetches the checker's chunk: "now", "after-load" or "never".
let bindings = null;
onmessage = async (event) => {
    const { glue, module, checker } = event.data;
    if (glue && !bindings) bindings = import(glue);
    if (!module) return;
    onmessage = null;
    globalThis.fencelabCheckerFetch = checker;
    try {
        (await bindings).initSync({ module });
    } catch (err) {
        // Rethrown outside the promise, so the page's `onerror` hears of it.
        setTimeout(() => {
            throw err;
        });
    }
};

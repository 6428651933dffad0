// The checker worker (a module worker). It runs the page's own wasm: the page's first
// message carries its compiled WebAssembly.Module and the URL of its wasm-bindgen glue,
// so nothing is fetched or compiled again. Instantiating runs the wasm's `main`, which
// sees a worker scope and installs the request handler (components/src/worker.rs).
onmessage = async (event) => {
    onmessage = null;
    const { glue, module } = event.data;
    try {
        const bindings = await import(glue);
        bindings.initSync({ module });
    } catch (err) {
        // Rethrown outside the promise, so the page's `onerror` hears of it.
        setTimeout(() => {
            throw err;
        });
    }
};

// The speed-built engine (dist/fencelab-engine*) in a bare page's worker, without the app
// (not a test: it prints numbers). `check-speed.mjs` times the app's worker, which checks
// while the page rebuilds its panels after the edit; this one separates what the browser's
// V8 costs from what sharing the machine's cores with the page costs
// (docs/performance.md, twenty-fifth session). Per warm-up scenario of the engine:
//   b2b    checks back to back in the worker;
//   idle   each check 50 ms after the last, the page idle;
//   busy   each check 50 ms after the last, the page's main thread busy for its first 20 ms,
//          as after an edit;
// and the CLI's checks back to back in one process (the later half), for native code warm.
// Usage: node e2e/worker-speed.mjs [runs, default 20]
// Needs a release dist/ (trunk build --release) and the release CLI (cargo build --release).
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, median, nativeBackToBack, warmUpScenarios } from "./speed-support.mjs";

const runs = Number(process.argv[2] ?? 20);
const dist = new URL("../dist/", import.meta.url).pathname;
const engineFiles = ["fencelab-engine.js", "fencelab-engine_bg.wasm"];
for (const need of [cli, ...engineFiles.map((f) => join(dist, f))]) {
    if (!existsSync(need)) {
        console.error(`cannot time: ${need} is missing (cargo build --release; trunk build --release)`);
        process.exit(2);
    }
}

// The bare page: a module worker that runs `warm_up(run)` on request and answers each
// check's time; `one(run, idleMs, busyMs)` waits, asks for one check and keeps the main
// thread busy meanwhile.
const page = mkdtempSync(join(tmpdir(), "fencelab-worker-speed-"));
for (const file of engineFiles) copyFileSync(join(dist, file), join(page, file));
writeFileSync(
    join(page, "index.html"),
    `<!doctype html><title>engine alone</title><script type="module">
const worker = new Worker("./worker.js", { type: "module" });
let answer = () => {};
worker.onmessage = (event) => answer(event.data);
const check = (run) => new Promise((resolve) => { answer = resolve; worker.postMessage(run); });
window.one = async (run, idleMs, busyMs) => {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const ms = check(run);
    const started = performance.now();
    while (performance.now() - started < busyMs);
    return ms;
};
</script>`,
);
writeFileSync(
    join(page, "worker.js"),
    `import init, { warm_up } from "./fencelab-engine.js";
const ready = init({ module_or_path: "./fencelab-engine_bg.wasm" });
onmessage = async (event) => {
    await ready;
    const started = performance.now();
    warm_up(event.data);
    postMessage(performance.now() - started);
};`,
);
process.env.FENCELAB_DIST = page;
const { launch, skipReason } = await import("./harness.mjs");
const skip = await skipReason();
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}

// `warm_up(run)` checks `scenarios[run]`.
const scenarios = warmUpScenarios(page);

const browser = await launch();
const { page: tab } = await browser.newPage();
await tab.goto(`${browser.url}/index.html`);
const one = (run, idleMs, busyMs) => tab.evaluate(([run, idleMs, busyMs]) => window.one(run, idleMs, busyMs), [run, idleMs, busyMs]);
const conditions = { b2b: [0, 0], idle: [50, 0], busy: [50, 20] };

console.log(`check time, median of ${runs} runs after ${2 * runs} untimed ones, ms (the engine's run includes`);
console.log("encoding and decoding its request); native: the CLI's checks back to back, the later half");
console.log("scenario".padEnd(44), ["native", ...Object.keys(conditions), "b2b/nat", "busy/nat"].map((h) => h.padStart(8)).join(" "));
for (const [run, file] of scenarios.entries()) {
    for (let i = 0; i < 2 * runs; i++) await one(run, 0, 0);
    const times = {};
    for (const [name, [idleMs, busyMs]] of Object.entries(conditions)) {
        times[name] = [];
        for (let i = 0; i < runs; i++) times[name].push(await one(run, idleMs, busyMs));
    }
    const native = median(nativeBackToBack(file, 2 * runs).slice(runs));
    const [b2b, idle, busy] = Object.values(times).map(median);
    const columns = [native, b2b, idle, busy, b2b / native, busy / native].map((x) => x.toFixed(2).padStart(8));
    console.log(file.split("/").at(-1).padEnd(44), columns.join(" "));
}
await browser.close();
rmSync(page, { recursive: true, force: true });

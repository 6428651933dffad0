// The speed-built checker engine (dist/fencelab-engine*) in Node's V8, against the native
// CLI, on the engine's own warm-up scenarios (not a test: it prints numbers). The browser
// timing script (`check-speed.mjs`) measures the engine in the page's worker, where the
// page's own work and the browser's threads share this machine's two cores with it; this
// one runs the same wasm with nothing beside it, so it says how far V8's code for the
// checker is from native code. Each timed run follows a native check (a process of its
// own); "V8 b2b" times the engine's runs back to back as well, which V8 runs markedly
// faster than runs that follow another process or idle time (docs/performance.md); "nat
// b2b" does the same for the CLI, whose first checks in a process are slower still, so
// "b2b/b2b" compares V8's code with native code, both warm.
// Usage: node e2e/engine-speed.mjs [runs, default 40]
// Needs a release dist/ (trunk build --release) and the release CLI (cargo build --release).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli, median, nativeBackToBack, nativeOnce, warmUpScenarios } from "./speed-support.mjs";

const runs = Number(process.argv[2] ?? 40);
const glue = new URL("../dist/fencelab-engine.js", import.meta.url);
for (const need of [cli, glue.pathname]) {
    if (!existsSync(need)) {
        console.error(`cannot time: ${need} is missing (cargo build --release; trunk build --release)`);
        process.exit(2);
    }
}
const engine = await import(glue.href);
await engine.default({ module_or_path: readFileSync(new URL("../dist/fencelab-engine_bg.wasm", import.meta.url)) });

const generated = mkdtempSync(join(tmpdir(), "fencelab-engine-speed-"));
// `warm_up(run)` checks `scenarios[run]`.
const scenarios = warmUpScenarios(generated);


console.log(`check time, median of ${runs} runs after ${runs} untimed ones, ms (the engine's run includes`);
console.log("encoding and decoding its request, which the CLI's check time does not)");
console.log("and the native checks' back to back in one process (\"nat b2b\", the median of its later half)");
console.log("scenario".padEnd(44), ["native", "V8", "ratio", "V8 b2b", "ratio", "nat b2b", "b2b/b2b"].map((h) => h.padStart(8)).join(" "));
scenarios.forEach((file, run) => {
    for (let i = 0; i < runs; i++) engine.warm_up(run);
    const v8 = [];
    const native = [];
    for (let i = 0; i < runs; i++) {
        const t = performance.now();
        engine.warm_up(run);
        v8.push(performance.now() - t);
        native.push(nativeOnce(file).ms);
    }
    const backToBack = [];
    for (let i = 0; i < runs; i++) {
        const t = performance.now();
        engine.warm_up(run);
        backToBack.push(performance.now() - t);
    }
    const nativeWarm = median(nativeBackToBack(file, 2 * runs).slice(runs));
    const [n, w, b] = [median(native), median(v8), median(backToBack)];
    const columns = [n, w, w / n, b, b / n, nativeWarm, b / nativeWarm].map((x) => x.toFixed(2).padStart(8));
    console.log(file.split("/").at(-1).padEnd(44), columns.join(" "));
});
rmSync(generated, { recursive: true, force: true });

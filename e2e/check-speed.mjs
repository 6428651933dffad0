// The checker's speed in the browser's worker (wasm) against the native CLI, on the same
// scenario files (not a test: it prints numbers). Issue 21 asks for wasm within 1.5x native.
// Usage: node e2e/check-speed.mjs [runs, default 5] [--app] [FILE...]
// Needs a release dist/ (trunk build --release) and the release CLI (cargo build --release).
//
// Browser: the scenario is pasted into the explorer (pragmatic mode, the app's default) and
// the worker's own check time is read from the verdict panel (`data-worker-check-ms`); each
// run changes an unused probe location's initial value (a first line, since declarations
// come before threads), so the scenario is checked afresh. The worker answers with the
// speed-built engine once it has fetched it (components/src/worker.rs): the script waits
// for that, runs each scenario once untimed (first-call compiles), and times only answers
// the engine gave (`data-worker-answered-by`). `--app` blocks the engine's fetch and times
// the app's own (size-built) wasm instead.
// Without FILEs: three small async pipelines, the 3x3 pipeline, and two synchronous
// scenarios (relaxed threads, generated as the benches do).
// Native: `fencelab check --json --mode pragmatic FILE`, whose `stats.ms` times the same
// `check` call (mode-note pass included) without process start-up.
// Each round runs one native and one wasm check in turn: "round ratio" is the median of the
// rounds' own ratios, which a burst of load on this shared machine skews less than the
// ratio of two medians taken minutes apart.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { launch, skipReason } from "./harness.mjs";
import { cli, median, nativeOnce, relaxedThreads } from "./speed-support.mjs";

const runs = Number(process.argv[2] ?? 5);
const appOnly = process.argv.includes("--app");
const answerer = appOnly ? "worker" : "engine";
const named = process.argv.slice(3).filter((arg) => arg !== "--app");
const generated = mkdtempSync(join(tmpdir(), "fencelab-speed-"));
const relaxed = (threads, accesses) => {
    const file = join(generated, `relaxed_threads_${threads}x${accesses}.fence`);
    writeFileSync(file, relaxedThreads(threads, accesses));
    return file;
};
const files = named.length
    ? named
    : [
          "tests/scenarios/async/pipeline_ws.fence",
          "tests/scenarios/async/pipeline_ws_missing_proxy_fence.fence",
          "tests/scenarios/async/pipeline_ws_missing_expect_tx.fence",
          "benches/data/pipeline_ws_3x3.fence",
          relaxed(3, 4),
          relaxed(3, 5),
      ];
const skip = (await skipReason()) ?? (existsSync(cli) ? null : `${cli} is missing (cargo build --release)`);
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}


const browser = await launch();
const { page } = await browser.newPage();
if (appOnly) await page.route("**/fencelab-engine*", (route) => route.abort());
await page.goto(`${browser.url}/#/explore`);
await page.locator('[data-region="verdict"][data-shown-at]').waitFor({ timeout: 30000 });
const text = page.getByRole("textbox", { name: /Scenario source/ });
const verdict = page.locator('[data-region="verdict"]');
const timedRequest = async () => Number((await verdict.getAttribute("data-timed-request")) || 0);

let probe = 0;
/** Checks `source` afresh; the worker's check time and which build answered. */
async function checkOnce(source) {
    const previous = await timedRequest();
    probe += 1;
    // Set the text and fire one input event, as typing does. Playwright's `fill` runs the
    // browser's editing commands on the whole textarea: a main-thread task of 60-115 ms per
    // edit here, whose end overlaps the worker's check and took a core from it (a trace
    // showed the worker's check at 8.5 ms of CPU time and up to 32 ms of wall time).
    await text.evaluate((area, value) => {
        area.value = value;
        area.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
    }, `global speed_probe = ${probe}\n${source}`);
    await page.waitForFunction(
        (prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return Number(el?.dataset.timedRequest || 0) > prev && el.dataset.shownAt !== undefined;
        },
        previous,
        { timeout: 120000, polling: 50 },
    );
    return { ms: Number(await verdict.getAttribute("data-worker-check-ms")), by: await verdict.getAttribute("data-worker-answered-by") };
}

// Edits until the wanted build answers (the engine comes a second or so after the first request).
const started = Date.now();
const small = readFileSync("tests/scenarios/async/pipeline_ws.fence", "utf8");
while ((await checkOnce(small)).by !== answerer) {
    if (Date.now() - started > 60000) {
        console.error(`the ${answerer} never answered within 60 s`);
        process.exit(2);
    }
    await page.waitForTimeout(200);
}

/** `runs` rounds of one native and one wasm check each, in turn, so that both sides of a
 *  round meet the same load on a shared machine; the median of the rounds' own ratios is
 *  printed beside the ratio of the two medians. */
async function timeBoth(file) {
    const source = readFileSync(file, "utf8");
    await checkOnce(source); // untimed: first-call compiles of what this scenario runs
    const nativeMs = [];
    const wasmMs = [];
    const ratios = [];
    let stats = {};
    for (let i = 0; i < runs; i++) {
        stats = nativeOnce(file);
        const { ms, by } = await checkOnce(source);
        if (by !== answerer) throw new Error(`run ${i + 1} of ${file} was answered by the ${by}, not the ${answerer}`);
        nativeMs.push(stats.ms);
        wasmMs.push(ms);
        ratios.push(ms / stats.ms);
    }
    return { stats, nativeMs, wasmMs, ratios };
}

console.log(`check time, median of ${runs} runs, ms (pragmatic mode); wasm: the ${answerer === "engine" ? "speed-built engine" : "app's own wasm"} in the worker`);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
// On a busy machine single runs swing by 2x: the fastest run of each side is printed too.
console.log(
    "scenario".padEnd(44),
    ["states", "native", "wasm", "ratio", "round ratio", "best nat", "best wasm", "ratio"].map((h, i) => h.padStart(i < 4 ? 8 : 11)).join(" "),
);
for (const file of files) {
    const { stats, nativeMs, wasmMs, ratios } = await timeBoth(file);
    const [n, w] = [median(nativeMs), median(wasmMs)];
    const [bn, bw] = [Math.min(...nativeMs), Math.min(...wasmMs)];
    const name = file.split("/").at(-1) + (stats.complete ? "" : " (cap)");
    const cells = [String(stats.states), n.toFixed(1), w.toFixed(1), (w / n).toFixed(2)].map((c) => c.padStart(8));
    const rest = [median(ratios).toFixed(2), bn.toFixed(1), bw.toFixed(1), (bw / bn).toFixed(2)].map((c) => c.padStart(11));
    console.log(name.padEnd(44), [...cells, ...rest].join(" "));
}
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
await browser.close();
rmSync(generated, { recursive: true, force: true });

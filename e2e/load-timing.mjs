// Navigation → first verdict on screen, in the built app (not a test: it prints numbers).
// Usage: node e2e/load-timing.mjs [runs, default 5] [route, default #/explore]
// (FENCELAB_DIST=dir times another build than dist/; FENCELAB_FRESH_BROWSER=1 starts a
// new browser for every run, as this script did before, instead of one browser for all.)
//
// Every run is a fresh browser context (the server also sends `no-store`), so nothing is
// cached: the page, its wasm and the worker's wasm are fetched and compiled each time.
// The browser itself is already running and has settled, as it has for a visitor: a
// browser started for the run spends the load's first second starting its own processes
// and profile, which on a 2-core machine keeps both cores busy (vmstat: 90-95 % in use)
// and makes every task of the page wait its turn.
// Times come from the page's own clock, whose zero is the start of navigation: the verdict
// panel's `data-shown-at` (the first animation frame after the verdict rendered), the
// resource timings of the wasm files, and every long task (> 50 ms) the main thread ran,
// observed from before the page's first script. The stage columns are the app's own User
// Timing measures: the app's state (within the mount task, which renders the page only
// in the next task), the mount task, parsing the starter scenario (within the state),
// building its stepping session (only when the stepper's chunk was already there: a
// visit's first session starts after the first verdict, so its column reads NaN), and a
// fresh worker's start until it is ready.
// `taskcpu` is the most CPU time one main-thread task used, read from a Chrome trace: on a
// busy machine a task's wall time (the long-task column) also counts waiting for a core.
// Tracing loads the machine too (the browser records every task and streams the events to
// this script while the page loads), so each untraced run is followed by a traced one:
// the first verdict and the long tasks are read from the untraced runs, the CPU time from
// the traced ones, and the traced runs' own first verdicts and long tasks are printed apart.
import { launch, launchForIsolatedPages, skipReason } from "./harness.mjs";
import { median } from "./speed-support.mjs";

const runs = Number(process.argv[2] ?? 5);
const route = process.argv[3] ?? "#/explore";
const skip = await skipReason();
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}

/** Registered before any page script: collects long tasks into `window.__longTasks`. */
function watchLongTasks() {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: "longtask", buffered: true });
}

/**
 * Traces the page's main thread (Chrome's `disabled-by-default-devtools.timeline`
 * category, whose `RunTask`s are the tasks the long-task observer sees), so a task's CPU
 * time can be told from its wall time: on a busy machine a task is often long only
 * because the renderer waited for a core. `longestTaskCpu()` ends the trace and returns
 * the most CPU time (ms) one task of a renderer's main thread used.
 */
async function startTaskTrace(page) {
    const cdp = await page.context().newCDPSession(page);
    const events = [];
    cdp.on("Tracing.dataCollected", (e) => events.push(...e.value));
    const complete = new Promise((ok) => cdp.on("Tracing.tracingComplete", ok));
    await cdp.send("Tracing.start", { categories: "disabled-by-default-devtools.timeline", transferMode: "ReportEvents" });
    return {
        async longestTaskCpu() {
            await cdp.send("Tracing.end");
            await complete;
            const mains = events.filter((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain");
            const cpu = (main) =>
                events
                    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.name === "RunTask" && e.ph === "X")
                    .map((e) => (e.tdur ?? 0) / 1000);
            // Every renderer's main thread: the page's, and blank ones whose tasks are tiny.
            return Math.max(0, ...mains.flatMap(cpu));
        },
    };
}

const freshBrowser = Boolean(process.env.FENCELAB_FRESH_BROWSER);
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
/** How long the shared browser is left alone before each run, so that it starts at rest. */
const SETTLE_MS = 1000;

/** A page with an empty cache: in a new browser, or a new context of `shared`. */
async function coldPage(shared) {
    if (shared) {
        await sleep(SETTLE_MS);
        const { page, problems, context } = await shared.newIsolatedPage();
        return { page, problems, url: shared.url, done: () => context.close() };
    }
    const browser = await launch();
    const { page, problems } = await browser.newPage();
    return { page, problems, url: browser.url, done: () => browser.close() };
}

async function oneRun(traced, shared) {
    const { page, problems, url, done } = await coldPage(shared);
    try {
        await page.addInitScript(watchLongTasks);
        const trace = traced ? await startTaskTrace(page) : null;
        await page.goto(`${url}/${route}`);
        // Polled in the page rather than with a Playwright locator: a locator makes Playwright
        // inject its selector engine, a large script whose parsing (20-40 ms of main-thread
        // work) lands in the middle of the load and delays the app it is meant to time.
        await page.evaluate(
            () =>
                new Promise((ok) => {
                    const poll = () => (document.querySelector('[data-region="verdict"][data-shown-at]') ? ok() : setTimeout(poll, 20));
                    poll();
                }),
        );
        // Long tasks are reported after they end; one more frame lets the last one in.
        await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 50))));
        const taskCpu = trace ? await trace.longestTaskCpu() : NaN;
        const run = await page.evaluate(() => {
            const nav = performance.getEntriesByType("navigation")[0];
            const wasm = performance
                .getEntriesByType("resource")
                .filter((r) => r.name.endsWith(".wasm"))
                .map((r) => ({ name: r.name.split("/").pop(), end: r.responseEnd }));
            const d = document.querySelector('[data-region="verdict"]').dataset;
            return {
                shown: Number(d.shownAt),
                posted: Number(d.postedAt),
                reply: Number(d.replyAt),
                check: Number(d.workerCheckMs),
                domContentLoaded: nav?.domContentLoadedEventEnd ?? 0,
                wasm,
                longTasks: window.__longTasks,
                // The app's own measures during load (the latest of each).
                stages: Object.fromEntries(
                    ["state", "mount", "parse", "tape", "worker-start"].map((n) => [
                        n,
                        performance.getEntriesByName(`fencelab:${n}`, "measure").at(-1)?.duration ?? NaN,
                    ]),
                ),
            };
        });
        run.problems = problems;
        run.taskCpu = taskCpu;
        return run;
    } finally {
        await done();
    }
}

const shared = freshBrowser ? null : await launchForIsolatedPages();
const samples = [];
const tracedSamples = [];
try {
    for (let i = 0; i < runs; i++) {
        samples.push(await oneRun(false, shared));
        tracedSamples.push(await oneRun(true, shared));
    }
} finally {
    await shared?.close();
}

const f = (x, w = 7) => x.toFixed(0).padStart(w);
console.log(`navigation → first verdict on screen (${route}), ${runs} cold-cache runs ${freshBrowser ? "each in a browser started for it" : "in one running browser"}, ms from navigation start`);
const stageNames = ["state", "mount", "parse", "tape", "worker-start"];
console.log("run", "shown".padStart(7), "posted".padStart(7), "reply".padStart(7), "check".padStart(7), "DCL".padStart(7), ...stageNames.map((n) => n.padStart(13)), "  wasm fetched", "  long tasks");
const longTasks = (s) => s.longTasks.map((t) => `${t.duration.toFixed(0)}@${t.start.toFixed(0)}`).join(" ") || "none";
samples.forEach((s, i) => {
    const wasm = s.wasm.map((w) => `${w.name.replace(/-[0-9a-f]{16,}/, "")}@${w.end.toFixed(0)}`).join(" ");
    console.log(String(i + 1).padEnd(3), f(s.shown), f(s.posted), f(s.reply), f(s.check), f(s.domContentLoaded), ...stageNames.map((n) => f(s.stages[n], 13)), "  " + wasm, "  " + longTasks(s));
});
const longest = (runs) => runs.map((s) => Math.max(0, ...s.longTasks.map((t) => t.duration)));
console.log(`median first verdict: ${median(samples.map((s) => s.shown)).toFixed(0)} ms; longest task: median ${median(longest(samples)).toFixed(0)} ms, worst ${Math.max(...longest(samples)).toFixed(0)} ms`);
console.log(`traced runs, one after each run above: first verdict, the most CPU time one main-thread task used, long tasks`);
tracedSamples.forEach((s, i) => console.log(String(i + 1).padEnd(3), f(s.shown), f(s.taskCpu), "  " + longTasks(s)));
const cpu = tracedSamples.map((s) => s.taskCpu);
console.log(`longest task's CPU time (traced runs): median ${median(cpu).toFixed(0)} ms, worst ${Math.max(...cpu).toFixed(0)} ms; under tracing, first verdict median ${median(tracedSamples.map((s) => s.shown)).toFixed(0)} ms, longest task median ${median(longest(tracedSamples)).toFixed(0)} ms`);
const problems = [...samples, ...tracedSamples].flatMap((s) => s.problems);
if (problems.length) console.log("page problems:", problems);

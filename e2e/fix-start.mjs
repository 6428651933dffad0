// How long "Fix it" takes from the click to the answer on screen, by how warm the fix
// search's engine is (not a test: it prints numbers). Only the speed-built engine answers
// fix requests, and the fix panel's worker fetches it on its first search:
//   cold:   a fresh browser's first search (worker start, engine fetch, compile and
//           instantiate, then the search);
//   warm:   the same panel's next search (its worker has the engine);
//   cached: a second page's first search (a new worker, the engine in the HTTP cache);
//   later:  a fresh browser's first search 5 s after the first verdict, by when the check
//           worker has fetched the engine and warmed it up (so it is in the HTTP cache).
// Each column gives the wall time (ms) and, in brackets, the worker's own search time
// (`data-fix-ms`). The scenario is the racy message-passing template, searched in the
// app's default mode with the default limits.
// Usage: node e2e/fix-start.mjs [runs]   (FENCELAB_DIST=dir times another build)
import { launch, loadTemplate, openExplorer, skipReason } from "./harness.mjs";
import { median } from "./speed-support.mjs";

const skip = await skipReason();
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}
const runs = Number(process.argv[2] ?? 5);

/** Clicks the panel's button and returns the wall time to the answer and the search time. */
async function search(page) {
    const wall = await page.evaluate(async () => {
        // The panel may show the last answer ("done") when clicked: wait for a new one.
        const panel = document.querySelector("[data-fix-panel]");
        const answered = new Promise((resolve) => {
            const seen = new MutationObserver(() => {
                if (panel.dataset.fixState === "done" || panel.dataset.fixState === "failed") {
                    seen.disconnect();
                    resolve(performance.now());
                }
            });
            seen.observe(panel, { attributes: true, attributeFilter: ["data-fix-state"] });
        });
        const t0 = performance.now();
        document.querySelector("[data-fix-start]").click();
        // The answer is on screen once a frame has painted it.
        const at = await answered;
        await new Promise((resolve) => requestAnimationFrame(resolve));
        return Math.max(at, performance.now()) - t0;
    });
    const panel = page.locator("[data-fix-panel]");
    if ((await panel.getAttribute("data-fix-state")) !== "done") throw new Error(`search failed: ${await panel.innerText()}`);
    return { wall, ms: Number(await panel.getAttribute("data-fix-ms")) };
}

async function racyPage(browser) {
    const { page } = await openExplorer(browser);
    if ((await loadTemplate(page, "mp-relaxed")) !== "race") throw new Error("the template is not racy");
    return page;
}

const rows = { cold: [], warm: [], cached: [], later: [] };
for (let run = 0; run < runs; run++) {
    const browser = await launch();
    const first = await racyPage(browser);
    rows.cold.push(await search(first));
    rows.warm.push(await search(first));
    const second = await racyPage(browser);
    rows.cached.push(await search(second));
    await browser.close();
    const fresh = await launch();
    const idle = await racyPage(fresh);
    await idle.waitForTimeout(5000);
    rows.later.push(await search(idle));
    await fresh.close();
}
const show = (xs) => xs.map((x) => `${x.wall.toFixed(0)} (${x.ms.toFixed(0)})`).join(", ");
for (const [name, xs] of Object.entries(rows)) {
    console.log(`${name.padEnd(6)} median ${median(xs.map((x) => x.wall)).toFixed(0)} ms (search ${median(xs.map((x) => x.ms)).toFixed(0)} ms): ${show(xs)}`);
}

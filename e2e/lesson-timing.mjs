// Navigation → a lesson on screen, on a visit that opens the lessons first (not a test: it
// prints numbers). Usage: node e2e/lesson-timing.mjs [runs, default 5] [route, default
// #/lessons/executed-is-not-visible] (FENCELAB_DIST=dir times another build than dist/).
//
// Every run is a fresh context of one running browser (the server sends `no-store`), so
// the app, the lessons' code, the course and the Markdown renderer are fetched and
// compiled each time. "shown" is the page's clock when the lesson's title and its first
// scenario card are both in the page (polled every 10 ms); "cards" when every card has
// its lanes; then the requests the page made and every long task (> 50 ms) the main
// thread ran, as `duration@start`.
import { launchForIsolatedPages, skipReason } from "./harness.mjs";
import { median } from "./speed-support.mjs";

const runs = Number(process.argv[2] ?? 5);
const route = process.argv[3] ?? "#/lessons/executed-is-not-visible";
const skip = await skipReason();
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}

const shared = await launchForIsolatedPages();
const shown = [];
const longest = [];
console.log(`navigation → lesson on screen (${route}), ${runs} cold-cache runs in one running browser, ms from navigation start`);
console.log("run   shown   cards  requests  long tasks");
for (let run = 1; run <= runs; run++) {
    await new Promise((ok) => setTimeout(ok, 800));
    const { page, context } = await shared.newIsolatedPage();
    await page.addInitScript(() => {
        window.__longTasks = [];
        new PerformanceObserver((list) => {
            for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
        }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(`${shared.url}/${route}`);
    const at = await page.evaluate(
        () =>
            new Promise((ok) => {
                const out = {};
                const poll = () => {
                    const now = performance.now();
                    out.shown ??= document.querySelector(".lesson-page h1") && document.querySelector('[data-block="scenario"]') ? now : undefined;
                    const cards = document.querySelectorAll('[data-block="scenario"]').length;
                    if (out.shown !== undefined && document.querySelectorAll('[data-region="lesson-lanes"]').length === cards) ok({ ...out, cards: now });
                    else setTimeout(poll, 10);
                };
                poll();
            }),
    );
    await page.waitForTimeout(300);
    const { requests, tasks } = await page.evaluate(() => ({
        requests: performance.getEntriesByType("resource").length,
        tasks: window.__longTasks,
    }));
    await context.close();
    shown.push(at.shown);
    longest.push(Math.max(0, ...tasks.map((t) => t.duration)));
    const long = tasks.map((t) => `${Math.round(t.duration)}@${Math.round(t.start)}`).join(" ") || "none";
    console.log(`${String(run).padEnd(5)} ${String(Math.round(at.shown)).padStart(5)} ${String(Math.round(at.cards)).padStart(7)} ${String(requests).padStart(9)}  ${long}`);
}
await shared.close();
console.log(`median lesson on screen: ${Math.round(median(shown))} ms; longest task: median ${Math.round(median(longest))} ms, worst ${Math.round(Math.max(...longest))} ms`);

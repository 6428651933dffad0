// A lesson's cards are checked in a worker, so the page answers while they check: lesson
// 16's two imported pipelines take the size-built checker about two seconds each, which on
// the main thread froze the page for four (a click waited for both).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, skipReason } from "./harness.mjs";

const skip = await skipReason();
/** The longest main-thread task a lesson's checks may leave: a frame or two of the cards' own rendering. */
const LONGEST_TASK_MS = 400;

describe("lesson checks", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the page answers a click while a lesson's heavy scenarios check, and no long task holds it", async () => {
        const { page, problems } = await browser.newPage();
        await page.addInitScript(() => {
            window.longTasks = [];
            new PerformanceObserver((list) => list.getEntries().forEach((e) => window.longTasks.push(Math.round(e.duration)))).observe({ type: "longtask", buffered: true });
        });
        await page.goto(`${browser.url}/#/lessons/real-pipeline`);
        const cards = page.locator("[data-lesson-scenario]");
        await cards.first().waitFor({ timeout: 30000 });
        assert.equal(await cards.count(), 2);

        // At once, while the cards check.
        const theme = await page.evaluate(() => document.documentElement.getAttribute("data-theme"));
        const clickedAt = Date.now();
        await page.locator(".theme-toggle").click();
        await page.waitForFunction((before) => document.documentElement.getAttribute("data-theme") !== before, theme);
        const answeredInMs = Date.now() - clickedAt;
        const stillChecking = await page.locator(".verdict-chip.pending").count();
        assert.ok(stillChecking > 0 && answeredInMs < 1000, `the click took ${answeredInMs} ms to show, with ${stillChecking} cards still checking`);

        // Each card still gets its verdict, as `fencelab lessons check` gives it.
        await page.waitForFunction(() => document.querySelectorAll(".verdict-chip.pending").length === 0, null, { timeout: 60000 });
        const verdicts = await cards.locator(".verdict-chip").evaluateAll((chips) => chips.map((c) => c.dataset.verdict));
        assert.deepEqual(verdicts, ["correct", "race"]);
        assert.equal(await cards.locator(".expectations li.bad").count(), 0, "every expectation holds");
        const longest = Math.max(0, ...(await page.evaluate(() => window.longTasks)));
        assert.ok(longest < LONGEST_TASK_MS, `the longest main-thread task took ${longest} ms`);
        assert.deepEqual(problems, []);
        await page.close();
    });
});

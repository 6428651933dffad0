// A lesson's cards are checked in a worker, so the page answers while they check. Lesson
// 16's imported pipelines once took the size-built checker two seconds each, which on the
// main thread froze the page; the checker now decides them in a few hundred states, so
// the test serves lesson 16 with CUTLASS example 48 as its first card, which takes the
// checker many seconds, to keep a heavy check running while the page is clicked.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, repoRoot, skipReason } from "./harness.mjs";

const skip = await skipReason();
/** The longest main-thread task a lesson's checks may leave: a frame or two of the cards' own rendering. */
const LONGEST_TASK_MS = 400;
/** Seconds of checking per mode (a 3x3 pipeline explored to the state cap). */
const HEAVY = readFileSync(join(repoRoot, "benches/data/pipeline_ws_3x3_missing_proxy_fence.fence"), "utf8");

/** `course.txt` (a line `fencelab course 1`, then per file `NAME BYTES`, its bytes and a
 * newline) with `file`'s text passed through `edit`. */
function rewriteBundle(bundle, file, edit) {
    const header = Buffer.from("fencelab course 1\n");
    const parts = [header];
    let at = header.length;
    while (at < bundle.length) {
        const newline = bundle.indexOf(10, at);
        const [name, bytes] = bundle.subarray(at, newline).toString("utf8").split(" ");
        const start = newline + 1;
        const end = start + Number(bytes);
        let text = bundle.subarray(start, end);
        if (name === file) text = Buffer.from(edit(text.toString("utf8")), "utf8");
        parts.push(Buffer.from(`${name} ${text.length}\n`), text, Buffer.from("\n"));
        at = end + 1;
    }
    return Buffer.concat(parts);
}

/** Serves the course with lesson 16's first card replaced by `HEAVY`. */
async function heavyLesson16(page) {
    await page.route("**/lessons/course.txt", async (route) => {
        const response = await route.fetch();
        let replaced = false;
        const body = rewriteBundle(await response.body(), "16-real-pipeline.md", (text) =>
            text.replace(/```fence\n[\s\S]*?```/, () => {
                replaced = true;
                return "```fence\n" + HEAVY + "```";
            }),
        );
        assert.ok(replaced, "lesson 16 has a scenario card to replace");
        await route.fulfill({ response, body });
    });
}

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
        await heavyLesson16(page);
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

        // Each card still gets its verdict: the heavy one whatever its caps allow, the
        // lesson's own racy pipeline as `fencelab lessons check` gives it.
        await page.waitForFunction(() => document.querySelectorAll(".verdict-chip.pending").length === 0, null, { timeout: 180000 });
        const verdicts = await cards.locator(".verdict-chip").evaluateAll((chips) => chips.map((c) => c.dataset.verdict));
        assert.ok(!["pending", "broken"].includes(verdicts[0]), `the heavy card: ${verdicts[0]}`);
        assert.equal(verdicts[1], "race");
        assert.equal(await cards.nth(1).locator(".expectations li.bad").count(), 0, "every expectation of the lesson's card holds");
        const longest = Math.max(0, ...(await page.evaluate(() => window.longTasks)));
        assert.ok(longest < LONGEST_TASK_MS, `the longest main-thread task took ${longest} ms`);
        assert.deepEqual(problems, []);
        await page.close();
    });
});

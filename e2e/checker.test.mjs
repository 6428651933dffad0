// The checker worker seen from the page: a long check shows its progress and can be
// cancelled, and a burst of typing is checked for its final text only.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, requestNumber, screenshot, skipReason, verdictAfter } from "./harness.mjs";

const skip = await skipReason();

/** Four threads hammering one location with weak accesses: no reduction applies, so the
 *  worker explores for seconds before it reaches the state cap. */
function contended(threads, accesses) {
    let s = "# Contended counter: long to check\ncta A\nglobal x = 0\n";
    for (let t = 0; t < threads; t++) {
        s += `thread t${t} @A:\n`;
        for (let i = 0; i < accesses; i++) {
            s += i % 2 === 0 ? `    st.relaxed.gpu.global [x], ${t * 10 + i + 1}\n` : `    ld.relaxed.gpu.global r${i}, [x]\n`;
        }
    }
    return s;
}

const panel = (page) => page.locator('[data-region="verdict"]');

describe("checker worker", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a long check shows its progress and can be cancelled", async () => {
        const { page, problems } = await openExplorer(browser);
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        await text.fill(contended(4, 6));
        const bar = page.getByRole("progressbar", { name: /states/ });
        await bar.waitFor({ timeout: 10000 });
        const first = Number(await bar.getAttribute("value"));
        await page.waitForFunction(
            (was) => Number(document.querySelector("#check-progress-bar")?.getAttribute("value")) > was,
            first,
            { timeout: 10000 },
        );
        const label = await page.locator(".check-progress-label").innerText();
        assert.match(label, /^[\d,]+ of at most 200,000 states, [\d,]+ transitions$/);
        assert.equal(await panel(page).getAttribute("data-state"), "running");
        assert.equal(await bar.getAttribute("max"), "200000");
        await screenshot(page, "checker-progress");

        await page.getByRole("button", { name: "Cancel" }).click();
        await page.locator('[data-region="verdict"][data-state="cancelled"]').waitFor();
        assert.match(await panel(page).innerText(), /Check cancelled/);
        assert.equal(await page.locator(".check-progress").count(), 0, "the progress is gone");
        await screenshot(page, "checker-cancelled");

        // A fresh worker answers the next edit.
        const before = await requestNumber(page);
        await page.getByLabel("New scenario from a template").selectOption("mp-relaxed");
        await page.waitForFunction(
            (prev) => {
                const el = document.querySelector('[data-region="verdict"]');
                return el.dataset.state === "done" && Number(el.dataset.request) > prev;
            },
            before,
            { timeout: 20000 },
        );
        assert.equal(await page.locator("[data-verdict]").getAttribute("data-verdict"), "race");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a run stopped by the state cap says it is partial", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.getByRole("textbox", { name: /Scenario source/ }).fill(contended(4, 6));
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 120000 });
        assert.equal(await page.locator("[data-verdict]").getAttribute("data-verdict"), "partial");
        assert.match(await page.locator(".verdict-stats").innerText(), /^200,000 states, .*stopped at the state cap/);
        // PARTIAL says what was explored, why it stopped, and what to do.
        const note = await page.locator("[data-partial]").innerText();
        assert.match(note, /Explored 200,000 states and [\d,]+ transitions/);
        assert.match(note, /state cap \(200,000\) was reached/);
        assert.match(note, /split the scenario/);
        await screenshot(page, "checker-partial");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a comment edit keeps the verdict and the stepping position without a new check", async () => {
        const { page, problems } = await openExplorer(browser);
        const before = await requestNumber(page);
        await page.locator("body").click({ position: { x: 5, y: 5 } });
        await page.keyboard.press("ArrowRight");
        assert.equal(await page.getByLabel("Jump to step").inputValue(), "1");
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        await text.fill(`${await text.inputValue()}\n# a note to self`);
        await page.waitForTimeout(300);
        assert.equal(await requestNumber(page), before, "no new check");
        assert.equal(await panel(page).getAttribute("data-state"), "done");
        assert.equal(await page.locator("[data-verdict]").getAttribute("data-verdict"), "correct");
        assert.equal(await page.getByLabel("Jump to step").inputValue(), "1", "still at step 1");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a burst of typing is checked for its final text", async () => {
        const { page, problems } = await openExplorer(browser);
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        const source = await text.inputValue();
        const at = source.indexOf("== 42)") + "== 42".length;
        assert.ok(at > 10, "the starter has a forall on r0 == 42");
        await text.evaluate((el, pos) => {
            el.focus();
            el.setSelectionRange(pos, pos);
        }, at);
        const before = await requestNumber(page);
        const typed = "1234567890";
        // Every prefix is a valid program: each keystroke is a real edit to check.
        await page.keyboard.type(typed, { delay: 0 });
        const final = `forall (consumer:r0 == 42${typed})`;
        await page.waitForFunction(
            (want) => {
                const el = document.querySelector('[data-region="verdict"]');
                return el.dataset.state === "done" && el.querySelector(".expectations")?.innerText.includes(want);
            },
            final,
            { timeout: 20000 },
        );
        const checked = (await requestNumber(page)) - before;
        assert.ok(checked >= 1 && checked < typed.length, `${typed.length} keystrokes, ${checked} checks`);
        // No answer for an older text arrives late and replaces it.
        await page.waitForTimeout(400);
        assert.equal(await panel(page).getAttribute("data-state"), "done");
        assert.equal((await requestNumber(page)) - before, checked);
        assert.match(await panel(page).locator(".expectations").innerText(), new RegExp(`== 42${typed}\\)`));
        assert.deepEqual(problems, []);
        await page.close();
    });
    test("a worker that is ready before the page mounts is heard: the first edit is checked", async () => {
        const { page, problems } = await browser.newPage();
        // index.html starts the worker before the wasm runs, and the app adopts it as it
        // mounts, a task later. A busy main thread delays that task (here: the page's first
        // zero-delay timers wait 400 ms), and the worker says it is ready before the app
        // has a handler for it.
        await page.addInitScript(() => {
            const seen = (window.__earlyWorker = { firstMessageAt: null, handlersSetAt: [] });
            const Original = window.Worker;
            window.Worker = class extends Original {
                constructor(...args) {
                    super(...args);
                    if (seen.watched) return;
                    seen.watched = true;
                    this.addEventListener("message", () => (seen.firstMessageAt ??= performance.now()));
                    const handler = Object.getOwnPropertyDescriptor(Original.prototype, "onmessage")
                        ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Original.prototype), "onmessage");
                    Object.defineProperty(this, "onmessage", {
                        get: () => handler.get.call(this),
                        set: (value) => {
                            seen.handlersSetAt.push(performance.now());
                            handler.set.call(this, value);
                        },
                    });
                }
            };
            const setTimeoutAsIs = window.setTimeout;
            let delayed = 0;
            window.setTimeout = (work, ms, ...args) => setTimeoutAsIs(work, !ms && delayed++ < 3 ? 400 : ms, ...args);
        });
        await page.goto(`${browser.url}/#/explore`);
        await verdictAfter(page, 0);
        const { firstMessageAt, handlersSetAt } = await page.evaluate(() => window.__earlyWorker);
        assert.ok(firstMessageAt !== null && firstMessageAt < handlersSetAt.at(-1),
            `the worker's first message at ${firstMessageAt} ms, the page's handlers set at ${handlersSetAt.join(", ")} ms`);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        assert.equal(await panel(page).getAttribute("data-worker-answered-by"), "worker");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

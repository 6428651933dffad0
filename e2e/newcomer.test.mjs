// A newcomer without help (issue 18): the guided start, the source linked to every step,
// lessons that step in place, text that reads right, and a layout that does not jump.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { distDir, launch, loadTemplate, openExplorer, reloadAtRest, screenshot, skipReason, verdictAfter } from "./harness.mjs";
import { startServer } from "./server.mjs";

const skip = await skipReason();

const LESSON = "executed-is-not-visible";
const EXERCISE = "publish-the-data";
const editorOf = (page) => page.getByRole("textbox", { name: /Scenario source/ });

/** The 1-based editor line whose painted text contains `needle`. */
async function lineOf(page, needle) {
    const text = await editorOf(page).inputValue();
    return text.split("\n").findIndex((l) => l.includes(needle)) + 1;
}

/** Whether `locator`'s box lies inside the viewport (top and bottom). */
async function onScreen(page, locator) {
    const box = await locator.boundingBox();
    const { height } = page.viewportSize();
    return box !== null && box.y >= 0 && box.y + Math.min(box.height, 40) <= height;
}

describe("newcomer", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the current step and a finding's accesses are marked in the source", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await page.getByRole("button", { name: "Step forward" }).click();
        const current = page.locator(".editor-paint [data-current-step]");
        assert.equal(await current.count(), 1, "exactly one current line");
        assert.equal(Number(await current.getAttribute("data-line")), await lineOf(page, "st.shared [data], 42"));
        await page.getByRole("button", { name: "Step forward" }).click();
        assert.equal(await current.count(), 1);
        assert.equal(Number(await current.getAttribute("data-line")), await lineOf(page, "st.relaxed.cta.shared [flag]"));

        await page.locator(".finding").first().getByRole("button", { name: "Show me" }).click();
        const accesses = page.locator(".editor-paint [data-finding-access]");
        assert.equal(await accesses.count(), 2, "the write and the stale read");
        const lines = (await accesses.evaluateAll((els) => els.map((e) => Number(e.dataset.line)))).sort((a, b) => a - b);
        assert.deepEqual(lines, [await lineOf(page, "st.shared [data], 42"), await lineOf(page, "ld.shared r1, [data]")]);
        assert.match(await accesses.first().getAttribute("data-finding-access"), /write of data/);
        assert.equal(await page.locator(".editor-gutter li.has-access").count(), 2, "gutter marks");
        assert.equal(await page.locator(".editor-paint [data-current-step]").count(), 1);
        await screenshot(page, "source-marks");

        // Hover a lane instruction: its line lights up.
        await page.locator('[data-agent="consumer"] .lane-program li').nth(1).hover();
        const hovered = page.locator(".editor-paint .hover-linked");
        assert.equal(Number(await hovered.getAttribute("data-line")), await lineOf(page, "ld.shared r1, [data]"));
        // Hover a timeline dot: its step's line lights up.
        await page.locator('.tl-dot[data-step="1"] .tl-dot-mark').hover();
        assert.equal(Number(await hovered.getAttribute("data-line")), await lineOf(page, "st.shared [data], 42"));

        // Click a line: the stepper goes to the step that runs it.
        const text = editorOf(page);
        const source = await text.inputValue();
        const at = source.indexOf("st.relaxed.cta.shared [flag]") + 3;
        await text.evaluate((el, pos) => {
            el.setSelectionRange(pos, pos);
            el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
        }, at);
        assert.equal(await page.getByLabel("Jump to step").inputValue(), "2", "just after the flag store");
        assert.equal(Number(await current.getAttribute("data-line")), await lineOf(page, "st.relaxed.cta.shared [flag]"));

        // People count from 1: programs, accesses and stuck lines.
        assert.equal(await page.locator(".lane-program").first().getAttribute("start"), "1");
        const finding = await page.locator(".finding").first().innerText();
        assert.doesNotMatch(finding, /instruction 0|`/, "no 0-based numbers, no raw backticks");
        assert.match(finding, /line \d+/);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a lesson's scenarios step in place, and the explorer leads back", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const blocks = page.locator("[data-lesson-scenario]");
        await blocks.first().waitFor();
        const count = await blocks.count();
        assert.ok(count >= 2);
        for (let i = 0; i < count; i++) {
            assert.equal(await blocks.nth(i).getByRole("button", { name: "Step forward" }).count(), 1, `block ${i} steps`);
            await blocks.nth(i).locator(".lane").first().waitFor();
        }
        const racy = blocks.filter({ has: page.locator('.verdict-chip[data-verdict="race"]') }).first();
        await racy.waitFor({ timeout: 30000 });
        await racy.getByRole("button", { name: "Step forward" }).click();
        assert.equal(await racy.getByLabel("Jump to step").inputValue(), "1");
        await racy.getByRole("button", { name: "Show me" }).first().click();
        assert.ok(Number(await racy.getByLabel("Jump to step").inputValue()) >= 2, "the witness is replayed in the card");
        assert.ok((await racy.locator(".access-marked").count()) >= 1);
        await racy.scrollIntoViewIfNeeded();
        await screenshot(page, "lesson-step-in-place");

        await racy.getByRole("button", { name: "Open in explorer" }).click();
        await page.waitForURL(/#\/explore$/);
        const back = page.locator("[data-return-to] a");
        await back.waitFor();
        await back.click();
        await page.waitForURL(new RegExp(`#/lessons/${LESSON}$`));
        await page.locator("[data-lesson-scenario]").first().waitFor();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a failing attempt names the checker's reason and links to its witness", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const card = page.locator(`[data-exercise="${EXERCISE}"]`);
        await card.waitFor();
        assert.equal(await card.locator(".editor-gutter").count(), 1, "the explorer's editor, with line numbers");
        const editor = card.locator("textarea.editor-text");
        const start = await editor.inputValue();
        await editor.fill(start.replace("st.relaxed.gpu", "st.release.gpu"));
        await card.locator('[data-grade="not yet"]').waitFor({ timeout: 20000 });
        const reason = card.locator("[data-checker-reason]");
        await reason.waitFor();
        assert.notEqual(await reason.getAttribute("data-checker-reason"), "");
        const link = card.locator("a.witness-link");
        assert.match(await link.getAttribute("href"), /^#\/s\//);
        await card.scrollIntoViewIfNeeded();
        await screenshot(page, "exercise-checker-reason");
        await link.click();
        await page.waitForURL(/#\/s\//);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 20000 });
        await page.locator("[data-return-to]").waitFor();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("verdict and findings are on screen at 1440×900 in text and blocks modes", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize({ width: 1440, height: 900 });
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const word = page.locator('[data-region="verdict"] [data-verdict]');
        const finding = page.locator(".finding h3").first();
        assert.ok(await onScreen(page, word), "verdict visible (text)");
        assert.ok(await onScreen(page, finding), "first finding visible (text)");
        await screenshot(page, "layout-1440-text");
        await page.getByRole("tab", { name: "Blocks" }).click();
        // The block editor's code is a chunk fetched on its first showing (components/src/lazy.rs).
        await page.locator('[data-region="blocks"]').waitFor();
        assert.ok(await onScreen(page, word), "verdict visible (blocks)");
        assert.ok(await onScreen(page, finding), "first finding visible (blocks)");
        // Only the verdict line is live for screen readers.
        const live = page.locator("[aria-live]");
        assert.equal(await live.count(), 1);
        assert.match(await live.innerText(), /^Verdict: race, 1 finding\.$/);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a typo keeps the last good lanes and machine, dimmed, with the error shown", async () => {
        const { page, problems } = await openExplorer(browser);
        // The lanes come from a chunk of their own, just after the verdict.
        await page.locator('[data-region="lanes"] .lane').first().waitFor();
        const lanes = await page.locator(".lane").count();
        assert.ok(lanes >= 2);
        const text = editorOf(page);
        await text.fill((await text.inputValue()).replace("ld.shared r0", "ld.sharedd r0"));
        await page.locator(".diag-error").first().waitFor();
        await page.locator("[data-stale]").waitFor();
        assert.equal(await page.locator(".lane").count(), lanes, "the lanes stay");
        assert.ok((await page.locator(".machine .box").count()) > 0, "the machine stays");
        assert.equal(await page.locator(".lanes.stale").count(), 1, "dimmed");
        await screenshot(page, "typo-keeps-lanes");
        await text.fill((await text.inputValue()).replace("ld.sharedd r0", "ld.shared r0"));
        await page.locator("[data-stale]").waitFor({ state: "detached" });
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the embed shows the verdict first in an 800×500 frame, the machine on request", async () => {
        const { page, problems } = await openExplorer(browser);
        await loadTemplate(page, "mp-relaxed");
        await page.getByRole("button", { name: "Copy link", exact: true }).click();
        const link = await page.locator("input.share-link").inputValue();
        const code = link.split("#/s/")[1];
        await page.setViewportSize({ width: 800, height: 500 });
        await page.goto(`${browser.url}/?embed#/s/${code}`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 20000 });
        assert.ok(await onScreen(page, page.locator('[data-region="verdict"] [data-verdict]')), "verdict in the frame");
        assert.equal(await page.locator('[data-region="machine"]').count(), 0);
        await page.getByRole("button", { name: "Show the machine" }).click();
        await page.locator('[data-region="machine"] .machine').waitFor();
        await screenshot(page, "embed-800x500");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a shared link keeps the program's comments", async () => {
        const { page, problems } = await openExplorer(browser);
        const text = editorOf(page);
        // A comment leaves the scenario as it was: no new check, the link is made at once.
        await text.fill((await text.inputValue()).replace("thread consumer", "# the consumer waits on the barrier\nthread consumer"));
        await page.getByRole("button", { name: "Copy link", exact: true }).click();
        const link = await page.locator("input.share-link").inputValue();
        const other = await browser.newPage();
        await other.page.goto(link);
        await verdictAfter(other.page, 0);
        assert.match(await editorOf(other.page).inputValue(), /# the consumer waits on the barrier\nthread consumer/);
        assert.deepEqual(problems, []);
        assert.deepEqual(other.problems, []);
        await other.page.close();
        await page.close();
    });

    test("a step animates its cause within 300 ms, and the animation can be turned off", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.getByRole("button", { name: "Step forward" }).click();
        const written = page.locator(".cell-writes li.just-written");
        assert.equal(await written.count(), 1, "the store's value travels into its cell");
        assert.ok((await page.locator(".vis.vis-new").count()) >= 1, "and into the readers' can-read sets");
        // Every running animation ends within 300 ms of the step.
        const longest = await page.evaluate(() =>
            Math.max(0, ...document.getAnimations().map((a) => {
                const t = a.effect.getComputedTiming();
                return (t.delay ?? 0) + (t.duration ?? 0);
            })),
        );
        assert.ok(longest > 0 && longest <= 300, `longest animation ${longest} ms`);
        await page.getByRole("button", { name: "Step forward" }).click();
        await page.getByRole("button", { name: "Step forward" }).click();
        assert.equal(await page.locator(".tl-just-formed").count(), 1, "the release/acquire edge draws in");
        await page.getByLabel("animate").uncheck();
        assert.equal(await page.evaluate(() => document.documentElement.dataset.animate), "off");
        await page.getByRole("button", { name: "Step forward" }).click();
        assert.equal(await page.evaluate(() => document.getAnimations().length), 0, "steps land at once");
        await page.getByLabel("animate").check();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("motion honours prefers-reduced-motion", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.emulateMedia({ reducedMotion: "reduce" });
        const durations = await page.evaluate(() =>
            [...document.querySelectorAll("*")]
                .map((el) => getComputedStyle(el))
                .filter((s) => s.transitionDuration.split(",").some((d) => parseFloat(d) > 0) || s.animationName !== "none")
                .length,
        );
        assert.equal(durations, 0, "nothing moves");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the guided start shows on a first visit, tours three stops, and stays dismissed", async () => {
        const { page, problems } = await browser.newPage();
        await page.setViewportSize({ width: 1440, height: 900 });
        await page.goto(`${browser.url}/#/explore`);
        await verdictAfter(page, 0);
        await page.evaluate(() => localStorage.removeItem("fencelab-guided-start"));
        await reloadAtRest(page);
        await verdictAfter(page, 0);
        const guide = page.locator("[data-guided-start]");
        await guide.waitFor();
        assert.ok(await onScreen(page, guide), "visible without scrolling");
        assert.equal(await guide.getByRole("link", { name: "Start lesson 1" }).getAttribute("href"), `#/lessons/${LESSON}`);
        await screenshot(page, "guided-start");
        await guide.getByRole("button", { name: "Take the tour" }).click();
        const stops = [];
        for (const region of ["editor", "verdict", "lanes"]) {
            await page.locator(`[data-region="${region}"][data-tour-focus]`).waitFor();
            stops.push(region);
            if (region === "verdict") assert.equal(await page.locator('[data-region="verdict"] [data-verdict]').getAttribute("data-verdict"), "race");
            // The last stop ends once the learner has taken a step (e2e/defects.test.mjs).
            if (region === "lanes") await page.locator("body").press("ArrowRight");
            await guide.getByRole("button", { name: region === "lanes" ? "Done" : "Next" }).click();
        }
        assert.deepEqual(stops, ["editor", "verdict", "lanes"]);
        await guide.waitFor({ state: "detached" });
        await reloadAtRest(page);
        await verdictAfter(page, 0);
        assert.equal(await page.locator("[data-guided-start]").count(), 0, "remembered");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a newcomer goes from the first page to a passed exercise in lesson 1, reading no docs", async () => {
        const { page, problems } = await browser.newPage();
        await page.setViewportSize({ width: 1440, height: 900 });
        await page.goto(`${browser.url}/`);
        await verdictAfter(page, 0);
        await page.evaluate(() => localStorage.clear());
        await reloadAtRest(page);
        const guide = page.locator("[data-guided-start]");
        await guide.waitFor();
        await guide.getByRole("link", { name: "Start lesson 1" }).click();
        await page.waitForURL(new RegExp(`#/lessons/${LESSON}$`));
        const card = page.locator('[data-exercise="publish-the-data"]');
        await card.waitFor();
        // What the hints lead to: release on the flag store, acquire on the flag load.
        const editor = card.locator("textarea.editor-text");
        const start = await editor.inputValue();
        await editor.fill(start.replace("st.relaxed.gpu", "st.release.gpu").replace("ld.relaxed.gpu", "ld.acquire.gpu"));
        await card.locator('[data-grade="passed"]').waitFor({ timeout: 20000 });
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the app works hosted under a subpath", async () => {
        const root = mkdtempSync(join(tmpdir(), "fencelab-subpath-"));
        symlinkSync(distDir, join(root, "sub"));
        const server = await startServer({ root });
        const { page, problems } = await browser.newPage();
        try {
            await page.goto(`${server.url}/sub/#/explore`);
            await verdictAfter(page, 0);
            await page.goto(`${server.url}/sub/#/lessons/${LESSON}`);
            await page.locator("[data-lesson-scenario]").first().waitFor();
            assert.deepEqual(problems, []);
        } finally {
            await page.close();
            await server.close();
            rmSync(root, { recursive: true, force: true });
        }
    });
});


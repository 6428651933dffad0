// "Fix it" under the verdict: on racy message passing the worker finds verified fixes,
// one click applies one (the verdict turns correct) and Undo brings the race back; a
// correct scenario is told which steps matter, and the steps are marked in the lanes, the
// blocks and the editor until the text changes; SASS cost chips toggle on and off and
// are remembered; the search's mode and edit limit reach the worker.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, reloadAtRest, requestNumber, screenshot, skipReason, themedShots, verdictAfter } from "./harness.mjs";

const skip = await skipReason();
// Light/dark, desktop/phone views for a person to look at.
const SHOTS = process.env.FIXPANEL_SHOTS ?? "/tmp/fixpanel-shots";

const panel = (page) => page.locator("[data-fix-panel]");

const shots = (page, name) => themedShots(page, SHOTS, name, panel(page));
const source = (page) => page.getByRole("textbox", { name: /Scenario source/ });
const lanes = (page) => page.locator('[data-region="lanes"]');
const editor = (page) => page.locator('[data-region="editor"]');

/** Replaces the editor text and returns the verdict word of the new text. */
async function typeScenario(page, text) {
    const before = await requestNumber(page);
    await source(page).fill(text);
    return verdictAfter(page, before);
}

/** Runs the panel's search and waits for its answer. */
async function search(page, name) {
    await page.getByRole("button", { name }).click();
    await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
}

/** The step marks on screen: lanes, editor gutter, painted editor lines. */
async function stepMarks(page) {
    return {
        lanes: await lanes(page).locator(".step-mark").evaluateAll((els) => els.map((e) => [e.dataset.step, e.title])),
        gutter: await page.locator(".editor-gutter li[data-step]").evaluateAll((els) => els.map((e) => [e.dataset.step, e.title])),
        painted: await page.locator(".editor-paint .step-mark").count(),
    };
}

describe("fix panel", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a racy message passing gets a fix that applies and undoes", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const original = await page.getByRole("textbox", { name: /Scenario source/ }).inputValue();

        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        const fixes = panel(page).locator("[data-fix]");
        assert.ok((await fixes.count()) >= 1, "at least one fix");
        const first = fixes.first();
        assert.match(await first.innerText(), /line \d+/, "the fix shows its edited line");
        assert.match(await first.locator(".fix-cost").innerText(), /cost \d+ → \d+/);
        await shots(page, "fix");
        await screenshot(page, "fixpanel-fixes");

        const beforeApply = await requestNumber(page);
        await first.locator("[data-fix-apply]").click();
        assert.equal(await verdictAfter(page, beforeApply), "correct");
        assert.notEqual(await page.getByRole("textbox", { name: /Scenario source/ }).inputValue(), original);
        assert.equal(await panel(page).getAttribute("data-fix-state"), "idle", "the old fixes are gone after the edit");

        const beforeUndo = await requestNumber(page);
        await page.getByRole("button", { name: "Undo", exact: true }).click();
        assert.equal(await verdictAfter(page, beforeUndo), "race");
        assert.equal(await page.getByRole("textbox", { name: /Scenario source/ }).inputValue(), original);
        assert.deepEqual(problems, []);
    });

    test("a correct scenario is told which steps matter", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-release-acquire"), "correct");
        assert.equal(await page.getByRole("button", { name: "Fix it" }).count(), 0, "nothing to fix");
        await page.getByRole("button", { name: "Which steps matter?" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        assert.ok((await panel(page).locator("[data-necessary]").count()) >= 1, "the release and the acquire are necessary");
        await shots(page, "steps");
        assert.deepEqual(problems, []);
    });

    test("a running search can be cancelled", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        // Start and cancel in one task: the fix worker cannot have answered yet (it has not
        // even started), so the cancel always finds the search under way (loading).
        const cancelled = await page.evaluate(async () => {
            document.querySelector("[data-fix-start]").click();
            for (let i = 0; i < 20; i++) {
                const cancel = document.querySelector("[data-fix-cancel]");
                if (cancel) {
                    cancel.click();
                    return true;
                }
                await Promise.resolve();
            }
            return false;
        });
        assert.ok(cancelled, "a Cancel button shows while the search runs");
        await page.locator('[data-fix-panel][data-fix-state="cancelled"]').waitFor();
        assert.match(await panel(page).innerText(), /Search cancelled/);
        // A new search after a cancel still answers.
        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        assert.deepEqual(problems, []);
    });

    test("which steps matter marks the lanes, the blocks and the editor, until the text changes", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-release-acquire"), "correct");
        // An extra fence after the release: the search must call it removable.
        const extra = (await source(page).inputValue()).replace(
            "    st.release.cta.shared [flag], 1\n",
            "    st.release.cta.shared [flag], 1\n    fence.acq_rel.cta\n",
        );
        assert.equal(await typeScenario(page, extra), "correct");
        await lanes(page).locator(".lane").first().waitFor();
        assert.deepEqual(await stepMarks(page), { lanes: [], gutter: [], painted: 0 }, "no marks before a search");
        await search(page, "Which steps matter?");

        const marks = await stepMarks(page);
        const necessary = marks.lanes.filter(([kind]) => kind === "necessary");
        assert.ok(necessary.length >= 2, `the release and the acquire: ${JSON.stringify(marks.lanes)}`);
        for (const [, title] of necessary) assert.match(title, /^needed: .* → race/, "says which weakening breaks it");
        assert.deepEqual(
            marks.lanes.filter(([kind]) => kind === "redundant").map(([, t]) => t),
            ["can go: removing it is still correct (pragmatic mode)"],
            "the extra fence can go (in the app's default mode)",
        );
        assert.deepEqual(marks.gutter, marks.lanes, "the editor marks the same lines, with the same why");
        assert.equal(marks.painted, marks.lanes.length);
        // The fence's own lane line carries the redundant mark.
        const fenceLine = lanes(page).locator('[data-agent="producer"] li', { hasText: "fence.acq_rel.cta" });
        assert.match(await fenceLine.innerText(), /○ can go/, "a glyph and a word, not colour alone");
        await themedShots(page, SHOTS, "steps-editor", editor(page), { whole: true });
        await themedShots(page, SHOTS, "steps-lanes", lanes(page), { whole: true });

        await page.getByRole("tab", { name: "Blocks" }).click();
        // The block editor's code is a chunk fetched on its first showing (components/src/lazy.rs).
        await page.locator('[data-region="blocks"]').waitFor();
        const blockMarks = await page.locator('[data-region="blocks"] .step-mark').evaluateAll((els) => els.map((e) => [e.dataset.step, e.title]));
        assert.deepEqual(blockMarks, marks.lanes, "the blocks are marked too");
        await themedShots(page, SHOTS, "steps-blocks", page.locator('[data-region="blocks"]'), { whole: true });
        await page.getByRole("tab", { name: "Text" }).click();

        // Any edit, even a comment, makes the marks stale: they go at once.
        await source(page).press("Control+End");
        await source(page).type("\n# note");
        assert.deepEqual(await stepMarks(page), { lanes: [], gutter: [], painted: 0 }, "no stale marks");
        assert.deepEqual(problems, []);
    });

    test("cost chips toggle, show the SASS and the model, and are remembered", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-release-acquire"), "correct");
        const toggle = page.locator("[data-cost-toggle]");
        assert.equal(await toggle.isChecked(), false, "off at first");
        assert.equal(await page.locator("[data-cost-chip]").count(), 0);
        await page.getByLabel("SASS cost").check();
        assert.equal(await toggle.isChecked(), true);
        // One priced instruction, the release store (MEMBAR.ALL.CTA): in the lane and the editor.
        const laneChips = lanes(page).locator("[data-cost-chip]");
        await laneChips.first().waitFor();
        assert.deepEqual(await laneChips.allInnerTexts(), ["cost 2"]);
        assert.match(await laneChips.first().getAttribute("title"), /^MEMBAR\.ALL\.CTA = 2\nSASS from nvcc 13\.0 for sm_90a/);
        assert.equal(await page.locator(".editor-paint [data-cost-chip]").count(), 1);
        const gutter = page.locator(".editor-gutter li[title]");
        assert.equal(await gutter.count(), 1);
        assert.match(await gutter.getAttribute("title"), /MEMBAR\.ALL\.CTA/, "the line number tells the SASS on hover");
        await themedShots(page, SHOTS, "chips-editor", editor(page), { whole: true });
        await themedShots(page, SHOTS, "chips-page", lanes(page));

        // Remembered across a reload; off again, also remembered.
        await reloadAtRest(page);
        await verdictAfter(page, 0);
        assert.equal(await page.locator("[data-cost-toggle]").isChecked(), true, "remembered on");
        await page.locator(".editor-paint [data-cost-chip]").first().waitFor();
        await page.locator("[data-cost-toggle]").uncheck();
        assert.equal(await page.locator("[data-cost-chip]").count(), 0);
        await reloadAtRest(page);
        await verdictAfter(page, 0);
        assert.equal(await page.locator("[data-cost-toggle]").isChecked(), false, "remembered off");
        assert.deepEqual(problems, []);
    });

    test("the search's mode and edit limit reach the worker", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const modeSelect = panel(page).locator("[data-fix-mode]");
        const maxEdits = panel(page).locator("[data-fix-max-edits]");
        assert.equal(await maxEdits.inputValue(), "4", "the CLI's default");
        // The search follows the checker's mode switch.
        await page.getByRole("button", { name: "Strict", exact: true }).click();
        assert.equal(await modeSelect.inputValue(), "strict");

        // One search step repairs message passing only with a `bar.sync` in both threads
        // (one compound step); the release/acquire repair takes two.
        await maxEdits.fill("1");
        await maxEdits.dispatchEvent("change");
        await search(page, "Fix it");
        const oneStep = await panel(page).locator("[data-fix]").allInnerTexts();
        assert.ok(oneStep.length >= 1 && oneStep.every((t) => t.includes("bar.sync") && !t.includes("release")), oneStep.join("\n---\n"));
        assert.match(await panel(page).innerText(), /verified fix(es)? in strict mode/);
        assert.ok(Number(await panel(page).getAttribute("data-fix-ms")) > 0, "the worker's search time is exposed");

        // Two steps reach the release/acquire repair, as four do.
        await maxEdits.fill("2");
        await maxEdits.dispatchEvent("change");
        await search(page, "Fix it");
        const twoSteps = await panel(page).locator("[data-fix]").allInnerTexts();
        assert.ok(twoSteps.some((t) => t.includes("release") && !t.includes("bar.sync")), twoSteps.join("\n---\n"));

        // Another limit makes the answer stale; the default finds fixes, in the mode picked.
        await maxEdits.fill("4");
        await maxEdits.dispatchEvent("change");
        assert.equal(await panel(page).getAttribute("data-fix-state"), "idle");
        await modeSelect.selectOption("pragmatic");
        await search(page, "Fix it");
        const fourSteps = await panel(page).locator("[data-fix]").allInnerTexts();
        assert.ok(fourSteps.some((t) => t.includes("release")), fourSteps.join("\n---\n"));
        assert.match(await panel(page).innerText(), /verified fix(es)? in pragmatic mode/);
        await shots(page, "controls");
        assert.deepEqual(problems, []);
    });
});

// "Fix it" under the verdict: on racy message passing the worker finds verified fixes,
// one click applies one (the verdict turns correct) and Undo brings the race back; a
// correct scenario is told which steps matter.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, requestNumber, screenshot, skipReason, themedShots, verdictAfter } from "./harness.mjs";

const skip = await skipReason();
// Light/dark, desktop/phone views for a person to look at.
const SHOTS = process.env.FIXPANEL_SHOTS ?? "/tmp/fixpanel-shots";

const panel = (page) => page.locator("[data-fix-panel]");

const shots = (page, name) => themedShots(page, SHOTS, name, panel(page));

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
        await page.getByRole("button", { name: "Undo" }).click();
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
        // even started), so the cancel always finds the search running.
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
});

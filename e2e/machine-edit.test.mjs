// The machine panel's "Edit layout" mode: add a cluster, a CTA, a thread, a shared
// location and an mbarrier, move a thread, undo, and a refused removal; the text
// editor shows every change because each one is an edit of the text.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, reloadAtRest, screenshot, skipReason } from "./harness.mjs";

const skip = await skipReason();

describe("machine edit", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("add and place from the machine panel; undo; refusal", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/explore`);
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        await text.waitFor();
        await page.getByLabel("New scenario from a template").selectOption("intra-cta-mbarrier");
        await page.waitForFunction(() => document.querySelector("textarea")?.value.includes("Intra-CTA handoff"));

        const machine = page.locator('[data-region="machine"]');
        const toggle = machine.getByRole("button", { name: "Edit layout" });
        assert.equal(await toggle.getAttribute("aria-pressed"), "false", "off by default");
        assert.equal(await machine.locator(".medit-bar").count(), 0, "no controls while stepping");
        await toggle.click();
        assert.equal(await toggle.getAttribute("aria-pressed"), "true");

        const until = (needle) => page.waitForFunction((n) => document.querySelector("textarea")?.value.includes(n), needle);
        await machine.getByRole("button", { name: "Add a cluster" }).click();
        await until("\ncluster C\n");
        await machine.getByRole("button", { name: "Add a CTA to cluster C" }).click();
        await until("\ncta B in C\n");
        await machine.getByRole("button", { name: "Add a thread to CTA B" }).click();
        await until("\nthread t2 @B:");
        await machine.getByRole("button", { name: "Add a shared location to CTA B" }).click();
        await until("\nshared x2 @B = 0");
        await machine.getByRole("button", { name: "Add an mbarrier (count 1) to CTA B" }).click();
        await until("\nmbarrier bar2 @B count 1");

        // The new items are drawn in CTA B's box.
        const ctaB = machine.locator('[data-cta="B"]');
        await ctaB.locator('[data-thread="t2"]').waitFor();
        await ctaB.getByRole("group", { name: "location x2" }).waitFor();
        await ctaB.getByRole("group", { name: "mbarrier bar2" }).waitFor();

        // Keyboard path: the thread's "Move to" list is a real select.
        const move = machine.getByRole("combobox", { name: "Move thread t2 to" });
        await move.focus();
        await move.selectOption({ label: "CTA A" });
        await until("\nthread t2 @A:");
        await machine.locator('[data-cta="A"] [data-thread="t2"]').waitFor();
        await screenshot(page, "machine-edit-light");
        await page.evaluate(() => document.documentElement.setAttribute("data-theme", "dark"));
        await page.waitForTimeout(500); // colour transitions settle
        await screenshot(page, "machine-edit-dark");
        await page.evaluate(() => document.documentElement.setAttribute("data-theme", "light"));

        const source = await text.inputValue();
        for (const decl of ["cluster C", "cta A", "cta B in C", "shared x2 @B = 0", "mbarrier bar2 @B count 1", "thread t2 @A:"]) {
            assert.ok(source.split("\n").includes(decl), `missing \`${decl}\` in:\n${source}`);
        }

        // Undo goes through the same history as typing: the move is taken back.
        await page.getByRole("button", { name: "Undo", exact: true }).first().click();
        await until("\nthread t2 @B:");

        // The pointer path: drag the chip onto CTA A's box.
        const chip = machine.locator('[data-cta="B"] [data-thread="t2"]');
        await chip.dragTo(machine.locator('[data-cta="A"] .box-label'), { sourcePosition: { x: 8, y: 8 } });
        await until("\nthread t2 @A:");

        // A used mbarrier cannot go; the panel says who uses it.
        const status = machine.getByRole("status");
        await machine.getByRole("button", { name: "Remove mbarrier bar", exact: true }).click();
        await status.filter({ hasText: "`bar` is used by `producer`" }).waitFor();
        assert.ok((await text.inputValue()).includes("\nmbarrier bar @A count 1"), "refusal changes nothing");
        await screenshot(page, "machine-edit-refused");

        // An unused one can; a placement the verifier rejects is applied and explained.
        await machine.getByRole("button", { name: "Remove mbarrier bar2", exact: true }).click();
        await page.waitForFunction(() => !document.querySelector("textarea")?.value.includes("bar2"));
        await machine.getByRole("combobox", { name: "Move location x to" }).selectOption({ label: "shared memory of B" });
        await until("\nshared x @B = 0");
        await status.filter({ hasText: "the text now has an error" }).waitFor();
        await machine.locator('[data-cta="B"]').getByRole("group", { name: "location x", exact: true }).waitFor();
        await screenshot(page, "machine-edit-broken-placement");

        // Typing makes the last word stale.
        await text.press("Control+End");
        await text.type(" ");
        await page.waitForFunction(() => document.querySelector(".medit-status")?.hidden);

        // Keyboard: from the toggle, Tab reaches the first "+" button, with a visible ring.
        await toggle.focus();
        await page.keyboard.press("Tab");
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Add a cluster");
        await machine.screenshot({ path: "e2e/screenshots/machine-edit-focus.png" });

        // The choice lasts for the session; a phone shows no controls.
        await reloadAtRest(page);
        await text.waitFor();
        await machine.locator(".medit-bar").first().waitFor();
        await page.setViewportSize({ width: 390, height: 844 });
        assert.equal(await machine.locator(".medit-bar").first().isVisible(), false, "hidden on a phone");
        assert.equal(await toggle.isVisible(), false);
        await screenshot(page, "machine-edit-phone");
        await page.setViewportSize({ width: 1280, height: 900 });
        assert.deepEqual(problems, []);
        await page.close();
    });
});

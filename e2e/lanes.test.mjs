// The lanes' own layout: a finished lane's status word stands apart from the text before
// it, and on a phone each lane is wide enough to read its program (one lane nearly the
// screen's width, the others a swipe away), while a desktop keeps them side by side.
// `node e2e/lane-screens.mjs DIR` takes the screenshots to look at.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, skipReason } from "./harness.mjs";

const skip = await skipReason();

/** Each lane's box, and the lanes' own, on screen. */
const laneBoxes = (page) =>
    page.evaluate(() => {
        const box = (el) => {
            const b = el.getBoundingClientRect();
            return { left: b.left, right: b.right, top: b.top, width: b.width };
        };
        const lanes = document.querySelector('[data-region="lanes"] .lanes');
        return { lanes: box(lanes), scrolls: lanes.scrollWidth > lanes.clientWidth, each: [...lanes.querySelectorAll(":scope > .lane")].map(box) };
    });

describe("lanes", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a finished lane's status is a pill of its own, apart from the text before it, in both themes", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await page.evaluate(() => document.activeElement?.blur());
        await page.keyboard.press("End");
        const status = page.locator('[data-region="lanes"] .lane-done .lane-status');
        await status.first().waitFor();
        assert.equal(await status.count(), 2, "both threads finished");
        for (const theme of ["light", "dark"]) {
            await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
            await page.waitForTimeout(300);
            const looks = await status.evaluateAll((all) =>
                all.map((el) => {
                    const style = getComputedStyle(el);
                    const before = el.previousElementSibling.getBoundingClientRect();
                    const own = el.getBoundingClientRect();
                    // On the same line the text before it ends left of it; wrapped, it starts a line.
                    const sameLine = Math.abs(before.top - own.top) < own.height;
                    return { text: el.innerText, border: parseFloat(style.borderTopWidth), borderColor: style.borderTopColor, background: style.backgroundColor, color: style.color, gap: sameLine ? own.left - before.right : null };
                }),
            );
            for (const look of looks) {
                assert.equal(look.text.toLowerCase(), "done");
                assert.ok(look.border >= 1, `${theme}: a border sets it apart: ${JSON.stringify(look)}`);
                assert.equal(look.borderColor, look.color, `${theme}: the border is the status colour`);
                assert.notEqual(look.background, "rgba(0, 0, 0, 0)", `${theme}: a tint fills it`);
                assert.ok(look.gap === null || look.gap >= 6, `${theme}: space before it: ${JSON.stringify(look)}`);
            }
        }
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("on a phone each lane is nearly the screen's width and the next is a swipe away; a desktop keeps them side by side", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize({ width: 390, height: 844 });
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const phone = await laneBoxes(page);
        assert.equal(phone.each.length, 2);
        for (const lane of phone.each) {
            assert.ok(lane.width >= 300, `a lane ${lane.width} px wide on a 390 px screen`);
        }
        assert.ok(phone.scrolls, "the lanes scroll sideways");
        assert.ok(phone.each[1].left < phone.lanes.right, "the next lane peeks in at the edge");
        // A short swipe snaps the second lane wholly into view.
        await page.locator('[data-region="lanes"] .lanes').evaluate((el) => el.scrollBy({ left: 120 }));
        await page.waitForTimeout(500);
        const swiped = await laneBoxes(page);
        const second = swiped.each[1];
        assert.ok(second.left >= swiped.lanes.left - 1 && second.right <= swiped.lanes.right + 1, `the second lane in view: ${JSON.stringify(swiped)}`);

        await page.setViewportSize({ width: 1440, height: 900 });
        const desktop = await laneBoxes(page);
        assert.equal(desktop.each[0].top, desktop.each[1].top, "side by side");
        assert.ok(!desktop.scrolls && desktop.each[1].right <= desktop.lanes.right + 1, "both in view");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

// The timeline end to end: synchronizes-with arrows by scope, failed edges read by
// keyboard, a finding's accesses marked in the lanes, jumping from a dot, async-op states.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import {
    launch,
    loadTemplate,
    openExplorer,
    requestNumber,
    screenshot,
    screenshotDir,
    skipReason,
    verdictAfter,
} from "./harness.mjs";

const skip = await skipReason();

async function setSource(page, edit) {
    const text = page.getByRole("textbox", { name: /Scenario source/ });
    const before = await requestNumber(page);
    await text.fill(edit(await text.inputValue()));
    return verdictAfter(page, before);
}

async function stepToEnd(page) {
    const forward = page.getByRole("button", { name: "Step forward" });
    for (let i = 0; i < 50 && (await forward.isEnabled()); i++) await forward.click();
}

const position = (page) => page.getByLabel("Jump to step").inputValue();

async function shootPanel(page, name) {
    await page.locator('[data-region="lanes"]').screenshot({ path: join(screenshotDir, `${name}.png`) });
}

describe("timeline", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    const open = () => openExplorer(browser);

    test("the starter draws a .cta arrow from the producer's arrive to the consumer's wait", async () => {
        const { page, problems } = await open();
        const svg = page.locator(".timeline-svg");
        assert.equal(await svg.locator(".tl-dot").count(), 0, "nothing taken yet");
        await stepToEnd(page);
        assert.equal(await position(page), "4");
        assert.match(await svg.locator('[data-key="dot-2"]').getAttribute("aria-label"), /^step 2: producer mbarrier\.arrive/);
        assert.match(await svg.locator('[data-key="dot-3"]').getAttribute("aria-label"), /^step 3: consumer .*try_wait/);
        const arrows = svg.locator(".tl-arrow.tl-formed.scope-cta");
        assert.equal(await arrows.count(), 1);
        assert.match(await arrows.first().getAttribute("aria-label"), /producer \(step 2\) ⇢ consumer \(step 3\): mbarrier \.cta/);
        // Hovering the arrow reads it out under the diagram (the verdict panel's "Fix it"
        // row can push the diagram below the fold, where the mouse cannot reach it).
        await arrows.first().scrollIntoViewIfNeeded();
        const start = await arrows.first().locator(".tl-line").evaluate((path) => {
            // Three quarters along: clear of the dot labels and of the crossing failed edge.
            const p = path.getPointAtLength(path.getTotalLength() * 0.75);
            const m = path.getScreenCTM();
            return { x: m.a * p.x + m.c * p.y + m.e, y: m.b * p.x + m.d * p.y + m.f };
        });
        await page.mouse.move(start.x, start.y);
        assert.match(await page.locator(".timeline-caption").innerText(), /producer \(step 2\) ⇢ consumer \(step 3\)/);
        assert.match(await page.locator("#timeline-summary").innerText(), /1 synchronizes-with edge/);
        await screenshot(page, "timeline-starter-light");
        await shootPanel(page, "timeline-starter-panel-light");
        await page.getByRole("button", { name: "Switch to dark theme" }).click();
        await page.waitForTimeout(500); // let the lanes' colour transition finish
        await shootPanel(page, "timeline-starter-panel-dark");
        await page.getByRole("button", { name: "Switch to light theme" }).click();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a relaxed wait draws a dashed failed edge whose reason shows on keyboard focus", async () => {
        const { page, problems } = await open();
        const verdict = await setSource(page, (s) =>
            s.replace("try_wait.parity.acquire.cta", "try_wait.parity.relaxed.cta").replace("expect correct", "expect race"),
        );
        assert.equal(verdict, "race");
        await stepToEnd(page);
        const failed = page.locator(".timeline-svg .tl-arrow.tl-failed");
        assert.equal(await failed.count(), 1);
        assert.equal(await page.locator(".timeline-svg .tl-arrow.tl-formed").count(), 0);
        assert.equal(
            await failed.locator(".tl-line").evaluate((el) => getComputedStyle(el).strokeDasharray !== "none"),
            true,
            "drawn dashed",
        );
        // The edges come before the dots in tab order: Shift+Tab back from the first dot.
        await page.locator(".timeline-svg .tl-dot").first().focus();
        for (let i = 0; i < 10; i++) {
            await page.keyboard.press("Shift+Tab");
            if (await failed.evaluate((el) => el === document.activeElement)) break;
        }
        assert.equal(await failed.evaluate((el) => el === document.activeElement), true, "reachable with Tab");
        const caption = await page.locator(".timeline-caption").innerText();
        assert.match(caption, /✗ no synchronization from producer \(step 2\) to consumer \(step 3\)/);
        assert.match(caption, /relaxed/);
        await shootPanel(page, "timeline-failed-edge-focused");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a racy template's finding marks both accesses in the lanes and rings them on the witness", async () => {
        const { page, problems } = await open();
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const finding = page.locator(".finding").first();
        const marks = page.locator('[data-region="lanes"] .access-mark');
        assert.equal(await marks.count(), 0);
        await finding.hover();
        const producer = page.locator('[data-agent="producer"] li.access-marked');
        const consumer = page.locator('[data-agent="consumer"] li.access-marked');
        assert.match(await producer.innerText(), /st\.shared(::cta)? \[data\], 42[\s\S]*◀ write of data/);
        assert.match(await consumer.innerText(), /ld\.shared(::cta)? r1, \[data\][\s\S]*◀ read of data/);
        await page.mouse.move(2, 2);
        assert.equal(await marks.count(), 0, "leaving the card clears an unpinned mark");
        // Without a mouse: focusing the card's button marks them too; Show me pins them.
        const show = finding.getByRole("button", { name: "Show me" });
        await show.focus();
        assert.equal(await marks.count(), 2);
        await page.keyboard.press("Enter");
        await page.locator("body").focus();
        await page.mouse.move(2, 2);
        assert.equal(await marks.count(), 2, "pinned after Show me");
        assert.equal(await page.locator(".timeline-svg .tl-ring").count(), 2, "both access steps ringed");
        await screenshot(page, "timeline-finding-marked-light");
        await page.getByRole("button", { name: "Switch to dark theme" }).click();
        await page.waitForTimeout(500); // let the lanes' colour transition finish
        await screenshot(page, "timeline-finding-marked-dark");
        await shootPanel(page, "timeline-finding-marked-panel-dark");
        await page.getByRole("button", { name: "Switch to light theme" }).click();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a timeline dot jumps the tape, by mouse and by keyboard", async () => {
        const { page, problems } = await open();
        await stepToEnd(page);
        await page.locator('.timeline-svg [data-key="dot-2"] .tl-dot-mark').click();
        assert.equal(await position(page), "2");
        assert.equal(await page.locator(".timeline-svg .tl-dot.tl-ahead").count(), 2, "steps 3 and 4 are ahead");
        await shootPanel(page, "timeline-jumped-back");
        const dot = page.locator('.timeline-svg [data-key="dot-1"]');
        await dot.focus();
        assert.match(await page.locator(".timeline-caption").innerText(), /^step 1: producer st\.shared/);
        await page.keyboard.press("Enter");
        assert.equal(await position(page), "1");
        await page.waitForFunction(() => document.activeElement?.dataset?.key === "dot-1");
        await page.locator('.timeline-svg [data-key="dot-4"]').focus();
        await page.keyboard.press(" ");
        assert.equal(await position(page), "4", "space jumps too");
        assert.equal(await page.getByRole("button", { name: "Play" }).getAttribute("aria-pressed"), "false", "and does not start playing");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("async agents show issued, accessing and completed", async () => {
        const { page, problems } = await open();
        assert.equal(await loadTemplate(page, "tma-load"), "correct");
        const seen = new Set();
        const forward = page.getByRole("button", { name: "Step forward" });
        for (let i = 0; i < 20 && (await forward.isEnabled()); i++) {
            await forward.click();
            const words = await page.locator('[data-region="lanes"] .lane .async-state').allInnerTexts();
            if (words.includes("accessing") && !seen.has("accessing")) await shootPanel(page, "timeline-tma-accessing");
            for (const word of words) seen.add(word);
        }
        assert.ok(seen.has("issued") && seen.has("completed"), `lane badges seen: ${[...seen]}`);
        const header = page.locator(".timeline-svg .tl-badge-completed");
        assert.ok((await header.count()) >= 1, "the column header says completed");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the timeline fits a phone", async () => {
        const { page, problems } = await open();
        await page.setViewportSize({ width: 390, height: 844 });
        await loadTemplate(page, "tma-load");
        await stepToEnd(page);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `page wider than the phone by ${overflow}px`);
        await page.locator(".timeline").scrollIntoViewIfNeeded();
        await screenshot(page, "timeline-phone");
        await shootPanel(page, "timeline-phone-panel");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

// The editor: typing shows up highlighted, undo/redo restore the text.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, screenshot, skipReason } from "./harness.mjs";

const skip = await skipReason();

describe("editor", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("typing is painted and undo/redo walk it back", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/explore`);
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        await text.waitFor();
        const original = await text.inputValue();
        await text.click();
        await page.keyboard.press("Control+End");
        await page.keyboard.type("\nglobal flag = 0");
        assert.ok((await text.inputValue()).endsWith("global flag = 0"));
        const painted = page.locator(".editor-paint .editor-line").last();
        assert.equal(await painted.innerText(), "global flag = 0");
        assert.equal(await painted.locator(".tok-kw").first().innerText(), "global");
        await screenshot(page, "editor-typed");

        await page.keyboard.press("Control+z");
        assert.equal(await text.inputValue(), original, "one undo step for a burst of typing");
        await page.getByRole("button", { name: "Redo" }).click();
        assert.ok((await text.inputValue()).endsWith("global flag = 0"));
        await page.getByRole("button", { name: "Undo" }).click();
        assert.equal(await text.inputValue(), original);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("an edit repaints the line it changed and leaves the others' nodes alone", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"][data-shown-at]').waitFor();
        // The stepping session, which marks the current step's line, starts after the verdict.
        await page.locator(".editor-paint [data-current-step]").waitFor();
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        // Keeps the painted lines and line numbers as they are now, and counts every change
        // made to them from here on.
        await page.evaluate(() => {
            const lines = () => [...document.querySelectorAll(".editor-paint .editor-line, .editor-gutter li")];
            window.editorBefore = lines();
            window.editorChanged = new Set();
            new MutationObserver((records) => {
                for (const record of records) {
                    const line = record.target.closest?.(".editor-line, .editor-gutter li") ?? record.target.parentElement?.closest(".editor-line, .editor-gutter li");
                    window.editorChanged.add(line ?? record.target);
                }
            }).observe(document.querySelector(".editor"), { subtree: true, childList: true, attributes: true, characterData: true });
            window.editorKept = () => {
                const now = lines();
                const kept = window.editorBefore.filter((node) => now.includes(node) && !window.editorChanged.has(node));
                return { before: window.editorBefore.length, now: now.length, kept: kept.length };
            };
        });
        // A comment at the end of the first line: the scenario, its session and every
        // line's marks stay as they were. (Focus, not a click: a click on a line steps to it.)
        await text.focus();
        await page.keyboard.press("Control+Home");
        await page.keyboard.press("End");
        await page.keyboard.type(" # one line");
        const first = page.locator(".editor-paint .editor-line").first();
        await assert.doesNotReject(first.locator(".tok-comment", { hasText: "# one line" }).waitFor());
        const { before, now, kept } = await page.evaluate(() => window.editorKept());
        assert.equal(now, before, "as many painted lines and line numbers as before");
        // Every line but the first, in the copy and in the gutter, is the very node it was.
        assert.equal(kept, before - 1, "only the edited line was repainted");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

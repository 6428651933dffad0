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
});

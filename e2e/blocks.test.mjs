// The block builder: palette click, a modifier choice and a drag all end up in the text.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, screenshot, skipReason } from "./harness.mjs";

const skip = await skipReason();

describe("blocks", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("click, choose release, drag to reorder; text follows", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/explore`);
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        await text.waitFor();

        await page.getByRole("tab", { name: "Blocks" }).click();
        const producer = page.locator('.block-lane[data-thread="producer"]');
        await producer.waitFor();
        const before = await producer.locator(".block").count();
        await page.getByRole("button", { name: "Add st to producer" }).click();
        const blocks = producer.locator(".block");
        await assert.doesNotReject(() => blocks.nth(before).waitFor());
        const added = blocks.nth(before);
        assert.match(await added.locator(".block-text").innerText(), /^st \[x\], 1$/);
        const sem = added.getByRole("combobox", { name: "semantics" });
        assert.equal(await sem.locator("option:checked").innerText(), "weak (default)");
        const offered = await sem.locator("option").allInnerTexts();
        assert.ok(!offered.includes("acquire"), `a store offers no acquire: ${offered}`);
        await sem.selectOption({ label: "release" });
        await page.waitForFunction(
            () => document.querySelector('.block-lane[data-thread="producer"] .block:last-child .block-text')?.textContent.startsWith("st.release"),
        );
        await screenshot(page, "blocks-added");

        // Drag the new last block before the first one.
        await blocks.nth(before).dragTo(blocks.nth(0), { sourcePosition: { x: 10, y: 14 }, targetPosition: { x: 40, y: 6 } });
        await page.waitForFunction(
            () => document.querySelector('.block-lane[data-thread="producer"] .block .block-text')?.textContent.startsWith("st.release"),
        );
        await screenshot(page, "blocks-dragged");
        await page.evaluate(() => document.documentElement.setAttribute("data-theme", "dark"));
        await screenshot(page, "blocks-dark");
        await page.evaluate(() => document.documentElement.setAttribute("data-theme", "light"));

        await page.getByRole("tab", { name: "Text" }).click();
        const source = await text.inputValue();
        const producerText = source.slice(source.indexOf("thread producer"), source.indexOf("thread consumer"));
        const lines = producerText.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("thread"));
        assert.match(lines[0], /^st\.release\.gpu \[x\], 1/, producerText);
        assert.match(lines[1], /^st\.shared::cta \[x\], 42|^st\.shared \[x\], 42/, producerText);

        // One undo takes back the drag, through the same history as typing.
        await page.getByRole("button", { name: "Undo" }).click();
        const undone = await text.inputValue();
        assert.ok(undone.indexOf("st.shared") < undone.indexOf("st.release"), undone);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("text errors block the view and keep the text", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/explore`);
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        await text.waitFor();
        await text.fill("cta A\nthread t @A:\n    ld.bogus r0, [x]\n");
        await page.getByRole("tab", { name: "Blocks" }).click();
        await page.getByText("Fix the errors in the text to edit blocks").waitFor();
        await page.getByRole("tab", { name: "Text" }).click();
        assert.equal(await text.inputValue(), "cta A\nthread t @A:\n    ld.bogus r0, [x]\n");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

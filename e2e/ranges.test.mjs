// Byte ranges in the machine view: a location split by `[x+OFFSET]` accesses lists each
// byte range with what it holds, and the halves fill as the two bulk copies land.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, repoRoot, requestNumber, screenshot, skipReason, verdictAfter } from "./harness.mjs";

const skip = await skipReason();

describe("byte ranges", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the machine view shows a split location's byte ranges filling", async () => {
        const { page, problems } = await openExplorer(browser);
        const source = readFileSync(join(repoRoot, "tests/scenarios/ranges/halves_one_expect_tx.fence"), "utf8");
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        const before = await requestNumber(page);
        await text.fill(source);
        assert.equal(await verdictAfter(page, before), "correct");
        const buf = page.locator('[aria-label="location buf"]');
        const ranges = buf.locator(".cell-ranges li");
        await ranges.first().waitFor();
        // "bytes 0..4" then the value (the writer follows in its own span).
        const rows = async () => (await ranges.allInnerTexts()).map((r) => r.match(/bytes \d+\.\.\d+\s*-?\d+/)?.[0].replace(/\s+/g, " "));
        assert.deepEqual(await rows(), [
            "bytes 0..4 0",
            "bytes 4..64 0",
            "bytes 64..68 0",
            "bytes 68..128 0",
        ]);
        // Step until both copies have landed (the consumer's wait comes after them).
        await page.locator("body").click({ position: { x: 5, y: 5 } });
        for (let i = 0; i < 12; i += 1) await page.keyboard.press("ArrowRight");
        assert.deepEqual(await rows(), ["bytes 0..4 1", "bytes 4..64 1", "bytes 64..68 2", "bytes 68..128 2"]);
        await buf.scrollIntoViewIfNeeded();
        await screenshot(page, "machine-byte-ranges");
        await buf.screenshot({ path: join(repoRoot, "e2e/screenshots/machine-byte-ranges-cell.png") });
        assert.deepEqual(problems, []);
        await page.close();
    });
});

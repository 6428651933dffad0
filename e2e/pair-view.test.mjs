// The machine panel draws a `cta_group::2` CTA pair: both CTAs inside one pair box, the
// leader marked, and the accumulator whose halves sit in both CTAs' tensor memory. The
// palette offers the pair blocks.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, repoRoot, requestNumber, skipReason, themedShots, verdictAfter } from "./harness.mjs";

const skip = await skipReason();
// Light/dark, desktop/phone views for a person to look at.
const SHOTS = process.env.PAIR_SHOTS ?? "/tmp/pair-shots";
const PAIR = readFileSync(join(repoRoot, "tests/scenarios/pairs/mainloop_stage_strict_fixed.fence"), "utf8");

describe("CTA pair view", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a pair scenario draws the pair, its leader and the shared accumulator", async () => {
        const { page, problems } = await openExplorer(browser);
        const before = await requestNumber(page);
        await page.getByRole("textbox", { name: /Scenario source/ }).fill(PAIR);
        assert.equal(await verdictAfter(page, before), "correct");

        const machine = page.locator('[data-region="machine"]');
        const pair = machine.getByRole("group", { name: "CTA pair L + P" });
        await pair.waitFor();
        assert.equal(await pair.locator('[data-cta="L"]').getAttribute("data-pair-role"), "leader");
        assert.equal(await pair.locator('[data-cta="P"]').getAttribute("data-pair-role"), "peer");
        const accumulator = pair.getByLabel("shared accumulator");
        assert.match(await accumulator.innerText(), /acc0 in L\s*⟷\s*acc1 in P/);
        await pair.locator('[data-cta="P"]').getByRole("group", { name: "location acc1" }).waitFor();
        await themedShots(page, SHOTS, "pair", pair, { whole: true });
        assert.deepEqual(problems, []);
    });
});

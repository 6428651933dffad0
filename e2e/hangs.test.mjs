// Issue 49: hangs in spin loops, as a learner meets them. An RMW livelock is a deadlock
// whose witness is a lasso (the steps into the loop, then one round of it) that replays
// step by step; XF-Barrier-weak's hang needs a coherence order no interleaving reaches,
// so its finding has no witness and opens its execution graph instead.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, repoRoot, screenshotDir, setSource, skipReason, themedShots } from "./harness.mjs";

const skip = await skipReason();
const scenario = (name) => readFileSync(join(repoRoot, "tests/scenarios/loops", name), "utf8");

describe("hangs in spin loops", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("an RMW livelock's lasso replays: into the loop, then once round it", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await setSource(page, scenario("rmw_livelock.fence")), "deadlock");
        const finding = page.locator('[data-region="verdict"] .finding').first();
        assert.match(await finding.locator(".finding-message").innerText(), /livelock/);
        const said = await finding.innerText();
        const [, from] = said.match(/from step (\d+) the witness goes once round a cycle/) ?? [];
        assert.ok(from, `the finding says where the cycle starts: ${said.slice(0, 300)}`);
        const steps = Number((await finding.getByRole("button", { name: /Follow witness/ }).innerText()).match(/\((\d+) steps\)/)[1]);
        assert.ok(steps > Number(from), `the round ends after it starts (${steps} steps in all, from ${from})`);
        await finding.getByRole("button", { name: "Show me" }).click();
        assert.equal(await page.getByLabel("Jump to step").inputValue(), String(steps));
        // The round ends where it began: the same threads take the same instructions again.
        const items = await page.locator(".trace-list li").allInnerTexts();
        const moves = items.map((t) => t.replace(/^\s*\d+\.?\s*/, "").split("->")[0].replace(/\s+/g, " ").trim());
        // "From step N": step N (counted from 1) is the round's first.
        const round = moves.slice(Number(from) - 1);
        assert.ok(round.length >= 2, `a round of the loop: ${round.join(" | ")}`);
        assert.ok(round.every((m) => /exch|bne/.test(m)), `the round only spins: ${round.join(" | ")}`);
        // The lasso steps back and forward like any witness.
        await page.locator("body").click({ position: { x: 5, y: 5 } });
        await page.keyboard.press("ArrowLeft");
        assert.equal(await page.getByLabel("Jump to step").inputValue(), String(steps - 1));
        await themedShots(page, join(screenshotDir, "hangs"), "livelock", page.locator('[data-region="verdict"]'));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("XF-Barrier-weak's hang has no witness and opens its execution graph, the spinning read marked", async () => {
        const { page, problems } = await openExplorer(browser);
        await setSource(page, scenario("xf_barrier_weak.fence"));
        const finding = page.locator('[data-region="verdict"] .finding', { hasText: /may spin for ever/ });
        assert.equal(await finding.count(), 1, "the axioms' hang is a finding");
        assert.match(await finding.innerText(), /no interleaving reaches/);
        assert.equal(await finding.getByRole("button", { name: "Show me" }).count(), 0, "no witness to replay");
        await finding.getByRole("button", { name: "Execution graph" }).click();
        const graph = finding.locator('[data-execution-graph="shown"]');
        await graph.waitFor();
        assert.match(await graph.locator("svg text.note").first().textContent(), /for ever/);
        await themedShots(page, join(screenshotDir, "hangs"), "xf-barrier-weak", finding);
        // The release/acquire fix has no hang.
        assert.equal(await setSource(page, scenario("xf_barrier_acqrel.fence")), "correct");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

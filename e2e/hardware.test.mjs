// The hardware lens end to end: a lesson's push handoff shows, beside the model's outcome
// table, how often an H200 ended in each outcome, with the stale row highlighted; an edit
// to the program hides observations that no longer apply.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, screenshotDir, setSource, skipReason } from "./harness.mjs";

const skip = await skipReason();

// Lesson 8's push with a restricted release fence (lessons/observations/08-cluster-handoffs-4).
const PUSH = `# Push with a restricted release fence: the peer's SMEM is not covered
cluster C0
cta A in C0
cta B in C0
shared x @A = 0
mbarrier bar @A count 1

thread producer @B:
    st.shared::cluster [x], 42
    fence.release.sync_restrict::shared::cta.cluster
    mbarrier.arrive.relaxed.cluster.shared::cluster [bar]

thread consumer @A:
    wait mbarrier.try_wait.parity.acquire.cluster.shared::cta [bar], 0
    ld.shared r0, [x]

expect race
exists (consumer:r0 == 0)
`;

describe("hardware observations", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the push handoff shows the H200's stale reads beside the outcome table", async () => {
        const { page, problems } = await openExplorer(browser);
        await setSource(page, PUSH);
        // Once the observations' chunk has answered (components/src/observed.rs).
        const table = page.locator('table.outcomes:not([data-observed="pending"])');
        await table.waitFor();
        assert.equal(await table.getAttribute("data-observed"), "true");
        assert.match(await table.locator("th.observed-head").innerText(), /^Observed on NVIDIA H200 \(CUDA 13\.0, 2026-11-24\)$/);
        const stale = table.locator("tr.stale");
        assert.equal(await stale.count(), 1, "one highlighted row");
        assert.match(await stale.innerText(), /^0\s+1\s+[\d,]+ of 1,228,800$/);
        assert.equal(await table.locator("tr.forbidden").count(), 0, "nothing the model forbids");
        assert.match(await page.locator(".observed-note").innerText(), /1,228,800 trials, driver 580\.159\.04/);
        await page.locator('[data-region="verdict"]').screenshot({ path: join(screenshotDir, "hardware-observed.png") });

        // Another program: the observation no longer applies and its column goes away.
        await setSource(page, PUSH.replace("st.shared::cluster [x], 42", "st.shared::cluster [x], 43"));
        await table.waitFor();
        assert.equal(await table.getAttribute("data-observed"), "false");
        assert.equal(await table.locator("th.observed-head").count(), 0);
        assert.deepEqual(problems, []);
    });

    test("a template run on the GPU shows its counts without a stale row", async () => {
        const { page, problems } = await openExplorer(browser);
        await loadTemplate(page, "mp-relaxed");
        // Once the observations' chunk has answered (components/src/observed.rs).
        const table = page.locator('table.outcomes:not([data-observed="pending"])');
        await table.waitFor();
        assert.equal(await table.getAttribute("data-observed"), "true");
        assert.equal(await table.locator("tr.stale").count(), 0);
        assert.match(await table.innerText(), /1,228,800 of 1,228,800/);
        assert.deepEqual(problems, []);
    });
});

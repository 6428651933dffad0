// The speed-built checker engine (engine/): the worker answers with the app's own wasm
// at first, fetches the engine after load and hands it its checks; checks go on with the
// app's wasm when the engine cannot be fetched, and the engine's checks can be cancelled.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, repoRoot, requestNumber, screenshot, skipReason, verdictAfter } from "./harness.mjs";

const skip = await skipReason();

const PIPELINE = readFileSync(join(repoRoot, "tests/scenarios/async/pipeline_ws.fence"), "utf8");
const RACY_PIPELINE = readFileSync(join(repoRoot, "tests/scenarios/async/pipeline_ws_missing_proxy_fence.fence"), "utf8");

const panel = (page) => page.locator('[data-region="verdict"]');

let probe = 0;
/** Puts `source` in the editor (with a fresh unused location, so it is checked afresh) and
 *  returns the verdict word and which build answered it. */
async function check(page, source) {
    const before = await requestNumber(page);
    probe += 1;
    await page.getByRole("textbox", { name: /Scenario source/ }).fill(`global probe = ${probe}\n${source}`);
    const verdict = await verdictAfter(page, before);
    return { verdict, by: await panel(page).getAttribute("data-worker-answered-by") };
}

/** Checks `source` until `answerer` answers it (the engine comes after load). */
async function checkUntilAnsweredBy(page, source, answerer) {
    const until = Date.now() + 30000;
    for (;;) {
        const answer = await check(page, source);
        if (answer.by === answerer || Date.now() > until) return answer;
        await page.waitForTimeout(250);
    }
}

describe("checker engine", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the worker fetches the engine after the first verdict and then the engine answers, with the same verdicts", async () => {
        const { page, problems } = await browser.newPage();
        const fetched = [];
        page.on("request", (request) => fetched.push(request.url()));
        await page.goto(`${browser.url}/#/explore`);
        await verdictAfter(page, 0);
        assert.ok(!fetched.some((url) => url.includes("fencelab-engine")), "the first load does not fetch the engine");
        const first = await check(page, PIPELINE);
        assert.equal(first.by, "worker", "the app's own wasm answers before the engine has loaded");
        const app = [first.verdict, (await check(page, RACY_PIPELINE)).verdict];
        assert.deepEqual(app, ["correct", "race"]);

        const engine = await checkUntilAnsweredBy(page, PIPELINE, "engine");
        assert.deepEqual(engine, { verdict: "correct", by: "engine" }, "the engine took over");
        assert.deepEqual(await check(page, RACY_PIPELINE), { verdict: "race", by: "engine" });
        assert.ok(fetched.some((url) => url.endsWith("fencelab-engine_bg.wasm")), "the engine's wasm was fetched");
        await screenshot(page, "engine-answered");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("an engine check shows progress and can be cancelled, and the next worker answers", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal((await checkUntilAnsweredBy(page, PIPELINE, "engine")).by, "engine");
        // The 3x3 pipeline: a second or more of exploring.
        const big = readFileSync(join(repoRoot, "benches/data/pipeline_ws_3x3.fence"), "utf8");
        await page.getByRole("textbox", { name: /Scenario source/ }).fill(big);
        await page.getByRole("progressbar", { name: /states/ }).waitFor({ timeout: 10000 });
        await page.getByRole("button", { name: "Cancel" }).click();
        await page.locator('[data-region="verdict"][data-state="cancelled"]').waitFor();
        const next = await check(page, RACY_PIPELINE);
        assert.equal(next.verdict, "race");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("when the engine cannot be fetched, the app's own wasm goes on answering and the console says why", async () => {
        const { page, problems } = await browser.newPage();
        await page.route("**/fencelab-engine*", (route) => route.abort());
        await page.goto(`${browser.url}/#/explore`);
        await verdictAfter(page, 0);
        await check(page, PIPELINE);
        // Past the worker's wait before the fetch, and its failure.
        await page.waitForTimeout(2500);
        assert.deepEqual(await check(page, RACY_PIPELINE), { verdict: "race", by: "worker" });
        assert.deepEqual(await check(page, PIPELINE), { verdict: "correct", by: "worker" });
        const named = problems.filter((p) => /checker engine did not load/.test(p));
        assert.equal(named.length, 1, `one console warning names the engine: ${problems}`);
        await page.close();
    });
});

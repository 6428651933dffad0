// The speed-built checker engine (engine/): the worker answers with the app's own wasm
// at first, fetches the engine after load and hands it its checks; checks go on with the
// app's wasm when the engine cannot be fetched, and the engine's checks can be cancelled.
// The fix search runs only in the engine: a search asked before the engine has loaded
// shows that it loads and then answers, the next search finds it loaded, and an engine
// that cannot be fetched makes the fix panel say so while checking goes on.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, repoRoot, requestNumber, screenshot, skipReason, themedShots, verdictAfter } from "./harness.mjs";

const skip = await skipReason();

const PIPELINE = readFileSync(join(repoRoot, "tests/scenarios/async/pipeline_ws.fence"), "utf8");
const RACY_PIPELINE = readFileSync(join(repoRoot, "tests/scenarios/async/pipeline_ws_missing_proxy_fence.fence"), "utf8");

const panel = (page) => page.locator('[data-region="verdict"]');
const fixPanel = (page) => page.locator("[data-fix-panel]");
// Light/dark, desktop/phone views of the fix panel for a person to look at.
const SHOTS = process.env.FIXPANEL_SHOTS ?? "/tmp/fixpanel-shots";

/** Every value the fix panel's `data-fix-state` takes from now on, in order. */
async function recordFixStates(page) {
    await page.evaluate(() => {
        window.fixStates = [];
        const seen = () => {
            const state = document.querySelector("[data-fix-panel]")?.dataset.fixState;
            if (state && state !== window.fixStates.at(-1)) window.fixStates.push(state);
        };
        new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-fix-state"] });
        seen();
    });
}
const fixStates = (page) => page.evaluate(() => window.fixStates);

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

/** A new page on the explorer whose engine cannot be fetched, once its first verdict is in. */
async function openWithoutEngine(browser) {
    const { page, problems } = await browser.newPage();
    await page.route("**/fencelab-engine*", (route) => route.abort());
    await page.goto(`${browser.url}/#/explore`);
    await verdictAfter(page, 0);
    return { page, problems };
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
        // A 3x3 warp-specialized pipeline missing its proxy fence: seconds of exploring to
        // the state cap in each mode.
        const big = readFileSync(join(repoRoot, "benches/data/pipeline_ws_3x3_missing_proxy_fence.fence"), "utf8");
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
        const { page, problems } = await openWithoutEngine(browser);
        await check(page, PIPELINE);
        // Past the worker's wait before the fetch, and its failure.
        await page.waitForTimeout(2500);
        assert.deepEqual(await check(page, RACY_PIPELINE), { verdict: "race", by: "worker" });
        assert.deepEqual(await check(page, PIPELINE), { verdict: "correct", by: "worker" });
        const named = problems.filter((p) => /checker engine did not load/.test(p));
        assert.equal(named.length, 1, `one console warning names the engine: ${problems}`);
        await page.close();
    });

    test("a fix search asked before the engine has loaded shows that it loads, then answers; the next finds it loaded", async () => {
        const { page, problems } = await openExplorer(browser);
        const engineFetches = [];
        // Hold the engine's wasm until the panel has been seen loading.
        let release;
        const held = new Promise((resolve) => (release = resolve));
        await page.route("**/fencelab-engine_bg.wasm", async (route) => {
            engineFetches.push(route.request().url());
            await held;
            await route.continue();
        });
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await recordFixStates(page);
        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="loading"]').waitFor({ timeout: 10000 });
        const loading = fixPanel(page).getByRole("status");
        assert.match(await loading.innerText(), /Loading the fix search/);
        assert.equal(await fixPanel(page).getByRole("button", { name: "Cancel" }).count(), 1, "a load can be cancelled");
        assert.ok(await page.locator("[data-fix-start]").isDisabled(), "no second search while one loads");
        await themedShots(page, SHOTS, "loading", fixPanel(page));
        release();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        assert.ok((await fixPanel(page).locator("[data-fix]").count()) >= 1, "the engine found fixes");
        assert.deepEqual(await fixStates(page), ["idle", "loading", "running", "done"]);
        // The check worker fetches the engine too, a second after its first check.
        const fetchedBefore = engineFetches.length;
        assert.ok(fetchedBefore >= 1);

        // Another search in the same worker: no load, no fetch.
        await page.locator("[data-fix-max-edits]").fill("2");
        await page.locator("[data-fix-max-edits]").dispatchEvent("change");
        await recordFixStates(page);
        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        assert.ok(!(await fixStates(page)).includes("loading"), `no load the second time: ${await fixStates(page)}`);
        assert.equal(engineFetches.length, fetchedBefore, "the fix worker kept its engine");
        assert.ok((await fixPanel(page).locator("[data-fix]").count()) >= 1);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("when the engine cannot be fetched, the fix panel says the fix search is unavailable and why, checks go on, and a later search tries again", async () => {
        const { page, problems } = await openWithoutEngine(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="failed"]').waitFor({ timeout: 20000 });
        const alert = fixPanel(page).getByRole("alert");
        assert.match(await alert.innerText(), /^The fix search is unavailable: its engine did not load: \w*Error: .+\. Checking still works; the button above tries again\.$/);
        assert.equal(await page.locator("[data-fix-start]").isDisabled(), false, "the button stays");
        await themedShots(page, SHOTS, "unavailable", fixPanel(page));
        // Checking goes on with the app's own wasm.
        const before = await requestNumber(page);
        await page.getByRole("textbox", { name: /Scenario source/ }).fill(RACY_PIPELINE);
        assert.equal(await verdictAfter(page, before), "race");
        // Each failed fetch is a failed request and one console warning naming the engine.
        assert.ok(problems.length > 0 && problems.every((p) => /fencelab-engine|checker engine did not load/.test(p)), problems.join("\n"));

        // Once the engine can be fetched, the next click searches in a fresh worker.
        await page.unroute("**/fencelab-engine*");
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        assert.ok((await fixPanel(page).locator("[data-fix]").count()) >= 1);
        await page.close();
    });
});

// The first answer after a page load comes from the app's own wasm, which has no fix
// search and lists findings in discovery order; once the speed-built engine has loaded,
// the worker has it answer that request again and the page shows its report, ranked by
// cause, in place: no "checking" in between, the step and the chosen finding kept.
// The link is `fencelab share tests/scenarios/checker/header_early_payload_late_relaxed_flag.fence`:
// discovery lists the header's race first, ranking the payload's (whose mend, a release
// on the flag store, mends both).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { launch, skipReason, themedShots } from "./harness.mjs";

const skip = await skipReason();
const CODE = readFileSync(new URL("./links/header-early-payload-late-relaxed-flag.link", import.meta.url), "utf8").trim();
const SHOTS = process.env.RANKED_SHOTS ?? "/tmp/ranked-shots";

const panel = (page) => page.locator('[data-region="verdict"]');
/** The location each finding card's message names, in the order shown. */
const locations = (page) =>
    page.locator(".finding .finding-message").evaluateAll((messages) => messages.map((m) => m.innerText.match(/race on (\S+?):/)?.[1]));
const step = (page) => page.getByLabel("Jump to step").inputValue();

describe("the first answer's findings, ranked by cause", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a shared link's report is replaced in place by the engine's ranking, keeping the step and the chosen finding", async () => {
        const { page, problems } = await browser.newPage();
        // Hold the engine's wasm until the learner has chosen a finding and a step.
        let release;
        const held = new Promise((resolve) => (release = resolve));
        await page.route("**/fencelab-engine_bg.wasm", async (route) => {
            await held;
            await route.continue();
        });
        await page.goto(`${browser.url}/#/s/${CODE}`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
        assert.equal(await panel(page).getAttribute("data-worker-answered-by"), "worker");
        assert.deepEqual(await locations(page), ["header", "payload"], "the app's own wasm lists them as discovered");

        // Choose the header's race and stand one step before the end of its witness.
        await page.locator(".finding", { hasText: "race on header" }).getByRole("button", { name: "Show me" }).click();
        await page.waitForFunction(() => Number(document.querySelector('input[aria-label="Jump to step"]')?.value) > 1);
        await page.getByRole("button", { name: "Step back" }).click();
        const chosenStep = await step(page);
        const request = await panel(page).getAttribute("data-request");
        // Every state the panel takes, and whether "Checking…" ever shows, from now on.
        await page.evaluate(() => {
            const verdict = document.querySelector('[data-region="verdict"]');
            window.seen = { states: [verdict.dataset.state], checking: false, verdicts: new Set() };
            new MutationObserver(() => {
                if (verdict.dataset.state !== window.seen.states.at(-1)) window.seen.states.push(verdict.dataset.state);
                if (/Checking…|Exploring every interleaving/.test(verdict.innerText)) window.seen.checking = true;
                if (!verdict.querySelector("[data-verdict]")) window.seen.checking = true;
            }).observe(verdict, { subtree: true, childList: true, attributes: true, characterData: true });
        });

        release();
        await page.locator('[data-region="verdict"][data-worker-answered-by="engine"]').waitFor({ timeout: 30000 });
        assert.deepEqual(await locations(page), ["payload", "header"], "the cause first, as `fencelab check` lists them");
        assert.match(await page.locator(".finding .finding-explanation").first().innerText(), /Listed first: writing st\.release\.gpu\.global \[flag\], 1/);
        assert.equal(await panel(page).getAttribute("data-request"), request, "the same request's answer, not a new check");
        const seen = await page.evaluate(() => window.seen);
        assert.deepEqual(seen.states, ["done"], "the panel never left its report");
        assert.equal(seen.checking, false, "no checking note or empty panel in between");
        assert.equal(await step(page), chosenStep, "the step stays");
        const pinned = page.locator(".finding.finding-pinned");
        assert.equal(await pinned.count(), 1);
        assert.match(await pinned.locator(".finding-message").innerText(), /race on header:/, "the chosen finding stays chosen");
        await themedShots(page, SHOTS, "ranked", panel(page));
        assert.deepEqual(problems, []);
        await page.close();
    });
});

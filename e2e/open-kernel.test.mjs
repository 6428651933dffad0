// Issue 51: "Open a kernel". The relay pipeline's PTX, pasted, imports in the panel's
// worker and the explorer checks it; stepping shows the PTX line of the current step
// beside the lanes. The seed-003 edit (the relay's arrive at the default .release.cta)
// is a race whose accesses the lanes name by their PTX lines. A line the importer cannot
// follow is named with its text.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, repoRoot, requestNumber, screenshotDir, skipReason, themedShots } from "./harness.mjs";

const skip = await skipReason();
const RELAY = readFileSync(join(repoRoot, "tests/import/relay_pipeline.ptx"), "utf8");
/** The relay warp's arrive on CTA 0's barrier (tests/import.rs). */
const RELAY_ARRIVE_LINE = 262;

/** Waits (the relay checks ~100k states a mode) for a done verdict newer than `after`. */
async function verdictAfterImport(page, after) {
    await page.waitForFunction(
        (prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return el?.dataset.state === "done" && Number(el.dataset.request) > prev;
        },
        after,
        { timeout: 120000 },
    );
    return page.locator('[data-region="verdict"] [data-verdict]').getAttribute("data-verdict");
}

/**
 * Presses `locator` (a button or a summary) from the keyboard: on a wide window the step
 * dock is fixed over the lower part of the left column, where the panel's controls sit
 * after a long paste, and a pointer click there lands on the dock.
 */
async function press(locator) {
    await locator.focus();
    await locator.press("Enter");
}

/** Pastes `ptx` in the open panel, imports it with one loop iteration, waits for its status. */
async function importPtx(page, ptx) {
    const panel = page.locator('[data-region="open-kernel"]');
    await panel.locator("[data-kernel-ptx]").fill(ptx);
    await press(panel.locator("summary"));
    await panel.locator('input[name="iterations"]').fill("1");
    await press(panel.locator("[data-kernel-import]"));
    const status = panel.locator("[data-kernel-status]:not([data-kernel-status=importing])");
    await status.waitFor({ timeout: 60000 });
    return status;
}

describe("open a kernel", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the relay pipeline imports, checks correct, and its steps name their PTX lines", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.getByRole("button", { name: "Open a kernel (PTX)…" }).click();
        const before = await requestNumber(page);
        const status = await importPtx(page, RELAY);
        assert.equal(await status.getAttribute("data-kernel-status"), "imported", await status.innerText());
        assert.match(await page.locator(".editor-text").inputValue(), /# ptx 262/, "the scenario is in the editor");
        assert.equal(await verdictAfterImport(page, before), "correct");
        await themedShots(page, join(screenshotDir, "open-kernel"), "imported", page.locator('[data-region="open-kernel"]'));

        const forward = page.getByRole("button", { name: "Step forward" });
        for (let i = 0; i < 5; i++) await forward.click();
        const note = page.locator("[data-ptx-step]");
        await note.waitFor();
        const shown = Number(await note.getAttribute("data-ptx-step"));
        assert.ok(shown > 0, "the current step has a PTX line");
        // It is the PTX line written on the editor line the step just ran.
        const current = await page.locator(".editor-paint [data-just-ran]").getAttribute("data-line");
        const written = (await page.locator(".editor-text").inputValue()).split("\n")[Number(current) - 1];
        assert.match(written, new RegExp(`# ptx ${shown}$`), `editor line ${current}: ${written}`);
        assert.match(await note.innerText(), new RegExp(`PTX line ${shown}`));
        await themedShots(page, join(screenshotDir, "open-kernel"), "stepping", page.locator('[data-region="lanes"]'));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the seed-003 edit is a race whose accesses name PTX lines 160 and 241", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.getByRole("button", { name: "Open a kernel (PTX)…" }).click();
        const lines = RELAY.split("\n");
        lines[RELAY_ARRIVE_LINE - 1] = lines[RELAY_ARRIVE_LINE - 1].replace(
            "mbarrier.arrive.release.cluster.shared::cluster.b64",
            "mbarrier.arrive.shared::cluster.b64",
        );
        const before = await requestNumber(page);
        const status = await importPtx(page, lines.join("\n"));
        assert.equal(await status.getAttribute("data-kernel-status"), "imported");
        assert.equal(await verdictAfterImport(page, before), "race");
        await page.locator('[data-region="verdict"] .finding').first().getByRole("button", { name: "Show me" }).click();
        const note = page.locator("[data-ptx-finding]");
        await page.waitForFunction(() => document.querySelector("[data-ptx-finding]")?.dataset.ptxFinding === "160 241");
        assert.match(await note.innerText(), /PTX lines 160, 241/);
        await themedShots(page, join(screenshotDir, "open-kernel"), "finding", page.locator('[data-region="lanes"]'));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("CUTLASS #3324's trampoline arrive at .release.cta is a race at the peer's copy and the leader's read", async () => {
        // The "Done when" walk's last step: the PTX nvcc made from
        // tests/import/src/pair_trampoline.cu, with the trampoline's arrive edited to
        // ClusterBarrier::arrive(cta_id)'s default scope, stepped to its finding.
        const TRAMPOLINE = readFileSync(join(repoRoot, "tests/import/pair_trampoline.ptx"), "utf8");
        const lines = TRAMPOLINE.split("\n");
        const at = lines.findIndex((l) => l.includes("mbarrier.arrive.release.cluster.shared::cluster.b64"));
        lines[at] = lines[at].replace("mbarrier.arrive.release.cluster.shared::cluster.b64", "mbarrier.arrive.shared::cluster.b64");
        const copy = lines.findIndex((l) => l.includes("cp.async.ca.shared.global")) + 1;
        const read = lines.findIndex((l) => l.includes("ld.shared::cluster")) + 1;
        const { page, problems } = await openExplorer(browser);
        await page.getByRole("button", { name: "Open a kernel (PTX)…" }).click();
        const before = await requestNumber(page);
        const status = await importPtx(page, lines.join("\n"));
        assert.equal(await status.getAttribute("data-kernel-status"), "imported");
        assert.equal(await verdictAfterImport(page, before), "race");
        await page.locator('[data-region="verdict"] .finding').first().getByRole("button", { name: "Show me" }).click();
        await page.waitForFunction((want) => document.querySelector("[data-ptx-finding]")?.dataset.ptxFinding === want, `${copy} ${read}`);
        assert.match(await page.locator("[data-ptx-finding]").innerText(), new RegExp(`PTX lines ${copy}, ${read}`));
        await themedShots(page, join(screenshotDir, "open-kernel"), "trampoline", page.locator('[data-region="lanes"]'));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a line the importer cannot follow is named with its text", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.getByRole("button", { name: "Open a kernel (PTX)…" }).click();
        const lines = RELAY.split("\n");
        const at = lines.findIndex((l) => l.includes("bar.warp.sync"));
        lines[at] = "\tbrx.idx %r1, $L__BB0_22;";
        const status = await importPtx(page, lines.join("\n"));
        assert.equal(await status.getAttribute("data-kernel-status"), "failed");
        assert.equal(await status.getAttribute("data-ptx-error-line"), String(at + 1));
        assert.match(await status.innerText(), new RegExp(`PTX line ${at + 1}:[\\s\\S]*brx\\.idx`));
        await themedShots(page, join(screenshotDir, "open-kernel"), "error", page.locator('[data-region="open-kernel"]'));
        assert.deepEqual(problems, []);
        await page.close();
    });
});

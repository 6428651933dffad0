// Panels whose code is a wasm chunk of its own (components/src/lazy.rs): the first load
// does not fetch them; a panel says it is loading until its chunk is here, and says so
// plainly when its chunk cannot be fetched, and a later showing loads it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, screenshotDir, skipReason, themedShots } from "./harness.mjs";

const skip = await skipReason();
const shots = join(screenshotDir, "lazy");

/** The wasm files the page fetched so far, without their paths. */
async function wasmFetched(page) {
    return page.evaluate(() =>
        performance
            .getEntriesByType("resource")
            .map((r) => r.name.split("/").pop())
            .filter((name) => name.endsWith(".wasm")),
    );
}

describe("lazy panels", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the first verdict needs no chunk; the block editor says it is loading until its chunk is here", async () => {
        // Hold the block editor's chunk until the loading state has been seen.
        const { page, problems } = await browser.newPage();
        let release;
        const held = new Promise((ok) => (release = ok));
        await page.route("**/split_blocks.wasm", async (route) => {
            await held;
            await route.continue();
        });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"] [data-verdict]').waitFor();
        const atVerdict = await wasmFetched(page);
        assert.ok(!atVerdict.some((name) => name.startsWith("split_blocks") || name.startsWith("split_lessons")), `fetched: ${atVerdict}`);

        await page.getByRole("tab", { name: "Blocks" }).click();
        const loading = page.locator('[data-lazy-loading="the block editor"]');
        await loading.waitFor();
        assert.equal(await loading.innerText(), "Loading the block editor…");
        assert.equal(await loading.getAttribute("aria-busy"), "true");
        await themedShots(page, shots, "blocks-loading", page.locator(".explore-col-left"));

        release();
        await page.locator('[data-region="blocks"]').waitFor();
        assert.equal(await loading.count(), 0, "the loading note is gone");
        assert.ok((await wasmFetched(page)).includes("split_blocks.wasm"));
        await themedShots(page, shots, "blocks-loaded", page.locator(".explore-col-left"));

        // A second showing finds the chunk loaded: no loading state at all.
        await page.getByRole("tab", { name: "Text" }).click();
        await page.getByRole("tab", { name: "Blocks" }).click();
        await page.locator('[data-region="blocks"]').waitFor();
        assert.equal(await loading.count(), 0);
        assert.deepEqual(problems, []);
    });

    test("a chunk that cannot be fetched is named in an alert, and the next showing loads it", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.route("**/split_blocks.wasm", (route) => route.abort());
        await page.getByRole("tab", { name: "Blocks" }).click();
        const failed = page.locator('[data-lazy-failed="the block editor"]');
        await failed.waitFor();
        assert.equal(await failed.getAttribute("role"), "alert");
        assert.match(await failed.innerText(), /^The code for the block editor did not load/);
        await themedShots(page, shots, "blocks-failed", page.locator(".explore-col-left"));
        assert.ok(problems.length > 0 && problems.every((p) => /split_blocks\.wasm|Failed to fetch|net::ERR_FAILED/.test(p)), problems.join("\n"));

        // The failure is not remembered: showing the tab again fetches the chunk anew.
        await page.unroute("**/split_blocks.wasm");
        await page.getByRole("tab", { name: "Text" }).click();
        await page.getByRole("tab", { name: "Blocks" }).click();
        await page.locator('[data-region="blocks"]').waitFor();
        assert.equal(await failed.count(), 0);
    });

    test("the fix panel's chunk comes after the first verdict; the panel says it is loading until then", async () => {
        const { page, problems } = await browser.newPage();
        let release;
        const held = new Promise((ok) => (release = ok));
        await page.route("**/split_fix.wasm", async (route) => {
            await held;
            await route.continue();
        });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"] [data-verdict]').waitFor();
        const loading = page.locator('[data-lazy-loading="the fix panel"]');
        await loading.waitFor();
        assert.equal(await loading.innerText(), "Loading the fix panel…");
        assert.equal(await page.locator("[data-fix-panel]").count(), 0);
        await themedShots(page, shots, "fix-loading", page.locator('[data-region="verdict"]'));

        release();
        const start = page.locator("[data-fix-start]");
        await start.waitFor();
        assert.equal(await loading.count(), 0, "the loading note is gone");
        assert.equal(await start.innerText(), "Which steps matter?");
        assert.ok(await start.isEnabled());
        assert.deepEqual(problems, []);
    });

    test("a fix panel whose chunk cannot be fetched says so, and the next page load brings it", async () => {
        const { page, problems } = await browser.newPage();
        await page.route("**/split_fix.wasm", (route) => route.abort());
        await page.goto(`${browser.url}/#/explore`);
        const failed = page.locator('[data-lazy-failed="the fix panel"]');
        await failed.waitFor();
        assert.equal(await failed.getAttribute("role"), "alert");
        assert.match(await failed.innerText(), /^The code for the fix panel did not load/);
        await themedShots(page, shots, "fix-failed", page.locator('[data-region="verdict"]'));
        assert.ok(problems.length > 0 && problems.every((p) => /split_fix\.wasm|Failed to fetch|net::ERR_FAILED/.test(p)), problems.join("\n"));

        await page.unroute("**/split_fix.wasm");
        await page.reload();
        await page.locator("[data-fix-start]").waitFor();
        assert.equal(await failed.count(), 0);
    });

    test("the link maker is fetched on the first copy, says it is loading meanwhile, and copies the link", async () => {
        const { page, problems } = await browser.newPage();
        await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: browser.url });
        let release;
        const held = new Promise((ok) => (release = ok));
        await page.route("**/split_share.wasm", async (route) => {
            await held;
            await route.continue();
        });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"] [data-verdict]').waitFor();
        assert.ok(!(await wasmFetched(page)).includes("split_share.wasm"));

        await page.getByRole("button", { name: "Copy link", exact: true }).click();
        const loading = page.locator('[data-lazy-loading="the link maker"]');
        await loading.waitFor();
        assert.equal(await loading.innerText(), "Loading the link maker…");
        assert.equal(await page.locator("input.share-link").count(), 0, "no link before its maker is here");
        await themedShots(page, shots, "share-loading", page.locator(".share-bar"));

        release();
        await page.locator(".share-status.ok").waitFor();
        const shown = await page.locator("input.share-link").inputValue();
        assert.match(shown, /#\/s\/[A-Za-z0-9_-]+$/);
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
        assert.equal(await loading.count(), 0);
        assert.deepEqual(problems, []);
    });

    test("a link maker that cannot be fetched is named in an alert, and the next click loads it", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: browser.url });
        await page.route("**/split_share.wasm", (route) => route.abort());
        const copy = page.getByRole("button", { name: "Copy link", exact: true });
        await copy.click();
        const failed = page.locator('[data-lazy-failed="the link maker"]');
        await failed.waitFor();
        assert.equal(await failed.getAttribute("role"), "alert");
        assert.match(await failed.innerText(), /^The code for the link maker did not load/);
        assert.equal(await page.locator("input.share-link").count(), 0);
        await themedShots(page, shots, "share-failed", page.locator(".share-bar"));
        assert.ok(problems.length > 0 && problems.every((p) => /split_share\.wasm|Failed to fetch|net::ERR_FAILED/.test(p)), problems.join("\n"));

        await page.unroute("**/split_share.wasm");
        await copy.click();
        await page.locator(".share-status.ok").waitFor();
        assert.match(await page.locator("input.share-link").inputValue(), /#\/s\/[A-Za-z0-9_-]+$/);
        assert.equal(await failed.count(), 0);
    });
});

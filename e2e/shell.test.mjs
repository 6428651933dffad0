// The app shell: every route renders its regions with a clean console, and the theme
// toggle sticks across reloads.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { distDir, launch, reloadAtRest, screenshot, skipReason } from "./harness.mjs";

const skip = await skipReason();
if (skip) console.log(`# skipping browser tests: ${skip}`);

describe("app shell", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    const routes = [
        { hash: "#/explore", page: "explore", regions: ["editor", "lanes", "machine", "verdict"], shot: "explore" },
        { hash: "", page: "explore", regions: ["editor", "lanes", "machine", "verdict"], shot: null },
        { hash: "#/lessons", page: "lesson", regions: [], shot: "lessons" },
        { hash: "#/lessons/mp-basics", page: "lesson", regions: [], shot: "lesson-id" },
        { hash: "#/s/v1.example", page: "shared", regions: [], shot: "shared" },
        { hash: "#/no/such/page", page: "not-found", regions: [], shot: "not-found" },
    ];

    for (const route of routes) {
        test(`route '${route.hash || "(empty)"}' renders ${route.page}`, async () => {
            const { page, problems } = await browser.newPage();
            await page.goto(`${browser.url}/${route.hash}`);
            await page.locator(`[data-page="${route.page}"]`).waitFor();
            for (const region of route.regions) {
                const panel = page.locator(`[data-region="${region}"]`);
                // The page shows in stages, and the lanes and the machine come from chunks
                // of their own (a loading note until then), so wait for each region.
                await panel.waitFor();
                assert.equal(await panel.count(), 1, `one ${region} region`);
                assert.ok(await panel.isVisible(), `${region} region is visible`);
                assert.ok((await panel.locator("h2").innerText()).length > 0, `${region} has a heading`);
            }
            assert.equal(await page.locator("header nav a").count(), 2, "header nav has its links");
            if (route.shot) await screenshot(page, route.shot);
            // Give late requests (worker, favicon) a moment to fail if they are going to.
            await page.waitForLoadState("networkidle");
            assert.deepEqual(problems, [], "no console errors/warnings or failed requests");
            await page.close();
        });
    }

    test("a host that serves the wasm without its MIME type still gets the app, and a warning that says why it loads slower", async () => {
        // The start-up snippet compiles the wasm, then instantiates it in a task of its own
        // (scripts/compile-apart.mjs); streaming compilation needs `application/wasm`.
        const shipped = readFileSync(join(distDir, "index.html"), "utf8");
        assert.match(shipped, /WebAssembly\.compileStreaming\(response\)[^]*setTimeout[^]*init\(\{ module_or_path: compiled \}\)/, "the page compiles, yields, then instantiates");
        const { page, problems } = await browser.newPage();
        await page.route("**/fencelab-app-*_bg.wasm", async (route) => {
            const response = await route.fetch();
            await route.fulfill({ response, headers: { ...response.headers(), "content-type": "application/octet-stream" } });
        });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"] [data-verdict]').waitFor();
        // Whatever program this profile's explorer holds: a verdict means the wasm ran.
        assert.ok(await page.locator('[data-region="verdict"] [data-verdict]').getAttribute("data-verdict"));
        await page.waitForLoadState("networkidle");
        assert.equal(problems.length, 1, problems.join("\n"));
        assert.match(problems[0], /^console warning: fencelab: .*_bg\.wasm is not served as application\/wasm/);
        await page.close();
    });

    test("hash navigation switches pages without a reload", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-page="explore"]').waitFor();
        await page.getByRole("link", { name: "Lessons" }).click();
        await page.locator('[data-page="lesson"]').waitFor();
        assert.equal(
            await page.getByRole("link", { name: "Lessons" }).getAttribute("aria-current"),
            "page",
        );
        await page.getByRole("link", { name: "Explore", exact: true }).click();
        await page.locator('[data-page="explore"]').waitFor();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("theme toggle switches palettes and survives a reload", async () => {
        const { page, problems } = await browser.newPage();
        await page.emulateMedia({ colorScheme: "light" });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-page="explore"]').waitFor();
        const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
        assert.equal(await theme(), "light");
        await page.getByRole("button", { name: "Switch to dark theme" }).click();
        assert.equal(await theme(), "dark");
        await reloadAtRest(page);
        await page.locator('[data-page="explore"]').waitFor();
        assert.equal(await theme(), "dark", "choice persisted in localStorage");
        await screenshot(page, "explore-dark");
        await page.getByRole("button", { name: "Switch to light theme" }).click();
        assert.equal(await theme(), "light");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("phone width shows one column", async () => {
        const { page, problems } = await browser.newPage();
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-page="explore"]').waitFor();
        await page.locator('[data-region="lanes"]').waitFor();
        const editor = await page.locator('[data-region="editor"]').boundingBox();
        const lanes = await page.locator('[data-region="lanes"]').boundingBox();
        assert.ok(lanes.y > editor.y + editor.height - 1, "lanes stack below the editor");
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `no horizontal scroll (overflow ${overflow}px)`);
        await screenshot(page, "explore-phone");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

// Panels whose code is a wasm chunk of its own (components/src/lazy.rs): the first load
// does not fetch them; a panel says it is loading until its chunk is here, and says so
// plainly when its chunk cannot be fetched, and a later showing loads it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { distDir, launch, loadTemplate, openExplorer, screenshotDir, skipReason, themedShots } from "./harness.mjs";

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

/** A new explorer page, at its first verdict, whose chunk `file` is held back until `release()`. */
async function explorerHolding(browser, file) {
    const { page, problems } = await browser.newPage();
    let release;
    const held = new Promise((ok) => (release = ok));
    await page.route(`**/${file}`, async (route) => {
        await held;
        await route.continue();
    });
    await page.goto(`${browser.url}/#/explore`);
    await page.locator('[data-region="verdict"] [data-verdict]').waitFor();
    return { page, problems, release };
}

/** A table the chunk loader carries (scripts/pack-chunks.mjs): `PACKS`, `PACKS_OF_SPLIT`. */
function loaderTable(name) {
    const table = readFileSync(join(distDir, "__wasm_split.js"), "utf8").match(new RegExp(`^const ${name} = (.*);$`, "m"));
    assert.ok(table, `the loader has its table ${name}`);
    return JSON.parse(table[1]);
}

/** Asserts that the page's console problems are all aborted fetches of `files` (one name or a list). */
function onlyChunkFailed(problems, files) {
    const names = [files].flat().map((file) => file.replace(".", "\\."));
    const failed = new RegExp(`${names.join("|")}|Failed to fetch|net::ERR_FAILED`);
    assert.ok(problems.length > 0 && problems.every((p) => failed.test(p)), problems.join("\n"));
}

/** The alert saying `what`'s chunk did not load, once it shows (its role and words checked). */
async function chunkAlert(page, what) {
    const failed = page.locator(`[data-lazy-failed="${what}"]`);
    await failed.waitFor();
    assert.equal(await failed.getAttribute("role"), "alert");
    assert.ok((await failed.innerText()).startsWith(`The code for ${what} did not load`));
    return failed;
}

/**
 * The explorer with chunk `file` held back: the panel `what` says it is loading, and
 * `absent` (a selector) is not on the page (screenshots `shot`-*, around the element
 * `around` selects); once the chunk is let through, `ready` shows and the note is gone.
 */
async function loadingUntilArrived(browser, file, what, shot, around, absent, ready) {
    const { page, problems, release } = await explorerHolding(browser, file);
    const loading = page.locator(`[data-lazy-loading="${what}"]`);
    await loading.waitFor();
    assert.equal(await loading.innerText(), `Loading ${what}…`);
    assert.equal(await page.locator(absent).count(), 0);
    await themedShots(page, shots, shot, page.locator(around));

    release();
    await page.locator(ready).waitFor();
    assert.equal(await loading.count(), 0, "the loading note is gone");
    return { page, problems };
}

/**
 * The explorer with chunk files `files` refused (a module's pack and its own file, which
 * the loader falls back to): the panel `what` says so in an alert (screenshots
 * `shot`-*, around the element `around` selects); once the chunk is let through, a reload
 * brings the panel (`ready`, a selector) and no alert. Panels whose place does not remount
 * (the fix panel, the lanes) retry on the next page load, not the next showing.
 */
async function failedUntilReload(browser, files, what, shot, around, ready) {
    const { page, problems } = await browser.newPage();
    for (const file of files) await page.route(`**/${file}`, (route) => route.abort());
    await page.goto(`${browser.url}/#/explore`);
    const failed = await chunkAlert(page, what);
    await themedShots(page, shots, shot, page.locator(around));
    onlyChunkFailed(problems, files);

    for (const file of files) await page.unroute(`**/${file}`);
    await page.reload();
    await page.locator(ready).waitFor();
    assert.equal(await failed.count(), 0);
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
        const { page, problems, release } = await explorerHolding(browser, "split_blocks.wasm");
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
        const failed = await chunkAlert(page, "the block editor");
        await themedShots(page, shots, "blocks-failed", page.locator(".explore-col-left"));
        onlyChunkFailed(problems, "split_blocks.wasm");

        // The failure is not remembered: showing the tab again fetches the chunk anew.
        await page.unroute("**/split_blocks.wasm");
        await page.getByRole("tab", { name: "Text" }).click();
        await page.getByRole("tab", { name: "Blocks" }).click();
        await page.locator('[data-region="blocks"]').waitFor();
        assert.equal(await failed.count(), 0);
    });

    test("the fix panel's chunk comes after the first verdict; the panel says it is loading until then", async () => {
        const { page, problems } = await loadingUntilArrived(browser, "pack_verdict.wasm", "the fix panel", "fix-loading", '[data-region="verdict"]', "[data-fix-panel]", "[data-fix-start]");
        const start = page.locator("[data-fix-start]");
        assert.equal(await start.innerText(), "Which steps matter?");
        assert.ok(await start.isEnabled());
        assert.deepEqual(problems, []);
    });

    test("a fix panel whose chunk cannot be fetched says so, and the next page load brings it", async () => {
        await failedUntilReload(browser, ["pack_verdict.wasm", "split_fix.wasm"], "the fix panel", "fix-failed", '[data-region="verdict"]', "[data-fix-start]");
    });

    test("the link maker is fetched on the first copy, says it is loading meanwhile, and copies the link", async () => {
        const { page, problems, release } = await explorerHolding(browser, "split_share.wasm");
        await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: browser.url });
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
        const failed = await chunkAlert(page, "the link maker");
        assert.equal(await page.locator("input.share-link").count(), 0);
        await themedShots(page, shots, "share-failed", page.locator(".share-bar"));
        onlyChunkFailed(problems, "split_share.wasm");

        await page.unroute("**/split_share.wasm");
        await copy.click();
        await page.locator(".share-status.ok").waitFor();
        assert.match(await page.locator("input.share-link").inputValue(), /#\/s\/[A-Za-z0-9_-]+$/);
        assert.equal(await failed.count(), 0);
    });

    test("the lanes' chunk comes after the first verdict; their place says it is loading until then, then they step", async () => {
        const lanes = '[data-region="lanes"]';
        const { page, problems } = await loadingUntilArrived(browser, "pack_panels.wasm", "the lanes", "lanes-loading", ".explore-col-right", lanes, lanes);
        const step = page.getByRole("spinbutton", { name: "Jump to step" });
        assert.equal(await step.inputValue(), "0");
        await page.getByRole("button", { name: "Step forward" }).click();
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "1");
        assert.deepEqual(problems, []);
    });

    test("lanes whose chunk cannot be fetched say so, and the next page load brings them", async () => {
        await failedUntilReload(browser, ["pack_panels.wasm", "split_lanes.wasm"], "the lanes", "lanes-failed", ".explore-col-right", '[data-region="lanes"]');
    });

    // Leaving the explorer clears the fix search's step marks (the fix panel's cleanup),
    // which wakes the lanes' program lists. Inside Leptos's <Suspense> the lanes outlived
    // their page by a turn of the task queue, ran, and panicked on their disposed signals
    // ("already been disposed",
    // benches/results/2026-11-25-loading-rounds.md, "Seventh round").
    test("leaving the explorer once its lanes and fix panel are up, and coming back, breaks nothing", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.locator('[data-region="lanes"]').waitFor();
        await page.locator("[data-fix-start]").waitFor();

        await page.getByRole("link", { name: "Lessons" }).click();
        await page.locator('[data-page="lesson"]').waitFor();
        // A lesson whose scenario cards have lanes of their own.
        await page.evaluate(() => (location.hash = "#/lessons/executed-is-not-visible"));
        await page.locator('[data-region="lesson-lanes"]').first().waitFor();
        await page.getByRole("link", { name: "Explore", exact: true }).click();
        await page.locator('[data-region="lanes"]').waitFor();
        await page.getByRole("button", { name: "Step forward" }).click();
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "1");

        await page.evaluate(() => (location.hash = "#/no/such/page"));
        await page.locator('[data-page="not-found"]').waitFor();
        await page.waitForLoadState("networkidle");
        assert.deepEqual(problems, []);
    });

    test("lanes whose chunk arrives after the learner left the explorer build nothing, and show on return", async () => {
        const { page, problems, release } = await explorerHolding(browser, "pack_panels.wasm");
        await page.locator('[data-lazy-loading="the lanes"]').waitFor();
        await page.evaluate(() => (location.hash = "#/no/such/page"));
        await page.locator('[data-page="not-found"]').waitFor();

        const arrived = page.waitForResponse("**/pack_panels.wasm");
        release();
        await arrived;
        await page.waitForLoadState("networkidle");
        assert.equal(await page.locator('[data-region="lanes"]').count(), 0);

        await page.evaluate(() => (location.hash = "#/explore"));
        await page.locator('[data-region="lanes"]').waitFor();
        assert.deepEqual(problems, []);
    });

    test("the GPU observations are a chunk: the outcome table shows without them until it is here", async () => {
        const { page, problems, release } = await explorerHolding(browser, "pack_verdict.wasm");
        // A template that ran on a GPU: its table gets an observed column once the chunk is here.
        await loadTemplate(page, "mp-relaxed");
        const table = page.locator("table.outcomes");
        assert.equal(await table.getAttribute("data-observed"), "pending");
        assert.equal(await table.locator("th.observed-head").count(), 0);
        assert.ok((await table.innerText()).includes("executions"), "the model's counts are there already");

        release();
        await page.locator('table.outcomes[data-observed="true"]').waitFor();
        assert.match(await table.locator("th.observed-head").innerText(), /^Observed on NVIDIA H200/);
        assert.deepEqual(problems, []);
    });

    test("the explorer's waves of chunks come in their packs, one request each, and a pack that fails costs no panel", async () => {
        // The loader's packs: the explorer's three waves, and the lessons' and the checker's.
        const held = loaderTable("PACKS");
        assert.deepEqual(Object.keys(held).sort(), ["checker", "lessons", "panels", "stepper", "verdict"]);
        const waves = ["verdict", "stepper", "panels"];
        const packs = waves.map((pack) => `pack_${pack}.wasm`);
        const inWaves = new Set(waves.flatMap((wave) => held[wave]));

        const { page, problems } = await openExplorer(browser);
        await page.locator('[data-region="lanes"]').waitFor();
        await page.locator("[data-fix-start]").waitFor();
        await page.getByRole("button", { name: "Step forward" }).click();
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "1");
        const fetched = await wasmFetched(page);
        for (const pack of packs) assert.equal(fetched.filter((name) => name === pack).length, 1, `${pack} once: ${fetched}`);
        const alone = fetched.filter((name) => inWaves.has(name.replace(/\.wasm$/, "")));
        assert.deepEqual(alone, [], "no packed module fetched by itself");
        assert.ok(!fetched.some((name) => name === "pack_lessons.wasm" || name === "pack_checker.wasm"), `fetched: ${fetched}`);
        assert.deepEqual(problems, []);

        // A pack that does not come costs a request per module, not a panel.
        const refused = await browser.newPage();
        await refused.page.route("**/pack_verdict.wasm", (route) => route.abort());
        await refused.page.goto(`${browser.url}/#/explore`);
        await refused.page.locator("[data-fix-start]").waitFor();
        await refused.page.locator('table.outcomes[data-observed="true"]').waitFor();
        assert.ok((await wasmFetched(refused.page)).includes("split_fix.wasm"));
        onlyChunkFailed(refused.problems, "pack_verdict.wasm");
        await refused.page.close();

    });

    test("a lessons page that opens first fetches its code in one pack and the course in one file, beside each other", async () => {
        const { page, problems } = await browser.newPage();
        // The course and the renderer are asked for with the lessons' code, not once it is here.
        let release;
        const held = new Promise((ok) => (release = ok));
        await page.route("**/pack_lessons.wasm", async (route) => {
            await held;
            await route.continue();
        });
        const beside = ["course.txt", "fencelab-markdown.js", "fencelab-markdown_bg.wasm"].map((file) =>
            page.waitForRequest((request) => request.url().endsWith(`/${file}`), { timeout: 15000 }),
        );
        await page.goto(`${browser.url}/#/lessons/executed-is-not-visible`);
        await Promise.all(beside);
        release();
        await page.locator('[data-region="lesson-lanes"]').first().waitFor();
        await page.locator("[data-verdict]").first().waitFor();
        const names = await page.evaluate(() => performance.getEntriesByType("resource").map((r) => r.name.split("/").pop()));
        assert.equal(names.filter((name) => name === "pack_lessons.wasm").length, 1, names.join(" "));
        const packed = new Set(loaderTable("PACKS").lessons);
        assert.deepEqual(names.filter((name) => packed.has(name.replace(/\.wasm$/, ""))), [], "no module of the pack fetched by itself");
        assert.ok(!names.some((name) => name.endsWith(".md")), `the course is one file: ${names.join(" ")}`);
        assert.deepEqual(problems, []);
        await page.close();

        // Without the pack the modules come one by one; without the bundle (a host that
        // serves the lesson files only), the lesson files.
        const refused = await browser.newPage();
        await refused.page.route("**/pack_lessons.wasm", (route) => route.abort());
        await refused.page.route("**/course.txt", (route) => route.fulfill({ status: 404, body: "not found" }));
        await refused.page.goto(`${browser.url}/#/lessons/executed-is-not-visible`);
        await refused.page.locator('[data-region="lesson-lanes"]').first().waitFor();
        const fallback = await wasmFetched(refused.page);
        assert.ok(fallback.includes("split_lessons.wasm"), fallback.join(" "));
        const texts = await refused.page.evaluate(() => performance.getEntriesByType("resource").map((r) => r.name.split("/").pop()).filter((n) => n.endsWith(".md")));
        assert.ok(texts.includes("index.md") && texts.includes("01-executed-is-not-visible.md"), texts.join(" "));
        const unexpected = refused.problems.filter(
            (p) => !/pack_lessons\.wasm|course\.txt|Failed to fetch|net::ERR_FAILED|status of 404/.test(p),
        );
        assert.deepEqual(unexpected, [], refused.problems.join("\n"));
        await refused.page.close();
    });

    test("the starter's verdict is the build's: the stepper's code comes after the verdict, the checker's after the page's load", async () => {
        const { page, problems } = await browser.newPage();
        // The worker's fetches are the page's requests too.
        const checkerAsked = page.waitForRequest((r) => r.url().endsWith("/pack_checker.wasm"), { timeout: 15000 });
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor();
        const verdict = page.locator('[data-region="verdict"]');
        assert.equal(await verdict.getAttribute("data-worker-answered-by"), "build");
        assert.match(await page.locator(".verdict-stats").innerText(), /^5 states, 4 transitions, checked when the app was built$/);

        // Stepping works once the stepper's chunk is here, which was fetched after the verdict rendered.
        await page.getByRole("button", { name: "Step forward" }).click();
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "1");
        const [stepperAt, verdictAt, origin] = await page.evaluate(() => [
            performance.getEntriesByType("resource").find((e) => e.name.endsWith("/pack_stepper.wasm"))?.startTime,
            Number(document.querySelector('[data-region="verdict"]').dataset.replyAt),
            performance.timeOrigin,
        ]);
        assert.ok(stepperAt > verdictAt, `the stepper's fetch began at ${stepperAt} ms, the verdict rendered at ${verdictAt} ms`);

        // With no edit, the worker fetches the checker's code once the page has loaded (a
        // second after it was ready), so the first edit needs no fetch.
        // A request's timing is filled in when its response arrives (until then its start is 0).
        const checkerRequest = await checkerAsked;
        await checkerRequest.response();
        const checkerAt = checkerRequest.timing().startTime - origin;
        assert.ok(checkerAt > verdictAt + 500, `the checker's fetch began at ${checkerAt} ms, the verdict rendered at ${verdictAt} ms`);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        assert.equal(await verdict.getAttribute("data-worker-answered-by"), "worker");
        assert.deepEqual(problems, []);
    });

    test("a shared link's page leaves the network to its one worker until that worker has the checker's code", async () => {
        const code = readFileSync(new URL("../tests/links/v1/finding-witness.link", import.meta.url), "utf8").trim();
        const { page, problems } = await browser.newPage();
        const events = [];
        page.on("request", (request) => events.push(`request ${request.url().split("/").pop()}`));
        page.on("requestfinished", (request) => events.push(`finished ${request.url().split("/").pop()}`));
        await page.goto(`${browser.url}/#/s/${code}`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "4");
        assert.equal(await page.locator('[data-region="verdict"]').getAttribute("data-worker-answered-by"), "worker");
        // On one clock: each side's resource timings from its own time origin.
        const fetchedAt = (names) =>
            Object.fromEntries(
                performance
                    .getEntriesByType("resource")
                    .filter((e) => names.includes(e.name.split("/").pop()))
                    .map((e) => [e.name.split("/").pop(), { start: performance.timeOrigin + e.startTime, end: performance.timeOrigin + e.responseEnd }]),
            );
        const inWorkers = await Promise.all(page.workers().map((worker) => worker.evaluate(fetchedAt, ["pack_checker.wasm"])));
        const checker = inWorkers.find((w) => w["pack_checker.wasm"])?.["pack_checker.wasm"];
        assert.ok(checker, events.join("\n"));
        const inPage = await page.evaluate(fetchedAt, ["pack_stepper.wasm", "pack_panels.wasm"]);
        for (const chunk of ["pack_stepper.wasm", "pack_panels.wasm"]) {
            assert.ok(inPage[chunk]?.start > checker.end, `${chunk} asked for at ${inPage[chunk]?.start}, the checker's chunk in at ${checker.end}:\n${events.join("\n")}`);
        }
        // The link's check went to the worker index.html started: it was not restarted for it.
        assert.equal(events.filter((e) => e === "request check-worker-loader.js").length, 1, events.join("\n"));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a checker chunk that cannot be fetched fails the check with a message, and the next edit tries again", async () => {
        const { page, problems } = await browser.newPage();
        // Its pack and, which the loader falls back to, its own file.
        const refused = ["pack_checker.wasm", "split_checker.wasm"];
        for (const file of refused) await page.route(`**/${file}`, (route) => route.abort());
        await page.goto(`${browser.url}/#/explore`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor();
        await page.getByLabel("New scenario from a template").selectOption("mp-relaxed");
        await page.locator('[data-region="verdict"][data-state="failed"]').waitFor();
        const alert = page.locator('[data-region="verdict"] [role="alert"]');
        assert.match(await alert.innerText(), /^the checker's code did not load \(the browser's console says why\): edit the text to try again, or reload the page$/);
        onlyChunkFailed(problems, refused);

        for (const file of refused) await page.unroute(`**/${file}`);
        problems.length = 0;
        assert.equal(await loadTemplate(page, "mp-release-acquire"), "correct");
        assert.deepEqual(problems, []);
    });

    test("lanes whose stepper cannot be fetched say so, and an edit tries again", async () => {
        const { page, problems } = await browser.newPage();
        const asked = [];
        page.on("request", (request) => asked.push(request.url().split("/").pop()));
        const refused = ["pack_stepper.wasm", "split_stepper.wasm"];
        for (const file of refused) await page.route(`**/${file}`, (route) => route.abort());
        await page.goto(`${browser.url}/#/explore`);
        const lanes = page.locator('[data-region="lanes"]');
        const alert = lanes.getByRole("alert");
        await alert.waitFor();
        assert.equal(await alert.innerText(), "The stepper's code did not load (the browser's console says why). Edit the text to try again, or reload the page.");
        assert.match(await page.locator('[data-region="machine"] .panel-empty').innerText(), /^The machine appears once the stepper's code has loaded/);
        onlyChunkFailed(problems, refused);

        for (const file of refused) await page.unroute(`**/${file}`);
        problems.length = 0;
        await loadTemplate(page, "mp-relaxed");
        await page.getByRole("button", { name: "Step forward" }).click();
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "1");
        // A pack that failed is not asked for again: the retry asks for the module's own file.
        assert.equal(asked.filter((name) => name === "pack_stepper.wasm").length, 1, asked.join(" "));
        assert.ok(asked.filter((name) => name === "split_stepper.wasm").length >= 2, asked.join(" "));
        assert.deepEqual(problems, []);
    });
});

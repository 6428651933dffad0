// Issue 47: each step's effect on screen where the eye already is. At a stale read the
// value read, the write it came from and the newer write it missed are inside a 1440×900
// window together with the step button and the editor's current line; the arrive or
// complete_tx that completes a phase moves the gauges; a read animates; the exported SVG
// holds the stale value; a lesson's "Step through it" has the gauges.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, requestNumber, screenshotDir, skipReason, themedShots, verdictAfter } from "./harness.mjs";

const skip = await skipReason();
const DESKTOP = { width: 1440, height: 900 };

/** Whether `locator`'s box lies wholly inside the window. */
async function inWindow(page, locator) {
    const box = await locator.boundingBox();
    const { width, height } = page.viewportSize();
    return box !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= width + 0.5 && box.y + box.height <= height + 0.5;
}

/** Takes the move of `agent` whose label matches `label` (a lane's choice button). */
async function take(page, agent, label) {
    const lane = page.locator(`[data-region="lanes"] [data-agent="${agent}"]`);
    await lane.locator("button.choice", { hasText: label }).first().click();
}

/** The read marked at the current step, once drawn. */
async function currentRead(page) {
    const read = page.locator("[data-step-dock] [data-read]").first();
    await read.waitFor();
    return read;
}

async function assertStaleReadOnOneScreen(page, { value, missed }) {
    const dock = page.locator("[data-step-dock]");
    const read = await currentRead(page);
    assert.equal(await read.getAttribute("data-value"), String(value));
    assert.notEqual(await read.getAttribute("data-stale"), null, "the read is marked stale");
    assert.equal(await read.getAttribute("data-value"), String(value));
    const from = dock.locator("[data-read-from]").first();
    const missedWrite = dock.locator("[data-missed-write]").first();
    assert.match(await from.innerText(), new RegExp(`^${value}\\b`));
    assert.match(await missedWrite.innerText(), new RegExp(`^${missed}\\b`));
    const stepButton = page.getByRole("button", { name: "Step back" });
    const currentLine = page.locator(".editor-paint [data-just-ran]");
    for (const [what, locator] of [
        ["the register's value", read],
        ["the write it came from", from],
        ["the newer write it missed", missedWrite],
        ["the step button", stepButton],
        ["the current line", currentLine],
    ]) {
        assert.ok(await inWindow(page, locator), `${what} is inside the ${DESKTOP.width}×${DESKTOP.height} window`);
    }
    // The current line is inside the editor's scrolled view, not just the window.
    const line = await currentLine.boundingBox();
    const code = await page.locator(".panel-editor .editor-code").boundingBox();
    assert.ok(line.y >= code.y - 1 && line.y + line.height <= code.y + code.height + 1, "the current line is scrolled into the editor's view");
    // Nothing covers them: the topmost element at each one's centre is inside it.
    for (const locator of [read, missedWrite, currentLine]) {
        assert.ok(
            await locator.evaluate((el) => {
                const r = el.getBoundingClientRect();
                const top = document.elementFromPoint(r.x + Math.min(8, r.width / 2), r.y + r.height / 2);
                return top !== null && (el.contains(top) || top.closest(".editor-code") !== null);
            }),
            "nothing is drawn over it",
        );
    }
}

/** How many animations run (or hold their last frame) inside the first `[data-read]`. */
function readAnimations(page) {
    return page.evaluate(() => {
        const read = document.querySelector("[data-step-dock] [data-read]")?.closest(".fx-read");
        return document.getAnimations().filter((a) => read?.contains(a.effect?.target ?? null)).length;
    });
}

async function exportedSvg(page) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export SVG" }).click()]);
    return { name: download.suggestedFilename(), text: readFileSync(await download.path(), "utf8") };
}

async function exportedPng(page) {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export PNG" }).click()]);
    return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

/** The SVG as the browser parses it: its size, every text, and the drawn shapes' counts. */
function parsedSvg(page, text) {
    return page.evaluate((svg) => {
        const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
        const root = doc.documentElement;
        return {
            error: doc.querySelector("parsererror")?.textContent ?? null,
            width: Number(root.getAttribute("width")),
            height: Number(root.getAttribute("height")),
            texts: [...doc.querySelectorAll("text")].map((t) => t.textContent),
            dashed: [...doc.querySelectorAll("rect[stroke-dasharray]")].length,
            paths: doc.querySelectorAll("path[marker-end]").length,
            dots: doc.querySelectorAll("circle").length,
        };
    }, text);
}

describe("step effect", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the message-passing race: the stale 0, its write and the missed 42 on one screen", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await take(page, "producer", /./);
        assert.notEqual(await page.locator(".editor-paint [data-just-ran]").getAttribute("data-line"),
            await page.locator(".editor-paint [data-next]").getAttribute("data-line"), "after a step, just ran and next are two lines");
        await take(page, "producer", /./);
        await take(page, "consumer", /flag/);
        // The consumer's read of data offers the initial value as a stale choice.
        await take(page, "consumer", /stale/);
        await assertStaleReadOnOneScreen(page, { value: 0, missed: 42 });
        assert.match(await page.locator("[data-step-dock] .fx-stale-reason").innerText(), /Missed 42 \(producer, step 1\)\. \S/);
        assert.ok((await readAnimations(page)) > 0, "the read starts an animation");
        await page.locator("[data-step-dock] .fx-read").first().screenshot({ path: join(screenshotDir, "step-effect-read-travel.png") }).catch(() => {});
        // The final picture keeps the stale read in the memory cell too.
        const cell = page.locator('[data-region="machine"] [aria-label="location data"]');
        assert.match(await cell.innerText(), /consumer read it \(stale\)/);
        assert.match(await cell.innerText(), /consumer did not see it/);
        // The exported SVG names scenario, mode and step, and draws the stale read: the
        // 0 joined to its reader, the missed 42 dashed, the steps as the timeline's dots.
        const svg = await exportedSvg(page);
        assert.match(svg.name, /^fencelab-message-passing-.*-step-4\.svg$/);
        assert.match(svg.text, /^<svg/);
        const drawn = await parsedSvg(page, svg.text);
        assert.equal(drawn.error, null, "the SVG parses");
        assert.ok(drawn.texts.some((t) => /^fencelab · Message passing .*: pragmatic mode, step 4 of 4$/.test(t)), "the caption names scenario, mode and step");
        assert.ok(drawn.texts.includes("consumer got 0 (stale)"), "the stale value at its reader");
        assert.ok(drawn.texts.includes("42") && drawn.texts.includes("not seen"), "the missed write");
        assert.ok(drawn.dashed >= 1 && drawn.paths >= 1 && drawn.dots >= 4, `a drawing: ${JSON.stringify(drawn)}`);
        assert.match(svg.text, /consumer read data = 0 at step 4 \(stale\): missed 42 by producer/);
        // The PNG is that picture: a PNG file of the SVG's size.
        const png = await exportedPng(page);
        assert.match(png.name, /^fencelab-message-passing-.*-step-4\.png$/);
        assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "the PNG signature");
        assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], [drawn.width, drawn.height], "the PNG has the SVG's size");
        // The witness as text, on the clipboard.
        await browser.grantClipboard();
        await page.getByRole("button", { name: "Copy witness as text" }).click();
        await page.getByRole("status").filter({ hasText: "Witness copied as text" }).waitFor();
        const witness = await page.evaluate(() => navigator.clipboard.readText());
        assert.match(witness, /^fencelab: Message passing in one CTA with a relaxed flag: pragmatic mode, step 4 of 4\n/);
        assert.match(witness, /consumer read data = 0 \(stale: 42 by producer not seen\)/);
        // No raw Markdown backticks anywhere in the machine or the dock.
        for (const region of ['[data-region="machine"]', "[data-step-dock]"]) {
            assert.doesNotMatch(await page.locator(region).innerText(), /`/, `${region} shows no backticks`);
        }
        await themedShots(page, join(screenshotDir, "step-effect"), "mp-stale-read", page.locator("[data-step-dock]"));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("animation off: the read lands without moving; Home, End and ? work", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await page.getByRole("checkbox", { name: "animate" }).uncheck();
        await take(page, "producer", /./);
        await take(page, "producer", /./);
        await take(page, "consumer", /flag/);
        await take(page, "consumer", /stale/);
        await currentRead(page);
        assert.equal(await readAnimations(page), 0, "no animation with the checkbox off");
        await page.locator("body").click({ position: { x: 5, y: 5 } });
        await page.keyboard.press("Home");
        assert.equal(await page.getByLabel("Jump to step").inputValue(), "0");
        await page.keyboard.press("End");
        assert.equal(await page.getByLabel("Jump to step").inputValue(), "4");
        await page.keyboard.press("?");
        assert.match(await page.locator("[data-keys-help]").innerText(), /Home[\s\S]*first \/ last step/);
        await page.getByRole("checkbox", { name: "animate" }).check();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a click on a source line runs to it, and its gutter says so", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const gutterLine = page.locator(".editor-gutter li.runnable").last();
        await gutterLine.hover();
        assert.match(await page.locator("[data-run-hint]").innerText(), /^Click to run to line \d+/);
        await gutterLine.click();
        assert.notEqual(await page.getByLabel("Jump to step").inputValue(), "0");
        assert.equal(await page.locator(".editor-paint [data-just-ran]").getAttribute("data-line"), await gutterLine.innerText().then((t) => t.replace(/\D/g, "")));
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a TMA load: the completing complete_tx moves the gauges; without the wait the read is stale", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        assert.equal(await loadTemplate(page, "tma-load"), "correct");
        const tx = page.locator('[data-step-dock] [data-gauge="tx"]').first();
        const arrivals = page.locator('[data-step-dock] [data-gauge="arrivals"]').first();
        assert.equal(await tx.getAttribute("data-value"), "0");
        await take(page, "producer", /./);
        assert.equal(await tx.getAttribute("data-value"), "64", "64 bytes announced, none landed");
        assert.equal(await arrivals.getAttribute("data-value"), "1");
        await take(page, "producer", /./);
        // Step the copy until the phase completes.
        for (let i = 0; i < 6 && (await page.locator("[data-step-dock] [data-phase-complete]").count()) === 0; i++) {
            await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').first().click();
        }
        await page.locator("[data-step-dock] [data-phase-complete]").waitFor();
        assert.equal(await tx.getAttribute("data-value"), "0", "the completing complete_tx paid the 64 bytes");
        assert.match(await tx.innerText(), /64 expected, 64 landed/);
        assert.match(await page.locator("[data-step-dock] .mbar-flip").innerText(), /phase 0 → 1: parity 0 → 1/);
        // The consumer's move names the barrier as code, not in raw backticks.
        assert.match(await page.locator('[data-region="lanes"] [data-agent="consumer"] button.choice').first().innerText(), /wait on full/);
        assert.doesNotMatch(await page.locator("[data-step-dock]").innerText(), /`/, "the dock shows no backticks");
        await themedShots(page, join(screenshotDir, "step-effect"), "tma-phase-complete", page.locator("[data-step-dock]"));

        // The same copy without the consumer's wait: its read can return the stale 0.
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        const before = await requestNumber(page);
        await text.fill((await text.inputValue()).replace(/\n\s*wait mbarrier[^\n]*/, ""));
        assert.equal(await verdictAfter(page, before), "race");
        await take(page, "producer", /./);
        await take(page, "producer", /./);
        for (let i = 0; i < 6 && (await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').count()) > 0; i++) {
            await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').first().click();
        }
        await take(page, "consumer", /stale/);
        await assertStaleReadOnOneScreen(page, { value: 0, missed: 42 });
        const svg = await exportedSvg(page);
        assert.match(svg.text, /consumer read buf = 0 at step \d+ \(stale\): missed 42/);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a scope mismatch: the box the .cta release reached, with the acquirer outside it", async () => {
        const { page, problems } = await browser.newPage();
        await page.setViewportSize(DESKTOP);
        await page.goto(`${browser.url}/#/lessons/scopes`);
        const lanes = page.locator('[data-block="scenario"]').first().locator('[data-region="lesson-lanes"]');
        await lanes.waitFor({ timeout: 30000 });
        const move = (agent, label) => lanes.locator(`[data-agent="${agent}"] button.choice`, { hasText: label }).first().click();
        await move("producer", /./);
        await move("producer", /./);
        await move("consumer", /= 1/);
        const reach = lanes.locator('[data-edge="failed"][data-cause="scope"] [data-scope-reach=".cta"]').first();
        await reach.waitFor();
        const box = reach.locator("[data-reached]");
        assert.equal(await box.getAttribute("data-reached"), "CTA A");
        assert.match(await box.innerText(), /the release's \.cta scope reached CTA A\s+producer/);
        assert.match(await reach.locator("[data-outside]").innerText(), /^consumer\s+outside, in CTA B$/);
        // Drawn outside: the acquirer's box does not overlap the release's.
        const [inside, outside] = [await box.boundingBox(), await reach.locator("[data-outside]").boundingBox()];
        assert.ok(outside.x >= inside.x + inside.width || outside.y >= inside.y + inside.height, "the acquirer is outside the box");
        await reach.screenshot({ path: join(screenshotDir, "step-effect-scope-mismatch.png") });
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("lesson 7's deadlock: its stepper shows the two debts, and the 16 bytes never paid", async () => {
        const { page, problems } = await browser.newPage();
        await page.setViewportSize(DESKTOP);
        await page.goto(`${browser.url}/#/lessons/mbarrier-debts`);
        const card = page.locator('[data-block="scenario"]').first();
        const lanes = card.locator('[data-region="lesson-lanes"]');
        await lanes.waitFor({ timeout: 30000 });
        const tx = lanes.locator('[data-gauge="tx"]').first();
        const arrivals = lanes.locator('[data-gauge="arrivals"]').first();
        await tx.waitFor();
        assert.equal(await tx.getAttribute("data-value"), "0");
        assert.equal(await arrivals.getAttribute("data-value"), "0");
        const forward = lanes.getByRole("button", { name: "Step forward" });
        await forward.click();
        assert.equal(await tx.getAttribute("data-value"), "32", "the arrive announces 32 bytes");
        assert.equal(await arrivals.getAttribute("data-value"), "1", "and pays the one arrival");
        await forward.click();
        assert.equal(await tx.getAttribute("data-value"), "16", "16 landed: 16 still owed");
        assert.equal(await lanes.locator("[data-phase-complete]").count(), 0, "the phase never completes");
        await themedShots(page, join(screenshotDir, "step-effect"), "lesson7-deadlock", lanes, { whole: true });
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a TMA store: its fence.proxy.async is drawn at the boundary, and the agent's progress moves", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        await loadTemplate(page, "tma-store");
        await page.evaluate(() => document.activeElement?.blur());
        await page.keyboard.press("End");
        const last = Number(await page.getByLabel("Jump to step").inputValue());
        await page.keyboard.press("Home");
        const dock = page.locator("[data-step-dock] [data-step-effect]");
        let crossed = 0;
        const stages = [];
        for (let at = 1; at <= last; at++) {
            await page.keyboard.press("ArrowRight");
            const boundary = dock.locator(".fx-proxy-crossed");
            if ((await boundary.count()) > 0) {
                crossed += 1;
                assert.match(await boundary.innerText(), /generic proxy[\s\S]*fence\.proxy\.async[\s\S]*async proxy/);
            }
            for (const op of await dock.locator(".fx-op").all()) stages.push(Number(await op.getAttribute("data-op-stage")));
        }
        assert.equal(crossed, 1, "the one proxy fence crosses the boundary at its step");
        assert.ok(stages.includes(1) && stages.includes(3), `the bulk copy is seen issued and completed: ${stages}`);
        assert.deepEqual(problems, []);
        await page.close();
    });
    test("a synchronizes-with edge forming lights its scope box: CTA, cluster and GPU", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        const dock = page.locator("[data-step-dock] [data-step-effect]");
        for (const [id, scope] of [["mp-release-acquire", "cta"], ["cluster-handoff", "cluster"], ["gpu-flag", "gpu"]]) {
            assert.equal(await loadTemplate(page, id), "correct");
            await page.evaluate(() => document.activeElement?.blur());
            await page.keyboard.press("End");
            const last = Number(await page.getByLabel("Jump to step").inputValue());
            await page.keyboard.press("Home");
            let lit = null;
            for (let at = 1; at <= last && lit === null; at++) {
                await page.keyboard.press("ArrowRight");
                const box = dock.locator('[data-edge="formed"] .fx-scope-box');
                if ((await box.count()) === 0) continue;
                lit = await box.first().evaluate((el) => {
                    // The box is drawn in its scope's own colour (style.css's --scope-*).
                    const probe = document.createElement("span");
                    probe.style.color = `var(--scope-${el.closest("[data-edge]").dataset.scope})`;
                    el.append(probe);
                    const scopeColour = getComputedStyle(probe).color;
                    probe.remove();
                    return {
                        text: el.textContent,
                        scope: el.closest("[data-edge]").dataset.scope,
                        border: getComputedStyle(el).borderTopColor,
                        scopeColour,
                        lighting: el.getAnimations().map((a) => a.animationName),
                    };
                });
            }
            assert.ok(lit, `${id}: an edge forms on some step`);
            assert.equal(lit.scope, scope, `${id}: the edge's scope`);
            assert.equal(lit.text, `.${scope} scope`, `${id}: the box names the scope`);
            assert.equal(lit.border, lit.scopeColour, `${id}: the box is drawn in the ${scope} scope's colour`);
            assert.deepEqual(lit.lighting, ["fx-light"], `${id}: the box lights up as the edge forms`);
        }
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a read through the wrong proxy: a thread's generic read of a copy's async-proxy write shows both views", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        await loadTemplate(page, "tma-load");
        // Without the consumer's wait nothing carries the copy's async-proxy write to its
        // generic read: the read can return the stale 0.
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        const before = await requestNumber(page);
        await text.fill((await text.inputValue()).replace(/\n\s*wait mbarrier[^\n]*/, ""));
        assert.equal(await verdictAfter(page, before), "race");
        await take(page, "producer", /./);
        await take(page, "producer", /./);
        for (let i = 0; i < 6 && (await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').count()) > 0; i++) {
            await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').first().click();
        }
        await take(page, "consumer", /stale/);
        const read = await currentRead(page);
        assert.notEqual(await read.getAttribute("data-stale"), null);
        const views = page.locator('[data-step-dock] .fx-read .fx-proxies[aria-label="which view of memory each side used"]');
        assert.match(await views.innerText(), /async proxy: the write[\s\S]*generic proxy: the read/);
        assert.ok(await inWindow(page, views), "the two views are on screen");
        assert.deepEqual(problems, []);
        await page.close();
    });

    // A bulk-group copy reads its source in one step and writes later (`reads_of_step`).
    test("a TMA store without its fence.proxy.async: the copy's read says which view of memory it saw", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        await loadTemplate(page, "tma-store");
        const text = page.getByRole("textbox", { name: /Scenario source/ });
        const before = await requestNumber(page);
        await text.fill((await text.inputValue()).replace(/\n\s*fence\.proxy\.async[^\n]*/, ""));
        assert.equal(await verdictAfter(page, before), "race");
        // Run the writer and the storer up to the copy, then take the copy's stale read.
        const copy = page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice');
        for (let i = 0; i < 8 && (await copy.count()) === 0; i++) {
            await page.locator('[data-region="lanes"] button.choice').first().click();
        }
        await copy.filter({ hasText: /stale/ }).first().click();
        const read = page.locator("[data-step-dock] [data-read]").first();
        await read.waitFor({ timeout: 2000 });
        assert.notEqual(await read.getAttribute("data-stale"), null, "the copy's read of buf is stale");
        assert.equal(await read.getAttribute("data-value"), "0");
        const effect = page.locator("[data-step-dock] [data-step-effect]");
        assert.match(await effect.locator(".fx-proxy-line").innerText(), /It saw the memory through the async proxy\./);
        assert.match(await effect.locator('.fx-read .fx-proxies[aria-label="which view of memory each side used"]').innerText(), /generic proxy: the write[\s\S]*async proxy: the read/);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("an async agent shows what it reads and writes and the barrier it will complete", async () => {
        const { page, problems } = await openExplorer(browser);
        await page.setViewportSize(DESKTOP);
        const op = page.locator("[data-step-dock] [data-step-effect] .fx-op").first();
        // The TMA load: it reads src, writes buf and completes the mbarrier full.
        assert.equal(await loadTemplate(page, "tma-load"), "correct");
        await take(page, "producer", /./);
        await take(page, "producer", /./);
        await op.waitFor();
        assert.equal(await op.getAttribute("data-op-reads"), "src");
        assert.equal(await op.getAttribute("data-op-writes"), "buf");
        assert.equal(await op.getAttribute("data-op-completes"), "full");
        assert.match(await op.innerText(), /reads src[\s\S]*writes buf[\s\S]*completes mbarrier full/);
        // It stays shown while it works, and at the step it completes the barrier.
        for (let i = 0; i < 6 && (await page.locator("[data-step-dock] [data-phase-complete]").count()) === 0; i++) {
            await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').first().click();
            assert.equal(await op.getAttribute("data-op-completes"), "full");
        }
        // The wgmma pipeline's agent reads its operands and updates its accumulator.
        assert.equal(await loadTemplate(page, "tma-wgmma-pipeline"), "correct");
        await page.evaluate(() => document.activeElement?.blur());
        await page.keyboard.press("End");
        const last = Number(await page.getByLabel("Jump to step").inputValue());
        await page.keyboard.press("Home");
        const seen = new Map();
        for (let at = 1; at <= last; at++) {
            await page.keyboard.press("ArrowRight");
            for (const row of await page.locator("[data-step-dock] [data-step-effect] .fx-op").all()) {
                const name = await row.locator(".fx-agent").innerText();
                seen.set(name.replace(/#?\d+$/, ""), { reads: await row.getAttribute("data-op-reads"), writes: await row.getAttribute("data-op-writes") });
            }
        }
        const wgmma = [...seen.entries()].find(([name]) => /wgmma/.test(name));
        assert.ok(wgmma, `a wgmma agent is shown: ${[...seen.keys()]}`);
        assert.ok(wgmma[1].reads, `the wgmma agent names what it reads: ${JSON.stringify(wgmma[1])}`);
        assert.ok(wgmma[1].writes, `the wgmma agent names what it writes: ${JSON.stringify(wgmma[1])}`);
        assert.deepEqual(problems, []);
        await page.close();
    });
});

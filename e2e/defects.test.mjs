// Defects a newcomer's walkthrough found (issue 47, part 6), each as the learner meets it:
// a shared link keeps the sender's text line for line; a link to a step keeps the whole
// witness; an applied fix is highlighted and can be undone by name; exercises are editable
// on a phone without sideways scroll; the tour stays on screen, asks for a step and restarts
// from the header; a prediction counts its first guess; lesson cards name their scenario;
// a cost rejection points at the SASS cost toggle.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import { launch, loadTemplate, openExplorer, reloadAtRest, requestNumber, skipReason, themedShots, verdictAfter } from "./harness.mjs";

const skip = await skipReason();
// Light/dark, desktop/phone views for a person to look at.
const SHOTS = process.env.DEFECTS_SHOTS ?? "/tmp/defects-shots";

const source = (page) => page.getByRole("textbox", { name: /Scenario source/ });
const LESSON = "executed-is-not-visible";

/** The message-passing race as a person writes it: blank lines, a type suffix and a `;`
 * the printer drops, comments where the author put them. Line 9 is the data store. */
const AS_WRITTEN = [
    "# Message passing, as I wrote it",
    "cta A",
    "cta B",
    "global data = 0",
    "global flag = 0",
    "",
    "",
    "thread producer @A:",
    "    st.global.u32 [data], 42;   # line 9: the payload",
    "",
    "    st.relaxed.gpu.global [flag], 1",
    "",
    "thread consumer @B:",
    "    wait ld.relaxed.gpu.global r1, [flag] == 1",
    "    ld.global r0, [data]",
    "",
].join("\n");

/** Makes a link with the share bar's button `name` and returns it (from the link field). */
async function makeLink(page, name) {
    await page.getByRole("button", { name, exact: true }).click();
    const field = page.locator("input.share-link");
    await field.waitFor();
    const link = await field.inputValue();
    assert.match(link, /#\/s\/[A-Za-z0-9_-]+$/);
    return link;
}

/** "step N of M" of the step controls, as [N, M]. */
async function stepOf(page) {
    const n = Number(await page.getByRole("spinbutton", { name: "Jump to step" }).inputValue());
    const of = (await page.locator(".step-controls .jump").innerText()).match(/of (\d+)/);
    return [n, Number(of?.[1])];
}

/** Whether `locator`'s box lies inside the viewport. */
async function onScreen(page, locator) {
    const box = await locator.boundingBox();
    const view = page.viewportSize();
    return !!box && box.y >= 0 && box.x >= 0 && box.y + box.height <= view.height && box.x + box.width <= view.width;
}

describe("issue 47 defects", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a shared link keeps the sender's text exactly, so line 9 is line 9 for both", async () => {
        const { page, problems } = await openExplorer(browser);
        const before = await requestNumber(page);
        await source(page).fill(AS_WRITTEN);
        assert.equal(await verdictAfter(page, before), "race");
        // The Blocks view shows the same program and leaves its text alone; a block edit
        // rewrites its own line only.
        await page.getByRole("tab", { name: "Blocks" }).click();
        const producer = page.locator('.block-lane[data-thread="producer"]');
        await producer.waitFor();
        await page.getByRole("tab", { name: "Text" }).click();
        assert.equal(await source(page).inputValue(), AS_WRITTEN, "a switch to Blocks keeps the text");
        await page.getByRole("tab", { name: "Blocks" }).click();
        const blocks = await producer.locator(".block").count();
        await page.getByRole("button", { name: "Add st to producer" }).click();
        await producer.locator(".block").nth(blocks).waitFor();
        await page.getByRole("tab", { name: "Text" }).click();
        const edited = (await source(page).inputValue()).split("\n");
        const written = AS_WRITTEN.split("\n");
        assert.equal(edited.length, written.length + 1, edited.join("\n"));
        const added = edited.findIndex((line, i) => line !== written[i]);
        assert.deepEqual([...edited.slice(0, added), ...edited.slice(added + 1)], written, "every other line as written");
        assert.match(edited[added], /^ {4}st /, "the new block's line, indented like its lane");
        await page.getByRole("button", { name: "Undo", exact: true }).first().click();
        assert.equal(await source(page).inputValue(), AS_WRITTEN);
        const link = await makeLink(page, "Copy link");

        const { page: other, problems: otherProblems } = await browser.newPage();
        await other.goto(link);
        await other.locator('[data-page="shared"]').waitFor();
        const received = await source(other).inputValue();
        assert.equal(received, AS_WRITTEN, "the receiver reads the sender's text");
        assert.equal(received.split("\n")[8], "    st.global.u32 [data], 42;   # line 9: the payload");
        assert.deepEqual([...problems, ...otherProblems], []);
        for (const p of [page, other]) await p.close();
    });

    test("a link to a step of a witness keeps the whole witness", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        await page.getByRole("button", { name: "Show me" }).first().click();
        await page.waitForFunction(() => Number(document.querySelector('input[aria-label="Jump to step"]')?.value) > 2);
        const [end, witness] = await stepOf(page);
        assert.equal(end, witness, "Show me goes to the witness's end");
        const jump = page.getByRole("spinbutton", { name: "Jump to step" });
        await jump.fill("2");
        await jump.dispatchEvent("change");
        assert.deepEqual(await stepOf(page), [2, witness]);
        const link = await makeLink(page, "Copy link to this step");

        const { page: other, problems: otherProblems } = await browser.newPage();
        await other.goto(link);
        await other.locator('[data-page="shared"]').waitFor();
        await other.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "2");
        assert.deepEqual(await stepOf(other), [2, witness], "at step 2 of the whole witness");
        await other.getByRole("button", { name: "Step forward" }).click();
        assert.deepEqual(await stepOf(other), [3, witness], "the witness goes on past the shared step");
        assert.deepEqual([...problems, ...otherProblems], []);
        for (const p of [page, other]) await p.close();
    });

    test("an applied fix highlights the lines it changed and offers Undo fix N", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-relaxed"), "race");
        const original = await source(page).inputValue();
        await page.getByRole("button", { name: "Fix it" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        const beforeApply = await requestNumber(page);
        await page.locator("[data-fix]").first().locator("[data-fix-apply]").click();
        assert.equal(await verdictAfter(page, beforeApply), "correct");
        const fixed = await source(page).inputValue();
        const applied = page.locator("[data-fix-applied]");
        await applied.waitFor();
        assert.equal(await applied.getAttribute("data-fix-applied"), "1");
        // The highlighted lines are the lines of the new text the old one did not have.
        const oldLines = new Set(original.split("\n"));
        const expected = fixed.split("\n").flatMap((line, i) => (oldLines.has(line) ? [] : [String(i + 1)]));
        assert.ok(expected.length >= 1, "the fix changed a line");
        const painted = await page.locator('.editor-paint [data-fix-changed]').evaluateAll((els) => els.map((e) => e.dataset.line));
        assert.deepEqual(painted, expected);
        assert.match(await applied.innerText(), new RegExp(`line${expected.length > 1 ? "s" : ""} ${expected.join(", ")} changed`));
        await themedShots(page, SHOTS, "fix-applied", page.locator("[data-fix-panel]"));

        const beforeUndo = await requestNumber(page);
        await page.getByRole("button", { name: "Undo fix 1" }).click();
        assert.equal(await verdictAfter(page, beforeUndo), "race");
        assert.equal(await source(page).inputValue(), original);
        assert.equal(await page.locator(".editor-paint [data-fix-changed]").count(), 0, "the highlight goes with the fix");
        assert.equal(await page.locator("[data-fix-applied]").count(), 0);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the variants of Which steps matter? open in the explorer", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await loadTemplate(page, "mp-release-acquire"), "correct");
        const original = await source(page).inputValue();
        await page.getByRole("button", { name: "Which steps matter?" }).click();
        await page.locator('[data-fix-panel][data-fix-state="done"]').waitFor({ timeout: 60000 });
        const necessary = page.locator("[data-necessary]").first();
        const line = Number(await necessary.getAttribute("data-necessary"));
        const verdict = (await necessary.locator(".fix-breaks").innerText()).replace("→", "").trim();
        const beforeOpen = await requestNumber(page);
        await necessary.getByRole("button", { name: "Open" }).click();
        assert.equal(await verdictAfter(page, beforeOpen), verdict, "the variant's own verdict");
        const opened = (await source(page).inputValue()).split("\n");
        const lines = original.split("\n");
        const changed = opened.flatMap((l, i) => (l === lines[i] ? [] : [i + 1]));
        const highlighted = await page.locator(".editor-paint [data-fix-changed]").evaluateAll((els) => els.map((e) => Number(e.dataset.line)));
        if (opened.length < lines.length) {
            assert.deepEqual(opened, lines.filter((_, i) => i + 1 !== line), "the removed step's line goes, the rest stays");
        } else if (changed.length === 2) {
            // Moved below the next step: the two lines swap, nothing else moves.
            assert.deepEqual(changed, [line, line + 1]);
            assert.deepEqual([opened[line - 1], opened[line]], [lines[line], lines[line - 1]]);
            assert.deepEqual(highlighted, [line + 1], "the moved line, in its new place");
        } else {
            assert.deepEqual(changed, [line], "only the weakened step's line changes");
            assert.deepEqual(highlighted, [line]);
        }
        await page.locator(`[data-fix-applied="variant-${line}"]`).waitFor();
        await themedShots(page, SHOTS, "variant-opened", page.locator("[data-fix-panel]"));
        const beforeBack = await requestNumber(page);
        await page.getByRole("button", { name: "Back to the original" }).click();
        assert.equal(await verdictAfter(page, beforeBack), "correct");
        assert.equal(await source(page).inputValue(), original);
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("an exercise is editable on a phone, and the page never scrolls sideways", async () => {
        const { page, problems } = await browser.newPage();
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const card = page.locator('[data-exercise="publish-the-data"]');
        const editor = card.locator("textarea.editor-text");
        await editor.waitFor();
        assert.equal(await editor.getAttribute("readonly"), null, "the attempt can be typed");
        const start = await editor.inputValue();
        await editor.fill(start.replace("st.relaxed.gpu", "st.release.gpu").replace("ld.relaxed.gpu", "ld.acquire.gpu"));
        await card.locator('[data-grade="passed"]').waitFor({ timeout: 20000 });
        await page.waitForFunction(() => !document.querySelector('[data-verdict="pending"]'), null, { timeout: 30000 });
        const width = () => page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
        let widths = await width();
        assert.ok(widths.page <= widths.view, `page ${widths.page} px wide in a ${widths.view} px viewport`);
        await themedShots(page, SHOTS, "exercise-phone", card);
        await page.setViewportSize({ width: 390, height: 844 });
        // Lessons whose prose quotes long instructions, and whose exercises are wide.
        for (const lesson of ["cluster-handoffs", "relay-warp-case-study"]) {
            await page.goto(`${browser.url}/#/lessons/${lesson}`);
            await page.locator("[data-exercise] textarea.editor-text").first().waitFor();
            widths = await width();
            assert.ok(widths.page <= widths.view, `${lesson}: page ${widths.page} px wide in a ${widths.view} px viewport`);
        }
        assert.deepEqual(problems, []);
        await page.close();
    });

    for (const [size, viewport] of [["desktop", { width: 1440, height: 900 }], ["phone", { width: 390, height: 844 }]]) {
        test(`the tour stays on screen at every stop, waits for a →, and restarts from the header (${size})`, async () => {
            const { page, problems } = await browser.newPage();
            await page.setViewportSize(viewport);
            await page.goto(`${browser.url}/#/explore`);
            await verdictAfter(page, 0);
            await page.evaluate(() => localStorage.removeItem("fencelab-guided-start"));
            await reloadAtRest(page);
            await verdictAfter(page, 0);
            const guide = page.locator("[data-guided-start]");
            await guide.getByRole("button", { name: "Take the tour" }).click();
            for (const region of ["editor", "verdict", "lanes"]) {
                await page.locator(`[data-region="${region}"][data-tour-focus]`).waitFor();
                await page.waitForTimeout(200);
                assert.ok(await onScreen(page, guide.locator(".guided-text")), `the tour's text is on screen at the ${region} stop`);
                if (region !== "lanes") {
                    await guide.getByRole("button", { name: "Next" }).click();
                }
            }
            const done = guide.getByRole("button", { name: "Done" });
            assert.match(await guide.innerText(), /Press →/, "the last stop asks for a step");
            assert.ok(await done.isDisabled(), "the tour waits for the learner's step");
            await themedShots(page, SHOTS, `tour-step-${size}`, guide);
            await page.setViewportSize(viewport);
            await page.locator("body").press("ArrowRight");
            await guide.locator('[data-tour-stepped="true"]').waitFor();
            await done.click();
            await guide.waitFor({ state: "detached" });
            // From another page, the header's Tour comes back to the explorer and starts again.
            await page.goto(`${browser.url}/#/lessons`);
            await page.locator(".lesson-list").waitFor();
            await page.getByRole("button", { name: "Tour", exact: true }).click();
            await page.locator('[data-region="editor"][data-tour-focus]').waitFor();
            assert.ok(await onScreen(page, page.locator("[data-guided-start] .guided-text")));
            assert.deepEqual(problems, []);
            await page.close();
        });
    }

    test("a prediction counts its first guess, reveals nothing before it, and links the witness after", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const predict = page.locator('[data-exercise="predict-release-without-acquire"]');
        await predict.locator('[data-grade="pending"]').waitFor();
        await page.waitForFunction(() => !document.querySelector('[data-verdict="pending"]'), null, { timeout: 30000 });
        const untried = await predict.innerText();
        assert.doesNotMatch(untried, /checker says|race:|witness/i, "nothing says the verdict before the guess");
        assert.equal(await predict.locator(".witness-link").count(), 0);
        await predict.getByRole("button", { name: "correct", exact: true }).click();
        await predict.locator('[data-grade="not yet"]').waitFor();
        assert.match(await predict.locator(".grade-reasons").innerText(), /the checker says race/);
        assert.equal(await predict.locator("[data-first-guess]").getAttribute("data-first-guess"), "correct");
        assert.ok(await predict.getByRole("button", { name: "race", exact: true }).isDisabled(), "a second guess is not taken");
        const witness = predict.locator("a.witness-link");
        await witness.waitFor();
        assert.match(await witness.getAttribute("href"), /^#\/s\//);
        await themedShots(page, SHOTS, "predict-guessed", predict);
        // The first guess is kept: a reload shows it, still not passed.
        await reloadAtRest(page);
        const again = page.locator('[data-exercise="predict-release-without-acquire"]');
        await again.locator('[data-grade="not yet"]').waitFor({ timeout: 20000 });
        assert.equal(await again.locator("[data-first-guess]").getAttribute("data-first-guess"), "correct");
        await witness.click();
        await page.locator('[data-page="shared"]').waitFor();
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
        assert.equal(await page.locator('[data-region="verdict"] [data-verdict]').getAttribute("data-verdict"), "race");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("lesson cards name their scenario, not the Markdown line", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const cards = page.locator('[data-block="scenario"]');
        await cards.first().waitFor();
        const markdown = readFileSync(new URL("../lessons/01-executed-is-not-visible.md", import.meta.url), "utf8");
        const titles = [...markdown.matchAll(/```fence[^\n]*\n#\s*([^\n]+)/g)].map((m) => m[1].trim());
        assert.equal(await cards.count(), titles.length);
        const names = await cards.locator(".scenario-foot [data-scenario-name]").allInnerTexts();
        assert.deepEqual(names, titles);
        for (const foot of await cards.locator(".scenario-foot").allInnerTexts()) {
            assert.doesNotMatch(foot, /\bline \d+/, "no Markdown line number");
        }
        await themedShots(page, SHOTS, "lesson-card", cards.first());
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a cost rejection points to the SASS cost toggle, not the CLI", async () => {
        const lesson = readFileSync(new URL("../lessons/14-relay-warp-case-study.md", import.meta.url), "utf8");
        const exercise = lesson.slice(lesson.indexOf("id: fix-the-relay-cheaply"));
        const solution = exercise.slice(exercise.indexOf("--- solution\n") + 13, exercise.indexOf("```"));
        // Correct, but a second fence before the store pays again for the same order.
        const dearer = solution.replace("    st.shared [d], 42", "    fence.release.sync_restrict::shared::cta.cluster\n    st.shared [d], 42");
        assert.notEqual(dearer, solution);
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/relay-warp-case-study`);
        const card = page.locator('[data-exercise="fix-the-relay-cheaply"]');
        const editor = card.locator("textarea.editor-text");
        await editor.waitFor();
        await editor.fill(dearer);
        await card.locator('[data-grade="not yet"]').waitFor({ timeout: 30000 });
        const grade = await card.locator("[data-grade]").innerText();
        assert.match(grade, /this exercise allows at most 30/);
        assert.doesNotMatch(grade, /fencelab cost/, "the browser has no CLI to point to");
        const pointer = card.locator("[data-cost-pointer]");
        assert.match(await pointer.innerText(), /SASS cost/);
        assert.equal(await card.locator("[data-cost-chip]").count(), 0);
        await pointer.getByRole("button", { name: "SASS cost" }).click();
        assert.ok(await card.locator("input[data-cost-toggle]").isChecked(), "the pointer turns the toggle on");
        await card.locator(".editor-paint [data-cost-chip]").first().waitFor();
        await themedShots(page, SHOTS, "cost-rejection", card);
        assert.deepEqual(problems, []);
        await page.close();
    });
});

// Lessons as a learner meets them: the course list, a lesson's live verdicts, an exercise
// solved by editing until the grader passes it, progress that survives a reload and its
// export/import, and the instructor preview.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launch, reloadAtRest, screenshot, skipReason } from "./harness.mjs";

const skip = await skipReason();

const LESSON = "executed-is-not-visible";
const EXERCISE = "publish-the-data";

describe("lessons", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("the course lists sections and lessons in order", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons`);
        await page.locator(".lesson-list").waitFor();
        assert.ok((await page.locator(".lesson-section").count()) >= 3, "several sections");
        const titles = await page.locator(".lesson-title").allInnerTexts();
        assert.ok(titles.length >= 10, `the whole course: ${titles}`);
        assert.match(titles[0], /^1\. /);
        await screenshot(page, "lessons-list");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the lesson text renderer loads only for lessons, and its failure is named", async () => {
        const { page } = await browser.newPage();
        const fetched = [];
        page.on("request", (request) => fetched.push(request.url()));
        await page.goto(`${browser.url}/`);
        await page.locator("[data-verdict]").first().waitFor();
        assert.ok(!fetched.some((url) => url.includes("fencelab-markdown")), "the explorer does not fetch the renderer");
        await page.route("**/fencelab-markdown*", (route) => route.abort());
        await page.goto(`${browser.url}/#/lessons`);
        const alert = page.locator('[data-page="lesson"][role="alert"]');
        await alert.waitFor();
        assert.match(await alert.innerText(), /The lessons did not load[\s\S]*lesson text renderer did not load/);
        await page.close();
    });

    test("a link to another lesson's file opens that lesson", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/relay-warp-case-study`);
        const link = page.locator(".prose a", { hasText: "lesson 3" });
        assert.equal(await link.getAttribute("href"), "#/lessons/scopes");
        await link.click();
        await page.waitForURL(/#\/lessons\/scopes$/);
        await page.locator("h1", { hasText: "Scopes" }).first().waitFor();
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a lesson's scenarios are checked live and agree with their claims", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const cards = page.locator('[data-block="scenario"]');
        await cards.first().waitFor();
        await page.waitForFunction(() => !document.querySelector('[data-verdict="pending"]'), null, { timeout: 30000 });
        const verdicts = await cards.locator(".verdict-chip").allInnerTexts();
        assert.ok(verdicts.length >= 2, `verdicts: ${verdicts}`);
        assert.ok(verdicts.includes("race") && verdicts.includes("correct"), `verdicts: ${verdicts}`);
        assert.equal(await page.locator(".expectations li.bad").count(), 0, "every claim agrees");
        await screenshot(page, "lesson-page");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a learner reads a hint, edits until the exercise passes, and progress persists", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/${LESSON}`);
        const card = page.locator(`[data-exercise="${EXERCISE}"]`);
        await card.waitFor();
        // Untouched, the exercise looks neutral: nothing was tried, so nothing failed.
        await card.locator('[data-grade="pending"]').waitFor();
        await page.waitForTimeout(700);
        assert.doesNotMatch(await card.locator(".grade").innerText(), /Not yet/);

        await card.getByRole("button", { name: /Show hint 1/ }).click();
        assert.equal(await card.locator(".hint").count(), 1);
        assert.match(await card.locator(".hint").first().innerText(), /publish/);

        const editor = card.locator("textarea.editor-text");
        const start = await editor.inputValue();
        assert.ok(!start.includes("release"), "the start is not the solution");
        // First attempt: only the producer side; the grader must still refuse it.
        await editor.fill(start.replace("st.relaxed.gpu", "st.release.gpu"));
        await card.locator('[data-grade="not yet"]').waitFor();
        await card.locator('[data-grade="pending"]').waitFor({ state: "detached" }).catch(() => {});
        await page.waitForTimeout(700);
        assert.match(await card.locator(".grade").innerText(), /Not yet/);
        await screenshot(page, "exercise-failing");

        // Then the consumer side, typed into the editor.
        const text = await editor.inputValue();
        const at = text.indexOf("ld.relaxed.gpu") + "ld.".length;
        await editor.focus();
        await editor.evaluate((el, [from, to]) => el.setSelectionRange(from, to), [at, at + "relaxed".length]);
        await page.keyboard.type("acquire");
        await card.locator('[data-grade="passed"]').waitFor({ timeout: 20000 });
        await card.scrollIntoViewIfNeeded();
        await screenshot(page, "exercise-passed");

        const passedText = await editor.inputValue();
        await reloadAtRest(page);
        const again = page.locator(`[data-exercise="${EXERCISE}"]`);
        await again.locator(".badge-pass").waitFor();
        assert.equal(await again.locator("textarea.editor-text").inputValue(), passedText, "the attempt survives the reload");
        await again.locator('[data-grade="passed"]').waitFor({ timeout: 20000 });
        assert.equal(await again.locator(".hint").count(), 1, "the revealed hint stays revealed");
        // The lesson's predict exercise: the first guess counts (a wrong first guess:
        // e2e/defects.test.mjs); a right one passes and says why.
        const predict = page.locator('[data-exercise="predict-release-without-acquire"]');
        await predict.locator('[data-grade="pending"]').waitFor();
        await predict.getByRole("button", { name: "race", exact: true }).click();
        await predict.locator('[data-grade="passed"]').waitFor();
        assert.match(await predict.locator(".grade-reasons").innerText(), /the checker says race/);
        await screenshot(page, "lesson-predict-passed");
        await page.goto(`${browser.url}/#/lessons`);
        const item = page.locator(`.lesson-item[data-lesson="${LESSON}"]`);
        await item.waitFor();
        assert.match(await item.locator(".lesson-progress").innerText(), /^2\/2 exercises/);
        assert.equal(await item.locator(".lesson-mark").innerText(), "✓");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("progress exports as JSON and a bad import changes nothing", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons`);
        await page.locator(".lesson-list").waitFor();
        const [download] = await Promise.all([
            page.waitForEvent("download"),
            page.getByRole("button", { name: "Export progress" }).click(),
        ]);
        const exported = JSON.parse(await streamText(await download.createReadStream()));
        assert.equal(exported.format, "fencelab-progress");
        const before = await page.evaluate(() => localStorage.getItem("fencelab-progress"));

        const input = page.locator('.import-progress input[type="file"]');
        await input.setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"format":"other"}') });
        await page.locator(".progress-message.bad").waitFor();
        assert.match(await page.locator(".progress-message").innerText(), /nothing was imported/);
        assert.equal(await page.evaluate(() => localStorage.getItem("fencelab-progress")), before);

        const cleared = { ...exported, exercises: {} };
        await input.setInputFiles({ name: "p.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(cleared)) });
        await page.locator(".progress-message.ok").waitFor();
        const stored = JSON.parse(await page.evaluate(() => localStorage.getItem("fencelab-progress")));
        assert.deepEqual(stored.exercises, {});
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("the instructor preview renders, lists problems by line, and never runs lesson HTML", async () => {
        const { page, problems } = await browser.newPage();
        page.on("dialog", (d) => {
            problems.push(`dialog: ${d.message()}`);
            d.dismiss();
        });
        await page.goto(`${browser.url}/#/lessons/preview`);
        const text = page.locator("textarea.preview-text");
        await text.waitFor();
        const lesson = [
            "---",
            "id: hostile",
            "title: Hostile",
            "order: 1",
            "---",
            "# Preview <img src=x onerror=\"window.__pwned=1\">",
            "",
            "<script>window.__pwned = 2; alert(1)</script>",
            "",
            "```fence",
            "cta A",
            "cta B",
            "global x = 0",
            "thread p @A:",
            "    st.global [x], 1",
            "thread c @B:",
            "    ld.global r0, [x]",
            "expect correct",
            "```",
            "",
        ].join("\n");
        await text.fill(lesson);
        await page.locator(".problem-list").waitFor({ timeout: 20000 });
        const listed = await page.locator(".problem-list li").allInnerTexts();
        assert.ok(listed.some((l) => /^line 1[01]: .*disagrees/.test(l)), `problems: ${listed}`);
        assert.equal(await page.evaluate(() => window.__pwned), undefined);
        assert.equal(await page.locator(".preview-rendered img, .preview-rendered script").count(), 0);
        assert.match(await page.locator(".preview-rendered").innerText(), /<script>window.__pwned = 2/);
        await screenshot(page, "lesson-preview");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

async function streamText(stream) {
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    return Buffer.concat(chunks).toString("utf8");
}

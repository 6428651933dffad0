// Share links: copy a link from the explorer and open it elsewhere, a link to a step,
// hostile and broken links, and the embed mode.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { deflateSync, inflateSync } from "node:zlib";
import { after, before, describe, test } from "node:test";

import { launch, screenshot, skipReason } from "./harness.mjs";

const skip = await skipReason();

const editorOf = (page) => page.getByRole("textbox", { name: /Scenario source/ });

/** Copies a link with the button named `name`; returns it as read from the clipboard. */
async function copyLink(page, name) {
    await page.getByRole("button", { name, exact: true }).click();
    await page.locator(".share-status.ok").waitFor();
    const shown = await page.locator("input.share-link").inputValue();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, shown, "the clipboard holds the link the page shows");
    assert.match(copied, /#\/s\/[A-Za-z0-9_-]+$/);
    return copied;
}

/** A link whose scenario names carry markup, built from a real link's bytes. */
function hostileLink(link) {
    const [base, code] = link.split("#/s/");
    const bytes = Buffer.from(code, "base64url");
    let raw = inflateSync(bytes.subarray(2));
    const swap = (from, to) => {
        const old = Buffer.concat([Buffer.from([from.length]), Buffer.from(from)]);
        const neu = Buffer.concat([Buffer.from([Buffer.byteLength(to)]), Buffer.from(to)]);
        const parts = [];
        let at = 0;
        for (let i = raw.indexOf(old); i >= 0; i = raw.indexOf(old, at)) {
            parts.push(raw.subarray(at, i), neu);
            at = i + old.length;
        }
        assert.ok(parts.length > 0, `the scenario names ${from}`);
        parts.push(raw.subarray(at));
        raw = Buffer.concat(parts);
    };
    swap("producer", '<img src=x onerror="window.__pwned=1">');
    swap("consumer", "<script>window.__pwned=2</script>");
    const body = Buffer.concat([bytes.subarray(0, 2), deflateSync(raw)]);
    return `${base}#/s/${body.toString("base64url")}`;
}

describe("share links", { skip: skip ?? false }, () => {
    let browser;
    let link;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("a copied link opens the same scenario, and a step link the same step", async () => {
        const { page, problems } = await browser.newPage();
        await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: browser.url });
        await page.goto(`${browser.url}/#/explore`);
        await editorOf(page).waitFor();
        const original = await editorOf(page).inputValue();
        link = await copyLink(page, "Copy link");
        await screenshot(page, "share-copied");

        const { page: second, problems: secondProblems } = await browser.newPage();
        await second.goto(link);
        await second.locator('[data-page="shared"]').waitFor();
        const restored = await editorOf(second).inputValue();
        // The link carries the checked model, so the text comes back in canonical form
        // (no comments, default modifiers spelled out): one line per program line.
        const lines = (text) => text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
        assert.equal(lines(restored).length, lines(original).length);
        assert.equal(await second.locator(".link-error").count(), 0);
        // The same scenario encodes to the same link: share the restored text from page one.
        await editorOf(page).fill(restored);
        assert.equal(await copyLink(page, "Copy link"), link, "the restored scenario is the original one");

        await second.getByRole("button", { name: "Step forward" }).click();
        await second.getByRole("button", { name: "Step forward" }).click();
        const stepLink = await copyLink(second, "Copy link to this step");
        const { page: third, problems: thirdProblems } = await browser.newPage();
        await third.goto(stepLink);
        await third.locator('[data-page="shared"]').waitFor();
        assert.equal(await editorOf(third).inputValue(), restored, "the same text again");
        const stepInput = third.getByRole("spinbutton", { name: "Jump to step" });
        await third.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "2");
        assert.equal(await stepInput.inputValue(), "2");
        await screenshot(third, "share-step-opened");
        assert.deepEqual([...problems, ...secondProblems, ...thirdProblems], []);
        for (const p of [page, second, third]) await p.close();
    });

    test("a link naming a finding opens on its witness once the verdict arrives", async () => {
        const code = readFileSync(new URL("../tests/links/v1/finding-witness.link", import.meta.url), "utf8").trim();
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/s/${code}`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
        const stepInput = page.getByLabel("Jump to step");
        await page.waitForFunction(() => document.querySelector('input[aria-label="Jump to step"]')?.value === "4");
        assert.equal(await stepInput.inputValue(), "4", "at the end of the 4-step witness");
        // The frozen program ends the relay right after its arrive, so the peer's read of its
        // shared memory is undefined (ref §10 #35) before it is a race: one access, the read.
        const marks = page.locator('[data-region="lanes"] .access-mark');
        assert.equal(await marks.count(), 1, "the undefined read is marked");
        assert.match(await marks.first().innerText(), /read of/);
        await screenshot(page, "share-finding-opened");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a link naming a finding the checker does not report says so", async () => {
        const code = readFileSync(new URL("../tests/links/v1/handoff-with-view.link", import.meta.url), "utf8").trim();
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/s/${code}`);
        await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
        const error = page.locator('[data-region="lanes"] .step-error');
        await error.waitFor();
        assert.match(await error.innerText(), /finding 1 of this scenario, but the checker reports none/);
        assert.equal(await page.getByLabel("Jump to step").inputValue(), "0");
        assert.deepEqual(problems, []);
        await page.close();
    });

    test("a link with markup in its names shows it as text and runs nothing", async () => {
        assert.ok(link, "the copy test made a link");
        const { page, problems } = await browser.newPage();
        page.on("dialog", (d) => {
            problems.push(`dialog: ${d.message()}`);
            d.dismiss();
        });
        await page.goto(hostileLink(link));
        await page.locator('[data-page="shared"]').waitFor();
        const text = await editorOf(page).inputValue();
        assert.ok(text.includes('thread <img src=x onerror="window.__pwned=1">'), text);
        assert.ok(text.includes("<script>window.__pwned=2</script>"), text);
        await page.waitForTimeout(500);
        assert.equal(await page.evaluate(() => window.__pwned), undefined);
        assert.equal(await page.locator("main img, main script").count(), 0);
        await screenshot(page, "share-hostile");
        // The printed names do not parse: the editor says so, which is expected here.
        assert.deepEqual(problems.filter((p) => !p.startsWith("console")), []);
        await page.close();
    });

    const broken = [
        { name: "truncated", code: () => link.split("#/s/")[1].slice(0, 24), message: /incomplete|damaged/ },
        { name: "newer version", code: () => Buffer.from([0x7c, 9, 1, 2]).toString("base64url"), message: /newer fencelab \(format 9\)/ },
        { name: "not base64", code: () => "v1.example", message: /contains '\.' at character 3/ },
        { name: "too large", code: () => "A".repeat(70000), message: /too long/ },
        { name: "markup", code: () => "%3Cimg%20src=x%20onerror=alert(1)%3E", message: /no fencelab link contains|not a fencelab/ },
    ];
    for (const bad of broken) {
        test(`a ${bad.name} link shows a clear message and an empty explorer`, async () => {
            const { page, problems } = await browser.newPage();
            page.on("dialog", (d) => {
                problems.push(`dialog: ${d.message()}`);
                d.dismiss();
            });
            await page.goto(`${browser.url}/#/s/${bad.code()}`);
            await page.locator(".link-error").waitFor();
            assert.match(await page.locator(".link-error-message").innerText(), bad.message);
            assert.equal(await editorOf(page).inputValue(), "");
            assert.equal(await page.locator("main img").count(), 0);
            if (bad.name === "truncated") await screenshot(page, "share-broken");
            assert.deepEqual(problems, []);
            await page.close();
        });
    }

    test("embed mode shows the scenario, stepper and verdict with a link out", async () => {
        assert.ok(link, "the copy test made a link");
        const { page, problems } = await browser.newPage();
        const code = link.split("#/s/")[1];
        await page.goto(`${browser.url}/?embed#/s/${code}`);
        await page.locator('[data-page="embed"]').waitFor();
        assert.equal(await page.locator("header.site-header").count(), 0, "no site chrome");
        assert.equal(await page.locator('[data-region="editor"]').count(), 0, "no editor");
        assert.equal(await page.locator('[data-region="verdict"]').count(), 1);
        // The stepper comes from the lanes' chunk, just after the page.
        await page.getByRole("button", { name: "Step forward" }).waitFor();
        assert.equal(await page.getByRole("button", { name: "Step forward" }).count(), 1);
        const out = await page.locator("a.embed-out").getAttribute("href");
        assert.equal(out, `${browser.url}/#/s/${code}`);
        await page.setViewportSize({ width: 900, height: 600 });
        await screenshot(page, "share-embed");
        assert.deepEqual(problems, []);
        await page.close();
    });
});

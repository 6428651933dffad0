// An outcome the PTX axioms allow but no interleaving reaches (load buffering) is a row of
// the outcome table whose button opens the execution graph, drawn by the axiomatic engine
// in a chunk of its own, with an SVG export; lesson 2's load-buffering card links it too.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launch, openExplorer, screenshotDir, setSource, skipReason, themedShots } from "./harness.mjs";

const skip = await skipReason();

const LB = `# Load buffering with relaxed accesses
cta A
global x = 0
global y = 0

thread left @A:
    ld.relaxed.gpu.global r0, [x]
    st.relaxed.gpu.global [y], 1

thread right @A:
    ld.relaxed.gpu.global r1, [y]
    st.relaxed.gpu.global [x], 1

exists (left:r0 == 1 && right:r1 == 1)
`;

describe("execution graph of an unreached outcome", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launch();
    });
    after(async () => {
        await browser?.close();
    });

    test("load buffering's row opens its graph, whose rf edges run to earlier loads, and exports it", async () => {
        const { page, problems } = await openExplorer(browser);
        assert.equal(await page.locator("[data-execution-graph]").count(), 0, "no graph before one is asked for");
        await setSource(page, LB);
        const verdict = page.locator('[data-region="verdict"]');
        assert.match(await verdict.locator(".expectations").innerText(), /✓ exists \(left:r0 == 1 \/\\ right:r1 == 1\): allowed \(no interleaving reaches it\)/);
        const row = verdict.locator("table.outcomes tr[data-unreached]");
        assert.equal(await row.count(), 1, "one unreached row");
        assert.match(await row.innerText(), /^1\s+1\s+unreached: graph$/);
        await row.getByRole("button", { name: "unreached: graph" }).click();
        const graph = page.locator('[data-execution-graph="shown"]');
        await graph.waitFor();
        assert.match(await graph.locator("h3").innerText(), /left:r0=1 right:r1=1/);
        const svg = graph.locator(".execution-graph-figure svg");
        assert.equal(await svg.locator("path.rf").count(), 2, "both reads from the other thread's store");
        assert.equal(await svg.locator("path.po").count(), 2);
        const labels = await svg.locator("text").allTextContents();
        for (const label of ["R x=1 rlx", "R y=1 rlx", "W x=1 rlx", "W y=1 rlx", "left", "right"]) {
            assert.ok(labels.includes(label), `${label} in ${labels}`);
        }
        const [download] = await Promise.all([page.waitForEvent("download"), graph.getByRole("button", { name: "Export SVG" }).click()]);
        assert.equal(download.suggestedFilename(), "fencelab-execution-graph.svg");
        const exported = readFileSync(await download.path(), "utf8");
        assert.ok(exported.startsWith("<svg") && exported.endsWith("</svg>"), exported.slice(0, 80));
        assert.equal(exported.match(/class="rf"/g)?.length, 2);
        await themedShots(page, join(screenshotDir, "execution-graph"), "explorer", graph);
        await graph.getByRole("button", { name: "Close" }).click();
        await page.locator("[data-execution-graph]").waitFor({ state: "detached" });
        assert.deepEqual(problems, []);
    });

    test("a race only load buffering reaches is a finding whose button opens the racy execution", async () => {
        const { page, problems } = await openExplorer(browser);
        const guarded = LB.replace("global y = 0\n", "global y = 0\nglobal z = 0\n")
            .replace("st.relaxed.gpu.global [y], 1\n", "st.relaxed.gpu.global [y], 1\n    @r0 st.global [z], 1\n")
            .replace("st.relaxed.gpu.global [x], 1\n", "st.relaxed.gpu.global [x], 1\n    @r1 st.global [z], 2\n");
        assert.equal(await setSource(page, guarded), "race");
        const finding = page.locator('[data-region="verdict"] .finding');
        assert.equal(await finding.count(), 1);
        assert.match(await finding.locator(".finding-message").innerText(), /data race on z in an execution no interleaving performs/);
        assert.equal(await finding.getByRole("button", { name: "Show me" }).count(), 0, "no witness to replay");
        await finding.getByRole("button", { name: "Execution graph" }).click();
        const graph = finding.locator('[data-execution-graph="shown"]');
        await graph.waitFor();
        assert.equal(await graph.locator("svg path.race").count(), 1, "the two weak stores race");
        assert.equal(await graph.locator("svg path.rf").count(), 2);
        await themedShots(page, join(screenshotDir, "execution-graph"), "race", finding);
        assert.deepEqual(problems, []);
    });

    test("lesson 2's load-buffering card says the outcome is allowed and opens its graph", async () => {
        const { page, problems } = await browser.newPage();
        await page.goto(`${browser.url}/#/lessons/release-acquire`);
        const card = page.getByRole("figure", { name: /^Load buffering: each relaxed load/ });
        await card.locator(".expectations.all-ok").waitFor();
        assert.match(await card.locator(".expectations").innerText(), /allowed \(no interleaving reaches it\)/);
        const unreached = card.locator("[data-card-unreached]");
        assert.match(await unreached.innerText(), /left:r0=1 right:r1=1/);
        await unreached.getByRole("button", { name: "unreached: graph" }).click();
        const graph = card.locator('[data-execution-graph="shown"]');
        await graph.waitFor();
        assert.equal(await graph.locator("svg path.rf").count(), 2);
        await themedShots(page, join(screenshotDir, "execution-graph"), "lesson", card);
        const forbidden = page.getByRole("figure", { name: /^Load buffering with release stores/ });
        await forbidden.locator(".expectations.all-ok").waitFor();
        assert.equal(await forbidden.locator("[data-card-unreached]").count(), 0, "release/acquire forbids it");
        assert.deepEqual(problems, []);
    });
});

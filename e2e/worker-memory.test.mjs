// Issue 49: the explorer's checks run in its worker under a memory cap that holds. A big
// search (six threads of twelve relaxed accesses) stops at the cap with "partial", says
// what it explored, and the page answers a click while it searches; the wasm memory of
// the build that answered stays within 10% of the cap.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { launchForIsolatedPages, skipReason } from "./harness.mjs";
import { checkBig, openCapped, relaxedThreads, untilEngineAnswers } from "./worker-memory.mjs";

const skip = await skipReason();
/** Small enough that the search reaches it in seconds. */
const CAP_MIB = 96;
/** The state cap, raised so that the memory cap is what stops the search (the default
 * 200,000 states hold about 60 MiB in wasm32). */
const MAX_STATES = 2_000_000;

describe("the worker's memory cap", { skip: skip ?? false }, () => {
    let browser;
    before(async () => {
        browser = await launchForIsolatedPages();
    });
    after(async () => {
        await browser?.close();
    });

    for (const build of ["engine", "worker"]) {
        test(`a big search answered by the ${build} stops at the cap, partial, with the page responsive`, async () => {
            const { page, problems, context } = await browser.newIsolatedPage();
            await openCapped(page, browser.url, CAP_MIB, MAX_STATES);
            // The engine loads after the first checks; before it, the app's own wasm answers.
            if (build === "engine") assert.equal(await untilEngineAnswers(page), "engine");
            const run = await checkBig(page, relaxedThreads(6, 12), {
                // While it searches, the learner steps the new scenario: the page answers.
                meanwhile: async (p) => {
                    const running = await p.locator('[data-region="verdict"]').getAttribute("data-state");
                    await p.getByRole("button", { name: "Step forward" }).click();
                    const step = await p.getByLabel("Jump to step").inputValue();
                    const still = await p.locator('[data-region="verdict"]').getAttribute("data-state");
                    return { running, step, still };
                },
            });
            // For the record (benches/results/2026-12-05-worker-memory.md).
            console.log(`worker-memory ${build}: ${JSON.stringify({ ...run, partial: run.partial?.split(":")[0] })}`);
            assert.equal(run.answeredBy, build);
            assert.deepEqual(run.during, { running: "running", step: "1", still: "running" }, "a step was taken while the check ran");
            assert.equal(run.verdict, "partial");
            assert.match(run.partial, /^Partial\. Explored [\d,]+ states and [\d,]+ transitions, then stopped: the memory cap \(96 MiB of the worker's memory\) was reached/);
            assert.equal(run.capBytes, CAP_MIB * 2 ** 20);
            // The cap held: the answering wasm's memory (which never shrinks) is within 10%
            // of it, and the search did fill most of it.
            assert.ok(run.memoryAfter <= 1.1 * run.capBytes, `the ${build}'s memory: ${run.memoryAfter} bytes under a cap of ${run.capBytes}`);
            assert.ok(run.memoryAfter >= 0.5 * run.capBytes, `the search filled the memory: ${run.memoryAfter} bytes`);
            assert.deepEqual(problems, []);
            await context.close();
        });
    }
});

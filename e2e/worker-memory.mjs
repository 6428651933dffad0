// Issue 49: how much wasm memory the explorer's worker holds when a big search stops at
// its memory cap. Shared by e2e/worker-memory.test.mjs and, run as a script, prints one
// JSON line per cap (benches/results/2026-12-05-worker-memory.md):
//
//   node e2e/worker-memory.mjs [CAP_MIB...]      (needs dist/, `make build`)
import { launchForIsolatedPages, requestNumber } from "./harness.mjs";

/** `threads` threads of one CTA, each making `accesses` relaxed loads and stores over
 * three shared locations: tests/support/relaxed_threads.rs, which outgrows any cap. */
export function relaxedThreads(threads, accesses) {
    let s = "cta A\nshared x0 @A = 0\nshared x1 @A = 0\nshared x2 @A = 0\n";
    for (let t = 0; t < threads; t++) {
        s += `thread t${t} @A:\n`;
        for (let i = 0; i < accesses; i++) {
            const loc = (t + i) % 3;
            s += i % 2 === 0 ? `    st.relaxed.cta.shared [x${loc}], ${i + 1}\n` : `    ld.relaxed.cta.shared r${i}, [x${loc}]\n`;
        }
    }
    return s + "expect race\n";
}

/** Opens the explorer in `context`'s page with the checks capped at `capMib` (and, when
 * given, `maxStates`), through the caps' localStorage keys (components/src/search_caps.rs). */
export async function openCapped(page, url, capMib, maxStates) {
    await page.addInitScript(([mib, states]) => {
        localStorage.setItem("fencelab.max-memory-mib", String(mib));
        if (states) localStorage.setItem("fencelab.max-states", String(states));
    }, [capMib, maxStates ?? 0]);
    await page.goto(`${url}/#/explore`);
    await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
}

/** Checks small templates until the speed-built engine answers (it loads a second after
 * the worker is ready, then warms up), so the big check that follows is the engine's. */
export async function untilEngineAnswers(page) {
    // Each load a different template from the one before it: the menu loads on a change.
    for (const id of Array(4).fill(["mp-release-acquire", "mp-relaxed", "tma-load", "gpu-flag"]).flat()) {
        const before = await requestNumber(page);
        await page.getByLabel("New scenario from a template").selectOption(id);
        await page.waitForFunction((prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return el?.dataset.state === "done" && Number(el.dataset.request) > prev;
        }, before);
        if ((await page.locator('[data-region="verdict"]').getAttribute("data-worker-answered-by")) === "engine") return "engine";
        await page.waitForTimeout(700);
    }
    return "worker";
}

/** Types `text` and waits (up to `timeoutMs`) for its verdict; returns the verdict
 * panel's word, memory figures and partial note. `meanwhile(page)` runs while it checks. */
export async function checkBig(page, text, { timeoutMs = 120000, meanwhile } = {}) {
    const before = await requestNumber(page);
    await page.getByRole("textbox", { name: /Scenario source/ }).fill(text);
    let during = null;
    if (meanwhile) {
        await page.waitForFunction((prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return Number(el?.dataset.request) > prev;
        }, before);
        during = await meanwhile(page);
    }
    await page.waitForFunction(
        (prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return el?.dataset.state === "done" && Number(el.dataset.request) > prev;
        },
        before,
        { timeout: timeoutMs },
    );
    const panel = page.locator('[data-region="verdict"]');
    const attr = async (name) => await panel.getAttribute(name);
    return {
        verdict: await panel.locator("[data-verdict]").first().getAttribute("data-verdict"),
        answeredBy: await attr("data-worker-answered-by"),
        checkMs: Number(await attr("data-worker-check-ms")),
        capBytes: Number(await attr("data-memory-cap")),
        memoryBefore: Number(await attr("data-worker-memory-before")),
        memoryAfter: Number(await attr("data-worker-memory")),
        partial: (await panel.locator("[data-partial]").count()) > 0 ? await panel.locator("[data-partial]").innerText() : null,
        during,
    };
}

if (import.meta.url === `file://${process.argv[1]}`) {
    const caps = process.argv.slice(2).map(Number);
    const browser = await launchForIsolatedPages();
    try {
        for (const capMib of caps.length ? caps : [64, 128, 256, 512]) {
            const { page, context } = await browser.newIsolatedPage();
            await openCapped(page, browser.url, capMib, 5_000_000);
            const answeredBy = await untilEngineAnswers(page);
            const run = await checkBig(page, relaxedThreads(6, 12), { timeoutMs: 590000 });
            const states = Number((run.partial ?? "").match(/Explored ([\d,]+) states/)?.[1].replace(/,/g, "") ?? NaN);
            const mib = (b) => Math.round((b / 2 ** 20) * 10) / 10;
            console.log(JSON.stringify({
                scenario: "relaxed_threads(6, 12)", cap_mib: capMib, answered_by: run.answeredBy ?? answeredBy, verdict: run.verdict, states,
                memory_before_mib: mib(run.memoryBefore), memory_after_mib: mib(run.memoryAfter),
                memory_over_cap: Math.round((run.memoryAfter / run.capBytes) * 1000) / 1000, check_ms: Math.round(run.checkMs),
                memory_cap_stopped: /memory cap/.test(run.partial ?? ""),
            }));
            await context.close();
        }
    } finally {
        await browser.close();
    }
}

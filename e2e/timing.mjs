// Edit → verdict latency per template, in the built app (not a test: it prints numbers).
// Usage: node e2e/timing.mjs [edits per template, default 7]
// Each edit appends a comment line; the clock runs from the edit until the verdict panel
// shows the answer to it (debounce + worker round trip + check + render).
import { launch, skipReason } from "./harness.mjs";

const edits = Number(process.argv[2] ?? 7);
const skip = await skipReason();
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}

const browser = await launch();
const { page, problems } = await browser.newPage();
await page.goto(`${browser.url}/#/explore`);
await page.locator('[data-region="verdict"][data-state="done"]').waitFor({ timeout: 30000 });
const ids = await page.$$eval('select[aria-label="New scenario from a template"] option', (os) =>
    os.map((o) => o.value).filter(Boolean),
);
const text = page.getByRole("textbox", { name: /Scenario source/ });

async function settle(previous) {
    await page.waitForFunction(
        (prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return el && el.dataset.state !== "running" && Number(el.dataset.request || 0) > prev;
        },
        previous,
        { timeout: 60000, polling: 5 },
    );
}

const request = async () => Number((await page.locator('[data-region="verdict"]').getAttribute("data-request")) || 0);
const rows = [];
for (const id of ids) {
    let before = await request();
    await page.getByLabel("New scenario from a template").selectOption(id);
    await settle(before);
    const state = await page.locator('[data-region="verdict"]').getAttribute("data-state");
    const times = [];
    for (let i = 0; i < edits; i++) {
        before = await request();
        const source = await text.inputValue();
        const start = performance.now();
        await text.fill(`${source}\n# timing edit ${i}`);
        await settle(before);
        times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const verdict = await page.locator("[data-verdict]").getAttribute("data-verdict").catch(() => null);
    rows.push({ id, result: verdict ?? state, median: times[Math.floor(times.length / 2)], worst: times.at(-1) });
}
console.log(`edit → verdict latency, ${edits} edits per template (includes the 250 ms debounce)`);
console.log("template".padEnd(22), "result".padEnd(10), "median ms".padStart(10), "worst ms".padStart(10));
for (const r of rows) {
    console.log(r.id.padEnd(22), String(r.result).padEnd(10), r.median.toFixed(0).padStart(10), r.worst.toFixed(0).padStart(10));
}
if (problems.length) console.log("page problems:", problems);
await browser.close();

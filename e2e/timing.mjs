// Edit → verdict latency per template, in the built app (not a test: it prints numbers).
// Usage: node e2e/timing.mjs [edits per template, default 9]
//
// Each edit is one keystroke, a typist's pause (150 ms) after the previous verdict: a digit
// typed at the end of an unused location's initial value (`global timing_probe = 11…`), so
// the scenario changes and is checked again (a comment edit leaves the scenario as it
// was, and the page keeps the verdict it has, with no check at all). Every time comes from the page's own clock: the input event's
// timeStamp, the stamps the verdict panel exposes (request posted, reply received, first
// frame after the verdict rendered, the worker's own decode and check times) and the
// User Timing measures the app records (fencelab:parse, :tape, :request, :decode-reply).
// Node only waits; its polling delay is in none of the numbers.
import { launch, skipReason } from "./harness.mjs";
import { median } from "./speed-support.mjs";

const edits = Number(process.argv[2] ?? 9);
const PAUSE_MS = 150;
const skip = await skipReason();
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}

const browser = await launch();
const { page, problems } = await browser.newPage();
await page.goto(`${browser.url}/#/explore`);
await page.locator('[data-region="verdict"][data-shown-at]').waitFor({ timeout: 30000 });
const ids = await page.$$eval('select[aria-label="New scenario from a template"] option', (os) =>
    os.map((o) => o.value).filter(Boolean),
);
const text = page.getByRole("textbox", { name: /Scenario source/ });

const timedRequest = async () =>
    Number((await page.locator('[data-region="verdict"]').getAttribute("data-timed-request")) || 0);

/** Waits (in the page, once per frame) for the verdict of a request newer than `previous` to be on screen. */
async function shown(previous) {
    await page.waitForFunction(
        (prev) => {
            const el = document.querySelector('[data-region="verdict"]');
            return Number(el?.dataset.timedRequest || 0) > prev && el.dataset.shownAt !== undefined;
        },
        previous,
        { timeout: 60000, polling: "raf" },
    );
}

/** One timed edit: returns the stages in ms. */
async function timedEdit(i) {
    const previous = await timedRequest();
    await page.evaluate(() => {
        window.__editAt = undefined;
        const area = document.querySelector("textarea.editor-text");
        area.addEventListener("input", (ev) => (window.__editAt = ev.timeStamp), { capture: true, once: true });
    });
    // One keystroke at the end of the probe line: its value gets one more digit.
    await text.focus();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("1");
    await shown(previous);
    return page.evaluate(() => {
        const d = document.querySelector('[data-region="verdict"]').dataset;
        const editAt = window.__editAt;
        const measure = (name) => {
            const m = performance.getEntriesByName(name, "measure").at(-1);
            return m && m.startTime >= editAt ? m.duration : 0;
        };
        const [posted, reply, shownAt] = [d.postedAt, d.replyAt, d.shownAt].map(Number);
        return {
            total: shownAt - editAt,
            inputDelay: (performance.getEntriesByName("fencelab:edit", "measure").at(-1)?.startTime ?? editAt) - editAt,
            handler: measure("fencelab:edit"),
            editToPost: posted - editAt,
            parse: measure("fencelab:parse"),
            tape: measure("fencelab:tape"),
            request: measure("fencelab:request"),
            roundTrip: reply - posted,
            workerDecode: Number(d.workerDecodeMs),
            workerCheck: Number(d.workerCheckMs),
            replyToShown: shownAt - reply,
            decodeReply: measure("fencelab:decode-reply"),
        };
    });
}

const rows = [];
for (const id of ids) {
    const previous = await timedRequest();
    await page.getByLabel("New scenario from a template").selectOption(id);
    await shown(previous);
    const withProbe = await timedRequest();
    await text.fill(`${await text.inputValue()}\nglobal timing_probe = 1`);
    await shown(withProbe);
    const samples = [];
    for (let i = 0; i < edits; i++) {
        await page.waitForTimeout(PAUSE_MS);
        samples.push(await timedEdit(i));
    }
    const result = await page.locator("[data-verdict]").getAttribute("data-verdict").catch(() => "?");
    const pick = (key) => samples.map((s) => s[key]);
    rows.push({
        id,
        result,
        median: median(pick("total")),
        worst: Math.max(...pick("total")),
        ...Object.fromEntries(
            ["inputDelay", "handler", "editToPost", "parse", "tape", "request", "roundTrip", "workerDecode", "workerCheck", "replyToShown", "decodeReply"].map(
                (k) => [k, median(pick(k))],
            ),
        ),
    });
}

const f = (x, w = 7) => x.toFixed(1).padStart(w);
console.log(`edit → verdict on screen, ${edits} edits per template, ms (breakdown columns are medians)`);
console.log(
    "template".padEnd(20),
    "result".padEnd(9),
    "median".padStart(7),
    "worst".padStart(7),
    "│",
    "input".padStart(7),
    "handler".padStart(7),
    "→post".padStart(7),
    "parse".padStart(7),
    "tape".padStart(7),
    "request".padStart(7),
    "│",
    "worker".padStart(7),
    "decode".padStart(7),
    "check".padStart(7),
    "│",
    "→shown".padStart(7),
    "decode".padStart(7),
);
for (const r of rows) {
    console.log(
        r.id.padEnd(20),
        String(r.result).padEnd(9),
        f(r.median),
        f(r.worst),
        "│",
        f(r.inputDelay),
        f(r.handler),
        f(r.editToPost),
        f(r.parse),
        f(r.tape),
        f(r.request),
        "│",
        f(r.roundTrip),
        f(r.workerDecode),
        f(r.workerCheck),
        "│",
        f(r.replyToShown),
        f(r.decodeReply),
    );
}
console.log(
    "input: the input event's timeStamp to the app's handler; handler: the app's input handler (parse and post included).\n" +
        "→post: input event to request posted (parse, request = clone + postcard + postMessage; tape runs after posting).\n" +
        "worker: posted to reply received: decode + check by the worker's clock; the rest is encoding, messaging and the main thread finishing the edit's own rendering.\n" +
        "→shown: reply received to the first animation frame after the verdict rendered (decode = reply postcard).",
);
if (problems.length) console.log("page problems:", problems);
await browser.close();

// The fix search's speed in the browser's fix worker (wasm) beside the native CLI, on every
// reference bug scenario with a fixed twin (not a test: it prints numbers). Issue 17 asks
// for at most 1 s per lesson-size scenario in the browser.
// Usage: node e2e/fix-timing.mjs [FILE...]
// Needs a release dist/ (trunk build --release) and the release CLI (cargo build --release).
//
// The pairs are found as tests/fix_twins.rs finds them (`bugNN_*` beside a `bugNN_fixed*`
// that some expect line calls correct), and the ones its OUT_OF_REACH list names are
// skipped (read from that file, so the two lists cannot drift). Each is searched in strict
// mode when a twin is correct there, else in pragmatic mode, with the default limits.
// Browser: the scenario is pasted into the explorer, the checker's mode set, "Fix it"
// pressed; the time is the worker's own search time (`data-fix-ms`, the speed-built
// engine's), and beside it the page's wall time from the click to the answer on screen
// (the panel keeps its worker, so only the first search's wall time holds the worker's
// start and the engine's fetch).
// Native: the wall time of `fencelab fix FILE --json --mode M` (process start included).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launch, requestNumber, skipReason, verdictAfter } from "./harness.mjs";
import { median } from "./speed-support.mjs";

const cli = "target/release/fencelab";
const skip = (await skipReason()) ?? (existsSync(cli) ? null : `${cli} is missing (cargo build --release)`);
if (skip) {
    console.error(`cannot time: ${skip}`);
    process.exit(2);
}

/** Modes an expect line of `src` calls it correct in. */
function correctModes(src) {
    const modes = new Set();
    for (const m of src.matchAll(/^expect\s+(?:(strict|pragmatic)\s+)?correct\b/gm)) {
        if (m[1]) modes.add(m[1]);
        else ["strict", "pragmatic"].forEach((x) => modes.add(x));
    }
    return modes;
}

// The list is gone once every pair is in reach.
const outOfReach = new Set(
    [...(readFileSync("tests/fix_twins.rs", "utf8").split("const OUT_OF_REACH")[1] ?? "").split("];")[0].matchAll(/\("([^"]+\.fence)"/g)].map((m) => m[1]),
);

/** `{ file, mode }` per bug with a fixed twin, out-of-reach ones left out. */
function pairs() {
    const out = [];
    for (const dir of ["async", "checker"]) {
        const names = readdirSync(join("tests/scenarios", dir)).filter((n) => n.startsWith("bug") && n.endsWith(".fence")).sort();
        for (const name of names) {
            const [number, rest] = [name.split("_")[0], name.slice(name.indexOf("_") + 1)];
            if (rest.startsWith("fixed") || outOfReach.has(`${dir}/${name}`)) continue;
            const read = (n) => readFileSync(join("tests/scenarios", dir, n), "utf8");
            const twins = names.filter((n) => n.startsWith(`${number}_fixed`)).map((n) => correctModes(read(n))).filter((m) => m.size > 0);
            if (twins.length === 0 || correctModes(read(name)).size > 0) continue;
            out.push({ file: join("tests/scenarios", dir, name), mode: twins.some((m) => m.has("strict")) ? "strict" : "pragmatic" });
        }
    }
    return out;
}

function native({ file, mode }) {
    const started = performance.now();
    let out;
    try {
        out = execFileSync(cli, ["fix", file, "--json", "--mode", mode], { encoding: "utf8", maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] });
    } catch (e) {
        out = e.stdout; // exit 1: no fix found; the JSON is still printed
    }
    const ms = performance.now() - started;
    const json = JSON.parse(out);
    return { ms, checks: json.checks, fixes: (json.fixes ?? json.cheaper ?? []).length, verdict: json.verdict };
}

const browser = await launch();
const { page } = await browser.newPage();
await page.goto(`${browser.url}/#/explore`);
await verdictAfter(page, 0);
const text = page.getByRole("textbox", { name: /Scenario source/ });

async function wasm({ file, mode }) {
    const modeButton = page.getByRole("button", { name: mode === "strict" ? "Strict" : "Pragmatic", exact: true });
    if ((await modeButton.getAttribute("aria-pressed")) !== "true") {
        const before = await requestNumber(page);
        await modeButton.click();
        await verdictAfter(page, before);
    }
    const before = await requestNumber(page);
    await text.fill(readFileSync(file, "utf8"));
    const verdict = await verdictAfter(page, before);
    const start = page.locator("[data-fix-start]");
    if ((await start.count()) === 0) return { verdict, note: "no search offered" };
    const wall = await page.evaluate(async () => {
        const t0 = performance.now();
        document.querySelector("[data-fix-start]").click();
        await new Promise((resolve) => {
            const poll = () => {
                const state = document.querySelector("[data-fix-panel]")?.dataset.fixState;
                if (state === "done" || state === "failed") resolve();
                else requestAnimationFrame(poll);
            };
            poll();
        });
        return performance.now() - t0;
    });
    const panel = page.locator("[data-fix-panel]");
    if ((await panel.getAttribute("data-fix-state")) === "failed") return { verdict, note: (await panel.innerText()).slice(0, 60) };
    return { verdict, ms: Number(await panel.getAttribute("data-fix-ms")), wall, fixes: await panel.locator("[data-fix]").count() };
}

const files = process.argv.slice(2);
const list = files.length ? files.map((file) => ({ file, mode: "strict" })) : pairs();
console.log(`fix search per bug scenario with a fixed twin (${outOfReach.size} out of reach skipped), ms`);
console.log("scenario".padEnd(52), "mode".padEnd(9), "checks".padStart(6), "fixes".padStart(5), "native".padStart(8), "worker".padStart(8), "page".padStart(8), "ratio".padStart(6), " ≤1s");
const rows = [];
for (const item of list) {
    const n = native(item);
    const w = await wasm(item);
    const name = item.file.replace("tests/scenarios/", "");
    if (w.note) {
        console.log(name.padEnd(52), item.mode.padEnd(9), String(n.checks).padStart(6), String(n.fixes).padStart(5), n.ms.toFixed(0).padStart(8), `  ${w.verdict}: ${w.note}`);
        continue;
    }
    rows.push({ n, w });
    const fixes = n.fixes === w.fixes ? String(n.fixes) : `${n.fixes}/${w.fixes}`;
    console.log(
        name.padEnd(52), item.mode.padEnd(9), String(n.checks).padStart(6), fixes.padStart(5), n.ms.toFixed(0).padStart(8),
        w.ms.toFixed(0).padStart(8), w.wall.toFixed(0).padStart(8), (w.ms / n.ms).toFixed(2).padStart(6), w.ms <= 1000 ? "  yes" : "  NO",
    );
}
const within = rows.filter((r) => r.w.ms <= 1000).length;
console.log(
    `\n${rows.length} searched in the browser: median worker ${median(rows.map((r) => r.w.ms)).toFixed(0)} ms, ` +
        `max ${Math.max(...rows.map((r) => r.w.ms)).toFixed(0)} ms, median native ${median(rows.map((r) => r.n.ms)).toFixed(0)} ms; ` +
        `${within} of ${rows.length} within 1 s`,
);
await browser.close();

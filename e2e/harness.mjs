// Shared setup for the browser tests: serve dist/, drive the system Chromium through
// playwright-core, and record everything that should never happen on a page.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { startServer } from "./server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, "..");
// FENCELAB_DIST points the timing scripts at another build (e.g. to compare two).
export const distDir = process.env.FENCELAB_DIST ?? join(repoRoot, "dist");
export const screenshotDir = join(here, "screenshots");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or `null` when they can. */
export async function skipReason() {
    if (!existsSync(join(distDir, "index.html"))) return "no dist/: run `trunk build --release` first";
    if (!existsSync(CHROMIUM)) return `no browser at ${CHROMIUM}: run scripts/install.sh`;
    try {
        await import("playwright-core");
    } catch {
        return "playwright-core is not installed: run `npm ci`";
    }
    return null;
}

// FENCELAB_EXTRA_ARGS: more browser switches for an experiment, space-separated
// (e.g. `--js-flags=--no-wasm-lazy-compilation`,
// benches/results/2026-11-25-loading-rounds.md, "Chunk packs").
const CHROMIUM_ARGS = [
    ...(process.env.FENCELAB_EXTRA_ARGS ? process.env.FENCELAB_EXTRA_ARGS.split(" ") : []),
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    // Chromium 156 loads its omnibox popup (a WebUI page of its own renderer) for every
    // new window, which each isolated page's context is: about 0.5 s of main-thread and
    // 0.25 s of worker CPU in the first 800 ms, on a core the page under test needed
    // (benches/results/2026-11-25-loading-rounds.md, twenty-third session).
    // A visitor's page opens in a window whose omnibox is long loaded.
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
];
const VIEWPORT = { width: 1280, height: 900 };

/** `page` with `problems`: console errors/warnings, page errors and failed requests. */
function watched(page) {
    const problems = [];
    page.on("console", (msg) => {
        if (msg.type() === "error" || msg.type() === "warning") {
            problems.push(`console ${msg.type()}: ${msg.text()}`);
        }
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    // A fetch still in flight when the test itself navigates (a reload, a new URL) is
    // cancelled by that navigation: the test's doing, not the page's. The worker fetches
    // the checker engine a second after it is ready, which a test can navigate across.
    // The old document runs on until the new one commits, so a fetch it starts after the
    // navigation's request (the worker's timer firing in between) is cancelled too.
    const issuedAt = new Map();
    const byLeavingDocument = new Set();
    let navigatedAt = -1;
    let leaving = false;
    let clock = 0;
    page.on("request", (req) => {
        clock += 1;
        issuedAt.set(req, clock);
        if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
            navigatedAt = clock;
            leaving = true;
        } else if (leaving) {
            byLeavingDocument.add(req);
        }
    });
    page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) leaving = false;
    });
    page.on("requestfailed", (req) => {
        const error = req.failure()?.errorText;
        const cancelledByTest = navigatedAt > (issuedAt.get(req) ?? Infinity) || byLeavingDocument.has(req);
        if (error === "net::ERR_ABORTED" && cancelledByTest) return;
        problems.push(`request failed: ${req.url()} (${error})`);
    });
    page.on("response", (res) => {
        if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
    });
    return { page, problems };
}

/**
 * Starts the server and a headless Chromium with a fresh profile.
 * Returns `{ url, newPage, grantClipboard, close }`; `newPage()` gives `{ page, problems }` where
 * `problems` collects console errors/warnings, page errors and failed requests.
 */
export async function launch() {
    const { chromium } = await import("playwright-core");
    const server = await startServer({ root: distDir });
    const profile = mkdtempSync(join(tmpdir(), "fencelab-e2e-"));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: VIEWPORT,
        args: CHROMIUM_ARGS,
    });
    mkdirSync(screenshotDir, { recursive: true });
    return {
        url: server.url,
        newPage: async () => watched(await context.newPage()),
        /** Lets the pages read and write the clipboard (the export's "Copy witness as text"). */
        grantClipboard: () => context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url }),
        close: async () => {
            await context.close();
            await server.close();
            rmSync(profile, { recursive: true, force: true });
        },
    };
}

/**
 * Starts the server and one headless Chromium whose pages each get a context of their
 * own: an empty cache and storage, in a browser that is already running, as a visitor's
 * first visit meets it. Returns `{ url, newIsolatedPage, close }`; `newIsolatedPage()`
 * gives `{ page, problems, context }`, and the caller closes the context.
 */
export async function launchForIsolatedPages() {
    const { chromium } = await import("playwright-core");
    const server = await startServer({ root: distDir });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    return {
        url: server.url,
        newIsolatedPage: async () => {
            const context = await browser.newContext({ viewport: VIEWPORT });
            return { ...watched(await context.newPage()), context };
        },
        close: async () => {
            await browser.close();
            await server.close();
        },
    };
}

/**
 * Screenshots of `target` (a locator) in light and dark, at desktop and phone width, as
 * `<dir>/<name>-<theme>-<size>.png`, for a person to look at; restores theme and size.
 * With `whole`, the shot is the target element itself rather than the viewport around it.
 */
export async function themedShots(page, dir, name, target, { whole = false } = {}) {
    mkdirSync(dir, { recursive: true });
    for (const theme of ["light", "dark"]) {
        await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
        for (const [size, viewport] of [["desktop", { width: 1440, height: 900 }], ["phone", { width: 390, height: 844 }]]) {
            await page.setViewportSize(viewport);
            await target.scrollIntoViewIfNeeded();
            const path = `${dir}/${name}-${theme}-${size}.png`;
            await (whole ? target.screenshot({ path }) : page.screenshot({ path }));
        }
    }
    await page.evaluate(() => document.documentElement.removeAttribute("data-theme"));
    await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * Reloads `page` once its network is quiet. A reload cancels the fetches in flight, and
 * after the first verdict the panels' chunks come in a chain (the timeline's only once the
 * lanes' is in), so reloading at once would put the test's own cancellations among the
 * page's failed requests.
 */
export async function reloadAtRest(page) {
    await page.waitForLoadState("networkidle");
    await page.reload();
}

/** Saves a full-page screenshot as e2e/screenshots/<name>.png. */
export async function screenshot(page, name) {
    await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** The number of the newest check request the verdict panel shows (0 before any). */
export async function requestNumber(page) {
    return Number((await page.locator('[data-region="verdict"]').getAttribute("data-request")) || 0);
}

/** Waits for the verdict of a request newer than `after` and returns its word. */
export async function verdictAfter(page, after) {
    try {
        await page.waitForFunction(
            (prev) => {
                const el = document.querySelector('[data-region="verdict"]');
                return el?.dataset.state === "done" && Number(el.dataset.request) > prev;
            },
            after,
            { timeout: 20000 },
        );
    } catch (err) {
        // A time-out alone says nothing of where the check stopped: the panel does.
        const panel = await page
            .evaluate(() => {
                const el = document.querySelector('[data-region="verdict"]');
                if (!el) return "no verdict panel";
                const { state, request } = el.dataset;
                return `state ${state}, request ${request || "none"}: ${el.innerText.replace(/\s+/g, " ").slice(0, 400)}`;
            })
            .catch((e) => `unreadable (${e.message})`);
        throw new Error(`no verdict for a request after ${after}: the panel shows ${panel}`, { cause: err });
    }
    return page.locator('[data-region="verdict"] [data-verdict]').getAttribute("data-verdict");
}

/** Replaces the editor's text with `text` and returns the verdict word of its check. */
export async function setSource(page, text) {
    const box = page.getByRole("textbox", { name: /Scenario source/ });
    const before = await requestNumber(page);
    await box.fill(text);
    return verdictAfter(page, before);
}

/** Chooses template `id` from the "new scenario" menu and returns its verdict word. */
export async function loadTemplate(page, id) {
    const before = await requestNumber(page);
    await page.getByLabel("New scenario from a template").selectOption(id);
    return verdictAfter(page, before);
}

/** A new page on the explorer, once its first verdict is in. */
export async function openExplorer(browser) {
    const { page, problems } = await browser.newPage();
    await page.goto(`${browser.url}/#/explore`);
    await verdictAfter(page, 0);
    return { page, problems };
}

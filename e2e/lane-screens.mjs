// Screenshots of the lanes for a person to look at: message passing at its end (every
// lane finished, "done"), and a TMA load half way (ready, blocked and async lanes), light
// and dark, at 1440×900 and 390×844. `node e2e/lane-screens.mjs DIR`.
import { join } from "node:path";
import { mkdirSync } from "node:fs";

import { launch, loadTemplate, openExplorer } from "./harness.mjs";

const dir = process.argv[2] ?? "e2e/screenshots/lane-screens";
mkdirSync(dir, { recursive: true });
const browser = await launch();
// A theme switch fades the lanes' colours (a 250 ms transition): wait it out.
const settled = (page) => page.waitForTimeout(300);
const lanes = (page) => page.locator('[data-region="lanes"]');
try {
    const { page } = await openExplorer(browser);
    for (const [size, viewport] of [["desktop", { width: 1440, height: 900 }], ["phone", { width: 390, height: 844 }]]) {
        await page.setViewportSize(viewport);
        for (const [template, name, at] of [["mp-relaxed", "mp-end", "End"], ["tma-load", "tma-middle", 3]]) {
            await loadTemplate(page, template);
            await page.evaluate(() => document.activeElement?.blur());
            if (at === "End") await page.keyboard.press("End");
            else for (let i = 0; i < at; i++) await page.keyboard.press("ArrowRight");
            await page.waitForTimeout(400);
            for (const theme of ["light", "dark"]) {
                await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
                await settled(page);
                await page.screenshot({ path: join(dir, `${name}-${theme}-${size}.png`) });
                await lanes(page).screenshot({ path: join(dir, `${name}-lanes-${theme}-${size}.png`) });
            }
            await page.evaluate(() => document.documentElement.removeAttribute("data-theme"));
        }
    }
    await page.close();
} finally {
    await browser.close();
}

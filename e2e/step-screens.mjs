// Screenshots of the step dock for a person to look at (issue 47): the message-passing
// race at its stale read, a TMA load at its phase completion and a wgmma pipeline half
// way and at its end, light and dark, at 1440×900 and 390×844, plus frames taken
// mid-animation; lesson 7's deadlock and lesson 3's scope mismatch in their cards. `node e2e/step-screens.mjs DIR`.
import { join } from "node:path";
import { mkdirSync } from "node:fs";

import { launch, loadTemplate, openExplorer } from "./harness.mjs";

const dir = process.argv[2] ?? "e2e/screenshots/step-screens";
mkdirSync(dir, { recursive: true });
const browser = await launch();
// A theme switch fades the lanes' colours (a 250 ms transition): shots wait it out, or
// they show a lane half way between the palettes.
const settled = (page) => page.waitForTimeout(300);
const take = (page, agent, label) => page.locator(`[data-region="lanes"] [data-agent="${agent}"] button.choice`, { hasText: label }).first().click();
try {
    const { page } = await openExplorer(browser);
    for (const [size, viewport] of [["desktop", { width: 1440, height: 900 }], ["phone", { width: 390, height: 844 }]]) {
        await page.setViewportSize(viewport);
        await loadTemplate(page, "mp-relaxed");
        await page.evaluate(() => window.scrollTo(0, 0));
        await take(page, "producer", /./);
        await take(page, "producer", /./);
        await take(page, "consumer", /flag/);
        await page.screenshot({ path: join(dir, `mp-step3-light-${size}.png`) });
        await take(page, "consumer", /stale/);
        // Mid-animation: the value is on its way into the register.
        await page.waitForTimeout(90);
        await page.screenshot({ path: join(dir, `mp-stale-mid-animation-${size}.png`) });
        await page.waitForTimeout(400);
        for (const theme of ["light", "dark"]) {
            await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
            await settled(page);
            await page.screenshot({ path: join(dir, `mp-stale-${theme}-${size}.png`) });
        }
        await page.evaluate(() => document.documentElement.removeAttribute("data-theme"));
        await loadTemplate(page, "tma-load");
        await take(page, "producer", /./);
        await take(page, "producer", /./);
        await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').first().click();
        await page.locator('[data-region="lanes"] [data-agent^="tma"] button.choice').first().click();
        await page.waitForTimeout(100);
        await page.screenshot({ path: join(dir, `tma-complete-mid-animation-${size}.png`) });
        await page.waitForTimeout(400);
        for (const theme of ["light", "dark"]) {
            await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
            await settled(page);
            await page.screenshot({ path: join(dir, `tma-complete-${theme}-${size}.png`) });
        }
        await page.evaluate(() => document.documentElement.removeAttribute("data-theme"));
        // A wgmma pipeline half way through, mid-animation, and at its end.
        await loadTemplate(page, "tma-wgmma-pipeline");
        await page.evaluate(() => document.activeElement?.blur());
        await page.keyboard.press("End");
        const last = Number(await page.getByLabel("Jump to step").inputValue());
        await page.keyboard.press("Home");
        for (let i = 0; i < Math.ceil(last / 2); i++) await page.keyboard.press("ArrowRight");
        await page.waitForTimeout(100);
        await page.screenshot({ path: join(dir, `wgmma-middle-mid-animation-${size}.png`) });
        await page.keyboard.press("End");
        await page.waitForTimeout(400);
        for (const theme of ["light", "dark"]) {
            await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
            await settled(page);
            await page.screenshot({ path: join(dir, `wgmma-end-${theme}-${size}.png`) });
        }
        await page.evaluate(() => document.documentElement.removeAttribute("data-theme"));
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${browser.url}/#/lessons/mbarrier-debts`);
    const lanes = page.locator('[data-block="scenario"]').first().locator('[data-region="lesson-lanes"]');
    await lanes.waitFor({ timeout: 30000 });
    await lanes.getByRole("button", { name: "Step forward" }).click();
    await lanes.getByRole("button", { name: "Step forward" }).click();
    await lanes.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(dir, "lesson7-light-desktop.png") });
    await page.evaluate(() => document.documentElement.setAttribute("data-theme", "dark"));
    await settled(page);
    await page.screenshot({ path: join(dir, "lesson7-dark-desktop.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    await lanes.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(dir, "lesson7-dark-phone.png") });
    await page.evaluate(() => document.documentElement.setAttribute("data-theme", "light"));
    await settled(page);
    await page.screenshot({ path: join(dir, "lesson7-light-phone.png") });
    // Lesson 3's scope mismatch: the box the .cta release reached, the acquirer outside.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${browser.url}/#/lessons/scopes`);
    const card = page.locator('[data-block="scenario"]').first();
    const scoped = card.locator('[data-region="lesson-lanes"]');
    await scoped.waitFor({ timeout: 30000 });
    for (const [agent, label] of [["producer", /./], ["producer", /./], ["consumer", /= 1/]]) {
        await scoped.locator(`[data-agent="${agent}"] button.choice`, { hasText: label }).first().click();
    }
    await page.waitForTimeout(400);
    await card.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: join(dir, "lesson3-scope-light-desktop.png") });
    await page.close();
} finally {
    await browser.close();
}

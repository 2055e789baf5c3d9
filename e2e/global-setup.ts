import { chromium, type FullConfig } from "@playwright/test";
import { SESSION_COOKIE } from "../lib/protocol/access";
import { TEST_TOKEN } from "../tests/helpers/server-process";

/**
 * Signs a browser in to the shared server once, as a person would (the URL with the token), and
 * saves its cookie to the storage state every test's context and `request` start from.
 * Runs after the webServer has started.
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  const { baseURL, storageState, launchOptions } = config.projects[0]!.use;
  if (typeof storageState !== "string") throw new Error("playwright.config.ts must name a storageState file");
  const browser = await chromium.launch(launchOptions);
  try {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    await page.goto(`/?token=${TEST_TOKEN}`);
    const landed = new URL(page.url());
    const cookie = (await context.cookies()).find((c) => c.name.startsWith(SESSION_COOKIE));
    if (landed.pathname !== "/" || landed.search !== "" || !cookie) {
      throw new Error(`signing in to ${baseURL} with the test token failed: landed on ${page.url()}, ${cookie ? "with" : "without"} a ${SESSION_COOKIE} cookie`);
    }
    await context.storageState({ path: storageState });
  } finally {
    await browser.close();
  }
}

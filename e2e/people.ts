import type { Browser, BrowserContext, BrowserContextOptions } from "@playwright/test";
import { addPeople, type Person } from "../tests/helpers/people";

/**
 * People on the e2e server's database (playwright.config.ts names it), each with a browser
 * context signed in as them: the session cookie their sign-in would give, and an API token.
 */
export async function peopleOnServer(names: string[]): Promise<Person[]> {
  const file = process.env.PARLEY_E2E_DB;
  if (!file) throw new Error("PARLEY_E2E_DB is unset: run the specs through playwright.config.ts");
  return addPeople(`file:${file}`, names);
}

/** A browser context signed in as `person` (nobody else's cookie in it). */
export async function contextOf(browser: Browser, baseURL: string, person: Person, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, baseURL, storageState: { cookies: [], origins: [] } });
  const { hostname } = new URL(baseURL);
  await context.addCookies([{ name: person.cookie.name, value: person.cookie.value, domain: hostname, path: "/", httpOnly: true, sameSite: "Strict", secure: false }]);
  return context;
}

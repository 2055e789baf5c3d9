import { expect, type APIRequestContext, type Browser, type BrowserContext, type BrowserContextOptions } from "@playwright/test";
import type { ReplyReceipt } from "../lib/protocol/question";
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

/** Shares a session of the signed-in administrator's (`request`) with these people, as its People panel would. */
export async function shareWith(request: APIRequestContext, sessionId: string, names: string[]): Promise<void> {
  for (const user of names) expect((await request.post(`/api/sessions/${sessionId}/members`, { data: { user } })).status()).toBe(201);
}

/** Answers a question as `person` (their API token, over REST): the receipt, e.g. `voted` for a vote that did not decide. */
export async function answerAs(request: APIRequestContext, person: Person, questionId: string, value: unknown): Promise<ReplyReceipt> {
  const res = await request.post(`/api/questions/${questionId}/reply`, { data: { value }, headers: { authorization: `Bearer ${person.token}` } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()) as ReplyReceipt;
}

import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { AddPersonResultSchema, SIGN_IN_LINK_PARAM } from "../lib/protocol/teams";
import type { Session } from "../lib/protocol/entities";
import { contextOf, peopleOnServer, shareWith } from "./people";

/**
 * People: the administrator adds a person, whose one-time link signs a browser of their own in.
 * Each browser's header names who is signed in there, and signing out leaves the other signed in.
 */

test("the administrator and a person signed in with a link: each header names its own, and the person signs out", async ({ browser, page, request }) => {
  const name = `ann-${randomBytes(3).toString("hex")}`;
  // The project's state is the administrator's (the server token's cookie).
  const added = await request.post("/api/users", { data: { name } });
  expect(added.status()).toBe(201);
  const { signInLink } = AddPersonResultSchema.parse(await added.json());

  await page.goto("/");
  await expect(page.getByTestId("account-name")).toHaveText("Administrator");

  // The person's own browser, with no cookie: the link signs it in, and leaves the address bar.
  const theirs = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const tab = await theirs.newPage();
  await tab.goto(signInLink);
  await expect(tab.getByTestId("account-name")).toHaveText(name);
  expect(new URL(tab.url()).pathname).toBe("/");
  expect(tab.url()).not.toContain(SIGN_IN_LINK_PARAM);
  // In a chat of theirs too, and their menu has no Sign out everywhere (that is the administrator's).
  await tab.getByTestId("new-session").click();
  await expect(tab).toHaveURL(/\/s\/[^/?#]+$/);
  await expect(tab.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  await tab.getByTestId("account-button").click();
  await expect(tab.getByTestId("account-panel").getByRole("heading", { name })).toBeVisible();
  await expect(tab.getByTestId("sign-out-everywhere")).toHaveCount(0);
  // Not an administrator: the list of people is not theirs to read.
  expect((await theirs.request.get("/api/users")).status()).toBe(403);

  await tab.getByTestId("sign-out").click();
  await expect(tab).toHaveURL(/\/sign-in$/);
  await tab.goto("/");
  await expect(tab).toHaveURL(/\/sign-in\?next=%2F$/);

  // The link was good once: again, it says so, and what to do.
  await tab.goto(signInLink);
  await expect(tab.getByTestId("sign-in-link-error")).toHaveText(`This sign-in link was already used. Ask for a new one: parley user link ${name}`);
  expect(tab.url()).not.toContain(SIGN_IN_LINK_PARAM);
  await theirs.close();

  // The administrator was never signed out.
  await page.reload();
  await expect(page.getByTestId("account-name")).toHaveText("Administrator");
  expect(await (await request.get("/api/users")).json()).toMatchObject({ people: expect.arrayContaining([expect.objectContaining({ name, admin: false })]) });
});

test("a person added as an administrator has Sign out everywhere in their menu", async ({ browser, request }) => {
  const name = `ada-${randomBytes(3).toString("hex")}`;
  const added = await request.post("/api/users", { data: { name, admin: true } });
  expect(added.status()).toBe(201);
  const { signInLink } = AddPersonResultSchema.parse(await added.json());

  const theirs = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const tab = await theirs.newPage();
  await tab.goto(signInLink);
  await expect(tab.getByTestId("account-name")).toHaveText(name);
  await tab.getByTestId("account-button").click();
  await expect(tab.getByTestId("account-panel")).toContainText("An administrator");
  // Not pressed: it would sign out every other test's browser too.
  await expect(tab.getByTestId("sign-out-everywhere")).toBeVisible();
  await theirs.close();
});

test("the administrator renamed in the People panel: one name in the header, the People panel and a member's chat list, at once in every open tab", async ({ browser, baseURL, page, request }) => {
  // The administrator's name is the whole server's: this file runs alone (playwright.config.ts), and it is put back.
  const [mia] = await peopleOnServer([`mia-${randomBytes(3).toString("hex")}`]);
  const created = await request.post("/api/sessions", { data: { title: "Named" } });
  expect(created.status()).toBe(201);
  const session = (await created.json()) as Session;
  await shareWith(request, session.id, [mia!.name]);
  const newName = `Boss_${randomBytes(2).toString("hex")}`;
  const miaContext = await contextOf(browser, baseURL!, mia!);
  try {
    // Her list, open before the rename, says whose the chat is.
    const miaHome = await miaContext.newPage();
    await miaHome.goto("/");
    const row = miaHome.locator(`[data-testid="session-row"][data-session-id="${session.id}"]`);
    await expect(row.getByTestId("session-whose")).toHaveText("Administrator’s");

    await page.goto(`/s/${session.id}`);
    await expect(page.getByTestId("account-name")).toHaveText("Administrator");
    await page.getByTestId("people-button").click();
    const me = page.locator('[data-testid="person"][data-user="local"]');
    await expect(me.getByTestId("person-name")).toHaveText("Administrator");
    await me.getByTestId("person-rename").click();
    // A name someone else has is refused, in words.
    await page.getByTestId("person-rename-name").fill(mia!.name);
    await page.getByTestId("person-rename-save").click();
    await expect(page.getByTestId("person-rename-error")).toContainText("is already");
    await page.getByTestId("person-rename-name").fill(newName);
    await page.getByTestId("person-rename-save").click();

    // The same name in the People panel, the header, and the member's open list (no reload).
    await expect(me.getByTestId("person-name")).toHaveText(newName);
    await expect(me).toContainText("(you)");
    await expect(page.getByTestId("account-name")).toHaveText(newName);
    await expect(row.getByTestId("session-whose")).toHaveText(`${newName}’s`);
    // And after a reload, from the server.
    await miaHome.reload();
    await expect(miaHome.locator(`[data-testid="session-row"][data-session-id="${session.id}"]`).getByTestId("session-whose")).toHaveText(`${newName}’s`);
  } finally {
    expect((await request.patch("/api/users/local", { data: { displayName: "Administrator" } })).status()).toBe(200);
    await miaContext.close();
  }
});

test("a person sets their address for questions by email in People; another person's address is refused, in words", async ({ browser, baseURL }) => {
  const [kim, lee] = await peopleOnServer([`kim-${randomBytes(3).toString("hex")}`, `lee-${randomBytes(3).toString("hex")}`]);
  const kimContext = await contextOf(browser, baseURL!, kim!);
  const leeContext = await contextOf(browser, baseURL!, lee!);
  try {
    const leeAddress = `${lee!.name}@example.com`;
    expect((await leeContext.request.put(`/api/users/${lee!.name}/email`, { data: { email: leeAddress } })).status()).toBe(200);
    const tab = await kimContext.newPage();
    await tab.goto("/");
    await tab.getByTestId("new-session").click();
    await expect(tab).toHaveURL(/\/s\/[^/?#]+$/);
    await tab.getByTestId("people-button").click();
    const form = tab.getByTestId("my-email");
    await expect(form.getByTestId("my-email-questions")).toBeChecked();
    await form.getByTestId("my-email-address").fill(leeAddress);
    await form.getByTestId("my-email-save").click();
    await expect(form.getByTestId("my-email-error")).toContainText("another person's address");
    await form.getByTestId("my-email-address").fill(`${kim!.name.toUpperCase()}@Example.com`);
    await form.getByTestId("my-email-questions").uncheck();
    await form.getByTestId("my-email-save").click();
    await expect(form.getByTestId("my-email-saved")).toHaveText("Saved: no questions are mailed to you.");
    await tab.reload();
    await tab.getByTestId("people-button").click();
    await expect(tab.getByTestId("my-email-address")).toHaveValue(`${kim!.name}@example.com`);
    await expect(tab.getByTestId("my-email-questions")).not.toBeChecked();
    // Not someone else's to read.
    expect((await kimContext.request.get(`/api/users/${lee!.name}/email`)).status()).toBe(403);
  } finally {
    await kimContext.close();
    await leeContext.close();
  }
});

import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { AddPersonResultSchema, SIGN_IN_LINK_PARAM } from "../lib/protocol/teams";

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

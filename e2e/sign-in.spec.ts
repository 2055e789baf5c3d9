import { expect, test } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "../tests/helpers/server-process";
import { ChatPage } from "./chat-page";

// A server of its own started without PARLEY_TOKEN, as a person starts it: it makes a token up and
// prints the URL that carries it. Every context here starts with no cookie at all.
test.use({ storageState: { cookies: [], origins: [] } });

let server: ServerProcess | undefined;
let dir: string | undefined;
let printedUrl = "";
let token = "";

test.beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-e2e-sign-in-"));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "sign-in.db"), env: { PARLEY_TOKEN: undefined } });
  const s = server;
  const PRINTED = /^> Open (http:\/\/\S+\/\?token=(\S+))$/m;
  await expect.poll(() => PRINTED.test(s.output()), { message: "the server prints the URL with its token" }).toBe(true);
  const printed = PRINTED.exec(s.output())!;
  printedUrl = printed[1]!;
  token = printed[2]!;
  expect(printedUrl.startsWith(`${s.url}/?token=`)).toBe(true);
});

test.afterAll(async () => {
  await server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("without a credential a page leads to the sign-in page; a wrong token is refused, the right one returns to the page", async ({ page }) => {
  const url = server!.url;
  const res = await fetch(`${url}/api/sessions`, { method: "POST", headers: { ...authHeaders(token), "content-type": "application/json" }, body: "{}" });
  expect(res.status).toBe(201);
  const session = (await res.json()) as { id: string };
  const heading = page.getByRole("heading", { name: "Sign in" });
  const field = page.getByLabel("Server token");
  // The error is the field's description (role=alert, announced when it appears).
  const error = page.locator('[role="alert"]#token-error');

  await page.goto(`${url}/`);
  await expect(page).toHaveURL(`${url}/sign-in?next=%2F`);
  await expect(heading).toBeVisible();
  await expect(field).toBeVisible();

  // A link with a wrong token says so.
  await page.goto(`${url}/s/${session.id}?token=not-this-servers-token`);
  await expect(page).toHaveURL(`${url}/sign-in?error=invalid_token&next=${encodeURIComponent(`/s/${session.id}`)}`);
  await expect(error).toContainText("not this server's");
  await expect(field).toHaveAccessibleDescription(/not this server's/);

  await page.goto(`${url}/s/${session.id}`);
  await expect(page).toHaveURL(`${url}/sign-in?next=${encodeURIComponent(`/s/${session.id}`)}`);
  await expect(heading).toBeVisible();
  await expect(error).toHaveCount(0);

  await field.fill("not-this-servers-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(error).toContainText("not this server's");
  await expect(field).toHaveAccessibleDescription(/not this server's/);
  await expect(page).toHaveURL(/\/sign-in\?/);

  await field.fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${url}/s/${session.id}`);
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
});

test("the printed URL signs a fresh browser in: the token leaves the address bar, the first page takes a message that makes a chat, and a second tab needs no sign-in", async ({ context, page }) => {
  const url = server!.url;
  await page.goto(printedUrl);
  await expect(page).toHaveURL(`${url}/`);
  expect(page.url()).not.toContain(token);

  // The first page is the composer: Enter makes the chat, sends the message and opens the chat.
  await page.getByTestId("composer-input").fill("hello there");
  await page.getByTestId("composer-input").press("Enter");
  await expect(page).toHaveURL(new RegExp(`^${url}/s/[^/?#]+$`));
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  const tab = new ChatPage(page);
  await expect(tab.messages("user").filter({ hasText: "hello there" })).toHaveCount(1);
  await expect(page.locator('[data-testid="session-link"][aria-current="page"]')).toHaveCount(1);
  await expect(tab.messages("agent").filter({ hasText: "offline demo agent" })).toBeVisible();

  const second = new ChatPage(await context.newPage());
  await second.page.goto(page.url());
  await expect(second.page).toHaveURL(page.url());
  await expect(second.page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  await expect(second.messages("user").filter({ hasText: "hello there" })).toBeVisible();
  await expect(second.messages("agent").filter({ hasText: "offline demo agent" })).toBeVisible();

  // A signed-in browser leaves the sign-in page for `next` at once: only ever for a page of this site
  // (a browser drops the tab, which would make the path //evil.example/).
  await context.route("http://evil.example/**", (route) => route.fulfill({ contentType: "text/html", body: "left the site" }));
  await second.page.goto(`${url}/sign-in?next=${encodeURIComponent("/\t/evil.example/")}`);
  await expect(second.page).toHaveURL(`${url}/`);
});

test("Sign out signs this browser out: the tab goes to the sign-in page, and the next page asks again", async ({ page }) => {
  const url = server!.url;
  await page.goto(printedUrl);
  await expect(page).toHaveURL(`${url}/`);
  // In the header's menu of who is signed in.
  await expect(page.getByTestId("account-name")).toHaveText("Administrator");
  await page.getByTestId("account-button").click();
  await page.getByTestId("sign-out").click();
  await expect(page).toHaveURL(`${url}/sign-in`);
  await page.goto(`${url}/`);
  await expect(page).toHaveURL(`${url}/sign-in?next=%2F`);
});

test("Sign out everywhere asks first, then signs out this browser and every other one, whose open tab disconnects", async ({ browser, page }) => {
  const url = server!.url;
  await page.goto(printedUrl);
  await expect(page).toHaveURL(`${url}/`);
  // Another browser, signed in too, with a chat open.
  const other = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const otherTab = await other.newPage();
  await otherTab.goto(printedUrl);
  await otherTab.getByTestId("new-session").click();
  await expect(otherTab).toHaveURL(new RegExp(`^${url}/s/[^/?#]+$`));
  await expect(otherTab.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");

  const dialog = page.getByTestId("sign-out-everywhere-dialog");
  await page.getByTestId("account-button").click();
  await page.getByTestId("sign-out-everywhere").click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("heading", { name: "Sign out everywhere?" })).toBeVisible();
  // Cancel changes nothing.
  await page.getByTestId("sign-out-everywhere-dialog-cancel").click();
  await expect(dialog).toHaveCount(0);
  await expect(otherTab.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");

  await page.getByTestId("account-button").click();
  await page.getByTestId("sign-out-everywhere").click();
  await page.getByTestId("sign-out-everywhere-dialog-confirm").click();
  // (Its own socket is dropped too: whichever leads there first, the tab is on the sign-in page.)
  await expect(page).toHaveURL(new RegExp(`^${url}/sign-in`));
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  // The other browser's tab is disconnected, and its cookie refused: it lands on the sign-in page too.
  await expect(otherTab).toHaveURL(new RegExp(`^${url}/sign-in\\?next=`));
  await other.close();
});

import { expect, test } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { authHeaders, freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "../tests/helpers/server-process";
import { ChatPage } from "./chat-page";

// This test runs its own server (not the shared one) so that it can kill and restart it.
let server: ServerProcess | undefined;
let dir: string;
test.afterEach(async () => {
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

test("a pending card survives a server restart: the tab reconnects by itself, and answering it finishes the run", async ({ context }) => {
  test.setTimeout(120_000);
  dir = mkdtempSync(path.join(tmpdir(), "parley-e2e-restart-"));
  const databaseFile = path.join(dir, "restart.db");
  const port = await freePort();
  server = await startServerProcess({ port, databaseFile });

  const session = await (await fetch(`${server.url}/api/sessions`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: "{}" })).json();
  const page = await context.newPage();
  // The context's cookie is the shared server's (a cookie ignores the port) and this server's database
  // signs its own, so the tab signs in with the token URL, as the printed link does.
  await page.goto(`${server.url}/s/${session.id}?token=${TEST_TOKEN}`);
  await expect(page).toHaveURL(`${server.url}/s/${session.id}`);
  const tab = new ChatPage(page);
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected");
  await tab.send("/pizza");
  await tab.expectCard("Which toppings do you want?");

  await server.kill("SIGKILL");
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "disconnected");
  server = await startServerProcess({ port, databaseFile });

  // No reload: the socket reconnects, re-joins, and the snapshot still holds the question.
  await expect(page.getByTestId("connection-status")).toHaveAttribute("data-state", "connected", { timeout: 30_000 });
  await tab.expectCard("Which toppings do you want?");
  await page.getByTestId("question-checkbox").nth(1).check();
  await page.getByTestId("question-checkbox").nth(3).check();
  await page.getByTestId("question-submit").click();

  await tab.expectNoCard();
  await expect(tab.messages("agent").filter({ hasText: "Pizza with Mushrooms, Basil" })).toBeVisible();
});

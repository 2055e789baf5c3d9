import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openStoreTestDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import { webhookSecretCommand } from "../../cli/webhook-secret-command";
import { newWebhookSecret, WEBHOOK_SECRET_PATTERN } from "./secret-format";
import { loadWebhookSecret } from "./webhook-secret";

let t: StoreTestDb;
beforeEach(async () => (t = await openStoreTestDb("parley_whsecret")));
afterEach(() => t.close());

it("is PARLEY_WEBHOOK_SECRET when set, else made once and kept in the database (every load and node reads the same)", async () => {
  const configured = newWebhookSecret();
  expect(await loadWebhookSecret(t.db, configured)).toBe(configured);
  const [first, ...others] = await Promise.all([1, 2, 3].map(() => loadWebhookSecret(t.db)));
  expect(first).toMatch(WEBHOOK_SECRET_PATTERN);
  expect(others).toEqual([first, first]);
  expect(await loadWebhookSecret(t.db)).toBe(first);
  // A key the standardwebhooks package takes as it is.
  expect(() => new Webhook(first!).sign("msg_1", new Date(), "{}")).not.toThrow();
});

it("parley webhook-secret prints the configured one, else the database's, making it if none was yet", async () => {
  const inDatabase = <T>(work: (db: typeof t.db) => Promise<T>) => work(t.db);
  const made = await webhookSecretCommand(undefined, inDatabase);
  expect(made.result).toEqual({ secret: made.text, source: "database" });
  expect(await loadWebhookSecret(t.db)).toBe(made.text);
  const configured = newWebhookSecret();
  expect((await webhookSecretCommand(configured, inDatabase)).result).toEqual({ secret: configured, source: "environment" });
  await expect(webhookSecretCommand("not-a-secret", inDatabase)).rejects.toThrow(/PARLEY_WEBHOOK_SECRET/);
});

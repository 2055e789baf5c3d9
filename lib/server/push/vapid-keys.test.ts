import webpush from "web-push";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openStoreTestDb, type StoreTestDb } from "../../../tests/helpers/fixture-db";
import { DEFAULT_VAPID_SUBJECT, isVapidPrivateKey, isVapidPublicKey, isVapidSubject, loadVapidKeys } from "./vapid-keys";

let t: StoreTestDb;
beforeEach(async () => (t = await openStoreTestDb("parley_vapid")));
afterEach(() => t.close());

it("are PARLEY_VAPID_* when set, else made once and kept in the database (every load and node reads the same)", async () => {
  const configured = webpush.generateVAPIDKeys();
  expect(await loadVapidKeys(t.db, { ...configured, subject: "mailto:ops@example.com" })).toEqual({ ...configured, subject: "mailto:ops@example.com" });
  const [first, ...others] = await Promise.all([1, 2, 3].map(() => loadVapidKeys(t.db)));
  expect(isVapidPublicKey(first!.publicKey) && isVapidPrivateKey(first!.privateKey)).toBe(true);
  expect(first!.publicKey).not.toBe(configured.publicKey);
  expect(others).toEqual([first, first]);
  expect(await loadVapidKeys(t.db)).toEqual(first);
  // A subject and keys web-push signs with as they are.
  expect(first!.subject).toBe(DEFAULT_VAPID_SUBJECT);
  expect(() => webpush.getVapidHeaders("https://fcm.googleapis.com", first!.subject, first!.publicKey, first!.privateKey, "aes128gcm")).not.toThrow();
});

it("tell keys and subjects from what is not", () => {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  expect([isVapidPublicKey(publicKey), isVapidPublicKey(privateKey), isVapidPrivateKey(privateKey), isVapidPrivateKey(publicKey), isVapidPublicKey("not a key!")]).toEqual([
    true,
    false,
    true,
    false,
    false,
  ]);
  expect(["mailto:ops@example.com", "https://example.com/contact", "mailto:ops", "http://example.com", "ops@example.com"].map(isVapidSubject)).toEqual([true, true, false, false, false]);
});

import { describe, expect, it } from "vitest";
import type { RequestOptions } from "../api";
import { fakeSw, ORIGIN } from "./fake-sw-env";
import { keyBytes } from "./push-key";
import { currentDevice, removeDevice, subscribeThisDevice, type BrowserSubscription, type PushDeps } from "./this-device";
import { readThisDevice } from "./this-device-store";

const KEY = "BPcMbnWQL5GOYX_5LKZXT6sLmHiMsJSiEvIFvfcDvX7IJ9qd3M5uyH5lFdAvYAxpTX6SjFEw9jh9J9V2Qz2FS7o";

function fakeBrowser({ permission = "granted", answers = {} }: { permission?: NotificationPermission; answers?: Record<string, unknown> } = {}) {
  const sent: { path: string; init?: RequestOptions }[] = [];
  let sub: (BrowserSubscription & { unsubscribed: boolean }) | null = null;
  const subscribed: BufferSource[] = [];
  const make = (key: BufferSource, endpoint = "https://fcm.googleapis.com/fcm/send/abc") => {
    const s = {
      endpoint,
      unsubscribed: false,
      options: { applicationServerKey: new Uint8Array(key as Uint8Array).buffer },
      toJSON: () => ({ endpoint, keys: { p256dh: "BKey", auth: "auth" } }),
      unsubscribe: async () => {
        s.unsubscribed = true;
        sub = null;
        return true;
      },
    };
    return s;
  };
  const deps: PushDeps = {
    origin: ORIGIN,
    caches: fakeSw().env.caches,
    requestPermission: async () => permission,
    pushManager: async () => ({
      getSubscription: async () => sub,
      subscribe: async ({ applicationServerKey }) => {
        subscribed.push(applicationServerKey);
        sub = make(applicationServerKey);
        return sub;
      },
    }),
    request: (async (path: string, init?: RequestOptions) => {
      sent.push({ path, init });
      const key = `${init?.method ?? "GET"} ${path}`;
      const answer = key in answers ? answers[key] : { ok: true, data: key === "GET /api/push/key" ? { publicKey: KEY } : { id: "dev-1" } };
      return answer;
    }) as PushDeps["request"],
  };
  return { deps, sent, subscribed, current: () => sub, setSub: (key: BufferSource, endpoint?: string) => (sub = make(key, endpoint)) };
}

describe("notify this device", () => {
  it("asks permission, subscribes with the server's key and registers the device under its name", async () => {
    const b = fakeBrowser();
    const res = await subscribeThisDevice(b.deps, "  Chrome on Android ");
    expect(res).toEqual({ ok: true, device: { id: "dev-1", device: "Chrome on Android", endpoint: "https://fcm.googleapis.com/fcm/send/abc" } });
    expect([...(b.subscribed[0] as Uint8Array)]).toEqual([...keyBytes(KEY)]);
    expect(keyBytes(KEY)).toHaveLength(65);
    expect(b.sent.map((s) => `${s.init?.method ?? "GET"} ${s.path}`)).toEqual(["GET /api/push/key", "POST /api/push/subscriptions"]);
    expect(b.sent[1]!.init!.body).toEqual({ endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys: { p256dh: "BKey", auth: "auth" }, device: "Chrome on Android" });
    expect(await readThisDevice(b.deps.caches, ORIGIN)).toEqual({ id: "dev-1", device: "Chrome on Android", endpoint: "https://fcm.googleapis.com/fcm/send/abc" });
    expect(await currentDevice(b.deps)).toMatchObject({ id: "dev-1" });
  });

  it("says so when notifications are blocked or not allowed, and asks the server nothing", async () => {
    const denied = fakeBrowser({ permission: "denied" });
    expect(await subscribeThisDevice(denied.deps, "x")).toMatchObject({ ok: false, reason: "denied" });
    const dismissed = fakeBrowser({ permission: "default" });
    expect(await subscribeThisDevice(dismissed.deps, "x")).toMatchObject({ ok: false, reason: "dismissed" });
    expect([...denied.sent, ...dismissed.sent]).toEqual([]);
  });

  it("replaces a subscription made with another server key", async () => {
    const b = fakeBrowser();
    const old = b.setSub(new Uint8Array([4, 9, 9]));
    await subscribeThisDevice(b.deps, "Phone");
    expect(old.unsubscribed).toBe(true);
    expect(b.subscribed).toHaveLength(1);
  });

  it("passes the server's refusal on (an endpoint on a host it does not push to)", async () => {
    const b = fakeBrowser({ answers: { "POST /api/push/subscriptions": { ok: false, error: { code: "forbidden", message: "Push endpoints must be on a known push service." } } } });
    expect(await subscribeThisDevice(b.deps, "Phone")).toEqual({ ok: false, reason: "failed", message: "Push endpoints must be on a known push service." });
    expect(await readThisDevice(b.deps.caches, ORIGIN)).toBeNull();
  });

  it("removing this device unsubscribes the browser too; removing another leaves it", async () => {
    const b = fakeBrowser();
    await subscribeThisDevice(b.deps, "Phone");
    expect(await removeDevice(b.deps, "other")).toEqual({ ok: true, data: null });
    expect(b.current()).not.toBeNull();
    expect(await removeDevice(b.deps, "dev-1")).toEqual({ ok: true, data: null });
    expect(b.current()).toBeNull();
    expect(await readThisDevice(b.deps.caches, ORIGIN)).toBeNull();
    expect(b.sent.filter((s) => s.init?.method === "DELETE").map((s) => s.path)).toEqual(["/api/push/subscriptions/other", "/api/push/subscriptions/dev-1"]);
  });

  it("forgets this device when the browser no longer holds its subscription", async () => {
    const b = fakeBrowser();
    await subscribeThisDevice(b.deps, "Phone");
    await b.current()!.unsubscribe();
    expect(await currentDevice(b.deps)).toBeNull();
    expect(await readThisDevice(b.deps.caches, ORIGIN)).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { fakeSw, sentJson, ORIGIN } from "./fake-sw-env";
import { handleSubscriptionChange } from "./sw-resubscribe";
import { readThisDevice, writeThisDevice } from "./this-device-store";

describe("a push subscription the push service replaced", () => {
  it("is subscribed again with the old key and posted under the device's name; the new id is kept", async () => {
    const sw = fakeSw();
    await writeThisDevice(sw.env.caches, ORIGIN, { id: "old", device: "Chrome on Android", endpoint: "https://push.example/old" });
    sw.respond = () => new Response(JSON.stringify({ id: "new" }), { status: 201 });
    await handleSubscriptionChange(sw.env, { oldSubscription: { options: { applicationServerKey: new Uint8Array([4, 1]).buffer } }, newSubscription: null });
    expect(sw.fetched.map((f) => f.url)).toEqual([`${ORIGIN}/api/push/subscriptions`]);
    expect(sentJson(sw.fetched[0]!)).toEqual({ endpoint: "https://push.example/new", keys: { p256dh: "BNew", auth: "aNew" }, device: "Chrome on Android" });
    expect(await readThisDevice(sw.env.caches, ORIGIN)).toEqual({ id: "new", device: "Chrome on Android", endpoint: "https://push.example/new" });
  });

  it("does nothing for a browser never subscribed from the panel", async () => {
    const sw = fakeSw();
    await handleSubscriptionChange(sw.env, { oldSubscription: null, newSubscription: null });
    expect(sw.fetched).toEqual([]);
  });
});

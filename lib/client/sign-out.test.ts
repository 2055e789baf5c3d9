import { describe, expect, it } from "vitest";
import type { Ack } from "../protocol/socket";
import type { RequestJson } from "./api";
import { createSignOut } from "./sign-out";

/** A requester that records what it was asked and answers `answer`. */
function fakeRequest(answer: Ack<unknown>) {
  const asked: Array<{ path: string; method?: string; body?: unknown }> = [];
  const request = (async (path: string, init: { method?: string; body?: unknown } = {}) => {
    asked.push({ path, method: init.method, body: init.body });
    return answer;
  }) as RequestJson;
  return { request, asked };
}

describe("signing out", () => {
  it("this browser: deletes its session, then shows the sign-in page", async () => {
    const { request, asked } = fakeRequest({ ok: true, data: { signedOut: true } });
    let shown = 0;
    const res = await createSignOut({ request, signedOut: () => shown++ }).thisBrowser();
    expect(res.ok).toBe(true);
    expect(asked).toEqual([{ path: "/api/auth/session", method: "DELETE", body: undefined }]);
    expect(shown).toBe(1);
  });

  it("removes this browser's notifications first, and signs out even when that fails", async () => {
    const { request, asked } = fakeRequest({ ok: true, data: { signedOut: true } });
    const order: string[] = [];
    await createSignOut({ request, signedOut: () => order.push("shown"), forgetDevice: async () => void order.push("forgot") }).thisBrowser();
    expect(order).toEqual(["forgot", "shown"]);
    expect(asked).toHaveLength(1);
    const failing = await createSignOut({ request, signedOut: () => order.push("shown again"), forgetDevice: () => Promise.reject(new Error("offline")) }).everywhere();
    expect(failing.ok).toBe(true);
    expect(order.at(-1)).toBe("shown again");
  });

  it("everywhere: posts the sign-out, then shows the sign-in page", async () => {
    const { request, asked } = fakeRequest({ ok: true, data: { signedOut: "everywhere", at: "2026-01-01T00:00:00.000Z" } });
    let shown = 0;
    await createSignOut({ request, signedOut: () => shown++ }).everywhere();
    expect(asked).toEqual([{ path: "/api/auth/sign-out-everywhere", method: "POST", body: {} }]);
    expect(shown).toBe(1);
  });

  it("stays on the page and returns the error when the server refuses or cannot be reached", async () => {
    const { request } = fakeRequest({ ok: false, error: { code: "unavailable", message: "Can't reach the server. Check your connection." } });
    let shown = 0;
    const res = await createSignOut({ request, signedOut: () => shown++ }).everywhere();
    expect(res).toMatchObject({ ok: false, error: { code: "unavailable" } });
    expect(shown).toBe(0);
  });
});

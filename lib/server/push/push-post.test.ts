import { WebPushError } from "web-push";
import { describe, expect, it } from "vitest";
import { failedPush } from "./push-post";

const refused = (status: number, body = "") => new WebPushError("Received unexpected response code", status, {}, body, "https://fcm.googleapis.com/fcm/send/secret-capability");

describe("what a push service's refusal means", () => {
  it("404 and 410: the subscription is gone", () => {
    expect(failedPush(refused(410, "push subscription has unsubscribed or expired."))).toEqual({ ok: false, gone: true, error: "HTTP 410: push subscription has unsubscribed or expired." });
    expect(failedPush(refused(404))).toEqual({ ok: false, gone: true, error: "HTTP 404" });
  });

  it("busy or away (408, 429, 5xx) is retried; a refusal of this push (400, 403, 413) or a redirect is final", () => {
    for (const status of [408, 429, 500, 502, 503]) expect(failedPush(refused(status)), String(status)).toMatchObject({ gone: false, retry: true });
    for (const status of [400, 401, 403, 413]) expect(failedPush(refused(status)), String(status)).toMatchObject({ gone: false, retry: false });
    expect(failedPush(refused(301))).toMatchObject({ retry: false, error: "HTTP 301 (redirects are not followed)" });
  });

  it("a connection that failed is retried; the error never holds the endpoint", () => {
    expect(failedPush(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }))).toEqual({
      ok: false,
      gone: false,
      retry: true,
      error: "connect ECONNREFUSED 127.0.0.1:9",
    });
    expect(failedPush(new Error("Socket timeout"))).toMatchObject({ retry: true });
    expect(failedPush(new Error("The subscription p256dh value should be 65 bytes long."))).toMatchObject({ retry: false });
    expect(JSON.stringify(failedPush(refused(500, "x".repeat(1_000))))).not.toContain("secret-capability");
    expect(failedPush(refused(500, "x".repeat(1_000))).error.length).toBeLessThanOrEqual(130);
  });
});

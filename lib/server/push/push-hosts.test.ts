import { describe, expect, it } from "vitest";
import { AppError } from "../../protocol/errors";
import { hostsOnly } from "../webhooks/callback-hosts";
import { parseHostPortList } from "../webhooks/callback-hosts";
import { checkPushEndpoint, pushEndpointAllowed } from "./push-hosts";

describe("which push endpoints the server posts to", () => {
  it("https on the browsers' push services", () => {
    for (const endpoint of [
      "https://fcm.googleapis.com/fcm/send/abc",
      "https://updates.push.services.mozilla.com/wpush/v2/abc",
      "https://wns2-par02p.notify.windows.com/w/?token=abc",
      "https://web.push.apple.com/QGx",
      "https://api.push.apple.com/3/device/x",
      "https://FCM.googleapis.com:443/fcm/send/abc",
    ]) {
      expect(pushEndpointAllowed(endpoint, []), endpoint).toBe(true);
    }
  });

  it("nothing else: http, other hosts, look-alikes, other ports, credentials", () => {
    for (const endpoint of [
      "http://fcm.googleapis.com/fcm/send/abc",
      "https://fcm.googleapis.com.evil.net/x",
      "https://evilfcm.googleapis.com/x",
      "https://evilpush.apple.com/x",
      "https://fcm.googleapis.com:8443/x",
      "https://user:pw@fcm.googleapis.com/x",
      "https://127.0.0.1/push",
      "https://169.254.169.254/latest",
      "not a url",
    ]) {
      expect(pushEndpointAllowed(endpoint, []), endpoint).toBe(false);
    }
  });

  it("PARLEY_PUSH_HOSTS adds hosts, alone (any port) or with a port (that one only), still https only", () => {
    const hosts = parseHostPortList(" Push.Local, 127.0.0.1:8443, [::1]:9443 ,");
    expect(hosts).toEqual(["push.local", "127.0.0.1:8443", "[::1]:9443"]);
    expect(hostsOnly(hosts)).toEqual(["push.local", "127.0.0.1", "::1"]);
    expect(pushEndpointAllowed("https://push.local:1234/x", hosts)).toBe(true);
    expect(pushEndpointAllowed("https://127.0.0.1:8443/push/1", hosts)).toBe(true);
    expect(pushEndpointAllowed("https://[::1]:9443/push/1", hosts)).toBe(true);
    expect(pushEndpointAllowed("https://127.0.0.1:8444/push/1", hosts)).toBe(false);
    expect(pushEndpointAllowed("https://127.0.0.1/push/1", hosts)).toBe(false);
    expect(pushEndpointAllowed("http://127.0.0.1:8443/push/1", hosts)).toBe(false);
  });

  it("refuses with push_endpoint_not_allowed (422), saying why and naming the setting", () => {
    const refusal = (endpoint: string) => {
      try {
        checkPushEndpoint(endpoint, ["push.local"]);
      } catch (err) {
        return err as AppError;
      }
      return null;
    };
    expect(refusal("https://fcm.googleapis.com/x")).toBeNull();
    const unknown = refusal("https://evil.example/x")!;
    expect(unknown).toBeInstanceOf(AppError);
    expect([unknown.code, unknown.status]).toEqual(["push_endpoint_not_allowed", 422]);
    expect(unknown.message).toContain('"evil.example" is not a known push service');
    expect(unknown.message).toContain("PARLEY_PUSH_HOSTS lists (now: push.local)");
    expect(refusal("http://fcm.googleapis.com/x")!.message).toContain("not an https: URL");
  });
});

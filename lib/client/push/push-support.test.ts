import { describe, expect, it } from "vitest";
import { pushSupport, type BrowserTraits } from "./push-support";

const chrome: BrowserTraits = { userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0", maxTouchPoints: 0, standalone: false, serviceWorker: true, pushManager: true, notification: true };
const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile/15E148 Safari/604.1";

describe("push support", () => {
  it("is ready where service workers, PushManager and notifications exist", () => {
    expect(pushSupport(chrome)).toBe("ready");
    expect(pushSupport({ ...chrome, pushManager: false })).toBe("unsupported");
    expect(pushSupport({ ...chrome, serviceWorker: false })).toBe("unsupported");
  });

  it("on an iPhone or iPad in a Safari tab asks for the Home Screen first; from the home screen it needs iOS 16.4's PushManager", () => {
    expect(pushSupport({ ...chrome, userAgent: iphone, pushManager: false, notification: false })).toBe("needs-home-screen");
    expect(pushSupport({ ...chrome, userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Safari/605.1.15", maxTouchPoints: 5, pushManager: false })).toBe("needs-home-screen");
    expect(pushSupport({ ...chrome, userAgent: iphone, standalone: true })).toBe("ready");
    expect(pushSupport({ ...chrome, userAgent: iphone, standalone: true, pushManager: false })).toBe("unsupported");
  });
});

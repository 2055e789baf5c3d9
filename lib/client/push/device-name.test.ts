import { describe, expect, it } from "vitest";
import { guessDeviceName } from "./device-name";

const UA = {
  chromeAndroid: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
  safariIphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  chromeIphone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1",
  ipadDesktop: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  firefoxLinux: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  edgeWindows: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
  samsung: "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36",
  chromeMac: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  chromeOs: "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
};

describe("a device's suggested name", () => {
  it.each([
    [UA.chromeAndroid, 5, "Chrome on Android"],
    [UA.safariIphone, 5, "Safari on iPhone"],
    [UA.chromeIphone, 5, "Chrome on iPhone"],
    [UA.ipadDesktop, 5, "Safari on iPad"],
    [UA.ipadDesktop, 0, "Safari on macOS"],
    [UA.firefoxLinux, 0, "Firefox on Linux"],
    [UA.edgeWindows, 0, "Edge on Windows"],
    [UA.samsung, 5, "Samsung Internet on Android"],
    [UA.chromeMac, 0, "Chrome on macOS"],
    [UA.chromeOs, 0, "Chrome on ChromeOS"],
    ["curl/8.0", 0, "Browser on this device"],
  ])("%s → %s", (ua, touch, name) => {
    expect(guessDeviceName(ua, touch)).toBe(name);
  });
});

import { MAX_DEVICE_NAME_CHARS } from "../../protocol/push";

/** A name for this device from its user agent ("Chrome on Android", "Safari on iPhone"), for the person to keep or edit. */
export function guessDeviceName(userAgent: string, maxTouchPoints = 0): string {
  const name = `${browserOf(userAgent)} on ${systemOf(userAgent, maxTouchPoints)}`;
  return name.slice(0, MAX_DEVICE_NAME_CHARS);
}

function browserOf(ua: string): string {
  if (/\bEdg(e|A|iOS)?\//.test(ua)) return "Edge";
  if (/\b(OPR|Opera)\//.test(ua)) return "Opera";
  if (/\bSamsungBrowser\//.test(ua)) return "Samsung Internet";
  if (/\b(Firefox|FxiOS)\//.test(ua)) return "Firefox";
  if (/\b(HeadlessChrome|Chrome|CriOS|Chromium)\//.test(ua)) return "Chrome";
  if (/\bSafari\//.test(ua) || /\bAppleWebKit\//.test(ua)) return "Safari";
  return "Browser";
}

function systemOf(ua: string, maxTouchPoints: number): string {
  if (/\biPhone\b/.test(ua)) return "iPhone";
  // iPadOS asks for desktop sites: it says "Macintosh", but a Mac has no touch screen.
  if (/\biPad\b/.test(ua) || (/\bMacintosh\b/.test(ua) && maxTouchPoints > 1)) return "iPad";
  if (/\bAndroid\b/.test(ua)) return "Android";
  if (/\bCrOS\b/.test(ua)) return "ChromeOS";
  if (/\bMac OS X\b|\bMacintosh\b/.test(ua)) return "macOS";
  if (/\bWindows\b/.test(ua)) return "Windows";
  if (/\bLinux\b/.test(ua)) return "Linux";
  return "this device";
}

import { describe, expect, it } from "vitest";
import { isAllowedOrigin } from "./socket-server";

const req = (origin: string | undefined, host = "127.0.0.1:3000") => ({ headers: { origin, host } });

describe("isAllowedOrigin", () => {
  it("allows the app's own origin and clients that send none", () => {
    expect(isAllowedOrigin(req("http://127.0.0.1:3000"))).toBe(true);
    expect(isAllowedOrigin(req(undefined))).toBe(true);
  });

  it("refuses other origins, other ports and garbage", () => {
    expect(isAllowedOrigin(req("https://evil.example"))).toBe(false);
    expect(isAllowedOrigin(req("http://127.0.0.1:4000"))).toBe(false);
    expect(isAllowedOrigin(req("null"))).toBe(false);
  });

  it("allows origins configured in addition", () => {
    expect(isAllowedOrigin(req("https://app.example"), ["https://app.example"])).toBe(true);
  });
});

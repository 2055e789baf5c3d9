import { describe, expect, it } from "vitest";
import { bindRefusal, createOriginPolicy } from "./origin-policy";

describe("the origin policy", () => {
  const loopback = createOriginPolicy({ host: "127.0.0.1", port: () => 3411, allowedOrigins: ["https://chat.example.com"] });

  it("answers its own names and the allowed origins' hosts, and refuses a rebound name", () => {
    for (const host of ["127.0.0.1:3411", "localhost:3411", "[::1]:3411", "localhost", "chat.example.com", "app.localhost:3411"]) expect(loopback.hostAllowed(host), host).toBe(true);
    for (const host of ["evil.example:3411", "evil.example", "127.0.0.1.evil.example", "", undefined, "a b"]) expect(loopback.hostAllowed(host), String(host)).toBe(false);
  });

  it("accepts an Origin only of this server's port or one listed in PARLEY_ALLOWED_ORIGINS", () => {
    expect(loopback.originAllowed("http://127.0.0.1:3411")).toBe(true);
    expect(loopback.originAllowed("http://localhost:3411")).toBe(true);
    expect(loopback.originAllowed("https://chat.example.com")).toBe(true);
    // localhost on another port is the same site for cookies: its pages must not write here.
    expect(loopback.originAllowed("http://localhost:9999")).toBe(false);
    expect(loopback.originAllowed("https://evil.example")).toBe(false);
    expect(loopback.originAllowed("http://evil.example:3411")).toBe(false);
    expect(loopback.originAllowed("null")).toBe(false);
    expect(loopback.originAllowed("file://")).toBe(false);
    expect(loopback.originAllowed("http://chat.example.com")).toBe(false);
  });

  it("on every interface, answers the machine's own addresses but not a stranger's name", () => {
    const wide = createOriginPolicy({ host: "0.0.0.0", port: () => 80 });
    expect(wide.hostAllowed("127.0.0.1")).toBe(true);
    expect(wide.originAllowed("http://127.0.0.1")).toBe(true);
    expect(wide.hostAllowed("evil.example")).toBe(false);
  });

  it("refuses to listen beyond loopback without PARLEY_TOKEN", () => {
    expect(bindRefusal("127.0.0.1", undefined)).toBeNull();
    expect(bindRefusal("localhost", undefined)).toBeNull();
    expect(bindRefusal("0.0.0.0", "a-token-of-16-chars")).toBeNull();
    expect(bindRefusal("0.0.0.0", undefined)).toMatch(/PARLEY_TOKEN/);
    expect(bindRefusal("192.168.1.20", undefined)).toMatch(/Refusing to listen on 192\.168\.1\.20/);
  });
});

import { describe, expect, it } from "vitest";
import { AppError } from "../../protocol/errors";
import { callbackAllowed, checkCallbackUrl, DEFAULT_WEBHOOK_HOSTS, parseWebhookHosts } from "./callback-hosts";

describe("PARLEY_WEBHOOK_HOSTS", () => {
  it("is a comma list of exact hosts, compared case-insensitively, an IPv6 literal with or without brackets", () => {
    expect(parseWebhookHosts(" Hooks.Example.com, ,[::1],10.0.0.5 ")).toEqual(["hooks.example.com", "::1", "10.0.0.5"]);
    const hosts = parseWebhookHosts("hooks.example.com,::1");
    expect(callbackAllowed("https://HOOKS.example.com/parley?k=1", hosts)).toBe(true);
    expect(callbackAllowed("http://[::1]:8080/x", hosts)).toBe(true);
    // Exact: neither a subdomain nor a name that merely begins alike; a listed host's credentials part does not count as the host.
    expect(callbackAllowed("https://evil.hooks.example.com/", hosts)).toBe(false);
    expect(callbackAllowed("https://hooks.example.com.evil.net/", hosts)).toBe(false);
    expect(callbackAllowed("https://hooks.example.com@evil.net/", hosts)).toBe(false);
  });

  it("allows loopback alone by default", () => {
    for (const url of ["http://localhost:9000/cb", "http://127.0.0.1/cb", "http://[::1]/cb"]) expect(callbackAllowed(url, DEFAULT_WEBHOOK_HOSTS)).toBe(true);
    for (const url of ["http://169.254.169.254/latest/meta-data", "http://10.0.0.1/", "https://example.com/", "http://127.0.0.2/", "http://0.0.0.0/"]) {
      expect(callbackAllowed(url, DEFAULT_WEBHOOK_HOSTS)).toBe(false);
    }
  });

  it("refuses a host not allowed with callback_not_allowed, naming the setting and the host", () => {
    expect(() => checkCallbackUrl("http://127.0.0.1:1/", DEFAULT_WEBHOOK_HOSTS)).not.toThrow();
    let error: unknown;
    try {
      checkCallbackUrl("https://Example.com/hook", DEFAULT_WEBHOOK_HOSTS);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("callback_not_allowed");
    expect((error as AppError).message).toContain("PARLEY_WEBHOOK_HOSTS");
    expect((error as AppError).message).toContain('"example.com"');
  });
});

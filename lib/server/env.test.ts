import { describe, expect, it } from "vitest";
import { loadEnv } from "./env";

describe("the environment", () => {
  it("reads PARLEY_SANDBOX as auto or off, and refuses anything else at start", () => {
    expect(loadEnv({}).PARLEY_SANDBOX).toBeUndefined();
    expect(loadEnv({ PARLEY_SANDBOX: " OFF " }).PARLEY_SANDBOX).toBe("off");
    expect(() => loadEnv({ PARLEY_SANDBOX: "no" })).toThrow(/PARLEY_SANDBOX.*must be auto or off/);
  });

  it("runs the database with synchronous = FULL unless PARLEY_DB_SYNC asks for NORMAL", () => {
    expect(loadEnv({}).PARLEY_DB_SYNC).toBe("FULL");
    expect(loadEnv({ PARLEY_DB_SYNC: "NORMAL" }).PARLEY_DB_SYNC).toBe("NORMAL");
    expect(loadEnv({ PARLEY_DB_SYNC: "normal" }).PARLEY_DB_SYNC).toBe("NORMAL");
    expect(() => loadEnv({ PARLEY_DB_SYNC: "OFF" })).toThrow(/PARLEY_DB_SYNC/);
  });

  it("waits 10 s for a database lock held elsewhere unless PARLEY_DB_BUSY_TIMEOUT_MS says otherwise", () => {
    expect(loadEnv({}).PARLEY_DB_BUSY_TIMEOUT_MS).toBe(10_000);
    expect(loadEnv({ PARLEY_DB_BUSY_TIMEOUT_MS: "1500" }).PARLEY_DB_BUSY_TIMEOUT_MS).toBe(1_500);
    expect(() => loadEnv({ PARLEY_DB_BUSY_TIMEOUT_MS: "soon" })).toThrow(/PARLEY_DB_BUSY_TIMEOUT_MS/);
  });
});

describe("the log level", () => {
  it("is one of pino's levels when PARLEY_LOG_LEVEL is set; a typo stops start-up", () => {
    expect(loadEnv({}).PARLEY_LOG_LEVEL).toBeUndefined();
    expect(loadEnv({ PARLEY_LOG_LEVEL: " Debug " }).PARLEY_LOG_LEVEL).toBe("debug");
    expect(() => loadEnv({ PARLEY_LOG_LEVEL: "verbose" })).toThrow(/PARLEY_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent/);
  });
});

describe("the permission rules file", () => {
  it("is parley.permissions.json unless PARLEY_PERMISSIONS_FILE names another", () => {
    expect(loadEnv({}).PARLEY_PERMISSIONS_FILE).toBeUndefined();
    expect(loadEnv({ PARLEY_PERMISSIONS_FILE: " config/rules.json " }).PARLEY_PERMISSIONS_FILE).toBe("config/rules.json");
    expect(() => loadEnv({ PARLEY_PERMISSIONS_FILE: " " })).toThrow(/PARLEY_PERMISSIONS_FILE/);
  });
});

describe("the access settings", () => {
  it("takes PARLEY_TOKEN only when it is long enough to be a secret", () => {
    expect(loadEnv({}).PARLEY_TOKEN).toBeUndefined();
    expect(loadEnv({ PARLEY_TOKEN: "0123456789abcdef" }).PARLEY_TOKEN).toBe("0123456789abcdef");
    expect(() => loadEnv({ PARLEY_TOKEN: "short" })).toThrow(/PARLEY_TOKEN must be at least 16/);
    expect(() => loadEnv({ PARLEY_TOKEN: "with a space in it!" })).toThrow(/PARLEY_TOKEN/);
  });

  it("reads allowed origins as origins, and refuses what is not one", () => {
    expect(loadEnv({ PARLEY_ALLOWED_ORIGINS: "https://chat.example.com/, http://10.0.0.5:3000" }).PARLEY_ALLOWED_ORIGINS).toEqual(["https://chat.example.com", "http://10.0.0.5:3000"]);
    expect(() => loadEnv({ PARLEY_ALLOWED_ORIGINS: "chat.example.com" })).toThrow(/PARLEY_ALLOWED_ORIGINS/);
  });

  it("trusts no proxy unless PARLEY_TRUST_PROXY names them, and refuses what is not a hop count, true/false or addresses", () => {
    expect(loadEnv({}).PARLEY_TRUST_PROXY("127.0.0.1", 0)).toBe(false);
    expect(loadEnv({ PARLEY_TRUST_PROXY: "1" }).PARLEY_TRUST_PROXY("172.18.0.5", 0)).toBe(true);
    expect(loadEnv({ PARLEY_TRUST_PROXY: "loopback, 10.0.0.0/8" }).PARLEY_TRUST_PROXY("10.1.2.3", 0)).toBe(true);
    expect(loadEnv({ PARLEY_TRUST_PROXY: "loopback, 10.0.0.0/8" }).PARLEY_TRUST_PROXY("192.168.1.1", 0)).toBe(false);
    expect(() => loadEnv({ PARLEY_TRUST_PROXY: "nginx" })).toThrow(/PARLEY_TRUST_PROXY: "nginx" is not an IP address, a subnet/);
    expect(() => loadEnv({ PARLEY_TRUST_PROXY: "10.0.0.0/40" })).toThrow(/PARLEY_TRUST_PROXY/);
  });

  it("reads rate limits as NAME=COUNT/SECONDS, or off", () => {
    expect(loadEnv({}).PARLEY_RATE_LIMITS).toEqual({});
    expect(loadEnv({ PARLEY_RATE_LIMITS: "off" }).PARLEY_RATE_LIMITS).toBe("off");
    expect(loadEnv({ PARLEY_RATE_LIMITS: "replies=5/10, signIn=3/60" }).PARLEY_RATE_LIMITS).toEqual({ replies: { points: 5, seconds: 10 }, signIn: { points: 3, seconds: 60 } });
    expect(loadEnv({ PARLEY_RATE_LIMITS: "badTokens=20/60" }).PARLEY_RATE_LIMITS).toEqual({ badTokens: { points: 20, seconds: 60 } });
    expect(() => loadEnv({ PARLEY_RATE_LIMITS: "replies=5" })).toThrow(/NAME=COUNT\/SECONDS/);
    expect(() => loadEnv({ PARLEY_RATE_LIMITS: "bogus=5/10" })).toThrow(/PARLEY_RATE_LIMITS/);
  });
});

describe("webhooks", () => {
  it("allow loopback hosts unless PARLEY_WEBHOOK_HOSTS lists others; retry after 5 s unless PARLEY_WEBHOOK_RETRY_MS says otherwise", () => {
    expect(loadEnv({}).PARLEY_WEBHOOK_HOSTS).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(loadEnv({ PARLEY_WEBHOOK_HOSTS: "Hooks.example.com, 10.0.0.5" }).PARLEY_WEBHOOK_HOSTS).toEqual(["hooks.example.com", "10.0.0.5"]);
    expect(loadEnv({}).PARLEY_WEBHOOK_RETRY_MS).toBe(5_000);
    expect(loadEnv({ PARLEY_WEBHOOK_RETRY_MS: "100" }).PARLEY_WEBHOOK_RETRY_MS).toBe(100);
    expect(() => loadEnv({ PARLEY_WEBHOOK_RETRY_MS: "0" })).toThrow(/PARLEY_WEBHOOK_RETRY_MS/);
  });

  it("sign with PARLEY_WEBHOOK_SECRET only if it is a Standard Webhooks secret (whsec_ and base64); unset or empty: the kept one", () => {
    expect(loadEnv({}).PARLEY_WEBHOOK_SECRET).toBeUndefined();
    expect(loadEnv({ PARLEY_WEBHOOK_SECRET: "" }).PARLEY_WEBHOOK_SECRET).toBeUndefined();
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expect(loadEnv({ PARLEY_WEBHOOK_SECRET: secret }).PARLEY_WEBHOOK_SECRET).toBe(secret);
    for (const bad of ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_short", "whsec_not base64 at all, not at all!!"]) {
      expect(() => loadEnv({ PARLEY_WEBHOOK_SECRET: bad }), bad).toThrow(/PARLEY_WEBHOOK_SECRET: PARLEY_WEBHOOK_SECRET must be whsec_/);
    }
  });
});

describe("web push", () => {
  it("PARLEY_PUSH_HOSTS adds hosts (with a port or not); PARLEY_PUSH_RETRY_MS the retry base", () => {
    expect(loadEnv({}).PARLEY_PUSH_HOSTS).toEqual([]);
    expect(loadEnv({ PARLEY_PUSH_HOSTS: "Push.Local, 127.0.0.1:8443" }).PARLEY_PUSH_HOSTS).toEqual(["push.local", "127.0.0.1:8443"]);
    expect(loadEnv({}).PARLEY_PUSH_RETRY_MS).toBe(5_000);
    expect(loadEnv({ PARLEY_PUSH_RETRY_MS: "50" }).PARLEY_PUSH_RETRY_MS).toBe(50);
    expect(() => loadEnv({ PARLEY_PUSH_RETRY_MS: "0" })).toThrow(/PARLEY_PUSH_RETRY_MS/);
  });

  it("VAPID keys: both or neither, each a key; the subject mailto: or https:", () => {
    const publicKey = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM";
    const privateKey = "kZtEwEO2tDJVfy5nxwxLFgLx3ZE4M2n9UzWJcRJ4uiU";
    expect(loadEnv({}).PARLEY_VAPID_PUBLIC_KEY).toBeUndefined();
    expect(loadEnv({ PARLEY_VAPID_PUBLIC_KEY: publicKey, PARLEY_VAPID_PRIVATE_KEY: privateKey, PARLEY_VAPID_SUBJECT: "mailto:ops@example.com" })).toMatchObject({
      PARLEY_VAPID_PUBLIC_KEY: publicKey,
      PARLEY_VAPID_PRIVATE_KEY: privateKey,
      PARLEY_VAPID_SUBJECT: "mailto:ops@example.com",
    });
    expect(() => loadEnv({ PARLEY_VAPID_PUBLIC_KEY: publicKey })).toThrow(/PARLEY_VAPID_PRIVATE_KEY: set both/);
    expect(() => loadEnv({ PARLEY_VAPID_PRIVATE_KEY: privateKey })).toThrow(/PARLEY_VAPID_PUBLIC_KEY: set both/);
    expect(() => loadEnv({ PARLEY_VAPID_PUBLIC_KEY: privateKey, PARLEY_VAPID_PRIVATE_KEY: privateKey })).toThrow(/PARLEY_VAPID_PUBLIC_KEY must be a VAPID public key/);
    expect(() => loadEnv({ PARLEY_VAPID_SUBJECT: "ops@example.com" })).toThrow(/PARLEY_VAPID_SUBJECT must be a mailto:/);
    expect(loadEnv({ PARLEY_VAPID_SUBJECT: "https://example.com/ops" }).PARLEY_VAPID_SUBJECT).toBe("https://example.com/ops");
  });
});

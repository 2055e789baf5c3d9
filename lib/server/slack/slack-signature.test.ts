import { describe, expect, it } from "vitest";
import { slackRequestVerified, slackSignature } from "./slack-signature";

const secret = "8f742231b10e8888abcd99yyyzzz85a5";
const now = 1_531_420_618;
const body = "payload=%7B%22type%22%3A%22block_actions%22%7D";

describe("Slack's request signature", () => {
  it("matches Slack's own worked example (api.slack.com/authentication/verifying-requests-from-slack)", () => {
    const example =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    expect(slackSignature(secret, "1531420618", example)).toBe("v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
  });

  it("takes a request signed with the secret within five minutes", () => {
    const timestamp = String(now - 299);
    expect(slackRequestVerified({ secret, signature: slackSignature(secret, timestamp, body), timestamp, body, nowSeconds: now })).toBe(true);
  });

  it("refuses another secret, another body, an old or future timestamp, and a missing or malformed header", () => {
    const timestamp = String(now);
    const signed = slackSignature(secret, timestamp, body);
    const check = (over: Partial<Parameters<typeof slackRequestVerified>[0]>) => slackRequestVerified({ secret, signature: signed, timestamp, body, nowSeconds: now, ...over });
    expect(check({})).toBe(true);
    expect(check({ secret: "another-secret" })).toBe(false);
    expect(check({ body: `${body}x` })).toBe(false);
    expect(check({ timestamp: String(now - 301), signature: slackSignature(secret, String(now - 301), body) })).toBe(false);
    expect(check({ timestamp: String(now + 301), signature: slackSignature(secret, String(now + 301), body) })).toBe(false);
    expect(check({ signature: null })).toBe(false);
    expect(check({ timestamp: null })).toBe(false);
    expect(check({ timestamp: "12.5" })).toBe(false);
    expect(check({ signature: signed.slice(0, -1) })).toBe(false);
    expect(check({ signature: signed.replace("v0=", "v1=") })).toBe(false);
  });
});

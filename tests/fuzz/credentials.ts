import fc from "fast-check";
import { TEST_TOKEN } from "../helpers/server-process";

/**
 * The credential and origin headers of a fuzzed request. `valid: false` means the gate must refuse
 * it whatever the body (401 or 403), so the suite aims such requests at the sentinel even with a
 * valid body.
 */
export interface HeaderPart {
  what: string;
  headers: Record<string, string>;
  valid: boolean;
}

const BAD_CREDENTIALS: HeaderPart[] = [
  { what: "no credential", headers: {}, valid: false },
  { what: "wrong bearer", headers: { authorization: "Bearer wrong-token" }, valid: false },
  { what: "empty bearer", headers: { authorization: "Bearer " }, valid: false },
  { what: "token with a suffix", headers: { authorization: `Bearer ${TEST_TOKEN}x` }, valid: false },
  { what: "token without its last character", headers: { authorization: `Bearer ${TEST_TOKEN.slice(0, -1)}` }, valid: false },
  { what: "basic auth", headers: { authorization: `Basic ${Buffer.from(`x:${TEST_TOKEN}`).toString("base64")}` }, valid: false },
  { what: "unknown API token", headers: { authorization: "Bearer pat_abcdefgh12345678_abcdefghijklmnopqrstuvwxyz" }, valid: false },
  { what: "very long bearer", headers: { authorization: `Bearer ${"t".repeat(8_000)}` }, valid: false },
  { what: "forged cookie", headers: { cookie: "parley_session=local.forged-signature" }, valid: false },
  { what: "token as a cookie", headers: { cookie: `parley_session=${TEST_TOKEN}` }, valid: false },
];

export const GOOD_CREDENTIAL: HeaderPart = { what: "server token", headers: { authorization: `Bearer ${TEST_TOKEN}` }, valid: true };

export const credentialArb: fc.Arbitrary<HeaderPart> = fc.oneof({ weight: 12, arbitrary: fc.constant(GOOD_CREDENTIAL) }, { weight: 3, arbitrary: fc.constantFrom(...BAD_CREDENTIALS) });

/** Origins of a write: none or this server's pass; another site's never does. */
export function originArb(serverUrl: string): fc.Arbitrary<HeaderPart> {
  const own = new URL(serverUrl).origin;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<HeaderPart>({ what: "no origin", headers: {}, valid: true }) },
    { weight: 1, arbitrary: fc.constant<HeaderPart>({ what: "own origin", headers: { origin: own }, valid: true }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<HeaderPart>(
        { what: "evil origin", headers: { origin: "https://evil.example" }, valid: false },
        { what: "null origin", headers: { origin: "null" }, valid: false },
        { what: "other port", headers: { origin: `http://127.0.0.1:${Number(new URL(serverUrl).port) + 1}` }, valid: false },
        { what: "origin as a suffix", headers: { origin: `${own}.evil.example` }, valid: false },
        { what: "sec-fetch-site cross-site", headers: { "sec-fetch-site": "cross-site" }, valid: false },
      ),
    },
  );
}

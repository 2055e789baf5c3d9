import fc from "fast-check";

/**
 * Path segments for a route's `:id`, already in request-target form (percent-encoded where
 * needed): ids that name nothing, malformed percent-encoding, very long ids, encoded separators.
 * None of them names an existing entity.
 */

/** Malformed percent-encoding: decodeURIComponent throws on each. */
export const MALFORMED_ENCODINGS = ["%ff", "%E0%A4%A", "%", "%%", "%zz", "%c0%af", "%ED%A0%80", "abc%", "%u0041", "%F0%9F%98", "%80", "%C3", "%E2%82", "%fe%ff", "x%2"];

/** Well-formed but odd: separators, dot segments, NUL, spaces, SQL and template look-alikes, scripts. */
export const ODD_IDS = [
  "%2F",
  "a%2Fb",
  "%2e%2e",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "a%00b",
  "%20",
  "%09",
  "'%20OR%201=1--",
  "%22%3E%3Cscript%3E",
  "${id}",
  "%7B%7Bid%7D%7D",
  "%E2%9C%93",
  "%F0%9F%98%80",
  "null",
  "undefined",
  "0",
  "-1",
  "NaN",
  "__proto__",
  "constructor",
  "%5F%5Fproto%5F%5F",
  "hasOwnProperty",
];

/** A uuid or cuid-like id that exists nowhere. */
export const missingIdArb: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789"), minLength: 8, maxLength: 40 }).map((s) => `c${s}`),
);

/** Very long ids: within Node's 16 KiB header limit (a request line above it never reaches the app). */
export const longIdArb = fc.integer({ min: 256, max: 12_000 }).map((n) => "i".repeat(n));

/** Any text, percent-encoded as a client would send it. */
export const encodedTextIdArb = fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map((s) => encodeURIComponent(s));

/** How an id is bad, which says what the answer must be: 400 for malformed encoding, 404 for a well-formed id that names nothing, some 4xx for the odd ones. */
export type IdKind = "missing" | "malformed" | "odd" | "long" | "encoded";

export const badIdArb: fc.Arbitrary<{ id: string; kind: IdKind }> = fc.oneof(
  { weight: 3, arbitrary: missingIdArb.map((id) => ({ id, kind: "missing" as const })) },
  { weight: 3, arbitrary: fc.constantFrom(...MALFORMED_ENCODINGS).map((id) => ({ id, kind: "malformed" as const })) },
  // Malformed encoding after a plausible id.
  { weight: 1, arbitrary: fc.tuple(missingIdArb, fc.constantFrom(...MALFORMED_ENCODINGS)).map(([id, bad]) => ({ id: `${id}${bad}`, kind: "malformed" as const })) },
  { weight: 2, arbitrary: fc.constantFrom(...ODD_IDS).map((id) => ({ id, kind: "odd" as const })) },
  { weight: 1, arbitrary: longIdArb.map((id) => ({ id, kind: "long" as const })) },
  { weight: 2, arbitrary: encodedTextIdArb.map((id) => ({ id, kind: "encoded" as const })) },
);

/** Wraps the sentinel's id so it is no longer its id (case, padding, encoding, suffix). */
export function nearMissesOf(id: string): string[] {
  return [id.toUpperCase(), `${id}%20`, `%20${id}`, `${id}x`, id.slice(0, -1), `${id}%00`, `${id}%2F`, encodeURIComponent(`${id}\n`)].filter((v) => v !== id);
}

import fc from "fast-check";

/** Bodies and content types below the JSON level: what a gate or a body reader meets before any schema. */

export interface RawBody {
  what: string;
  bytes: Buffer;
}

const text = (what: string, s: string): RawBody => ({ what, bytes: Buffer.from(s, "utf8") });
const bytes = (what: string, b: number[]): RawBody => ({ what, bytes: Buffer.from(b) });

export const FIXED_RAW_BODIES: RawBody[] = [
  text("empty", ""),
  text("blank", " \n\t "),
  text("truncated JSON", '{"value": "x"'),
  text("JSON then garbage", '{"value":"x"} trailing'),
  text("two JSON values", "{}{}"),
  text("single quotes", "{'value': 'x'}"),
  text("unquoted key", "{value: 1}"),
  text("trailing comma", '{"value": 1,}'),
  text("comment", '{"value": 1 /* c */}'),
  text("form-encoded", "value=staging&digest="),
  text("XML", "<reply><value>x</value></reply>"),
  text("NaN", '{"value": NaN}'),
  text("lone surrogate escape", '{"value": "\\ud800"}'),
  text("NUL escapes", '{"value": "\\u0000\\u0000"}'),
  text("BOM then JSON", '\ufeff{"value":"x"}'),
  text("just null", "null"),
  text("just a string", '"value"'),
  bytes("invalid UTF-8 (ff fe)", [0xff, 0xfe, 0x7b, 0x7d]),
  bytes("invalid UTF-8 in a string", [...Buffer.from('{"value":"'), 0xc3, 0x28, ...Buffer.from('"}')]),
  bytes("overlong UTF-8 slash", [...Buffer.from('{"value":"'), 0xc0, 0xaf, ...Buffer.from('"}')]),
  bytes("UTF-8 encoded surrogate", [...Buffer.from('{"value":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
  bytes("raw NUL bytes", [0x7b, 0x00, 0x00, 0x7d]),
  { what: "UTF-16LE JSON", bytes: Buffer.from('{"value":"x"}', "utf16le") },
];

/** A fixed bad body, or random bytes, or random text. */
export const rawBodyArb: fc.Arbitrary<RawBody> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FIXED_RAW_BODIES) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => ({ what: `random bytes (${b.length})`, bytes: Buffer.from(b) })) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 200 }).map((s) => text(`random text (${s.length})`, s)) },
);

/** Content types a JSON route must accept (`json: true`) or refuse with 415. `undefined`: no header. */
export const CONTENT_TYPES: Array<{ type: string | undefined; json: boolean }> = [
  { type: "application/json", json: true },
  { type: "application/json; charset=utf-8", json: true },
  { type: "Application/JSON", json: true },
  { type: undefined, json: false },
  { type: "", json: false },
  { type: "text/plain", json: false },
  { type: "text/plain; charset=utf-8", json: false },
  { type: "application/x-www-form-urlencoded", json: false },
  { type: "multipart/form-data; boundary=xyz", json: false },
  { type: "application/jsonx", json: false },
  { type: "application/json-patch+json", json: false },
  { type: "application/ld+json", json: false },
  { type: "json", json: false },
  { type: "*/*", json: false },
];

export const jsonContentTypeArb = fc.constantFrom(...CONTENT_TYPES.filter((c) => c.json).map((c) => c.type));
export const wrongContentTypeArb = fc.constantFrom(...CONTENT_TYPES.filter((c) => !c.json).map((c) => c.type));
export const anyContentTypeArb = fc.oneof({ weight: 4, arbitrary: jsonContentTypeArb }, { weight: 1, arbitrary: wrongContentTypeArb });

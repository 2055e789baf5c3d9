import { BODY_LIMIT } from "./big-json";
import { CONTENT_TYPES } from "./raw-bodies";
import { isValid } from "./schema-arbitrary";
import type { BodySpec } from "./route-specs";

/**
 * Whether a route must take a body as valid, from the contract alone: a JSON content type (none
 * needed for an empty body), within the body limit, parseable, and passing the route's schema (an
 * empty or blank body is `{}` where the body is optional). Only such bodies may change anything;
 * the suite aims every other one at the sentinel.
 */
export function bodyAccepted(spec: BodySpec, contentType: string | undefined, bytes: Buffer): boolean {
  if (bytes.length === 0) return spec.optional;
  if (!isJsonContentType(contentType)) return false;
  if (bytes.length > BODY_LIMIT) return false;
  const text = bytes.toString("utf8");
  if (text.trim() === "") return spec.optional;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return false;
  }
  return isValid(spec.schema, data);
}

export function isJsonContentType(contentType: string | undefined): boolean {
  const known = CONTENT_TYPES.find((c) => c.type === contentType);
  if (!known) throw new Error(`the suite does not know whether ${contentType} is JSON`);
  return known.json;
}

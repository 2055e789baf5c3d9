import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh random secret, URL-safe. */
export const randomSecret = (bytes = 24): string => randomBytes(bytes).toString("base64url");

export const sha256 = (text: string): Buffer => createHash("sha256").update(text).digest();

/** Compares two secrets in constant time (by their hashes, so lengths may differ). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/** What VAPID keys and subjects look like (env.ts checks them at start-up, before web-push or the database are loaded). */

const bytesOf = (base64url: string) => Buffer.from(base64url, "base64url");
/** A VAPID public key: base64url of an uncompressed P-256 point. */
export const isVapidPublicKey = (key: string) => /^[A-Za-z0-9_-]+=*$/.test(key) && bytesOf(key).length === 65 && bytesOf(key)[0] === 4;
/** A VAPID private key: base64url of 32 bytes. */
export const isVapidPrivateKey = (key: string) => /^[A-Za-z0-9_-]+=*$/.test(key) && bytesOf(key).length === 32;
/** A VAPID subject as push services take it. */
export const isVapidSubject = (subject: string) => /^mailto:[^\s@]+@[^\s@]+$/.test(subject) || (URL.canParse(subject) && new URL(subject).protocol === "https:");

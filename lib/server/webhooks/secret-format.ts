import { randomBytes } from "node:crypto";

/** A Standard Webhooks secret: `whsec_` and the key, base64 (24 random bytes and more). */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/;

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

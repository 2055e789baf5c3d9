import { AppError } from "../protocol/errors";
import type { Db } from "../server/store/db/client";
import { WEBHOOK_SECRET_PATTERN } from "../server/webhooks/secret-format";
import { loadWebhookSecret } from "../server/webhooks/webhook-secret";

export interface WebhookSecretResult {
  secret: string;
  /** Where the server takes it from: PARLEY_WEBHOOK_SECRET, or the one kept in the database. */
  source: "environment" | "database";
}

/**
 * `parley webhook-secret`: the secret callbacks are signed with, for their receivers to verify
 * with. PARLEY_WEBHOOK_SECRET when set; otherwise the database's, made now if no server made it
 * yet (the server then signs with the same), so it works without a running server.
 */
export async function webhookSecretCommand(configured: string | undefined, inDatabase: (work: (db: Db) => Promise<string>) => Promise<string>): Promise<{ result: WebhookSecretResult; text: string }> {
  if (configured) {
    if (!WEBHOOK_SECRET_PATTERN.test(configured)) throw new AppError("bad_request", "PARLEY_WEBHOOK_SECRET must be whsec_ followed by a base64 key of 24 bytes or more.");
    return { result: { secret: configured, source: "environment" }, text: configured };
  }
  const secret = await inDatabase((db) => loadWebhookSecret(db));
  return { result: { secret, source: "database" }, text: secret };
}

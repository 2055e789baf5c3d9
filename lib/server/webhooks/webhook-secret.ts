import { putSetting } from "../store/access/access-statements";
import type { Db } from "../store/db/client";
import { newWebhookSecret } from "./secret-format";

const SECRET_SETTING = "webhook-secret";

/**
 * The secret webhooks are signed with: PARLEY_WEBHOOK_SECRET when set, else one made once and
 * kept in the database (so a restart, and every node of the database, signs with the same).
 */
export async function loadWebhookSecret(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  return (await db.exec.write(putSetting, { key: SECRET_SETTING, value: newWebhookSecret(), replace: null }))[0]!.value;
}

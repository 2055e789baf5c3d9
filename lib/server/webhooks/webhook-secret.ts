import type { Db } from "../store/db/client";
import { createSettingStore } from "../store/access/setting-store";
import { newWebhookSecret } from "./secret-format";

const SECRET_SETTING = "webhook-secret";

/**
 * The secret webhooks are signed with: PARLEY_WEBHOOK_SECRET when set, else one made once and
 * kept in the database (so a restart, and every node of the database, signs with the same).
 */
export async function loadWebhookSecret(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  return createSettingStore(db.exec).keep(SECRET_SETTING, newWebhookSecret());
}

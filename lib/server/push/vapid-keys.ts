import webpush from "web-push";
import { z } from "zod";
import type { Db } from "../store/db/client";
import { createSettingStore } from "../store/access/setting-store";
import { isVapidPrivateKey, isVapidPublicKey } from "./vapid-format";

export { isVapidPrivateKey, isVapidPublicKey, isVapidSubject } from "./vapid-format";

const KEYS_SETTING = "vapid-keys";

/** Who runs this server, for push services to reach (web-push wants mailto: or https:). Apple may refuse a placeholder: set PARLEY_VAPID_SUBJECT. */
export const DEFAULT_VAPID_SUBJECT = "mailto:parley@localhost";

export interface VapidKeys {
  /** base64url, the uncompressed P-256 point (65 bytes) browsers subscribe with. */
  publicKey: string;
  /** base64url, 32 bytes. */
  privateKey: string;
  subject: string;
}

const KeptKeysSchema = z.object({ publicKey: z.string().refine(isVapidPublicKey), privateKey: z.string().refine(isVapidPrivateKey) });

/**
 * The VAPID keys pushes are signed with: PARLEY_VAPID_PUBLIC_KEY and _PRIVATE_KEY when set, else a
 * pair made once and kept in the database (so a restart, and every node of the database, signs
 * with the key browsers subscribed with: a new key would orphan every subscription).
 */
export async function loadVapidKeys(db: Db, { publicKey, privateKey, subject = DEFAULT_VAPID_SUBJECT }: { publicKey?: string; privateKey?: string; subject?: string } = {}): Promise<VapidKeys> {
  if (publicKey && privateKey) return { publicKey, privateKey, subject };
  const made = JSON.stringify(webpush.generateVAPIDKeys());
  const kept = await createSettingStore(db.exec).keep(KEYS_SETTING, made);
  const parsed = KeptKeysSchema.safeParse(JSON.parse(kept));
  if (!parsed.success) throw new Error(`The VAPID keys kept in the database (setting ${KEYS_SETTING}) are not a key pair: delete that setting to make new ones (every device subscribes again).`);
  return { ...parsed.data, subject };
}

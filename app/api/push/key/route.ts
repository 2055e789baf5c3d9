import { jsonRoute } from "@/lib/server/http/json-route";
import type { PushKey } from "@/lib/protocol/push";

export const dynamic = "force-dynamic";

/** The VAPID public key a browser subscribes with (`pushManager.subscribe({ applicationServerKey })`). */
export const GET = jsonRoute(async ({ parley }): Promise<PushKey> => ({ publicKey: parley.push.publicKey }));

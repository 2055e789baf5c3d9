import { randomBytes } from "node:crypto";
import { API_TOKEN_PATTERN, ApiTokenScopeSchema, type ApiTokenInfo, type ApiTokenScope } from "../../protocol/access";
import { AppError } from "../../protocol/errors";
import type { Db } from "../store/db/client";
import { createTokenStore, type ApiTokenRow } from "../store/access/token-store";
import { randomSecret, sameSecret, sha256 } from "./secrets";

const LAST_USED_EVERY_MS = 60_000;

const toInfo = (row: ApiTokenRow): ApiTokenInfo => ({
  id: row.id,
  ownerId: row.ownerId,
  name: row.name,
  scope: scopeOf(row.scope),
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

/** A scope this version does not know is read as the narrowest. */
const scopeOf = (stored: string): ApiTokenScope => ApiTokenScopeSchema.catch("ask").parse(stored);

/** Long-lived credentials for scripts, channels and the terminal client; the secret is stored only as a hash. */
export function createApiTokens(db: Db) {
  const store = createTokenStore(db.exec);
  const lastWritten = new Map<string, number>();
  const find = store.find;

  return {
    async create({ ownerId, name, scope = "full" }: { ownerId: string; name: string; scope?: ApiTokenScope }): Promise<{ token: string; info: ApiTokenInfo }> {
      const id = randomBytes(8).toString("hex");
      const secret = randomSecret(30);
      const row = await store.insert({ id, ownerId, name, secretHash: sha256(secret).toString("hex"), scope, at: new Date() });
      return { token: `pat_${id}_${secret}`, info: toInfo(row) };
    },

    list: async (): Promise<ApiTokenInfo[]> => (await store.list()).map(toInfo),

    /** A token's name by its id (null for an id of no token): what a run's starter line shows. */
    nameOf: async (id: string): Promise<string | null> => (await find(id))?.name ?? null,

    /** Revoking twice is not an error; an unknown id is. */
    async revoke(id: string): Promise<ApiTokenInfo> {
      const row = await store.revoke(id, new Date());
      if (!row) throw new AppError("bad_request", `No API token with id "${id}".`);
      return toInfo(row);
    },

    /** Which of these token ids are still live (not revoked, not deleted). */
    liveIds: async (ids: string[]): Promise<Set<string>> => new Set((await store.list()).filter((r) => !r.revokedAt && ids.includes(r.id)).map((r) => r.id)),

    /** The token's id and owner when it is a live API token; null otherwise. Read from the database each time, so a revocation takes effect at once. */
    async verify(token: string): Promise<{ id: string; ownerId: string; scope: ApiTokenScope } | null> {
      const match = API_TOKEN_PATTERN.exec(token);
      if (!match) return null;
      const [, id, secret] = match as unknown as [string, string, string];
      const row = await find(id);
      if (!row || row.revokedAt || !sameSecret(sha256(secret).toString("hex"), row.secretHash)) return null;
      const now = Date.now();
      if (now - (lastWritten.get(id) ?? 0) > LAST_USED_EVERY_MS) {
        lastWritten.set(id, now);
        // Not awaited: under another process's write lock this write waits, and the request must not.
        void store.touch(id, new Date(now)).catch(() => {});
      }
      return { id, ownerId: row.ownerId, scope: scopeOf(row.scope) };
    },
  };
}

export type ApiTokens = ReturnType<typeof createApiTokens>;

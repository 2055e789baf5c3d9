import { randomBytes } from "node:crypto";
import { API_TOKEN_PATTERN, type ApiTokenInfo } from "../../protocol/access";
import { AppError } from "../../protocol/errors";
import type { Db } from "../db/client";
import { randomSecret, sameSecret, sha256 } from "./secrets";

const LAST_USED_EVERY_MS = 60_000;

type TokenRow = { id: string; ownerId: string; name: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };

const toInfo = (row: TokenRow): ApiTokenInfo => ({
  id: row.id,
  ownerId: row.ownerId,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

/** Long-lived credentials for scripts, channels and the terminal client; the secret is stored only as a hash. */
export function createApiTokens(db: Db) {
  const lastWritten = new Map<string, number>();

  return {
    async create({ ownerId, name }: { ownerId: string; name: string }): Promise<{ token: string; info: ApiTokenInfo }> {
      const id = randomBytes(8).toString("hex");
      const secret = randomSecret(30);
      const row = await db.apiToken.create({ data: { id, ownerId, name, secretHash: sha256(secret).toString("hex") } });
      return { token: `pat_${id}_${secret}`, info: toInfo(row) };
    },

    async list(): Promise<ApiTokenInfo[]> {
      return (await db.apiToken.findMany({ orderBy: { createdAt: "asc" } })).map(toInfo);
    },

    /** A token's name by its id (null for an id of no token): what a run's starter line shows. */
    async nameOf(id: string): Promise<string | null> {
      return (await db.apiToken.findUnique({ where: { id }, select: { name: true } }))?.name ?? null;
    },

    /** Revoking twice is not an error; an unknown id is. */
    async revoke(id: string): Promise<ApiTokenInfo> {
      const row = await db.apiToken.findUnique({ where: { id } });
      if (!row) throw new AppError("bad_request", `No API token with id "${id}".`);
      if (row.revokedAt) return toInfo(row);
      return toInfo(await db.apiToken.update({ where: { id }, data: { revokedAt: new Date() } }));
    },

    /** Which of these token ids are still live (not revoked, not deleted). */
    async liveIds(ids: string[]): Promise<Set<string>> {
      const rows = await db.apiToken.findMany({ where: { id: { in: ids }, revokedAt: null }, select: { id: true } });
      return new Set(rows.map((r) => r.id));
    },

    /** The token's id and owner when it is a live API token; null otherwise. Read from the database each time, so a revocation takes effect at once. */
    async verify(token: string): Promise<{ id: string; ownerId: string } | null> {
      const match = API_TOKEN_PATTERN.exec(token);
      if (!match) return null;
      const [, id, secret] = match as unknown as [string, string, string];
      const row = await db.apiToken.findUnique({ where: { id } });
      if (!row || row.revokedAt || !sameSecret(sha256(secret).toString("hex"), row.secretHash)) return null;
      const now = Date.now();
      if (now - (lastWritten.get(id) ?? 0) > LAST_USED_EVERY_MS) {
        lastWritten.set(id, now);
        // Not awaited: under another process's write lock this write waits, and the request must not.
        void db.apiToken.update({ where: { id }, data: { lastUsedAt: new Date(now) } }).catch(() => {});
      }
      return { id, ownerId: row.ownerId };
    },
  };
}

export type ApiTokens = ReturnType<typeof createApiTokens>;

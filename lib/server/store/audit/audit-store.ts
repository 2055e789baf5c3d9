import type { Db } from "../db/client";
import type { RowOf } from "../typed-sql";
import * as A from "./audit-statements";

export type SettledRow = RowOf<typeof A.settledPage>;
export type VoteRow = RowOf<typeof A.votesOf>;

export interface PageRequest {
  /** The reader: a person's name, or null for an administrator (every session). */
  viewer: string | null;
  sessionId: string | null;
  after: { at: Date; id: string | null } | null;
  limit: number;
}

/** The audit's reads: the settled questions a reader may see, a page at a time, with their votes. */
export function createAuditStore({ exec }: Db) {
  return {
    /** The id of a session the reader may see, named by its id or its title; null when there is none. */
    async sessionNamed(viewer: string | null, name: string): Promise<string | null> {
      const [found] = await exec.rows(A.visibleSessionNamed, { viewer, name });
      return found?.id ?? null;
    },

    /** A page of settled questions and their votes; `more` when others follow it (one row more is read to know). */
    async page({ viewer, sessionId, after, limit }: PageRequest): Promise<{ rows: SettledRow[]; votes: VoteRow[]; more: boolean }> {
      const read = await exec.rows(A.settledPage, { viewer, sessionId, afterAt: after?.at ?? null, afterId: after?.id ?? null, limit: limit + 1 });
      const rows = read.slice(0, limit);
      const votes = rows.length === 0 ? [] : await exec.rows(A.votesOf, { ids: JSON.stringify(rows.map((r) => r.id)) });
      return { rows, votes, more: read.length > limit };
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;

import type { Db } from "../store/db/client";
import { createSettingStore } from "../store/access/setting-store";
import { randomSecret } from "./secrets";

const EPOCH_SETTING = "session_epoch";
/**
 * How long a node believes the epoch it read. A revocation made on this node, or told over the
 * cluster bus, takes effect at once; one the node is not told about (the CLI writing the database,
 * a node cut off from Redis) within this time.
 */
export const EPOCH_CACHE_MS = 1_000;

/**
 * The revocation epoch browser session cookies are signed in (a random value in the Setting table,
 * shared by every node of the database). "Sign out everywhere" replaces it. Read on the hot path
 * (every cookie request and socket handshake), so it is cached for EPOCH_CACHE_MS.
 */
export async function openSessionEpoch(db: Db, { now = Date.now, cacheMs = EPOCH_CACHE_MS }: { now?: () => number; cacheMs?: number } = {}) {
  const settings = createSettingStore(db.exec);
  const put = (replace: string | null) => (replace === null ? settings.keep(EPOCH_SETTING, randomSecret(12)) : settings.replace(EPOCH_SETTING, replace));
  let cached = { value: await put(null), readAt: now() };
  /** Bumped by every renewal and every forget: a read that started before one may not set the cache after it. */
  let generation = 0;
  let reading: { generation: number; value: Promise<string> } | null = null;

  function read(): Promise<string> {
    if (reading?.generation === generation) return reading.value;
    const started = generation;
    const value = (async () => {
      const readAt = now();
      const stored = await settings.read(EPOCH_SETTING);
      if (stored === undefined) throw new Error(`the ${EPOCH_SETTING} setting is missing from the database`);
      if (generation === started) cached = { value: stored, readAt };
      return stored;
    })().finally(() => {
      if (reading?.value === value) reading = null;
    });
    reading = { generation: started, value };
    return value;
  }

  return {
    /** The epoch, as read at most EPOCH_CACHE_MS ago. */
    current(): Promise<string> {
      return now() - cached.readAt < cacheMs ? Promise.resolve(cached.value) : read();
    },
    /** The epoch as the database has it now (a cookie from another node may be newer than the cache). */
    fresh: read,
    /** A new epoch, in the database and here: every cookie signed in an earlier one is refused from now on. */
    async renew(): Promise<string> {
      generation++;
      const value = await put(randomSecret(12));
      generation++;
      cached = { value, readAt: now() };
      return value;
    },
    /** Another node renewed it: the next check reads the database. */
    forget(): void {
      generation++;
      cached = { value: cached.value, readAt: -Infinity };
    },
  };
}

export type SessionEpoch = Awaited<ReturnType<typeof openSessionEpoch>>;

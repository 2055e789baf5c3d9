import type { PeopleStore } from "../store/people/people-store";

/**
 * How long a node believes the people it read. A change made on this node, or told over the
 * cluster bus, takes effect at once; one it is not told about (the CLI writing the database, a
 * node cut off from Redis) within this time.
 */
export const PEOPLE_CACHE_MS = 1_000;

/** What a credential check needs of a person. */
export interface KnownPerson {
  admin: boolean;
  /** When this person was added (ms): a credential issued before it was someone's of the same name, removed since. */
  createdAt: number;
}

/**
 * Who exists, for the authenticator: every request and socket handshake of a person asks, so the
 * whole (small) table is read at most once per PEOPLE_CACHE_MS. A name not among those read is
 * looked up once more (another node may have added the person a moment ago).
 */
export function createPeopleCache(store: Pick<PeopleStore, "list">, { now = Date.now, cacheMs = PEOPLE_CACHE_MS }: { now?: () => number; cacheMs?: number } = {}) {
  let cached: { people: Map<string, KnownPerson>; readAt: number; tick: number } | null = null;
  /** Bumped by every forget: a read that started before one may not set the cache after it. */
  let generation = 0;
  /** Counts the reads started: a lookup of a name not found needs a read begun after it asked. */
  let ticks = 0;
  let reading: { generation: number; tick: number; people: Promise<Map<string, KnownPerson>> } | null = null;

  /** The people as a read begun at `notBefore` or later finds them (one under way is shared). */
  function read(notBefore = 0): Promise<Map<string, KnownPerson>> {
    if (reading?.generation === generation && reading.tick >= notBefore) return reading.people;
    const started = generation;
    const tick = ++ticks;
    const people = (async () => {
      const readAt = now();
      const rows = await store.list();
      const map = new Map(rows.map((r) => [r.id, { admin: r.admin, createdAt: r.createdAt.getTime() }]));
      if (generation === started && (cached === null || tick > cached.tick)) cached = { people: map, readAt, tick };
      return map;
    })().finally(() => {
      if (reading?.people === people) reading = null;
    });
    reading = { generation: started, tick, people };
    return people;
  }

  return {
    /** The person of this name, as read at most PEOPLE_CACHE_MS ago (or just now, for a name that was not there); null for none. */
    async get(name: string): Promise<KnownPerson | null> {
      // A read started before this lookup may miss a person added just before it (the CLI, another node).
      const asked = ticks + 1;
      const fresh = cached !== null && now() - cached.readAt < cacheMs;
      const known = (fresh ? cached!.people : await read()).get(name);
      if (known || (cached !== null && cached.tick >= asked)) return known ?? null;
      return (await read(asked)).get(name) ?? null;
    },
    /** People changed (here, or on another node): the next check reads the database. */
    forget(): void {
      generation++;
      cached = null;
    },
  };
}

export type PeopleCache = ReturnType<typeof createPeopleCache>;

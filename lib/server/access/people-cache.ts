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
  let cached: { people: Map<string, KnownPerson>; readAt: number } | null = null;
  /** Bumped by every forget: a read that started before one may not set the cache after it. */
  let generation = 0;
  let reading: { generation: number; people: Promise<Map<string, KnownPerson>> } | null = null;

  function read(): Promise<Map<string, KnownPerson>> {
    if (reading?.generation === generation) return reading.people;
    const started = generation;
    const people = (async () => {
      const readAt = now();
      const rows = await store.list();
      const map = new Map(rows.map((r) => [r.id, { admin: r.admin, createdAt: r.createdAt.getTime() }]));
      if (generation === started) cached = { people: map, readAt };
      return map;
    })().finally(() => {
      if (reading?.people === people) reading = null;
    });
    reading = { generation: started, people };
    return people;
  }

  return {
    /** The person of this name, as read at most PEOPLE_CACHE_MS ago (or just now, for a name that was not there); null for none. */
    async get(name: string): Promise<KnownPerson | null> {
      const fresh = cached !== null && now() - cached.readAt < cacheMs;
      const known = (fresh ? cached!.people : await read()).get(name);
      if (known || !fresh) return known ?? null;
      return (await read()).get(name) ?? null;
    },
    /** People changed (here, or on another node): the next check reads the database. */
    forget(): void {
      generation++;
      cached = null;
    },
  };
}

export type PeopleCache = ReturnType<typeof createPeopleCache>;

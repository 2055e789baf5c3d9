import type { ShowOptions, SwEnv, WindowClientLike } from "./sw-env";

/** A service worker's environment for tests: notifications, clients, caches and fetch are recorded. */
export interface FakeSw {
  env: SwEnv;
  shown: { title: string; options: ShowOptions; closed: boolean }[];
  fetched: { url: string; init?: RequestInit }[];
  opened: string[];
  windows: (WindowClientLike & { focused: number })[];
  slept: number[];
  cacheStore: Map<string, Map<string, Response>>;
  /** What fetch answers; throw for a network failure. */
  respond: (url: string, init?: RequestInit) => Response | Promise<Response>;
}

const keyOf = (r: RequestInfo | URL) => (typeof r === "string" ? r : r instanceof URL ? r.href : r.url);

function fakeCaches(store: Map<string, Map<string, Response>>, fetcher: typeof fetch): CacheStorage {
  const open = async (name: string) => {
    if (!store.has(name)) store.set(name, new Map());
    const entries = store.get(name)!;
    const cache = {
      match: async (r: RequestInfo | URL) => entries.get(keyOf(r))?.clone(),
      put: async (r: RequestInfo | URL, res: Response) => void entries.set(keyOf(r), res),
      add: async (r: RequestInfo | URL) => void entries.set(keyOf(r), await fetcher(r)),
      addAll: async (rs: (RequestInfo | URL)[]) => {
        for (const r of rs) entries.set(keyOf(r), await fetcher(r));
      },
      delete: async (r: RequestInfo | URL) => entries.delete(keyOf(r)),
      keys: async () => [...entries.keys()].map((u) => new Request(u)),
    };
    return cache as unknown as Cache;
  };
  return {
    open,
    has: async (name: string) => store.has(name),
    delete: async (name: string) => store.delete(name),
    keys: async () => [...store.keys()],
    match: async (r: RequestInfo | URL, o?: MultiCacheQueryOptions) => {
      const names = o?.cacheName ? [o.cacheName] : [...store.keys()];
      for (const n of names) {
        const hit = store.get(n)?.get(new URL(keyOf(r), ORIGIN).href);
        if (hit) return hit.clone();
      }
      return undefined;
    },
  };
}

export const ORIGIN = "https://parley.example";

export function fakeSw({ maxActions = 2, windows = [] as string[] } = {}): FakeSw {
  let uuids = 0;
  const fake: FakeSw = {
    shown: [],
    fetched: [],
    opened: [],
    slept: [],
    cacheStore: new Map(),
    windows: windows.map((url) => {
      const w = { url, focused: 0, focus: async () => void w.focused++, navigate: async (to: string) => void (w.url = to) };
      return w;
    }),
    respond: () => new Response("{}", { status: 200 }),
    env: undefined as unknown as SwEnv,
  };
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = keyOf(input);
    fake.fetched.push({ url, init });
    return fake.respond(url, init);
  }) as typeof fetch;
  fake.env = {
    origin: ORIGIN,
    version: "build-2",
    dev: false,
    registration: {
      showNotification: async (title, options) => {
        for (const s of fake.shown) if (s.options.tag === options.tag) s.closed = true;
        fake.shown.push({ title, options, closed: false });
      },
      getNotifications: async (filter) =>
        fake.shown.filter((s) => !s.closed && (!filter?.tag || s.options.tag === filter.tag)).map((s) => ({ tag: s.options.tag, data: s.options.data, close: () => void (s.closed = true) })),
      pushManager: { subscribe: async () => ({ endpoint: "https://push.example/new", toJSON: () => ({ endpoint: "https://push.example/new", keys: { p256dh: "BNew", auth: "aNew" } }) }) },
    },
    clients: {
      matchAll: async () => fake.windows,
      openWindow: async (url) => void fake.opened.push(url),
      claim: async () => undefined,
    },
    caches: fakeCaches(fake.cacheStore, fetcher),
    fetch: fetcher,
    maxActions: () => maxActions,
    randomUUID: () => `cmd-${++uuids}`,
    sleep: async (ms) => void fake.slept.push(ms),
  };
  return fake;
}

/** The JSON a recorded fetch sent. */
export const sentJson = (f: { init?: RequestInit }): unknown => JSON.parse(typeof f.init?.body === "string" ? f.init.body : "null");

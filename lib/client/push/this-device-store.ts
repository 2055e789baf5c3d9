/**
 * This browser's push subscription as the server knows it: its id (for `device.presence`), the
 * device name the person gave it (for re-subscribing when the push service rotates the
 * subscription) and its endpoint. Kept in Cache Storage under a URL nothing fetches, because both
 * the tab and the service worker can read and write it there (a worker has no localStorage).
 */
export interface ThisDevice {
  id: string;
  device: string;
  endpoint: string;
}

export const DEVICE_CACHE = "parley-device";
const KEY = "/parley-this-device.json";

const keyOf = (origin: string) => new URL(KEY, origin).href;

export async function readThisDevice(caches: CacheStorage, origin: string): Promise<ThisDevice | null> {
  try {
    const cache = await caches.open(DEVICE_CACHE);
    const res = await cache.match(keyOf(origin));
    if (!res) return null;
    const v = (await res.json()) as Partial<ThisDevice>;
    return typeof v.id === "string" && typeof v.device === "string" && typeof v.endpoint === "string" ? { id: v.id, device: v.device, endpoint: v.endpoint } : null;
  } catch {
    return null;
  }
}

export async function writeThisDevice(caches: CacheStorage, origin: string, device: ThisDevice): Promise<void> {
  const cache = await caches.open(DEVICE_CACHE);
  await cache.put(keyOf(origin), new Response(JSON.stringify(device), { headers: { "content-type": "application/json" } }));
}

export async function forgetThisDevice(caches: CacheStorage, origin: string): Promise<void> {
  const cache = await caches.open(DEVICE_CACHE);
  await cache.delete(keyOf(origin));
}

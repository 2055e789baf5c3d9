import type { RedisBus, RedisBusOptions } from "./redis-bus";

/** The bus for REDIS_URL, its modules (ioredis, the Socket.IO Redis adapter) loaded only then: one node alone never loads them. */
export async function connectRedisBus(options: RedisBusOptions): Promise<RedisBus> {
  const { createRedisBus } = await import("./redis-bus");
  return createRedisBus(options);
}

import { storeLanes } from "../sql-executor";
import { statement } from "../typed-sql";
import type { Db } from "../../db/client";

const read = statement((q, p: { key: string }) => q.selectFrom("Setting").select("value").where("key", "=", p.key));

/** Sets the value, making the row if there is none (last writer wins: an upsert is atomic on both engines). */
const write = statement((q, p: { key: string; value: string }) =>
  q
    .insertInto("Setting")
    .values({ key: p.key, value: p.value })
    .onConflict((oc) => oc.column("key").doUpdateSet((eb) => ({ value: eb.ref("excluded.value") }))),
);

/** Makes the row with this value unless there is one: the stored value either way (of racing makers, every one reads the first's). */
const readOrCreate = statement((q, p: { key: string; value: string }) =>
  q
    .insertInto("Setting")
    .values({ key: p.key, value: p.value })
    .onConflict((oc) => oc.column("key").doUpdateSet((eb) => ({ value: eb.ref("Setting.value") })))
    .returning("value"),
);

/** Server-wide values kept in the Setting table (the cookie key, the session epoch), shared by every node of the database. */
export function createSettingStore(db: Db) {
  const { exec } = storeLanes(db);
  return {
    /** The value, or null when there is none. */
    read: async (key: string): Promise<string | null> => (await exec.read(read, { key }))[0]?.value ?? null,
    write: async (key: string, value: string): Promise<void> => void (await exec.changes(write, { key, value })),
    /** The value, made with `make` when it does not exist yet. */
    readOrCreate: async (key: string, make: () => string): Promise<string> => (await exec.write(readOrCreate, { key, value: make() }))[0]!.value,
  };
}

export type SettingStore = ReturnType<typeof createSettingStore>;

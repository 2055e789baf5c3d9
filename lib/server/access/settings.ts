import { isUniqueViolation, type Db } from "../db/client";

/**
 * The value of a Setting row, made with `make` when it does not exist yet. Nodes starting at once
 * on a fresh database may each try to make it: the first insert wins and every node reads that one
 * (an upsert is not atomic on PostgreSQL, so the losers' unique violation is expected).
 */
export async function settingOrCreate(db: Db, key: string, make: () => string): Promise<string> {
  try {
    await db.setting.upsert({ where: { key }, create: { key, value: make() }, update: {} });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  return (await db.setting.findUniqueOrThrow({ where: { key } })).value;
}

/** The value of a Setting row, or null when there is none. */
export async function readSetting(db: Db, key: string): Promise<string | null> {
  return (await db.setting.findUnique({ where: { key } }))?.value ?? null;
}

/** Sets a Setting row's value, making the row if it does not exist (last writer wins). */
export async function writeSetting(db: Db, key: string, value: string): Promise<void> {
  try {
    await db.setting.upsert({ where: { key }, create: { key, value }, update: { value } });
  } catch (err) {
    // Another writer made the row between the upsert's read and its insert: overwrite theirs.
    if (!isUniqueViolation(err)) throw err;
    await db.setting.update({ where: { key }, data: { value } });
  }
}

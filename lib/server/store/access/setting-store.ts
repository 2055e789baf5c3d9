import type { SqlExecutor } from "../sql-executor";
import { putSetting, setting } from "./access-statements";

/** The Setting table: server-wide values (the cookie key, the session epoch, VAPID keys, the webhook secret), shared by every node of the database. */
export interface SettingStore {
  /** The setting's value, made `made` when it has none: racing makers all read the first's (atomic on both engines). */
  keep(key: string, made: string): Promise<string>;
  /** Sets the setting to `value` (made or replaced): its value now. */
  replace(key: string, value: string): Promise<string>;
  /** Its value, undefined when it has none. */
  read(key: string): Promise<string | undefined>;
}

export function createSettingStore(exec: SqlExecutor): SettingStore {
  const put = async (key: string, value: string, replace: string | null) => (await exec.write(putSetting, { key, value, replace }))[0]!.value;
  return {
    keep: (key, made) => put(key, made, null),
    replace: (key, value) => put(key, value, value),
    read: async (key) => (await exec.rows(setting, { key }))[0]?.value,
  };
}

import type { SqlExecutor } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as T from "./access-statements";

export type ApiTokenRow = RowOf<typeof T.listTokens>;

/** A token as made: its secret only as a hash. */
export interface NewApiToken {
  id: string;
  ownerId: string;
  name: string;
  secretHash: string;
  scope: string;
  at: Date;
}

/** The ApiToken table: long-lived credentials, each stored with the hash of its secret. */
export interface TokenStore {
  insert(token: NewApiToken): Promise<ApiTokenRow>;
  /** Every token, revoked ones too, oldest first. */
  list(): Promise<ApiTokenRow[]>;
  find(id: string): Promise<ApiTokenRow | undefined>;
  /** Revoked at `at` unless it already was (it keeps its first revocation): the token, undefined for an unknown id. */
  revoke(id: string, at: Date): Promise<ApiTokenRow | undefined>;
  /** Records when it was last used. */
  touch(id: string, at: Date): Promise<void>;
}

export function createTokenStore(exec: SqlExecutor): TokenStore {
  return {
    insert: async (token) => (await exec.write(T.insertToken, token))[0]!,
    list: () => exec.rows(T.listTokens, {}),
    find: async (id) => (await exec.rows(T.findToken, { id }))[0],
    revoke: async (id, at) => (await exec.write(T.revokeToken, { id, at }))[0],
    touch: async (id, at) => void (await exec.changes(T.touchToken, { id, at })),
  };
}

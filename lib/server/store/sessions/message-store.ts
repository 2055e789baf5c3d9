import type { SqlExecutor, SqlTx } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as S from "./session-statements";
import type { MessageInsert } from "./session-statements";

export type { MessageInsert };
export type MessageRow = RowOf<typeof S.newestMessages>;
/** An agent or system message as a channel relays it. */
export type SaidRow = RowOf<typeof S.saidAfter>;

/** A place in a session's messages: its time, then its id. */
export interface MessagePlace {
  at: Date;
  id: string;
}

/** The Message table: what was said in a session. */
export interface MessageStore {
  /** Stores a message alone (`exec`) or in someone's transaction: the row as stored. */
  insert(lane: Pick<SqlTx, "changes">, row: MessageInsert): Promise<MessageInsert>;
  /** A session's newest messages, newest first. */
  newest(sessionId: string, limit: number): Promise<MessageRow[]>;
  /** A session's messages before a place, newest first. */
  before(sessionId: string, place: MessagePlace, limit: number): Promise<MessageRow[]>;
  /** A session's newest user and agent messages (a chat turn's context), newest first. */
  chatHistory(sessionId: string, limit: number): Promise<Array<{ role: string; text: string }>>;
  /** A run's messages, oldest first. */
  ofRun(runId: string): Promise<MessageRow[]>;
  /** The texts the agent and the system said in a session for a run, oldest first. */
  saidInRun(sessionId: string, runId: string): Promise<string[]>;
  /** The id of the newest agent or system message of a session (a channel's cursor). */
  lastSaidId(sessionId: string): Promise<string | undefined>;
  /** Where a message of the session stands (a cursor); undefined when it is not one of the session's. */
  place(sessionId: string, id: string): Promise<MessagePlace | undefined>;
  /** A session's agent and system messages after a place (none: from the first), oldest first. */
  saidAfter(sessionId: string, after: MessagePlace | undefined, limit: number): Promise<SaidRow[]>;
}

export function createMessageStore(exec: SqlExecutor): MessageStore {
  return {
    insert: async (lane, row) => (await lane.changes(S.insertMessage, row), row),
    newest: (sessionId, limit) => exec.rows(S.newestMessages, { sessionId, limit }),
    before: (sessionId, place, limit) => exec.rows(S.messagesBefore, { sessionId, beforeAt: place.at, beforeId: place.id, limit }),
    chatHistory: (sessionId, limit) => exec.rows(S.chatHistory, { sessionId, limit }),
    ofRun: (runId) => exec.rows(S.messagesOfRun, { runId }),
    saidInRun: async (sessionId, runId) => (await exec.rows(S.saidInRun, { sessionId, runId })).map((m) => m.text),
    lastSaidId: async (sessionId) => (await exec.rows(S.lastSaid, { sessionId }))[0]?.id,
    async place(sessionId, id) {
      const [found] = await exec.rows(S.messageAt, { id, sessionId });
      return found && { at: found.createdAt, id: found.id };
    },
    saidAfter: (sessionId, after, limit) => exec.rows(S.saidAfter, { sessionId, afterAt: after?.at ?? null, afterId: after?.id ?? null, limit }),
  };
}

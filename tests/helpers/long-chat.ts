import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";

/** A long chat written straight into a server's SQLite database: what the long-chat benchmark and e2e test open. */
export interface LongChat {
  /** Chat turns: a person's message and the agent's reply (two messages), each in a run of its own. */
  turns: number;
  /** Every `questionEvery`-th turn also asked a question, answered before its reply. */
  questionEvery: number;
  /** When the first turn began (ms); turns are `stepMs` apart. */
  startMs?: number;
  stepMs?: number;
}

export const userText = (turn: number) => `Question number ${turn}: what should we do about item ${turn}?`;
export const agentText = (turn: number) => `Reply ${turn}. ${turn % 3 === 0 ? "A longer answer that wraps onto a second line on a phone, with **bold** words and a list:\n\n- one\n- two" : "Done."}`;

type Row = Record<string, unknown>;

/**
 * Seeds `sessionId` with a long history, cloning a finished run and its answered question that the
 * server itself stored in that session (so every column is as the server writes it, timestamps in
 * its own encoding), before it.
 */
export function seedLongChat(databaseFile: string, sessionId: string, { turns, questionEvery, startMs = Date.now() - turns * 3_000 - 60_000, stepMs = 3_000 }: LongChat) {
  const db = new Database(databaseFile);
  db.pragma("busy_timeout = 10000");
  try {
    const run = db.prepare(`SELECT * FROM "Run" WHERE "sessionId" = ? ORDER BY "createdAt" LIMIT 1`).get(sessionId) as Row | undefined;
    const question = db.prepare(`SELECT * FROM "Question" WHERE "sessionId" = ? AND "status" = 'answered' LIMIT 1`).get(sessionId) as Row | undefined;
    if (!run || !question) throw new Error("seedLongChat needs a finished run with an answered question in the session first");
    const at = timeIn(run.createdAt);
    const insert = (table: string, row: Row) => {
      const columns = Object.keys(row);
      return db.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
    };
    const runInsert = insert("Run", run);
    const questionInsert = insert("Question", question);
    const messageInsert = db.prepare(`INSERT INTO "Message" ("id", "sessionId", "runId", "role", "text", "stopped", "sender", "createdAt") VALUES (?, ?, ?, ?, ?, 0, NULL, ?)`);
    db.transaction(() => {
      for (let turn = 0; turn < turns; turn++) {
        const t = startMs + turn * stepMs;
        const runId = randomUUID();
        runInsert.run(...Object.values({ ...run, id: runId, rootRunId: runId, turnOf: null, createdAt: at(t), updatedAt: at(t + 2_000), finishedAt: at(t + 2_000) }).map(sqlValue));
        messageInsert.run(randomUUID(), sessionId, runId, "user", userText(turn), at(t));
        if (questionEvery > 0 && turn % questionEvery === 0) {
          questionInsert.run(
            ...Object.values({ ...question, id: randomUUID(), runId, pendingId: randomUUID(), prompt: `Shall I go ahead with item ${turn}?`, createdAt: at(t + 500), closedAt: at(t + 1_000) }).map(
              sqlValue,
            ),
          );
        }
        messageInsert.run(randomUUID(), sessionId, runId, "agent", agentText(turn), at(t + 1_500));
      }
    })();
  } finally {
    db.close();
  }
}

const sqlValue = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);

/** Writes a time (ms) the way the sample value was written: a number of ms, or ISO text. */
function timeIn(sample: unknown): (ms: number) => unknown {
  if (typeof sample === "number" || typeof sample === "bigint") return (ms) => ms;
  if (typeof sample === "string" && /^\d+$/.test(sample)) return (ms) => String(ms);
  if (typeof sample === "string" && sample.includes("T")) return (ms) => new Date(ms).toISOString().replace(/Z$/, sample.match(/(Z|[+-]\d\d:\d\d)$/)?.[1] ?? "");
  if (typeof sample === "string") return (ms) => new Date(ms).toISOString().replace("T", " ").replace(/Z$/, "");
  throw new Error(`seedLongChat: unknown time encoding ${String(sample)}`);
}

import { expect } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import type { ReplyReceipt } from "../lib/protocol/question";
import { SOCKET_PATH, type Ack } from "../lib/protocol/socket";
import { createDb } from "../lib/server/store/db/client";
import { statement } from "../lib/server/store/typed-sql";
import type { Person } from "../tests/helpers/people";

/**
 * What the states and specs of several people need besides ./people (who they are, their
 * browsers): a session of the administrator's shared with them (a SessionMember row, as the
 * members route writes it), and a person's answer over a socket of theirs.
 */

const databaseUrl = () => {
  const file = process.env.PARLEY_E2E_DB;
  if (!file) throw new Error("PARLEY_E2E_DB is unset: run the specs through playwright.config.ts");
  return `file:${file}`;
};

const addMember = statement((q, p: { sessionId: string; userId: string; at: Date }) =>
  q
    .insertInto("SessionMember")
    .values({ sessionId: p.sessionId, userId: p.userId, addedBy: "local", createdAt: p.at })
    .onConflict((oc) => oc.columns(["sessionId", "userId"]).doNothing()),
);

/** Shares a session of the administrator's with these people. */
export async function share(sessionId: string, names: string[]): Promise<void> {
  const db = await createDb(databaseUrl());
  try {
    for (const userId of names) await db.exec.changes(addMember, { sessionId, userId, at: new Date() });
  } finally {
    await db.close();
  }
}

/** The e2e server, as playwright.config.ts names it. */
const serverUrl = () => `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3999)}`;

/** Answers a question as this person, over a socket of theirs (what their tab sends): the receipt. */
export async function answerAs(person: Person, questionId: string, value: unknown, baseURL = serverUrl()): Promise<ReplyReceipt> {
  const socket: Socket = io(baseURL, { path: SOCKET_PATH, auth: { token: person.token }, transports: ["websocket"] });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", reject);
    });
    const ack = (await socket.timeout(10_000).emitWithAck("question.reply", { id: questionId, value })) as Ack<ReplyReceipt>;
    expect(ack.ok, JSON.stringify(ack)).toBe(true);
    return (ack as { ok: true; data: ReplyReceipt }).data;
  } finally {
    socket.close();
  }
}

import { expect, type Browser, type BrowserContextOptions } from "@playwright/test";
import { io, type Socket } from "socket.io-client";
import type { ReplyReceipt } from "../lib/protocol/question";
import { SOCKET_PATH, type Ack } from "../lib/protocol/socket";
import { createDb } from "../lib/server/store/db/client";
import { statement } from "../lib/server/store/typed-sql";
import { addPeople, type Person } from "../tests/helpers/people";

/**
 * Other people on the e2e server, for the states and specs that need several: made on its
 * database (a person, their API token, their signed-in browser cookie), a session shared with
 * them (a SessionMember row), their browser, and their vote over a socket of theirs.
 */

export type { Person };

const databaseUrl = () => {
  const file = process.env.PARLEY_E2E_DB;
  if (!file) throw new Error("PARLEY_E2E_DB is not set (playwright.config.ts sets it)");
  return `file:${file}`;
};

/** The people, made once each (a second call makes them new tokens and cookies). */
export const people = (...names: string[]): Promise<Person[]> => addPeople(databaseUrl(), names);

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

/** A browser signed in as this person (their cookie instead of the administrator's). */
export async function browserOf(browser: Browser, person: Person, baseURL: string, options: BrowserContextOptions = {}) {
  const { hostname } = new URL(baseURL);
  return browser.newContext({
    ...options,
    storageState: { cookies: [{ name: person.cookie.name, value: person.cookie.value, domain: hostname, path: "/", httpOnly: true, secure: false, sameSite: "Strict", expires: -1 }], origins: [] },
  });
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

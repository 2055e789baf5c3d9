import { AppError } from "../../protocol/errors";

/** A place in a session's transcript: its time (ms), then its id (rows of one millisecond keep the order they were made). */
export interface Position {
  at: number;
  id: string;
}

const positionOf = (item: { createdAt: string; id: string }): Position => ({ at: Date.parse(item.createdAt), id: item.id });

/** Newest first: later time, then the greater id (the database's order, reversed). */
const newestFirst = (a: Position, b: Position) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The cursor a client holds: opaque to it. */
export const encodeCursor = ({ at, id }: Position): string => Buffer.from(JSON.stringify([at, id])).toString("base64url");

export function decodeCursor(cursor: string): Position {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (Number.isSafeInteger(at) && typeof id === "string" && id.length > 0 && id.length <= 100) return { at: at as number, id };
  } catch {
    // Not ours: said below.
  }
  throw new AppError("bad_request", "Invalid `before`: give back the cursor a snapshot or a page of history gave (its `before`).");
}

/**
 * One page of history from the newest messages and closed questions before a place (each list
 * newest first, `limit + 1` of each read): the newest `limit` of them together, oldest first, and
 * where the older ones begin (null: there are none).
 */
export function takePage<M extends { createdAt: string; id: string }, Q extends { createdAt: string; id: string }>(messages: M[], questions: Q[], limit: number) {
  const all = [...messages.map((item) => ({ item, kind: "message" as const })), ...questions.map((item) => ({ item, kind: "question" as const }))].map((x) => ({
    ...x,
    at: positionOf(x.item),
  }));
  all.sort((a, b) => newestFirst(a.at, b.at));
  const taken = all.slice(0, limit).reverse();
  const more = all.length > limit;
  return {
    messages: taken.flatMap((x) => (x.kind === "message" ? [x.item] : [])),
    questions: taken.flatMap((x) => (x.kind === "question" ? [x.item] : [])),
    /** The oldest item taken, when there is older history. */
    oldest: more ? taken[0]!.at : null,
  };
}

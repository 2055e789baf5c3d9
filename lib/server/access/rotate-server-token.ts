import { AppError } from "../../protocol/errors";
import type { DomainEvents } from "../events";

export interface RotateServerTokenDeps {
  /** Several nodes share the database: a node cannot rotate the token alone. */
  shared: boolean;
  access: { rotateServerToken(): void };
  events: DomainEvents;
  signOutEverywhere(): Promise<{ at: string }>;
}

/**
 * A new server token (kept in the token file): the old one is refused at once, sockets signed
 * in with it are dropped, and so are browser cookies (they were signed in with the old token).
 * One node alone only: the other nodes of a database would keep the old token.
 */
export function createRotateServerToken({ shared, access, events, signOutEverywhere }: RotateServerTokenDeps): () => Promise<{ rotatedAt: string }> {
  return async () => {
    if (shared) throw new AppError("forbidden", "Several nodes share this database: give every node the same new PARLEY_TOKEN and restart them.");
    access.rotateServerToken();
    events.emit("server-token.rotated");
    const { at } = await signOutEverywhere();
    return { rotatedAt: at };
  };
}

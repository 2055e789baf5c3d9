import { AppError } from "../../protocol/errors";
import { subscribe, type DomainEvents } from "../events";
import type { Authenticator } from "./authenticator";
import type { Visibility } from "./visibility";

/** Who holds a request open, with what it signed in with, and the chat it waits in (its membership ends it too). */
export interface HeldBy {
  ownerId: string;
  /** `server`, `api:<id>` or `cookie:<issued at>`: what must still be good. */
  credential: string;
  bearer: string | null;
  cookie: string | null;
  sessionId: string | null;
}

/** How often every held request's credential and membership are checked again: what another node (or the CLI) changed is seen within this. */
export const HELD_RECHECK_MS = 1_000;

const revoked = () => new AppError("token_revoked", "The credential this request was made with was revoked, rotated or signed out while it waited.");
const removed = (sessionId: string) => new AppError("no_longer_a_member", `You are no longer a member of chat ${sessionId}: nothing more of it reaches you.`);

/**
 * The requests held open for a person (a question's event stream, a `?wait=` read, a waiting MCP
 * call): each ends, with a typed error, when its credential or its chat membership does. This
 * node's revocations end them at once; every second each held request's credential and membership
 * are checked again, so what another node or the CLI changed ends them too.
 */
export function createHeldRequests({
  events,
  authenticator,
  visibility,
  recheckMs = HELD_RECHECK_MS,
}: {
  events: DomainEvents;
  authenticator: Pick<Authenticator, "authenticate">;
  visibility: Pick<Visibility, "session">;
  recheckMs?: number;
}) {
  const holds = new Map<symbol, { by: HeldBy; controller: AbortController }>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const end = (key: symbol, error: AppError) => {
    const held = holds.get(key);
    if (!held) return;
    holds.delete(key);
    held.controller.abort(error);
  };
  const endWhere = (which: (by: HeldBy) => boolean, error: () => AppError) => {
    for (const [key, held] of holds) if (which(held.by)) end(key, error());
  };

  async function recheck(): Promise<void> {
    for (const [key, { by }] of [...holds]) {
      const principal = await authenticator.authenticate({ bearer: by.bearer, cookie: by.cookie }).catch(() => undefined);
      // Not known (the database did not answer): checked again at the next round.
      if (principal === undefined) continue;
      if (principal === null || principal.credential !== by.credential) {
        end(key, revoked());
        continue;
      }
      if (by.sessionId === null) continue;
      const stillSees = await visibility.session(by.ownerId, by.sessionId).then(
        () => true,
        // Only "not found" means it was taken away; anything else is checked again next round.
        (err: unknown) => AppError.from(err).code !== "not_found:session",
      );
      if (!stillSees) end(key, removed(by.sessionId));
    }
  }
  const checking = () => void recheck().catch(() => {});

  const unsubscribe = subscribe(events, {
    "api-token.revoked": ({ id }) => endWhere((by) => by.credential === `api:${id}`, revoked),
    "server-token.rotated": () => endWhere((by) => by.credential === "server", revoked),
    "cookies.revoked": checking,
    "session.left": ({ id, user }) =>
      endWhere(
        (by) => by.ownerId === user && by.sessionId === id,
        () => removed(id),
      ),
  });

  return {
    /** Holds a request for `by`: its signal aborts (with the typed error as its reason) when the credential or membership ends. Release it when the request ends. */
    hold(by: HeldBy): { signal: AbortSignal; release(): void } {
      const key = Symbol("held");
      const controller = new AbortController();
      holds.set(key, { by, controller });
      timer ??= setInterval(checking, recheckMs);
      timer.unref?.();
      return {
        signal: controller.signal,
        release() {
          holds.delete(key);
          if (holds.size === 0 && timer) {
            clearInterval(timer);
            timer = undefined;
          }
        },
      };
    },
    /** How many requests are held now. */
    count: () => holds.size,
    close(): void {
      unsubscribe();
      clearInterval(timer);
    },
  };
}

export type HeldRequests = ReturnType<typeof createHeldRequests>;

import { AppError } from "../protocol/errors";
import type { Session } from "../protocol/entities";

/**
 * Which session `parley chat [session]` opens: an id, a unique prefix of one, or a title; with no
 * argument a new chat, or with --continue the most recently active one.
 */
export type SessionChoice = { type: "existing"; session: Session } | { type: "new" };

export function pickSession(sessions: Session[], { arg, latest }: { arg: string | undefined; latest: boolean }): SessionChoice {
  if (arg === undefined) {
    const newest = sessions[0];
    return latest && newest ? { type: "existing", session: newest } : { type: "new" };
  }
  const wanted = arg.trim();
  const exact = sessions.find((s) => s.id === wanted);
  if (exact) return { type: "existing", session: exact };
  const byPrefix = sessions.filter((s) => s.id.startsWith(wanted));
  const byTitle = sessions.filter((s) => s.title.toLowerCase() === wanted.toLowerCase());
  const found = byPrefix.length > 0 ? byPrefix : byTitle;
  if (found.length === 1) return { type: "existing", session: found[0]! };
  const list = (some: Session[]) =>
    some
      .slice(0, 10)
      .map((s) => `  ${s.id}  ${s.title}`)
      .join("\n");
  if (found.length > 1) throw new AppError("bad_request", `"${wanted}" matches ${found.length} chats; give more of the id:\n${list(found)}`);
  throw new AppError("not_found:session", sessions.length > 0 ? `No chat "${wanted}". Your chats:\n${list(sessions)}` : `No chat "${wanted}": there are none yet. Run \`parley chat\` to start one.`);
}

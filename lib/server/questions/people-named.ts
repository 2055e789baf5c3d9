import { AppError } from "../../protocol/errors";
import type { MemberStore } from "../store/members/member-store";

/** Everyone a question names (answerers, escalation, approvers) must be in its session: nobody else could see it to answer. */
export async function checkPeopleNamed(members: Pick<MemberStore, "people">, sessionId: string, named: readonly string[]): Promise<void> {
  if (named.length === 0) return;
  const people = new Set((await members.people(sessionId))?.map((p) => p.user) ?? []);
  const strangers = named.filter((name) => !people.has(name));
  if (strangers.length === 0) return;
  const list = strangers.map((n) => `"${n}"`).join(", ");
  throw new AppError(
    "invalid_answerers",
    `${list} ${strangers.length === 1 ? "is" : "are"} not in this chat: share it with ${strangers.length === 1 ? "them" : "each"} first (its owner adds people in its People panel, or POST /api/sessions/{id}/members).`,
  );
}

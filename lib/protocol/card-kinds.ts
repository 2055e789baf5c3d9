import { z } from "zod";
import { isFlatForm } from "./forms";
import type { Question } from "./question";

/**
 * Every kind of card a person can be shown. A question's stored `kind` (question, confirm,
 * approval) with its options and reply schema makes one of these; each surface renders it and
 * reads its answer through a `ByCardKind` table, so a new member here makes the type check name
 * every table that must handle it.
 */
export const CardKindSchema = z.enum(["choice", "multi_choice", "text", "confirm", "form", "approval"]);
export type CardKind = z.infer<typeof CardKindSchema>;

/** One entry per card kind: how a surface renders it, reads its keys, words it. */
export type ByCardKind<T> = { [K in CardKind]: T };

/** What of a question decides its card (no reply schema: none). */
export type CardShape = Pick<Question, "kind" | "options" | "multi"> & { replySchema?: Question["replySchema"] };

/** The card a question is shown as. */
export function cardKindOf(q: CardShape): CardKind {
  if (q.kind === "approval") return "approval";
  if (q.kind === "confirm") return "confirm";
  if (q.replySchema && isFlatForm(q.replySchema)) return "form";
  if (q.options.length > 0) return q.multi ? "multi_choice" : "choice";
  return "text";
}

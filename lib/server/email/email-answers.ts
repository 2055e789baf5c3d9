import { cameTooLate } from "../../protocol/commands";
import { outcomeLine } from "../../protocol/audit";
import type { NameOf } from "../../protocol/display-names";
import type { AnswerPageView } from "../../protocol/email";
import { AppError } from "../../protocol/errors";
import type { Question } from "../../protocol/question";
import { mayAnswer } from "../../protocol/teams";
import type { PeopleCache } from "../access/people-cache";
import { answererNamed } from "../access/answering-as";
import type { QuestionService } from "../questions/question-service";
import type { EmailStore } from "../store/email/email-store";
import { readAnswerLinkToken } from "./answer-link";
import { readPageAnswer } from "./email-form";

export interface EmailAnswerDeps {
  store: Pick<EmailStore, "message">;
  questions: Pick<QuestionService, "getQuestion" | "reply" | "reject">;
  people: Pick<PeopleCache, "get">;
  /** Whether a person may see a question (a member of its chat): throws not_found otherwise. */
  seeQuestion(person: string, id: string): Promise<void>;
  chatTitle(sessionId: string): Promise<string>;
  cardUrl(question: Question): string;
  nameOf(): Promise<NameOf>;
  /** The key answer links are signed with. */
  linkKey: string;
}

type Found = { state: "found"; question: Question; person: string; admin: boolean } | Exclude<AnswerPageView, { state: "waiting" }>;

/**
 * The answer page behind an email's link: who it is for and what it shows. A link is good while
 * its question waits and its person may answer it; after that the page says why not, or how the
 * question ended. Answers go through the same claim as every other surface (`by: "email"`).
 */
export function createEmailAnswers(deps: EmailAnswerDeps) {
  async function find(token: string): Promise<Found> {
    const id = readAnswerLinkToken(deps.linkKey, token);
    const message = id === null ? null : await deps.store.message(id);
    if (!message) return { state: "invalid" };
    const who = await answererNamed(deps.people, message.personId);
    if (!who) return { state: "not_allowed", reason: "This link's person is no longer in Parley, so it answers nothing." };
    const question = await deps.questions.getQuestion({ id: message.questionId });
    if (question.status !== "pending") return { state: "settled", question, outcome: outcomeLine(question, { viewer: message.personId, nameOf: await deps.nameOf() }) };
    try {
      await deps.seeQuestion(message.personId, question.id);
    } catch {
      return { state: "not_allowed", reason: "You are no longer a member of this question's chat, so this link answers nothing." };
    }
    if (!mayAnswer(question, message.personId)) return { state: "not_allowed", reason: "This question is no longer yours to answer." };
    return { state: "found", question, ...who };
  }

  return {
    /** What the page shows for a link (opening it changes nothing). */
    async view(token: string, error: string | null = null): Promise<AnswerPageView> {
      const found = await find(token);
      if (found.state !== "found") return found;
      const { question, person } = found;
      return { state: "waiting", question, person, chatTitle: await deps.chatTitle(question.sessionId), cardUrl: deps.cardUrl(question), error };
    },

    /** The page's POST: the answer its form holds, as the link's person. A link that answers nothing says why (404, 403, 409). */
    async answer(token: string, form: URLSearchParams): Promise<void> {
      const found = await find(token);
      if (found.state === "invalid") throw new AppError("not_found:question", "This answer link is not one this server made.");
      if (found.state === "not_allowed") throw new AppError("forbidden", found.reason);
      if (found.state === "settled") throw new AppError("already_settled", `Already settled: ${found.outcome}.`);
      const { question, person, admin } = found;
      const answer = readPageAnswer(question, form);
      const who = { by: "email" as const, person, admin, digest: question.targetDigest };
      const receipt =
        answer.kind === "reply" ? await deps.questions.reply({ id: question.id, value: answer.value, ...who }) : await deps.questions.reject({ id: question.id, message: answer.message, ...who });
      if (cameTooLate(receipt.outcome)) {
        throw new AppError("already_settled", `Already settled: ${outcomeLine(receipt.question, { viewer: person, nameOf: await deps.nameOf() })}.`);
      }
    },
  };
}

export type EmailAnswers = ReturnType<typeof createEmailAnswers>;

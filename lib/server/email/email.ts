import nodemailer from "nodemailer";
import type { Question } from "../../protocol/question";
import { questionLink } from "../../protocol/question-notification";
import type { PeopleCache } from "../access/people-cache";
import { createDisplayNames } from "../people/display-names";
import type { QuestionService } from "../questions/question-service";
import type { Db } from "../store/db/client";
import { createPeopleStore } from "../store/people/people-store";
import { createSessionStore } from "../store/sessions/session-store";
import { createSettingStore } from "../store/access/setting-store";
import { randomSecret } from "../access/secrets";
import { answerLinkToken, answerPagePath } from "./answer-link";
import { createEmailAnswers } from "./email-answers";
import { createEmailOutbox } from "./email-outbox";

export interface EmailConfig {
  /** PARLEY_SMTP_URL: smtp://user:pass@host:587 (STARTTLS when the server offers it), smtps:// for TLS from the start. */
  smtpUrl: string;
  /** PARLEY_EMAIL_FROM. */
  from: string;
  /** PARLEY_PUBLIC_URL: where the mails' links point. */
  publicUrl: string;
  retryMs?: number;
}

const LINK_KEY_SETTING = "email-link-key";

/**
 * Email as an answer surface: questions mailed to the people who may answer them (nodemailer over
 * SMTP), each with an answer link that is a capability for that question and person; the page
 * behind it answers through the same claim as every other surface.
 */
export async function openEmail(config: EmailConfig, deps: { db: Db; questions: QuestionService; people: Pick<PeopleCache, "get">; seeQuestion(person: string, id: string): Promise<void> }) {
  const linkKey = await createSettingStore(deps.db.exec).keep(LINK_KEY_SETTING, randomSecret(32));
  const base = config.publicUrl.replace(/\/+$/, "");
  const cardUrl = (q: Question) => `${base}${questionLink(q)}`;
  const transport = nodemailer.createTransport(config.smtpUrl);
  const outbox = createEmailOutbox(
    { db: deps.db, transport, questions: deps.questions },
    { from: config.from, pageUrl: (id) => `${base}${answerPagePath(answerLinkToken(linkKey, id))}`, cardUrl, retryMs: config.retryMs },
  );
  const sessions = createSessionStore(deps.db.exec);
  const names = createDisplayNames(createPeopleStore(deps.db.exec));
  const answers = createEmailAnswers({
    store: outbox.store,
    questions: deps.questions,
    people: deps.people,
    seeQuestion: deps.seeQuestion,
    chatTitle: async (id) => (await sessions.live(id))?.title ?? "a chat",
    cardUrl,
    nameOf: names.nameOf,
    linkKey,
  });
  return {
    surface: outbox.surface,
    outbox,
    answers,
    close: () => transport.close(),
  };
}

export type Email = Awaited<ReturnType<typeof openEmail>>;

import { cardKindOf, type ByCardKind } from "./card-kinds";
import { checkText } from "./plain-text";
import { z } from "zod";
import type { Question } from "./question";
import { approvalBoundText } from "./command-bound";
import { TEXT_COMMANDS, describePending, shortId } from "./text-commands";
import { MAX_MESSAGE_CHARS } from "./rest";

/**
 * The plain-text channel (`POST /api/channels/text`, `GET /api/channels/text/outbox`): any
 * text-only surface (a chat bot, SMS, a pager) talks to a session in plain text. Runs started
 * from a channel use the non-blocking mode: the endpoint answers at once, and the person's next
 * message answers a pending question.
 */
export const MAX_CHANNEL_TEXT_CHARS = MAX_MESSAGE_CHARS;
export const MAX_SENDER_CHARS = 80;
/** How long the endpoint waits for the agent's first messages or a question before it answers. */
export const CHANNEL_WAIT_MS = 1_500;
/** The most messages one outbox page returns. */
export const MAX_OUTBOX_PAGE = 200;

/** Who sends a channel's message or asks from outside (`from`): one short line, shown to the person. */
export const SenderNameSchema = z
  .string()
  .trim()
  .min(1, "from names the sender")
  .max(MAX_SENDER_CHARS)
  .regex(/^[^\r\n\t]+$/, "from is one line")
  .superRefine(checkText);

/** The text's length is checked by the route (413 when too long), so no `max` here. */
export const ChannelTextBodySchema = z.strictObject({
  sessionId: z.string().trim().min(1).max(200),
  from: SenderNameSchema,
  text: z.string().trim().min(1, "A message needs text"),
});
export type ChannelTextBody = z.infer<typeof ChannelTextBodySchema>;

export const ChannelOutboxQuerySchema = z.strictObject({
  sessionId: z.string().min(1).max(200),
  after: z.string().min(1).max(200).optional(),
});

export interface ChannelReply {
  reply: string;
  /** The sender, as given. */
  from: string;
  /** What the message did: a command's outcome, `answered`/`declined` for a plain answer, `started` for a chat turn, `refused`. */
  outcome: string;
  questionId: string | null;
  runId: string | null;
  /** The outbox cursor after what this reply already says. */
  cursor: string | null;
}

export interface OutboxMessage {
  id: string;
  role: "agent" | "system";
  text: string;
  createdAt: string;
}
export interface ChannelOutbox {
  messages: OutboxMessage[];
  cursor: string | null;
}

/** How to answer one pending question by plain text: numbered choices and the reply forms. */
export function waitingText(q: Question): string {
  return WAITING_TEXTS[cardKindOf(q)](q, `waiting for your answer (question ${shortId(q.id)}):`);
}

function optionsText(q: Question, waiting: string): string {
  const choices = q.options.map((o, i) => `${i + 1}. ${o}`);
  const how = q.options.length
    ? q.multi
      ? "Reply with the numbers or labels of your choices, separated by spaces"
      : `Reply with a number or a label${q.allowCustom ? ", or your own text" : ""}`
    : "Reply with your answer";
  return [`${waiting} ${q.prompt}`, ...choices, `${how}, or /decline [feedback].`].join("\n");
}

const WAITING_TEXTS: ByCardKind<(q: Question, waiting: string) => string> = {
  approval: (q, waiting) => {
    const what = q.approval ? `${q.approval.tool}: ${q.approval.subject}` : q.prompt;
    const bound = approvalBoundText(q.approval);
    return [`${waiting} ${q.owner} asks to use ${what}`, ...(bound ? [bound] : []), "Reply once, always or deny (deny may add feedback)."].join("\n");
  },
  confirm: (q, waiting) => [`${waiting} ${q.prompt}`, "Reply yes or no, or /decline [feedback]."].join("\n"),
  choice: optionsText,
  multi_choice: optionsText,
  text: optionsText,
  form: optionsText,
};

/** What waits in a session and how to answer it by plain text; null when nothing does. */
function waitingBlock(pending: readonly Question[]): string | null {
  if (pending.length === 0) return null;
  if (pending.length === 1) return waitingText(pending[0]!);
  return ["waiting for your answers (say which with its id):", ...pending.map(describePending)].join("\n");
}

/** How a channel's message names who wrote it in the transcript: "Ann (SMS) via text channel". */
export const channelSender = (from: string): string => `${from} via text channel`;

/** The channel's reply: what the agent said, then the pending question(s) and how to answer. */
export function formatChannelReply({ said, pending }: { said: readonly string[]; pending: readonly Question[] }): string {
  const parts = said.map((s) => s.trim()).filter(Boolean);
  const waiting = waitingBlock(pending);
  if (waiting) parts.push(waiting);
  return parts.length ? parts.join("\n\n") : "Working on it. Ask the outbox for what follows.";
}

/** A channel's message that changes nothing (a text channel never answers with an error): why, then what waits and how to answer it. */
export function refusalText(problem: string, pending: readonly Question[]): string {
  return [problem, waitingBlock(pending) ?? "Nothing is waiting for an answer."].join("\n\n");
}

/** The first word of a slash command (`/pending` → `pending`), or null when the text is not one. */
export const slashWord = (text: string): string | null => /^\s*\/([A-Za-z][\w-]*)/.exec(text)?.[1]!.toLowerCase() ?? null;

/** An unknown slash command's reply line: the commands a text channel knows, its functions' chat commands last. */
export function unknownCommandLine(word: string, chatCommands: readonly string[]): string {
  const known = [...TEXT_COMMANDS, ...chatCommands].map((c) => `/${c}`).join(", ");
  return `/${word} is not a command here. The commands are ${known}; plain text answers the question that waits, or starts a chat turn when none does.`;
}

/** Who answered, from where: kept in the stored reply and the audit trail. */
export const senderNote = (from: string) => `(${from}, from a text channel)`;

import type { Answerer } from "../access/answering-as";
import { AppError } from "../../protocol/errors";
import type { Message } from "../../protocol/entities";
import type { ReplyOutcome } from "../../protocol/commands";
import type { Question } from "../../protocol/question";
import { describeVia } from "../../protocol/audit";
import { describePending, parseTextCommand, resolveTextCommand, tokenize, type ParseResult, type TextAction, type TextCommandName } from "../../protocol/text-commands";
import { senderNote } from "../../protocol/channels";
import type { Db } from "../store/db/client";
import type { Closer, QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import { createSessionQuestions } from "../store/questions/session-questions";
import { toQuestion } from "../store/db/mappers";

/** What a text command did: the person's message, the reply to it, and the outcome (`refused` when nothing changed for a bad command). */
export interface TextCommandResult {
  command: TextCommandName;
  outcome: ReplyOutcome | "refused";
  message: Message;
  reply: Message;
  question: Question | null;
}

/** A message typed in a session, and how a text command in it is applied (see `apply`). */
interface TypedText {
  sessionId: string;
  text: string;
  by?: Closer;
  from?: string;
  plainAnswer?: boolean;
  /** The person typing (absent: the server's own, who may answer anything it sees). */
  answerer?: Answerer;
}

const title = (q: Question) => (q.approval ? `${q.approval.tool}: ${q.approval.subject}` : q.prompt);
const shown = (value: unknown) => (typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : typeof value === "boolean" ? (value ? "yes" : "no") : JSON.stringify(value));

/** "Already answered in another tab." — how a late command learns who was first. */
function lateLine(q: Question, outcome: ReplyOutcome): string {
  const via = q.closedBy === "socket" ? "in another tab" : describeVia(q.closedBy);
  const where = via ? ` ${via}` : "";
  if (outcome === "already_answered") return `Already ${q.status === "declined" ? "declined" : "answered"}${where}.`;
  if (outcome === "stale_target") return `'${title(q)}' changed; nothing was sent.`;
  return `'${title(q)}' is already closed (${q.status.replace("_", " ")})${where}.`;
}

function appliedLine(action: TextAction, q: Question): string {
  if (q.kind === "approval") {
    return q.status === "answered" ? `Allowed ${q.answer === "always" ? "always" : "once"}: ${title(q)}.` : `Denied: ${title(q)}${q.feedback ? ` (${q.feedback})` : ""}.`;
  }
  if (action.type === "reject") return `Declined '${q.prompt}'${q.feedback ? ` (${q.feedback})` : ""}.`;
  return `Answered '${q.prompt}' with ${shown(q.answer)}.`;
}

/**
 * Text commands from the chat input: the same service calls (and receipts) as a card's buttons,
 * closed by "text". The person's message is stored, and a system message answers with the outcome.
 */
export function createTextCommands({ db, sessions, questions }: { db: Db; sessions: SessionService; questions: QuestionService }) {
  const sessionQuestions = createSessionQuestions(db.exec);
  /** A closed question of the session that a prefix names (a command that came too late). */
  async function closedMatch(sessionId: string, token: string | undefined): Promise<Question | null> {
    if (!token) return null;
    const rows = await sessionQuestions.closed(sessionId, 200);
    const t = token.toLowerCase();
    const found = rows.filter((r) => r.id.toLowerCase().startsWith(t) || r.pendingId.toLowerCase().startsWith(t));
    return found.length === 1 ? toQuestion(found[0]!) : null;
  }

  /**
   * Null when the text is not a text command (a chat message, or another slash command).
   * `plainAnswer` (a text channel's non-blocking mode): with exactly one question pending, plain
   * text answers it, as `/answer <id> <text>` (or `/approve <id> <text>` for an approval) would.
   * `from` names the sender: it goes into the stored reply.
   */
  async function apply({ sessionId, text, by = "text", from, plainAnswer = false, answerer }: TypedText): Promise<TextCommandResult | null> {
    let parse: ParseResult | null = parseTextCommand(text);
    let pending: Question[] | null = null;
    if (!parse && plainAnswer && !/^\s*\//.test(text)) {
      pending = await questions.listPending({ sessionId });
      if (pending.length !== 1) return null;
      const q = pending[0]!;
      const tokens = tokenize(text) ?? { args: [text.trim()], rest: [text.trim()] };
      parse = { ok: true, parsed: { command: q.kind === "approval" ? "approve" : "answer", args: [q.id, ...tokens.args], rest: [`${q.id} ${text.trim()}`, ...tokens.rest] } };
    }
    if (!parse) return null;
    const command = parse.ok ? parse.parsed.command : (/^\s*\/(\w+)/.exec(text)![1]!.toLowerCase() as TextCommandName);
    const message = await sessions.addMessage({ sessionId, role: "user", text });
    const done = async (outcome: TextCommandResult["outcome"], replyText: string, question: Question | null): Promise<TextCommandResult> => ({
      command,
      outcome,
      message,
      reply: await sessions.addMessage({ sessionId, role: "system", text: from === undefined ? replyText : `${replyText} ${senderNote(from)}` }),
      question,
    });

    pending ??= await questions.listPending({ sessionId });
    if (!parse.ok) return done("refused", parse.error, null);
    const resolved = resolveTextCommand(parse.parsed, pending);
    if (!resolved.ok) {
      // Named a question that has closed meanwhile: say who was first.
      const late = await closedMatch(sessionId, parse.parsed.args[0]);
      if (late && !pending.some((q) => q.id === late.id)) {
        const outcome: ReplyOutcome = late.status === "answered" || late.status === "declined" ? "already_answered" : "already_closed";
        return done(outcome, lateLine(late, outcome), late);
      }
      return done("refused", resolved.error, null);
    }
    const { action } = resolved;
    try {
      const receipt =
        action.type === "reply"
          ? await questions.reply({ id: action.question.id, value: action.value, by, ...answerer })
          : await questions.reject({ id: action.question.id, message: action.message, by, ...answerer });
      const line = receipt.apply_state === "applied" ? appliedLine(action, receipt.question) : lateLine(receipt.question, receipt.outcome);
      return done(receipt.outcome, line, receipt.question);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return done("refused", `${err.message}\n${resolveHelp(action.question)}`, action.question);
    }
  }

  return { apply };
}

const resolveHelp = (q: Question) => `Waiting for an answer:\n${describePending(q)}`;

export type TextCommands = ReturnType<typeof createTextCommands>;

import { cardKindOf, type ByCardKind } from "./card-kinds";
import { z } from "zod";
import type { AnswerValue, JsonValue, Question } from "./question";

/**
 * Text commands typed in the chat input: `/answer <id> <choice or text>`, `/decline <id> [feedback]`
 * and `/approve <id> once|always|deny [feedback]`. They do what a card's buttons do. Pure: the
 * server resolves them against the session's pending questions and applies the action.
 * Any other `/…` text is not a text command (the chat's demo slash commands).
 */
export const TEXT_COMMANDS = ["answer", "decline", "approve"] as const;
export const TextCommandNameSchema = z.enum(TEXT_COMMANDS);
export type TextCommandName = z.infer<typeof TextCommandNameSchema>;

export const ApproveDecisionSchema = z.enum(["once", "always", "deny"]);
export type ApproveDecision = z.infer<typeof ApproveDecisionSchema>;

export interface ParsedTextCommand {
  command: TextCommandName;
  /** The arguments, split on spaces; "…" (or “…”) keeps words together. */
  args: string[];
  /** The text after each argument, as typed (trimmed): `rest[i]` is everything from args[i] on. */
  rest: string[];
}

export type ParseResult = { ok: true; parsed: ParsedTextCommand } | { ok: false; error: string };

const OPEN_QUOTES = new Set(['"', "“"]);
const CLOSE_FOR: Record<string, string> = { '"': '"', "“": "”" };

/** Splits on whitespace; a quoted part is one argument (quotes removed). Null when a quote is not closed. */
export function tokenize(text: string): { args: string[]; rest: string[] } | null {
  const args: string[] = [];
  const rest: string[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    const start = i;
    let token = "";
    while (i < text.length && !/\s/.test(text[i]!)) {
      const ch = text[i]!;
      if (OPEN_QUOTES.has(ch)) {
        const close = CLOSE_FOR[ch]!;
        const end = text.indexOf(close, i + 1);
        if (end < 0) return null;
        token += text.slice(i + 1, end);
        i = end + 1;
      } else {
        token += ch;
        i++;
      }
    }
    args.push(token);
    rest.push(text.slice(start).trim());
  }
  return { args, rest };
}

/** Null when the text is not a text command (plain chat, or another slash command); else the parse. */
export function parseTextCommand(text: string): ParseResult | null {
  const match = /^\s*\/([A-Za-z]+)(?=\s|$)/.exec(text);
  if (!match) return null;
  const name = TextCommandNameSchema.safeParse(match[1]!.toLowerCase());
  if (!name.success) return null;
  const tokens = tokenize(text.slice(match[0].length));
  if (!tokens) return { ok: false, error: 'A quote is not closed: put the words between two " marks.' };
  return { ok: true, parsed: { command: name.data, ...tokens } };
}

/** What applying a command does: the same service calls as the card's buttons. */
export type TextAction = { type: "reply"; question: Question; value: AnswerValue | JsonValue } | { type: "reject"; question: Question; message: string | null };

export type Resolution = { ok: true; action: TextAction } | { ok: false; error: string };

/** A pending question matched by a prefix of its id or of its pending id. */
function matching(pending: readonly Question[], token: string): Question[] {
  const t = token.toLowerCase();
  if (!t) return [];
  const exact = pending.filter((q) => q.id.toLowerCase() === t || q.pendingId.toLowerCase() === t);
  if (exact.length > 0) return exact;
  return pending.filter((q) => q.id.toLowerCase().startsWith(t) || q.pendingId.toLowerCase().startsWith(t));
}

/** Looks like an id someone meant (not a word of an answer): a pending id, a uuid, or hex with a digit. */
export const looksLikeId = (token: string) => /^p_[0-9a-z]+$/i.test(token) || /^[0-9a-f]{8}-[0-9a-f-]*$/i.test(token) || (/^[0-9a-f]{6,}$/i.test(token) && /\d/.test(token));

/** A question's id as help text shows it: its first 8 characters (any unique prefix is accepted). */
export const shortId = (id: string) => id.slice(0, 8);
const quoteLabel = (s: string) => (/\s/.test(s) ? `"${s}"` : s);

/** One line of the help listing for a pending question, with how to answer it. */
export function describePending(q: Question): string {
  return PENDING_LINES[cardKindOf(q)](q, shortId(q.id));
}

function optionsLine(q: Question, id: string): string {
  const options = q.options.map((o, i) => `${i + 1}. ${o}`).join("  ");
  const how = q.options.length ? (q.multi ? `/answer ${id} <numbers or "labels" …>` : `/answer ${id} <number or label>${q.allowCustom ? " (or your own text)" : ""}`) : `/answer ${id} <your answer>`;
  return `• ${id} — ${q.prompt}${options ? ` Options: ${options}.` : ""} Reply: ${how}, or /decline ${id} [feedback]`;
}

const PENDING_LINES: ByCardKind<(q: Question, id: string) => string> = {
  approval: (q, id) => {
    const what = q.approval ? `${q.approval.tool}: ${q.approval.subject}` : q.prompt;
    return `• ${id} — ${q.owner} asks to use ${what}. Reply: /approve ${id} once|always|deny [feedback]`;
  },
  confirm: (q, id) => `• ${id} — ${q.prompt} Reply: /answer ${id} yes|no, or /decline ${id} [feedback]`,
  choice: optionsLine,
  multi_choice: optionsLine,
  text: optionsLine,
  form: optionsLine,
};

/** The help reply: what went wrong, what is pending and how to answer it. */
export function helpText(problem: string, pending: readonly Question[]): string {
  if (pending.length === 0) return `${problem} Nothing is waiting for an answer in this session.`;
  const lines = pending.map(describePending);
  const omit = pending.length === 1 ? " With one question waiting, the id may be left out." : " An id may be shortened to a unique prefix.";
  return [`${problem} Waiting for an answer:`, ...lines, omit.trim()].join("\n");
}

/** Picks the target: the first argument as an id (prefix), or the only pending question. */
function target(pending: readonly Question[], args: string[], idRequired: (first: string) => boolean): { ok: true; question: Question; from: number } | { ok: false; error: string } {
  const first = args[0];
  if (first !== undefined) {
    const found = matching(pending, first);
    if (found.length === 1) return { ok: true, question: found[0]!, from: 1 };
    if (found.length > 1) return { ok: false, error: helpText(`"${first}" matches ${found.length} questions; give more of the id.`, pending) };
    if (idRequired(first)) return { ok: false, error: helpText(`No pending question has an id starting with "${first}".`, pending) };
    if (pending.length > 1) return { ok: false, error: helpText(`Say which question: several are waiting, and "${first}" is not the start of one's id.`, pending) };
  }
  if (pending.length === 1) return { ok: true, question: pending[0]!, from: 0 };
  return { ok: false, error: helpText(pending.length === 0 ? "There is no question to answer." : "Say which question: several are waiting.", pending) };
}

const YES = new Set(["yes", "y", "true", "ok", "confirm"]);
const NO = new Set(["no", "n", "false"]);

/** A choice by its number (1-based) or its label (case-insensitive); null when it is neither. */
export function pickOption(options: readonly string[], token: string): string | null {
  const t = token.trim();
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    return n >= 1 && n <= options.length ? options[n - 1]! : null;
  }
  return options.find((o) => o.toLowerCase() === t.toLowerCase()) ?? null;
}

/** The value an `/answer` gives, or an error naming the options. */
function answerValue(q: Question, args: string[], raw: string): AnswerValueResult {
  if (args.length === 0) return invalidAnswer(q, "An answer is missing.");
  return ANSWER_VALUES[cardKindOf(q)](q, args, raw);
}

type AnswerValueResult = { ok: true; value: AnswerValue | JsonValue } | { ok: false; error: string };
const invalidAnswer = (q: Question, why: string): AnswerValueResult => ({ ok: false, error: helpText(why, [q]) });

/** A reply schema's answer: JSON, else the words as text. */
function schemaValue(raw: string, args: string[]): AnswerValueResult {
  try {
    return { ok: true, value: JSON.parse(raw) as JsonValue };
  } catch {
    return { ok: true, value: args.join(" ") };
  }
}

const textValue = (args: string[], raw: string): AnswerValueResult => ({ ok: true, value: args.length === 1 ? args[0]! : raw });
const validOptions = (q: Question) => `The options are ${q.options.map((o, i) => `${i + 1}. ${quoteLabel(o)}`).join(", ")}.`;

const ANSWER_VALUES: ByCardKind<(q: Question, args: string[], raw: string) => AnswerValueResult> = {
  approval: (q) => invalidAnswer(q, "This is an approval: answer it with /approve."),
  confirm: (q, args) => {
    const joined = args.join(" ");
    const word = joined.toLowerCase();
    if (YES.has(word)) return { ok: true, value: true };
    if (NO.has(word)) return { ok: true, value: false };
    return invalidAnswer(q, `"${joined}" is not yes or no.`);
  },
  form: (_q, args, raw) => schemaValue(raw, args),
  text: (q, args, raw) => (q.replySchema ? schemaValue(raw, args) : textValue(args, raw)),
  multi_choice: (q, args, raw) => {
    if (q.replySchema) return schemaValue(raw, args);
    // The whole text may be one label; else each argument is a number or a label.
    const whole = pickOption(q.options, args.join(" "));
    if (whole !== null) return { ok: true, value: [whole] };
    const picked: string[] = [];
    for (const a of args.flatMap((x) => (/^[\d,]+$/.test(x) ? x.split(",").filter(Boolean) : [x]))) {
      const o = pickOption(q.options, a);
      if (o === null && !q.allowCustom) return invalidAnswer(q, `"${a}" is not one of the options. ${validOptions(q)}`);
      picked.push(o ?? a);
    }
    return { ok: true, value: [...new Set(picked)] };
  },
  choice: (q, args, raw) => {
    if (q.replySchema) return schemaValue(raw, args);
    const joined = args.join(" ");
    const choice = pickOption(q.options, joined);
    if (choice !== null) return { ok: true, value: choice };
    if (q.allowCustom) return textValue(args, raw);
    return invalidAnswer(q, `"${joined}" is not one of the options. ${validOptions(q)}`);
  },
};

/** Resolves a parsed command against the session's pending questions into one action, or a helpful error. */
export function resolveTextCommand(parsed: ParsedTextCommand, pending: readonly Question[]): Resolution {
  const { command, args, rest } = parsed;
  const after = (from: number) => rest[from] ?? "";
  switch (command) {
    case "answer": {
      // With one question waiting, "/answer eu" is the answer "eu" unless "eu" names a question.
      const t = target(pending, args, (first) => args.length > 1 && looksLikeId(first));
      if (!t.ok) return t;
      const value = answerValue(t.question, args.slice(t.from), after(t.from));
      return value.ok ? { ok: true, action: { type: "reply", question: t.question, value: value.value } } : value;
    }
    case "decline": {
      const t = target(pending, args, looksLikeId);
      if (!t.ok) return t;
      if (t.question.kind === "approval") return { ok: false, error: helpText("This is an approval: use /approve … deny [feedback].", [t.question]) };
      return { ok: true, action: { type: "reject", question: t.question, message: after(t.from) || null } };
    }
    case "approve": {
      const isDecision = (a: string | undefined) => a !== undefined && ApproveDecisionSchema.safeParse(a.toLowerCase()).success;
      const approvals = pending.filter((q) => q.kind === "approval");
      // "/approve once" with one approval waiting: the id is left out.
      const t = isDecision(args[0]) && !isDecision(args[1]) ? target(approvals.length === 1 ? approvals : pending, [], () => true) : target(pending, args, () => true);
      if (!t.ok) return t;
      if (t.question.kind !== "approval") return { ok: false, error: helpText("That is not an approval: use /answer or /decline.", [t.question]) };
      const decision = ApproveDecisionSchema.safeParse(args[t.from]?.toLowerCase());
      if (!decision.success) return { ok: false, error: helpText(`Say once, always or deny${args[t.from] ? ` (not "${args[t.from]}")` : ""}.`, [t.question]) };
      const feedback = after(t.from + 1) || null;
      if (decision.data === "deny") return { ok: true, action: { type: "reject", question: t.question, message: feedback } };
      return { ok: true, action: { type: "reply", question: t.question, value: decision.data } };
    }
  }
}

import { clip } from "../../protocol/bounded-text";
import type { ActionsBlock, Button, KnownBlock, PlainTextOption } from "@slack/web-api";
import { outcomeLine, type Viewpoint } from "../../protocol/audit";
import { cardKindOf, type ByCardKind } from "../../protocol/card-kinds";
import { approvalCountLine, rejectionCountLine, waitingLine } from "../../protocol/team-card";
import type { Question } from "../../protocol/question";
import { choiceValue, SLACK_ACTIONS } from "../../protocol/slack";
import { approvalBoundText } from "../../protocol/command-bound";
import { previewText } from "../../protocol/preview-text";

/** What a question's message says besides the question: the chat's title, and the link to its card. */
export interface MessageContext extends Viewpoint {
  chatTitle: string;
  /** The card in Parley (PARLEY_PUBLIC_URL's), or null when the server does not know where people reach it. */
  cardUrl: string | null;
}

/** Slack's limits: a button's or an option's text, a section's text, buttons in one actions block. */
const MAX_LABEL = 75;
const MAX_SECTION = 3_000;
const MAX_BUTTONS = 5;
const MAX_CHECKBOXES = 10;

/** Text Slack reads as mrkdwn shows as typed: its three control characters escaped. */
export const escapeMrkdwn = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Slack's plain text, cut to what the element takes (a label's 75 characters by default). */
export const plain = (text: string, max = MAX_LABEL) => ({ type: "plain_text" as const, text: clip(text, max), emoji: false });
const section = (text: string): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text: clip(text, MAX_SECTION) } });
const context = (text: string): KnownBlock => ({ type: "context", elements: [{ type: "mrkdwn", text: clip(text, MAX_SECTION) }] });

function button(text: string, actionId: string, value: string, style?: "primary" | "danger"): Button {
  return { type: "button", text: plain(text), action_id: actionId, value, ...(style ? { style } : {}) };
}

const option = (text: string, value: string): PlainTextOption => ({ text: plain(text), value });
const actions = (questionId: string, elements: ActionsBlock["elements"]): KnownBlock => ({ type: "actions", block_id: `parley_${questionId}`, elements });
/** The "Answer…" button: a modal for text, a form, or a choice's own words. */
const answerButton = (q: Question, text = "Answer…") => button(text, SLACK_ACTIONS.answer, q.id, "primary");

/** The answer controls of a waiting question, by its card. */
const CONTROLS: ByCardKind<(q: Question) => KnownBlock[]> = {
  choice: (q) => {
    const custom = q.allowCustom ? [answerButton(q, "Other…")] : [];
    if (q.options.length + custom.length <= MAX_BUTTONS) {
      return [actions(q.id, [...q.options.map((o, i) => button(o, `${SLACK_ACTIONS.choose}_${i}`, choiceValue(q.id, i))), ...custom])];
    }
    const select = {
      type: "static_select" as const,
      action_id: SLACK_ACTIONS.chooseSelect,
      placeholder: plain("Choose…"),
      options: q.options.map((o, i) => option(o, choiceValue(q.id, i))),
    };
    return [actions(q.id, [select, ...custom])];
  },
  multi_choice: (q) => {
    const choices = q.options.map((o, i) => option(o, choiceValue(q.id, i)));
    const pick =
      choices.length <= MAX_CHECKBOXES
        ? { type: "checkboxes" as const, action_id: SLACK_ACTIONS.multiPick, options: choices }
        : { type: "multi_static_select" as const, action_id: SLACK_ACTIONS.multiPick, placeholder: plain("Choose one or more…"), options: choices };
    return [actions(q.id, [pick, button("Send", SLACK_ACTIONS.multiSend, q.id, "primary")])];
  },
  confirm: (q) => [actions(q.id, [button("Yes", SLACK_ACTIONS.yes, q.id, "primary"), button("No", SLACK_ACTIONS.no, q.id)])],
  approval: (q) => [
    actions(q.id, [
      button("Allow once", SLACK_ACTIONS.allowOnce, q.id, "primary"),
      button("Allow always", SLACK_ACTIONS.allowAlways, q.id),
      // Only a call whose subject the server can read again may be edited.
      ...(q.approval?.edit ? [button("Edit…", SLACK_ACTIONS.edit, q.id)] : []),
      button("Reject…", SLACK_ACTIONS.reject, q.id, "danger"),
    ]),
  ],
  text: (q) => [actions(q.id, [answerButton(q)])],
  form: (q) => [actions(q.id, [answerButton(q)])],
};

/** Who asks and where: "*deploy* asks in _Release 4.2_". */
function askedBy(q: Question, ctx: MessageContext): string {
  const where = ctx.cardUrl ? `<${ctx.cardUrl}|${escapeMrkdwn(ctx.chatTitle)}>` : `_${escapeMrkdwn(ctx.chatTitle)}_`;
  return `*${escapeMrkdwn(q.owner)}* ${q.kind === "approval" ? "asks to use a tool" : "asks"} in ${where}`;
}

/** A code block that shows its text as it is (a ``` inside it cannot close it early). */
const codeBlock = (text: string) => "```" + escapeMrkdwn(clip(text, 2_500)).replace(/```/g, "`\u200b``") + "```";

/** The question itself: its prompt, or an approval's tool, subject, preview and what bounds it. */
function questionBlocks(q: Question): KnownBlock[] {
  if (q.kind === "approval" && q.approval) {
    const bound = approvalBoundText(q.approval);
    return [section(`*${escapeMrkdwn(q.approval.tool)}*: ${escapeMrkdwn(q.approval.subject)}\n${codeBlock(previewText(q.approval.preview))}`), ...(bound ? [context(escapeMrkdwn(bound))] : [])];
  }
  return [section(escapeMrkdwn(q.prompt)), ...(q.detail ? [context(escapeMrkdwn(clip(q.detail, 1_000)))] : [])];
}

/** The fallback text of a message (notifications, screen readers): who asks what. */
export function questionText(q: Question): string {
  return clip(q.approval ? `${q.owner} asks to use ${q.approval.tool}: ${q.approval.subject}` : `${q.owner} asks: ${q.prompt}`, 300);
}

/**
 * A question's message as it is now: waiting, with its answer controls and, for an approval that
 * needs several people, the votes so far; settled, with how it ended and no controls.
 */
export function questionMessage(q: Question, ctx: MessageContext): KnownBlock[] {
  const head = [context(askedBy(q, ctx)), ...questionBlocks(q)];
  if (q.status !== "pending") return [...head, context(`${q.status === "answered" ? "✅" : "⏹"} ${escapeMrkdwn(outcomeLine(q, ctx))}`)];
  const team = [approvalCountLine(q, ctx.nameOf), rejectionCountLine(q, ctx.nameOf), waitingLine(q, null, ctx.nameOf)].filter((l): l is string => l !== null);
  return [...head, ...CONTROLS[cardKindOf(q)](q), ...(team.length ? [context(escapeMrkdwn(team.join(" · ")))] : [])];
}

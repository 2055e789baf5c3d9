import { clip } from "../../protocol/bounded-text";
import { cardKindOf, type ByCardKind } from "../../protocol/card-kinds";
import type { Question } from "../../protocol/question";

/** What a question's mail says besides the question: its chat, the person's answer page, and the card in Parley. */
export interface MailContext {
  chatTitle: string;
  /** The answer page of this question and person (a capability: only in this mail). */
  pageUrl: string;
  cardUrl: string;
}

export interface QuestionMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The answers a mail offers as links: each opens the answer page with that answer chosen (opening it answers nothing). */
const ANSWER_LINKS: ByCardKind<(q: Question) => Array<{ label: string; pick: string }>> = {
  choice: (q) => q.options.map((label, i) => ({ label, pick: `choice-${i}` })),
  multi_choice: () => [],
  confirm: () => [
    { label: "Yes", pick: "yes" },
    { label: "No", pick: "no" },
  ],
  approval: () => [
    { label: "Allow once", pick: "once" },
    { label: "Reject…", pick: "reject" },
  ],
  text: () => [],
  form: () => [],
};

/** A question's mail to one person who may answer it: the prompt, who asks, the answers as links, and the card. */
export function questionMail(q: Question, ctx: MailContext): QuestionMail {
  const what = q.approval ? `${q.owner} asks to use ${q.approval.tool}: ${q.approval.subject}` : `${q.owner} asks: ${q.prompt}`;
  const links = ANSWER_LINKS[cardKindOf(q)](q).map((l) => ({ ...l, url: `${ctx.pageUrl}?pick=${encodeURIComponent(l.pick)}` }));
  const subject = clip(what.replace(/[\r\n]+/g, " "), 150);
  const text = [
    `${q.owner} asks in "${ctx.chatTitle}":`,
    "",
    q.approval ? `${q.approval.tool}: ${q.approval.subject}` : q.prompt,
    ...(q.detail ? ["", clip(q.detail, 2_000)] : []),
    "",
    ...(links.length ? [...links.map((l) => `${l.label}: ${l.url}`), ""] : [`Answer: ${ctx.pageUrl}`, ""]),
    `The whole card in Parley: ${ctx.cardUrl}`,
    "",
    "The links are yours alone: they answer as you. Opening one answers nothing until you press its button.",
  ].join("\n");
  const button = (l: { label: string; url: string }) =>
    `<a href="${escapeHtml(l.url)}" style="display:inline-block;margin:0 8px 8px 0;padding:8px 14px;border-radius:6px;background:#1c1917;color:#fff;text-decoration:none">${escapeHtml(l.label)}</a>`;
  const html = [
    `<p style="color:#57534e">${escapeHtml(q.owner)} asks in “${escapeHtml(ctx.chatTitle)}”:</p>`,
    `<p style="font-size:16px;white-space:pre-wrap">${escapeHtml(q.approval ? `${q.approval.tool}: ${q.approval.subject}` : q.prompt)}</p>`,
    ...(q.detail ? [`<p style="white-space:pre-wrap;color:#57534e">${escapeHtml(clip(q.detail, 2_000))}</p>`] : []),
    `<p>${links.length ? links.map(button).join("") : button({ label: "Answer…", url: ctx.pageUrl })}</p>`,
    `<p><a href="${escapeHtml(ctx.cardUrl)}">The whole card in Parley</a></p>`,
    `<p style="color:#78716c;font-size:12px">These links are yours alone: they answer as you. Opening one answers nothing until you press its button.</p>`,
  ].join("\n");
  return { subject, text, html };
}

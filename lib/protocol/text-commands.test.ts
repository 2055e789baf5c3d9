import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { Question } from "./question";
import { parseTextCommand, pickOption, resolveTextCommand, tokenize, type ParsedTextCommand } from "./text-commands";

const q = (over: Partial<Question>): Question =>
  aQuestion({ id: "a1b2c3d4-0000-4000-8000-000000000001", sessionId: "s", runId: "r", rootRunId: "r", pendingId: "p_aaaa11", prompt: "Which region?", options: ["us", "eu", "Asia Pacific"], ...over });
const region = q({});
const size = q({ id: "a1b2ffff-0000-4000-8000-000000000002", pendingId: "p_bbbb22", prompt: "Size?", options: ["Small", "Large"] });
const other = q({ id: "c9d8e7f6-0000-4000-8000-000000000003", pendingId: "p_cccc33", prompt: "Name?", options: [] });
const tools = q({ id: "e5e5e5e5-0000-4000-8000-000000000004", pendingId: "p_dddd44", options: [], prompt: "deploy", kind: "multi" as never, multi: true });
const multi = q({ ...tools, kind: "question", options: ["lint", "unit tests", "e2e"], multi: true });
const confirm = q({ id: "f0f0f0f0-0000-4000-8000-000000000005", pendingId: "p_eeee55", kind: "confirm", options: [], prompt: "Proceed?" });
const approval = q({
  id: "0a0a0a0a-0000-4000-8000-000000000006",
  pendingId: "p_ffff66",
  kind: "approval",
  options: [],
  prompt: "Run shell?",
  approval: { tool: "shell", subject: "rm -rf build", input: {}, preview: null } as never,
});

const parsed = (text: string): ParsedTextCommand => {
  const r = parseTextCommand(text);
  if (!r || !r.ok) throw new Error(`not parsed: ${text}`);
  return r.parsed;
};
const resolve = (text: string, pending: Question[]) => resolveTextCommand(parsed(text), pending);
const action = (text: string, pending: Question[]) => {
  const r = resolve(text, pending);
  if (!r.ok) throw new Error(r.error);
  return r.action;
};
const error = (text: string, pending: Question[]) => {
  const r = resolve(text, pending);
  if (r.ok) throw new Error("resolved");
  return r.error;
};

describe("parseTextCommand", () => {
  it("recognises only /answer, /decline and /approve (any case); other slash commands and chat are not text commands", () => {
    expect(parseTextCommand("/answer 1")?.ok).toBe(true);
    expect(parseTextCommand("  /DECLINE")?.ok).toBe(true);
    expect(parseTextCommand("/approve x once")?.ok).toBe(true);
    expect(parseTextCommand("/deploy")).toBeNull();
    expect(parseTextCommand("/help")).toBeNull();
    expect(parseTextCommand("/answering 1")).toBeNull();
    expect(parseTextCommand("please /answer 1")).toBeNull();
    expect(parseTextCommand("hello")).toBeNull();
  });
  it("splits arguments, keeps quoted words together (straight or curly quotes) and reports an unclosed quote", () => {
    expect(parsed('/answer abc "Asia Pacific" eu').args).toEqual(["abc", "Asia Pacific", "eu"]);
    expect(parsed("/answer abc “unit tests”").args).toEqual(["abc", "unit tests"]);
    expect(parsed("/decline  abc   too   risky ").rest).toEqual(["abc   too   risky", "too   risky", "risky"]);
    expect(tokenize('a "b')).toBeNull();
    const r = parseTextCommand('/answer "Asia');
    expect(r).toMatchObject({ ok: false });
    expect(!r!.ok && r!.error).toMatch(/quote/);
  });
});

describe("pickOption", () => {
  it("takes a 1-based number or a label, case-insensitive", () => {
    expect(pickOption(["us", "eu"], "2")).toBe("eu");
    expect(pickOption(["us", "eu"], "EU")).toBe("eu");
    expect(pickOption(["us", "eu"], "0")).toBeNull();
    expect(pickOption(["us", "eu"], "3")).toBeNull();
    expect(pickOption(["us", "eu"], "mars")).toBeNull();
  });
});

describe("/answer", () => {
  it("by full id, id prefix or pending id prefix, with a number or a label", () => {
    expect(action(`/answer ${region.id} eu`, [region, other])).toMatchObject({ type: "reply", question: { id: region.id }, value: "eu" });
    expect(action("/answer a1b2c 2", [region, other])).toMatchObject({ question: { id: region.id }, value: "eu" });
    expect(action("/answer p_aaaa EU", [region, size])).toMatchObject({ question: { id: region.id }, value: "eu" });
    expect(action('/answer p_aaaa "asia pacific"', [region])).toMatchObject({ value: "Asia Pacific" });
    expect(action("/answer p_aaaa asia pacific", [region])).toMatchObject({ value: "Asia Pacific" });
  });
  it("leaves the id out when exactly one question waits", () => {
    expect(action("/answer 3", [region])).toMatchObject({ question: { id: region.id }, value: "Asia Pacific" });
    expect(action("/answer eu", [region])).toMatchObject({ value: "eu" });
    expect(action("/answer Ada Lovelace", [other])).toMatchObject({ question: { id: other.id }, value: "Ada Lovelace" });
  });
  it("free text keeps what was typed; a single quoted argument loses its quotes", () => {
    expect(action(`/answer c9d8 Ada   "the" Countess`, [other, region])).toMatchObject({ value: 'Ada   "the" Countess' });
    expect(action('/answer c9d8 "Ada Lovelace"', [other, region])).toMatchObject({ value: "Ada Lovelace" });
  });
  it("custom text where the question allows it", () => {
    expect(action("/answer mars", [q({ allowCustom: true })])).toMatchObject({ value: "mars" });
  });
  it("multi: numbers, labels, quoted labels, comma lists; de-duplicated", () => {
    expect(action('/answer 1 "unit tests" 1', [multi])).toMatchObject({ value: ["lint", "unit tests"] });
    expect(action("/answer 1,3", [multi])).toMatchObject({ value: ["lint", "e2e"] });
    expect(action("/answer unit tests", [multi])).toMatchObject({ value: ["unit tests"] });
    expect(error("/answer 1 fuzz", [multi])).toMatch(/"fuzz" is not one of the options/);
  });
  it("confirm: yes/no words", () => {
    expect(action("/answer yes", [confirm])).toMatchObject({ value: true });
    expect(action("/answer f0f0 N", [confirm, region])).toMatchObject({ value: false });
    expect(error("/answer maybe", [confirm])).toMatch(/not yes or no/);
  });
  it("reply schema: JSON when it parses, else the text", () => {
    const schema = q({ options: [], replySchema: { type: "object" } });
    expect(action('/answer {"a": 1}', [schema])).toMatchObject({ value: { a: 1 } });
    expect(action("/answer hi there", [schema])).toMatchObject({ value: "hi there" });
  });
  it("errors list what is pending and how to answer it", () => {
    const wrongChoice = error("/answer 7", [region]);
    expect(wrongChoice).toMatch(/"7" is not one of the options\. The options are 1\. us, 2\. eu, 3\. "Asia Pacific"/);
    expect(wrongChoice).toMatch(/Reply: \/answer a1b2c3d4 <number or label>/);
    const ambiguous = error("/answer a1b2 eu", [region, size]);
    expect(ambiguous).toMatch(/"a1b2" matches 2 questions/);
    expect(ambiguous).toContain("Which region?");
    expect(ambiguous).toContain("Size?");
    expect(error("/answer 99ff00 eu", [region, size])).toMatch(/No pending question has an id starting with "99ff00"/);
    // One question waiting, but the first word is clearly an id that is not its.
    expect(error("/answer p_zzzz eu", [region])).toMatch(/No pending question has an id starting with "p_zzzz"/);
    expect(error("/answer eu", [region, size])).toMatch(/several are waiting/);
    expect(error("/answer eu", [])).toMatch(/Nothing is waiting/);
    expect(error("/answer", [region])).toMatch(/An answer is missing/);
    expect(error("/answer once", [approval])).toMatch(/\/approve/);
  });
});

describe("/decline", () => {
  it("with and without id and feedback", () => {
    expect(action("/decline a1b2c not now please", [region, size])).toEqual({ type: "reject", question: region, message: "not now please" });
    expect(action("/decline", [region])).toEqual({ type: "reject", question: region, message: null });
    expect(action("/decline too risky", [region])).toEqual({ type: "reject", question: region, message: "too risky" });
  });
  it("errors: several waiting, wrong id, an approval", () => {
    expect(error("/decline", [region, size])).toMatch(/several are waiting/);
    expect(error("/decline p_nope", [region])).toMatch(/No pending question/);
    expect(error("/decline", [approval])).toMatch(/approve … deny/);
  });
});

describe("/approve", () => {
  it("once, always, deny with feedback; id, prefix or none", () => {
    expect(action(`/approve ${approval.id} once`, [approval, region])).toMatchObject({ type: "reply", question: { id: approval.id }, value: "once" });
    expect(action("/approve p_ffff ALWAYS", [approval, region])).toMatchObject({ type: "reply", value: "always" });
    expect(action("/approve 0a0a deny not in prod", [approval, region])).toEqual({ type: "reject", question: approval, message: "not in prod" });
    expect(action("/approve once", [approval])).toMatchObject({ value: "once" });
    // The only approval among other questions.
    expect(action("/approve deny", [approval, region])).toEqual({ type: "reject", question: approval, message: null });
  });
  it("errors: missing or unknown decision, not an approval, unknown id", () => {
    expect(error("/approve 0a0a", [approval])).toMatch(/Say once, always or deny/);
    expect(error("/approve 0a0a maybe", [approval])).toMatch(/not "maybe"/);
    expect(error("/approve a1b2c once", [region, approval])).toMatch(/not an approval/);
    expect(error("/approve zz once", [region, approval])).toMatch(/No pending question/);
    expect(error("/approve once", [])).toMatch(/Nothing is waiting/);
  });
});

import { describe, expect, it } from "vitest";
import {
  alwaysAnswer,
  asOffered,
  alwaysChoiceHint,
  grantUntil,
  alwaysHint,
  approvalTitle,
  clip,
  fallbackText,
  hiddenCharactersWarning,
  inlineCode,
  ownerLabel,
  previewShowsSubject,
  promptShortened,
  subjectLabel,
} from "./approval";
import { anApproval } from "../../tests/helpers/questions";
import { keyHint } from "./question-input";
import { HOSTILE_COMMAND, approvalSpec, hostileShellSpec, shellSpec } from "./fixtures/approvals";

describe("approval wording", () => {
  it("an owner reads as words: kebab, snake, dotted and camel case", () => {
    expect(ownerLabel("order-coffee")).toBe("Order coffee");
    expect(ownerLabel("coffee_helper")).toBe("Coffee helper");
    expect(ownerLabel(" deploy-script (CI) ")).toBe("deploy-script (CI)");
    expect(ownerLabel("test.approve")).toBe("Test approve");
    expect(ownerLabel("writeReport")).toBe("Write report");
    expect(ownerLabel("chat")).toBe("Chat");
    expect(ownerLabel("CI")).toBe("CI");
    expect(ownerLabel("---")).toBe("---");
  });

  it("the title says who wants to run which tool", () => {
    expect(approvalTitle("coffee-helper", "shell")).toBe("Coffee helper wants to run shell");
  });

  it("Allow always names the rule it adds in the option's words, or nothing when none is offered", () => {
    const always = [
      { pattern: "docs/a.md", cwd: null, label: "`docs/a.md` exactly" },
      { pattern: "docs/**", cwd: null, label: "any file under `docs/`" },
    ];
    expect(alwaysHint({ tool: "write_file", always })).toBe("Allow write_file: `docs/a.md` exactly, in this chat");
    expect(alwaysHint({ tool: "write_file", always }, 1)).toBe("Allow write_file: any file under `docs/`, in this chat");
    expect(alwaysHint({ tool: "shell", always: [] })).toBeNull();
  });

  it("subject labels, the fallback and clipping", () => {
    expect([subjectLabel("path"), subjectLabel("command"), subjectLabel("text")]).toEqual(["Path", "Command", "Subject"]);
    expect([fallbackText("deny"), fallbackText("allow")]).toEqual(["then denied", "then allowed"]);
    expect(clip("a\n  b")).toBe("a b");
    expect(clip("x".repeat(200), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("a subject line only when the preview does not already show it", () => {
    expect(previewShowsSubject(approvalSpec())).toBe(true);
    expect(previewShowsSubject(shellSpec())).toBe(true);
    expect(previewShowsSubject(approvalSpec({ subject: "docs/other.md" }))).toBe(false);
    expect(previewShowsSubject(approvalSpec({ preview: { type: "list", items: ["docs/notes.md"] } }))).toBe(false);
  });

  it("a prompt's backticks mark inline code; an unpaired one stays", () => {
    expect(inlineCode("Run `npm test`?")).toEqual([
      { code: false, text: "Run " },
      { code: true, text: "npm test" },
      { code: false, text: "?" },
    ]);
    expect(inlineCode("Write docs/a.md?")).toEqual([{ code: false, text: "Write docs/a.md?" }]);
    expect(inlineCode("a ` b")).toEqual([{ code: false, text: "a ` b" }]);
  });
});

describe("the Allow always choice", () => {
  it("names the one rule, or both rules when the person chooses", () => {
    expect(alwaysChoiceHint(approvalSpec({ always: [] }))).toBeNull();
    expect(alwaysChoiceHint(approvalSpec({ always: [{ pattern: "a.md", cwd: null, label: "`a.md` exactly" }] }))).toBe("Allow write_file: `a.md` exactly, in this chat");
    expect(alwaysChoiceHint(approvalSpec())).toBe("Allow write_file again without asking, in this chat: you choose `docs/notes.md` exactly, or any file under `docs/`");
  });

  it("answers always for exactly this call and always_wider for the wider rule", () => {
    expect(alwaysAnswer(0)).toBe("always");
    expect(alwaysAnswer(1)).toBe("always_wider");
  });
});

describe("how long an Allow always lasts", () => {
  it("for good sends no until; an hour from now; today until the answerer's next midnight", () => {
    const now = new Date(2026, 11, 7, 17, 45, 30);
    expect(grantUntil("good", now)).toBeUndefined();
    expect(grantUntil("hour", now)).toBe(new Date(2026, 11, 7, 18, 45, 30).toISOString());
    expect(grantUntil("today", now)).toBe(new Date(2026, 11, 8, 0, 0, 0).toISOString());
    expect(grantUntil("today", new Date(2026, 11, 31, 23, 59))).toBe(new Date(2027, 0, 1).toISOString());
  });
});

describe("what the card warns about", () => {
  it("counts the marked characters of the preview, once", () => {
    expect(hiddenCharactersWarning(hostileShellSpec(), `Run \`${HOSTILE_COMMAND}\`?`)).toBe("This command contains 3 hidden or control characters, shown marked.");
    expect(hiddenCharactersWarning(shellSpec(), "Run `npm test`?")).toBeNull();
    expect(hiddenCharactersWarning(approvalSpec({ preview: { type: "diff", path: "docs/\u200bnotes.md", diff: "" } }))).toBe("This change contains 1 hidden or control character, shown marked.");
  });

  it("counts the prompt when the rest shows nothing", () => {
    expect(hiddenCharactersWarning(approvalSpec({ preview: { type: "text", text: "plain" }, subject: "plain" }), "Do \u202Eit")).toBe(
      "This request contains 1 hidden or control character, shown marked.",
    );
  });

  it("says when the prompt shows the subject shortened or on one line", () => {
    const long = "x".repeat(300);
    expect(promptShortened(`Run \`${long.slice(0, 199)}…\`?`, long)).toBe(true);
    expect(promptShortened("Run `echo a echo b`?", "echo a\necho b")).toBe(true);
    expect(promptShortened("Run `npm test`?", "npm test")).toBe(false);
    expect(promptShortened("Write docs/a.md?", "docs/a.md")).toBe(false);
    expect(promptShortened("Allow it?", "docs/a.md")).toBe(false);
  });
});

describe("an approval that needs several people", () => {
  it("offers Allow once and Reject only: its Allow always choices and its editor are not on offer, the keys' hint says so", () => {
    const several = anApproval({ edit: { schema: {}, reader: "catalogue" } }, { approvals: { required: 2, from: null, rejections: 1 } });
    expect(asOffered(several).approval!.always).toEqual([]);
    // Each voter allows the call as shown: nobody edits it.
    expect(asOffered(several).approval!.edit).toBeNull();
    expect(keyHint(asOffered(several))).toBe("1 allow once · 4 reject");
    const one = anApproval();
    expect(asOffered(one)).toBe(one);
    expect(keyHint(asOffered(one))).toBe("1 allow once · 2 allow always · 4 reject");
  });
});

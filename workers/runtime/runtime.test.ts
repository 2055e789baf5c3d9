import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, findTool } from "../tools";
import { inputJsonSchema } from "../tools/edited-call";
import { PathRefused } from "../tools/workspace-paths";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { QuestionSpecSchema } from "../../lib/protocol/question";
import { AskRefused, AskTimeout, CannotAsk, ChildRunFailed, FormSchemaInvalid, JournalDivergence, RunCancelled, RunParked, ToolDenied, ToolInputInvalid, UnknownTool, UserDeclined } from "./errors";
import { createRuntime, DEFAULT_TIMEOUT_MS, digestOf, type Settlement, type StepContext } from "./runtime";
import { WORKSPACE_CODE_NOTE } from "../tools/shell";
import { commandBound, sandboxMode } from "../../lib/sandbox/sandbox-mode";

function setup({ canAsk = true, journal = [] as JournalRecord[] } = {}) {
  const sent: ChildToParent[] = [];
  let n = 0;
  const controller = createRuntime({ runId: "run-1", sessionId: "s-1", canAsk, journal, send: (m) => sent.push(m), newId: () => `q${++n}` });
  const asks = () => sent.filter((m): m is Extract<ChildToParent, { type: "question.ask" }> => m.type === "question.ask");
  const settleLast = async (s: Partial<Settlement> & Pick<Settlement, "outcome">) => {
    await Promise.resolve();
    const last = asks().at(-1)!;
    controller.settle(last.questionId, { value: null, feedback: null, ...s });
  };
  return { controller, rt: controller.rt, sent, asks, settleLast };
}

describe("ask", () => {
  it("sends the question over IPC with the 30-minute default timeout and returns the answer", async () => {
    const { rt, asks, settleLast } = setup();
    const answer = rt.ask("Which environment?", { options: ["production", "staging"] });
    await settleLast({ outcome: "answered", value: "staging" });
    await expect(answer).resolves.toBe("staging");
    expect(asks()[0]).toMatchObject({
      runId: "run-1",
      spec: { kind: "question", prompt: "Which environment?", options: ["production", "staging"], timeoutMs: DEFAULT_TIMEOUT_MS },
    });
  });

  it("passes null through as no timeout", async () => {
    const { rt, asks, settleLast } = setup();
    const answer = rt.ask("Name?", { timeoutMs: null });
    await settleLast({ outcome: "answered", value: "Ada" });
    await answer;
    expect(asks()[0]!.spec.timeoutMs).toBeNull();
  });

  it("throws UserDeclined with the feedback on decline", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Deploy?", { options: ["a"] });
    await settleLast({ outcome: "declined", feedback: "not today" });
    await expect(answer).rejects.toSatisfy((e) => e instanceof UserDeclined && e.feedback === "not today");
  });

  it("returns the default on timeout when one is given", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Lunch?", { options: ["12:00", "12:30"], default: "12:30" });
    await settleLast({ outcome: "timed_out" });
    await expect(answer).resolves.toBe("12:30");
  });

  it("throws AskTimeout on timeout without a default", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Code?");
    await settleLast({ outcome: "timed_out" });
    await expect(answer).rejects.toBeInstanceOf(AskTimeout);
  });

  it.each(["cancelled", "expired"] as const)("throws RunCancelled when the question is %s", async (outcome) => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Code?");
    await settleLast({ outcome });
    await expect(answer).rejects.toBeInstanceOf(RunCancelled);
  });

  it("returns a list for multi", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Toppings?", { options: ["a", "b"], multi: true });
    await settleLast({ outcome: "answered", value: ["a", "b"] });
    await expect(answer).resolves.toEqual(["a", "b"]);
  });

  it("does not ask in a headless run: the default, or CannotAsk", async () => {
    const { rt, sent } = setup({ canAsk: false });
    expect(rt.canAsk()).toBe(false);
    await expect(rt.ask("Lunch?", { default: "12:30" })).resolves.toBe("12:30");
    await expect(rt.ask("Code?")).rejects.toBeInstanceOf(CannotAsk);
    expect(sent).toHaveLength(0);
  });
});

describe("withOwner", () => {
  it("labels the questions of a sub-agent with its name, leaving the digest alone", async () => {
    const { rt, asks, settleLast } = setup();
    const answer = rt.withOwner("deploy").ask("Env?", { options: ["a"] });
    await settleLast({ outcome: "answered", value: "a" });
    await answer;
    expect(asks()[0]!.spec.owner).toBe("deploy");
    expect(asks()[0]!.digest).toBe(digestOf("question", "question", "Env?", ["a"], false, false, null));
  });
});

describe("confirm", () => {
  it("returns true or false as answered, with the detail sent along", async () => {
    const { rt, asks, settleLast } = setup();
    const ok = rt.confirm("Archive 87 emails?", { detail: "87 emails" });
    await settleLast({ outcome: "answered", value: true });
    await expect(ok).resolves.toBe(true);
    expect(asks()[0]!.spec).toMatchObject({ kind: "confirm", detail: "87 emails", default: false });
  });

  it("never throws on timeout: false unless a default is given", async () => {
    const a = setup();
    const plain = a.rt.confirm("Sure?");
    await a.settleLast({ outcome: "timed_out" });
    await expect(plain).resolves.toBe(false);

    const b = setup();
    const withDefault = b.rt.confirm("Sure?", { default: true });
    await b.settleLast({ outcome: "timed_out" });
    await expect(withDefault).resolves.toBe(true);
  });

  it("returns false on decline", async () => {
    const { rt, settleLast } = setup();
    const ok = rt.confirm("Sure?", { default: true });
    await settleLast({ outcome: "declined", feedback: "no" });
    await expect(ok).resolves.toBe(false);
  });

  it("throws RunCancelled when the run is stopped", async () => {
    const { rt, settleLast } = setup();
    const ok = rt.confirm("Sure?");
    await settleLast({ outcome: "cancelled" });
    await expect(ok).rejects.toBeInstanceOf(RunCancelled);
  });
});

describe("form", () => {
  const trip = {
    type: "object",
    properties: {
      destination: { type: "string", title: "Destination", minLength: 2 },
      nights: { type: "integer", minimum: 1, maximum: 14 },
      currency: { type: "string", enum: ["EUR", "USD", "GBP"], enumNames: ["Euro", "US dollar", "Pound sterling"] },
      insurance: { type: "boolean" },
    },
    required: ["destination", "nights"],
  };

  it("asks a question whose reply schema is the form, and resolves accept with the content", async () => {
    const { rt, asks, settleLast } = setup();
    const result = rt.form("Book a trip", trip, { detail: "Where to?" });
    await settleLast({ outcome: "answered", value: { destination: "Lisbon", nights: 3 } });
    await expect(result).resolves.toEqual({ action: "accept", content: { destination: "Lisbon", nights: 3 } });
    expect(asks()[0]!.spec).toMatchObject({ kind: "question", prompt: "Book a trip", detail: "Where to?", replySchema: trip, timeoutMs: DEFAULT_TIMEOUT_MS });
  });

  it("resolves decline (with the person's words, when they wrote some) instead of throwing", async () => {
    const { rt, settleLast } = setup();
    const plain = rt.form("Book a trip", trip);
    await settleLast({ outcome: "declined" });
    await expect(plain).resolves.toEqual({ action: "decline" });
    const withWords = rt.form("Book a trip", trip);
    await settleLast({ outcome: "declined", feedback: "not this year" });
    await expect(withWords).resolves.toEqual({ action: "decline", feedback: "not this year" });
  });

  it("resolves cancel on a timeout without a default, and accepts the default on one with it", async () => {
    const { rt, settleLast, asks } = setup();
    const nobody = rt.form("Book a trip", trip, { timeoutMs: 60_000 });
    await settleLast({ outcome: "timed_out" });
    await expect(nobody).resolves.toEqual({ action: "cancel" });
    const fallback = { destination: "Porto", nights: 2 };
    const withDefault = rt.form("Book a trip", trip, { default: fallback });
    await settleLast({ outcome: "timed_out" });
    await expect(withDefault).resolves.toEqual({ action: "accept", content: fallback });
    expect(asks()[1]!.spec.default).toEqual(fallback);
  });

  it("throws RunCancelled when the run is stopped or its question cancelled with the run", async () => {
    const { controller, rt, settleLast } = setup();
    const closed = rt.form("Book a trip", trip);
    await settleLast({ outcome: "cancelled" });
    await expect(closed).rejects.toBeInstanceOf(RunCancelled);
    const stopped = rt.form("Book a trip", trip);
    await Promise.resolve();
    controller.cancel("Stopped by the user.");
    await expect(stopped).rejects.toBeInstanceOf(RunCancelled);
  });

  it("an invalid schema or default throws FormSchemaInvalid in the worker before anything is asked", async () => {
    const { rt, sent } = setup();
    await expect(rt.form("Nested?", { type: "object", properties: { a: { type: "object" } } })).rejects.toBeInstanceOf(FormSchemaInvalid);
    await expect(rt.form("Range?", { type: "object", properties: { n: { type: "integer", minimum: 9, maximum: 1 } } })).rejects.toThrow(
      'The form "Range?" cannot be asked: properties.n: minimum is above maximum',
    );
    await expect(rt.form("List?", { type: "array", items: { type: "string" } })).rejects.toThrow(/type "object"/);
    await expect(rt.form("Default?", trip, { default: { destination: "L", nights: 30 } })).rejects.toThrow(
      "its default does not fit: Destination: at least 2 characters; Nights: a whole number from 1 to 14",
    );
    expect(sent).toHaveLength(0);
  });

  it("in a headless run accepts the default, or throws CannotAsk", async () => {
    const { rt, sent } = setup({ canAsk: false });
    await expect(rt.form("Book a trip", trip, { default: { destination: "Porto", nights: 2 } })).resolves.toEqual({
      action: "accept",
      content: { destination: "Porto", nights: 2 },
    });
    await expect(rt.form("Book a trip", trip)).rejects.toBeInstanceOf(CannotAsk);
    expect(sent).toHaveLength(0);
  });

  it("replays a recorded answer without asking again, and labels a sub-agent's form with its name", async () => {
    const digest = digestOf("question", "question", "Book a trip", [], false, false, trip);
    const journal: JournalRecord[] = [{ kind: "question", seq: 0, digest, questionId: "old-q", settlement: { outcome: "answered", value: { destination: "Oslo", nights: 1 }, feedback: null } }];
    const { rt, sent } = setup({ journal });
    await expect(rt.form("Book a trip", trip)).resolves.toEqual({ action: "accept", content: { destination: "Oslo", nights: 1 } });
    expect(sent).toEqual([]);
    const other = setup();
    const helper = other.rt.withOwner("Travel helper");
    const result = helper.form("Book a trip", trip);
    await other.settleLast({ outcome: "declined" });
    await result;
    expect(other.asks()[0]!.spec.owner).toBe("Travel helper");
    expect(other.asks()[0]!.digest).toBe(digest);
  });
});

describe("askUser", () => {
  it("returns null on decline and on timeout, the text otherwise", async () => {
    const { rt, settleLast } = setup();
    const declined = rt.askUser("Name?");
    await settleLast({ outcome: "declined" });
    await expect(declined).resolves.toBeNull();
    const timedOut = rt.askUser("Name?");
    await settleLast({ outcome: "timed_out" });
    await expect(timedOut).resolves.toBeNull();
    const answered = rt.askUser("Name?");
    await settleLast({ outcome: "answered", value: "Ada" });
    await expect(answered).resolves.toBe("Ada");
  });
});

describe("the run controller", () => {
  it("cancel ends every pending ask, aborts the signal and refuses new asks", async () => {
    const { controller, rt } = setup();
    const one = rt.ask("One?");
    const two = rt.ask("Two?");
    await Promise.resolve();
    expect(controller.pendingCount()).toBe(2);
    controller.cancel("Stopped by the user.");
    await expect(one).rejects.toBeInstanceOf(RunCancelled);
    await expect(two).rejects.toThrow("Stopped by the user.");
    expect(rt.signal.aborted).toBe(true);
    expect(controller.pendingCount()).toBe(0);
    await expect(rt.ask("Three?")).rejects.toBeInstanceOf(RunCancelled);
    await expect(rt.sleep(10_000)).rejects.toBeInstanceOf(RunCancelled);
  });

  it("settling an unknown or already settled id is a harmless no-op", async () => {
    const { controller, rt, settleLast, asks } = setup();
    controller.settle("nope", { outcome: "answered", value: "x", feedback: null });
    const answer = rt.ask("Once?");
    await settleLast({ outcome: "answered", value: "first" });
    controller.settle(asks()[0]!.questionId, { outcome: "answered", value: "second", feedback: null });
    await expect(answer).resolves.toBe("first");
  });

  it("a refused question throws AskRefused with the server's code", async () => {
    const { controller, rt, asks } = setup();
    const answer = rt.ask("Ninth?");
    await Promise.resolve();
    controller.refuse(asks()[0]!.questionId, { code: "max_requests_exceeded", message: "at most 8" });
    await expect(answer).rejects.toSatisfy((e) => e instanceof AskRefused && e.code === "max_requests_exceeded");
  });
});

describe("the journal", () => {
  it("records steps, messages and questions in order, each with its position", async () => {
    const { rt, sent, settleLast } = setup();
    const value = await rt.step("fetch", async () => ({ at: new Date(0) }));
    expect(value).toEqual({ at: "1970-01-01T00:00:00.000Z" });
    rt.say("hello");
    const answer = rt.ask("Env?");
    await settleLast({ outcome: "answered", value: "prod" });
    await answer;
    expect(sent.map((m) => [m.type, "seq" in m ? m.seq : null])).toEqual([
      ["step.record", 0],
      ["run.say", 1],
      ["question.ask", 2],
    ]);
  });

  it("replay returns recorded results at once and does nothing twice", async () => {
    let stepRuns = 0;
    const journal: JournalRecord[] = [
      { kind: "step", seq: 0, digest: digestOf("step", "fetch"), output: { rows: 3 } },
      { kind: "say", seq: 1, digest: digestOf("say", "hello") },
      { kind: "question", seq: 2, digest: digestOf("question", "question", "Env?", [], false, false, null), questionId: "old-q", settlement: { outcome: "answered", value: "prod", feedback: null } },
    ];
    const { rt, sent } = setup({ journal });
    expect(await rt.step("fetch", () => ++stepRuns)).toEqual({ rows: 3 });
    rt.say("hello");
    expect(await rt.ask("Env?")).toBe("prod");
    rt.say("new line");
    expect(stepRuns).toBe(0);
    expect(sent).toEqual([expect.objectContaining({ type: "run.say", seq: 3, text: "new line" })]);
  });

  it("a question still pending in the journal waits for its answer without asking again", async () => {
    const journal: JournalRecord[] = [{ kind: "question", seq: 0, digest: digestOf("question", "question", "Env?", [], false, false, null), questionId: "old-q", settlement: null }];
    const { controller, rt, sent } = setup({ journal });
    // The answer may arrive before the replay reaches the ask: it is kept for it.
    controller.settle("old-q", { outcome: "answered", value: "staging", feedback: null });
    expect(await rt.ask("Env?")).toBe("staging");
    expect(sent).toEqual([]);
  });

  it("doing something else than the journal recorded fails with JournalDivergence", async () => {
    const journal: JournalRecord[] = [{ kind: "step", seq: 0, digest: digestOf("step", "fetch"), output: 1 }];
    const { controller, rt } = setup({ journal });
    await expect(rt.ask("Env?")).rejects.toBeInstanceOf(JournalDivergence);
    expect(controller.divergence()?.message).toMatch(/diverged from its journal at step 0/);
  });

  it("call starts a child run and returns its result; a failed child throws ChildRunFailed", async () => {
    const { controller, rt, sent } = setup();
    const ok = rt.call("deploy", { env: "prod" });
    const bad = rt.call("archive");
    await Promise.resolve();
    expect(sent.map((m) => m.type)).toEqual(["run.call", "run.call"]);
    controller.settleCall(0, { status: "succeeded", result: { done: true }, error: null });
    controller.settleCall(1, { status: "failed", result: null, error: "disk full" });
    await expect(ok).resolves.toEqual({ done: true });
    await expect(bad).rejects.toSatisfy((e) => e instanceof ChildRunFailed && /archive failed: disk full/.test(e.message));
  });
});

describe("parking", () => {
  it("lets go of a run that only waits; anything it does afterwards is refused", async () => {
    const { controller, rt } = setup();
    void rt.ask("Env?");
    await Promise.resolve();
    expect(controller.park()).toBe(true);
    expect(controller.isParked()).toBe(true);
    expect(controller.pendingCount()).toBe(0);
    expect(() => rt.say("late")).toThrow(RunParked);
  });

  it("refuses to park while a step is in flight", async () => {
    const { controller, rt } = setup();
    let finish!: () => void;
    const step = rt.step("slow", () => new Promise<void>((r) => (finish = r)));
    expect(controller.park()).toBe(false);
    finish();
    await step;
    expect(controller.park()).toBe(true);
  });
});

describe("step", () => {
  it("hands the step its idempotency key: the run and its journal position", async () => {
    const { rt } = setup();
    const keys: string[] = [];
    rt.say("first");
    await rt.step("a", ({ idempotencyKey }) => keys.push(idempotencyKey));
    await rt.step("b", (ctx: StepContext) => keys.push(ctx.idempotencyKey));
    expect(keys).toEqual(["run-1:1", "run-1:2"]);
  });
});

describe("tool", () => {
  const stepRecords = (sent: ChildToParent[]) => sent.filter((m): m is Extract<ChildToParent, { type: "step.record" }> => m.type === "step.record");

  /** A fake tool implementation that counts its calls and returns simulated output. */
  function fakeShell() {
    const calls: Array<{ command: string; idempotencyKey: string }> = [];
    const impl = async (input: { command: string }, ctx: StepContext) => {
      calls.push({ command: input.command, idempotencyKey: ctx.idempotencyKey });
      return { exitCode: 0, output: `ran ${input.command}` };
    };
    return { calls, impl };
  }

  it("asks for approval as a question of kind approval with the tool's spec", async () => {
    const { rt, asks, settleLast } = setup();
    const { impl } = fakeShell();
    const result = rt.tool("shell", { command: "npm test", cwd: "./packages/app/" }, impl);
    await settleLast({ outcome: "answered", value: "once" });
    await result;
    const ask = asks()[0]!;
    expect(ask.seq).toBe(0);
    expect(ask.spec).toEqual({
      kind: "approval",
      prompt: `Run \`npm test\`? ${WORKSPACE_CODE_NOTE}`,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      owner: undefined,
      approval: {
        tool: "shell",
        // The input as checked: its folder normalised.
        input: { command: "npm test", cwd: "packages/app" },
        preview: { type: "command", command: "npm test", cwd: "packages/app", bound: commandBound(sandboxMode(), false) },
        subject: "npm test",
        subjectKind: "command",
        // The folder it runs in, normalised: rules match it exactly.
        cwd: "packages/app",
        always: [
          { pattern: "npm test", cwd: "packages/app", label: "`npm test` exactly, in `packages/app`" },
          { pattern: "npm test *", cwd: "packages/app", label: "`npm test` with any further arguments, in `packages/app`" },
        ],
        dangerous: true,
        fallback: "deny",
        // The person may edit the call before allowing it, by the tool's own schema.
        edit: { schema: inputJsonSchema(findTool("shell")!), reader: "catalogue" },
      },
    });
    // What goes over IPC is a valid question spec.
    expect(QuestionSpecSchema.safeParse(ask.spec).success).toBe(true);
  });

  it("sends a write's diff preview (a caller's own implementation: from nothing), its path pattern and the options given", async () => {
    const { rt, asks, settleLast } = setup();
    const result = rt.withOwner("write-changelog").tool("write_file", { path: "docs/changelog.md", content: "a\nb\n" }, () => "ok", { timeoutMs: 60_000, fallback: "allow" });
    await settleLast({ outcome: "answered", value: "once" });
    await result;
    expect(asks()[0]!.spec).toMatchObject({
      prompt: "Write docs/changelog.md?",
      owner: "write-changelog",
      timeoutMs: 60_000,
      approval: {
        tool: "write_file",
        subject: "docs/changelog.md",
        subjectKind: "path",
        cwd: null,
        always: [
          { pattern: "docs/changelog.md", label: "`docs/changelog.md` exactly" },
          { pattern: "docs/**", label: "any file under `docs/`" },
        ],
        fallback: "allow",
        preview: { type: "diff", path: "docs/changelog.md", diff: "--- /dev/null\n+++ b/docs/changelog.md\n@@ -0,0 +1,2 @@\n+a\n+b\n" },
      },
    });
  });

  it.each(["once", "always"])("answered %j: runs the tool once, journals its result and returns it", async (value) => {
    const { rt, sent, settleLast } = setup();
    const { calls, impl } = fakeShell();
    const result = rt.tool("shell", { command: "npm test" }, impl);
    await settleLast({ outcome: "answered", value });
    await expect(result).resolves.toEqual({ exitCode: 0, output: "ran npm test" });
    expect(calls).toEqual([{ command: "npm test", idempotencyKey: "run-1:1" }]);
    expect(sent.map((m) => [m.type, "seq" in m ? m.seq : null])).toEqual([
      ["question.ask", 0],
      ["step.record", 1],
    ]);
    expect(stepRecords(sent)[0]).toMatchObject({ name: "shell npm test", digest: digestOf("tool", "shell", { command: "npm test" }), output: { exitCode: 0, output: "ran npm test" } });
  });

  it("a rejection throws ToolDenied carrying the feedback, and the tool does not run", async () => {
    const { rt, sent, settleLast } = setup();
    const { calls, impl } = fakeShell();
    const result = rt.tool("shell", { command: "rm -rf build" }, impl);
    await settleLast({ outcome: "declined", feedback: "never on this machine" });
    const err = await result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolDenied);
    expect(err).toMatchObject({ code: "tool_denied", tool: "shell", subject: "rm -rf build", reason: "rejected", feedback: "never on this machine", runId: "run-1" });
    expect((err as Error).message).toBe("The user rejected shell `rm -rf build`: never on this machine");
    expect(calls).toEqual([]);
    expect(stepRecords(sent)).toEqual([]);
  });

  it("a rejection without feedback says so plainly", async () => {
    const { rt, settleLast } = setup();
    const result = rt.tool("write_file", { path: "docs/a.md", content: "x" }, () => "ok");
    await settleLast({ outcome: "declined" });
    await expect(result).rejects.toSatisfy((e) => e instanceof ToolDenied && e.feedback === null && e.message === "The user rejected write_file `docs/a.md`.");
  });

  it.each(['Denied by the rule "shell rm*".', "Nobody can approve shell in this run (it runs without a person to ask), so it was denied."])(
    "a decline by the server (%s) reads as its own text, with no feedback from a person",
    async (text) => {
      const { rt, settleLast } = setup();
      const result = rt.tool("shell", { command: "rm -rf build" }, () => "ok");
      await settleLast({ outcome: "declined", feedback: text });
      await expect(result).rejects.toSatisfy((e) => e instanceof ToolDenied && e.reason === "denied" && e.feedback === null && e.message === text);
    },
  );

  it("asks even when nobody can answer: the server's rules decide", async () => {
    const { rt, asks, settleLast } = setup({ canAsk: false });
    expect(rt.canAsk()).toBe(false);
    const { calls, impl } = fakeShell();
    const result = rt.tool("shell", { command: "npm test" }, impl);
    await settleLast({ outcome: "answered", value: "once" });
    await result;
    expect(asks()).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("on timeout falls back to deny by default: ToolDenied naming the wait", async () => {
    const { rt, settleLast } = setup();
    const { calls, impl } = fakeShell();
    const result = rt.tool("shell", { command: "npm test" }, impl);
    await settleLast({ outcome: "timed_out" });
    await expect(result).rejects.toSatisfy((e) => e instanceof ToolDenied && e.reason === "timed_out" && e.message === "No answer in 30 minutes: denied.");
    expect(calls).toEqual([]);

    const quick = setup();
    const short = quick.rt.tool("shell", { command: "npm test" }, impl, { timeoutMs: 20_000, fallback: "deny" });
    await quick.settleLast({ outcome: "timed_out" });
    await expect(short).rejects.toThrow("No answer in 20 seconds: denied.");
  });

  it("on timeout with fallback allow runs the tool", async () => {
    const { rt, asks, settleLast } = setup();
    const { calls, impl } = fakeShell();
    const result = rt.tool("shell", { command: "npm test" }, impl, { fallback: "allow" });
    await settleLast({ outcome: "timed_out" });
    await expect(result).resolves.toEqual({ exitCode: 0, output: "ran npm test" });
    expect(calls).toHaveLength(1);
    expect(asks()[0]!.spec.approval?.fallback).toBe("allow");
  });

  it.each(["cancelled", "expired"] as const)("throws RunCancelled when the approval is %s", async (outcome) => {
    const { rt, settleLast } = setup();
    const result = rt.tool("shell", { command: "npm test" }, () => "ok");
    await settleLast({ outcome });
    await expect(result).rejects.toBeInstanceOf(RunCancelled);
  });

  it("a refused approval (the run's question policy) throws AskRefused", async () => {
    const { controller, rt, asks } = setup();
    const result = rt.tool("shell", { command: "npm test" }, () => "ok");
    await Promise.resolve();
    controller.refuse(asks()[0]!.questionId, { code: "max_requests_exceeded", message: "at most 8" });
    await expect(result).rejects.toBeInstanceOf(AskRefused);
  });

  it("a bad input throws ToolInputInvalid before asking anything; an unknown tool UnknownTool", async () => {
    const { rt, sent } = setup();
    const impl = () => "ok";
    // @ts-expect-error the shell tool needs a command
    const bad = rt.tool("shell", { cmd: "ls" }, impl);
    await expect(bad).rejects.toSatisfy((e) => e instanceof ToolInputInvalid && e.code === "tool_input_invalid" && e.tool === "shell" && /command/.test(e.message));
    await expect(rt.tool("write_file", { path: "../outside.md", content: "" }, impl)).rejects.toThrow(/Invalid input for write_file: .*path inside the workspace/);
    await expect(rt.tool("launch_rockets", {}, impl)).rejects.toSatisfy((e) => e instanceof UnknownTool && /shell, write_file, edit_file, read_file, list_files, search_files/.test(e.message));
    expect(sent).toEqual([]);
    // Nothing took a journal position.
    rt.say("next");
    expect(sent).toEqual([expect.objectContaining({ type: "run.say", seq: 0 })]);
  });

  it("the implementation gets the checked, normalised input", async () => {
    const { rt, settleLast } = setup();
    let seen: unknown;
    const result = rt.tool("write_file", { path: "./docs//a.md", content: "x" }, (input) => (seen = input.path));
    await settleLast({ outcome: "answered", value: "once" });
    await result;
    expect(seen).toBe("docs/a.md");
  });

  it("replay with a journaled approval and step returns the recorded result without asking or running the tool", async () => {
    const first = setup();
    const { calls, impl } = fakeShell();
    const live = first.rt.tool("shell", { command: "npm test" }, impl);
    await first.settleLast({ outcome: "answered", value: "always" });
    const liveResult = await live;
    const ask = first.asks()[0]!;
    const record = stepRecords(first.sent)[0]!;
    const journal: JournalRecord[] = [
      { kind: "question", seq: ask.seq, digest: ask.digest, questionId: ask.questionId, settlement: { outcome: "answered", value: "always", feedback: null } },
      { kind: "step", seq: record.seq, digest: record.digest, output: record.output },
    ];

    const replay = setup({ journal });
    const replayed = await replay.rt.tool("shell", { command: "npm test" }, impl);
    expect(replayed).toEqual(liveResult);
    expect(calls).toHaveLength(1);
    expect(replay.sent).toEqual([]);
  });

  it("a step cut off before its result was journaled runs again with the same idempotency key, without asking again", async () => {
    const first = setup();
    const { calls, impl } = fakeShell();
    const live = first.rt.tool("shell", { command: "npm test" }, impl);
    await first.settleLast({ outcome: "answered", value: "once" });
    await live;
    const ask = first.asks()[0]!;
    // The worker died after the approval but before the step.record reached the journal.
    const journal: JournalRecord[] = [{ kind: "question", seq: ask.seq, digest: ask.digest, questionId: ask.questionId, settlement: { outcome: "answered", value: "once", feedback: null } }];
    const replay = setup({ journal });
    await replay.rt.tool("shell", { command: "npm test" }, impl);
    expect(calls.map((c) => c.idempotencyKey)).toEqual(["run-1:1", "run-1:1"]);
    expect(replay.sent.map((m) => m.type)).toEqual(["step.record"]);
  });

  it("a replayed run whose tool input changed diverges from its journal", async () => {
    const first = setup();
    const live = first.rt.tool("shell", { command: "npm test" }, () => "ok");
    await first.settleLast({ outcome: "answered", value: "once" });
    await live;
    const ask = first.asks()[0]!;
    const journal: JournalRecord[] = [{ kind: "question", seq: 0, digest: ask.digest, questionId: ask.questionId, settlement: { outcome: "answered", value: "once", feedback: null } }];
    const replay = setup({ journal });
    await expect(replay.rt.tool("shell", { command: "npm run build" }, () => "ok")).rejects.toBeInstanceOf(JournalDivergence);
  });

  it("concurrent calls keep their journal positions whichever approval is answered first, live and on replay", async () => {
    const first = setup();
    const keys: Record<string, string> = {};
    const write = (input: { path: string }, ctx: StepContext) => {
      keys[input.path] = ctx.idempotencyKey;
      return { wrote: input.path };
    };
    const both = Promise.all([first.rt.tool("write_file", { path: "docs/a.md", content: "a" }, write), first.rt.tool("write_file", { path: "docs/b.md", content: "b" }, write)]);
    await Promise.resolve();
    const [askA, askB] = first.asks();
    expect([askA!.seq, askB!.seq]).toEqual([0, 2]);
    // B's card is answered "Allow always", which settles A too, after it.
    first.controller.settle(askB!.questionId, { outcome: "answered", value: "always", feedback: null });
    first.controller.settle(askA!.questionId, { outcome: "answered", value: "once", feedback: null });
    await both;
    expect(keys).toEqual({ "docs/a.md": "run-1:1", "docs/b.md": "run-1:3" });
    const records = stepRecords(first.sent);
    expect(records.map((r) => r.seq).sort()).toEqual([1, 3]);

    const journal: JournalRecord[] = [
      { kind: "question", seq: 0, digest: askA!.digest, questionId: askA!.questionId, settlement: { outcome: "answered", value: "once", feedback: null } },
      { kind: "question", seq: 2, digest: askB!.digest, questionId: askB!.questionId, settlement: { outcome: "answered", value: "always", feedback: null } },
      ...records.map((r): JournalRecord => ({ kind: "step", seq: r.seq, digest: r.digest, output: r.output })),
    ];
    const replay = setup({ journal });
    const replayed = await Promise.all([replay.rt.tool("write_file", { path: "docs/a.md", content: "a" }, write), replay.rt.tool("write_file", { path: "docs/b.md", content: "b" }, write)]);
    expect(replayed).toEqual([{ wrote: "docs/a.md" }, { wrote: "docs/b.md" }]);
    expect(replay.sent).toEqual([]);
    expect(replay.controller.divergence()).toBeNull();
  });

  it("a declined call leaves its step position unused: what follows keeps its place on replay", async () => {
    const first = setup();
    const denied = first.rt.tool("shell", { command: "rm -rf build" }, () => "ok").catch((e: unknown) => e);
    await first.settleLast({ outcome: "declined", feedback: "no" });
    expect(await denied).toBeInstanceOf(ToolDenied);
    first.rt.say("Understood.");
    expect(first.sent.at(-1)).toMatchObject({ type: "run.say", seq: 2 });
  });

  it("a run can be parked while an approval waits, not while the tool runs", async () => {
    const { controller, rt, settleLast } = setup();
    let finish!: () => void;
    const result = rt.tool("shell", { command: "npm test" }, () => new Promise<void>((r) => (finish = r)));
    await Promise.resolve();
    await settleLast({ outcome: "answered", value: "once" });
    await new Promise((r) => setTimeout(r, 0));
    expect(controller.park()).toBe(false);
    finish();
    await result;

    const other = setup();
    void other.rt.tool("shell", { command: "npm test" }, () => "ok");
    await Promise.resolve();
    expect(other.controller.park()).toBe(true);
  });
});

describe("questions go out in the order they were claimed", () => {
  /** A tool whose checks on disk wait at a gate the test opens; `refuse` makes them fail instead. */
  function gatedTool(name: string) {
    let open!: (refuse: boolean) => void;
    const gate = new Promise<boolean>((resolve) => (open = resolve));
    const tool = defineTool({
      name,
      description: "a test tool",
      dangerous: true,
      subjectKind: "text",
      inputSchema: z.strictObject({ x: z.string() }),
      subject: (input) => input.x,
      inspect: async () => {
        if (await gate) throw new PathRefused("x", "refused on disk");
        return null;
      },
      preview: (input) => ({ type: "text", text: input.x }),
      alwaysOptions: () => [],
      run: async () => ({ ran: name }),
    });
    return { tool, open };
  }

  function gatedSetup() {
    const slow = gatedTool("slow");
    const sent: ChildToParent[] = [];
    let n = 0;
    const controller = createRuntime({
      runId: "run-o",
      sessionId: "s",
      canAsk: true,
      send: (m) => sent.push(m),
      newId: () => `q${++n}`,
      findTool: (name) => (name === "slow" ? slow.tool : undefined),
    });
    const asks = () => sent.filter((m): m is Extract<ChildToParent, { type: "question.ask" }> => m.type === "question.ask").map((m) => m.spec.prompt);
    return { rt: controller.rt, slow, asks };
  }

  it("a question claimed after a tool that is still checking the disk waits for that tool's approval", async () => {
    const { rt, slow, asks } = gatedSetup();
    void rt.tool("slow", { x: "first" }).catch(() => {});
    void rt.ask("Second?").catch(() => {});
    await new Promise((r) => setTimeout(r, 10));
    expect(asks()).toEqual([]);
    slow.open(false);
    await new Promise((r) => setTimeout(r, 10));
    expect(asks()).toEqual(["Use slow on first?", "Second?"]);
  });

  it("a tool refused by its checks lets the questions after it go out", async () => {
    const { rt, slow, asks } = gatedSetup();
    const refused = rt.tool("slow", { x: "first" }).catch((e: unknown) => e);
    void rt.ask("Second?").catch(() => {});
    slow.open(true);
    expect(await refused).toBeInstanceOf(ToolDenied);
    expect(asks()).toEqual(["Second?"]);
  });
});

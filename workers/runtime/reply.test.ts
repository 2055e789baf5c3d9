import { describe, expect, it } from "vitest";
import { ChildToParentSchema, MAX_SAY_CHARS, type ChildToParent, type JournalRecord } from "../../lib/protocol/ipc";
import { JournalDivergence, RunCancelled } from "./errors";
import { createRuntime, digestOf } from "./runtime";

function setup(journal: JournalRecord[] = []) {
  const sent: ChildToParent[] = [];
  const controller = createRuntime({ runId: "run-1", sessionId: "s-1", canAsk: true, journal, send: (m) => sent.push(ChildToParentSchema.parse(m)) });
  return { controller, rt: controller.rt, sent };
}

describe("rt.reply", () => {
  it("sends each piece live as run.say.delta and the whole once as a journaled run.say", () => {
    const { rt, sent } = setup();
    const reply = rt.reply();
    reply.append("Hello");
    reply.append("");
    reply.append(", world");
    expect(reply.text).toBe("Hello, world");
    expect(reply.end()).toBe("Hello, world");
    expect(sent).toEqual([
      { type: "run.say.delta", runId: "run-1", seq: 0, delta: "Hello" },
      { type: "run.say.delta", runId: "run-1", seq: 0, delta: ", world" },
      { type: "run.say", runId: "run-1", seq: 0, digest: digestOf("reply"), text: "Hello, world" },
    ]);
  });

  it("claims its journal position when created, before its text is known", () => {
    const { rt, sent } = setup();
    const reply = rt.reply();
    rt.say("after");
    reply.append("first");
    reply.end();
    expect(sent.map((m) => ("seq" in m ? [m.type, m.seq] : [m.type]))).toEqual([
      ["run.say", 1],
      ["run.say.delta", 0],
      ["run.say", 0],
    ]);
  });

  it("is safe to end twice: the second end only returns the text, and appends after end are ignored", () => {
    const { rt, sent } = setup();
    const reply = rt.reply();
    reply.append("partial");
    expect(reply.end({ stopped: true })).toBe("partial");
    reply.append(" more");
    expect(reply.end()).toBe("partial");
    const says = sent.filter((m) => m.type === "run.say");
    expect(says).toEqual([{ type: "run.say", runId: "run-1", seq: 0, digest: digestOf("reply"), text: "partial", stopped: true }]);
  });

  it("stores nothing for an empty reply", () => {
    const { rt, sent } = setup();
    expect(rt.reply().end({ stopped: true })).toBe("");
    expect(sent).toEqual([]);
  });

  it("is a no-op writer on replay of a recorded say: end returns the recorded text, nothing is sent", () => {
    const { rt, sent } = setup([{ kind: "say", seq: 0, digest: digestOf("reply"), text: "recorded reply" }]);
    const reply = rt.reply();
    reply.append("new text that must not be sent");
    expect(reply.end()).toBe("recorded reply");
    expect(reply.end()).toBe("recorded reply");
    expect(sent).toEqual([]);
    // The next operation takes the next position, as in the first run.
    rt.say("next");
    expect(sent).toMatchObject([{ type: "run.say", seq: 1 }]);
  });

  it("returns an empty string on replay when the journal did not keep the text", () => {
    const { rt, sent } = setup([{ kind: "say", seq: 0, digest: digestOf("reply") }]);
    expect(rt.reply().end()).toBe("");
    expect(sent).toEqual([]);
  });

  it("diverges when the journal has a plain say at its position", () => {
    const { rt } = setup([{ kind: "say", seq: 0, digest: digestOf("say", "hello") }]);
    expect(() => rt.reply()).toThrow(JournalDivergence);
  });

  it("still ends as stopped after the run is cancelled, and a new reply then throws RunCancelled", () => {
    const { controller, rt, sent } = setup();
    const reply = rt.reply();
    reply.append("cut ");
    controller.cancel("Stopped by the person.");
    expect(reply.end({ stopped: rt.signal.aborted })).toBe("cut ");
    expect(sent.at(-1)).toMatchObject({ type: "run.say", stopped: true, text: "cut " });
    expect(() => rt.reply()).toThrow(RunCancelled);
  });

  it("cuts a reply at the longest message", () => {
    const { rt, sent } = setup();
    const reply = rt.reply();
    reply.append("x".repeat(MAX_SAY_CHARS - 2));
    reply.append("abcdef");
    reply.append("more");
    expect(reply.end()).toHaveLength(MAX_SAY_CHARS);
    expect(sent.filter((m) => m.type === "run.say.delta")).toHaveLength(2);
  });
});

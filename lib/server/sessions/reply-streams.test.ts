import { describe, expect, it } from "vitest";
import { MAX_SAY_CHARS } from "../../protocol/ipc";
import { createReplyStreams, mergeStreams } from "./reply-streams";

describe("reply streams", () => {
  it("keeps the text so far of each open reply per session, oldest first", () => {
    const streams = createReplyStreams();
    streams.append({ sessionId: "s1", runId: "r1", seq: 0, delta: "Hel" });
    streams.append({ sessionId: "s1", runId: "r2", seq: 3, delta: "Other" });
    expect(streams.append({ sessionId: "s1", runId: "r1", seq: 0, delta: "lo" })).toBe(3);
    streams.append({ sessionId: "s2", runId: "r9", seq: 1, delta: "elsewhere" });
    expect(streams.of("s1")).toEqual([
      { runId: "r1", seq: 0, text: "Hello" },
      { runId: "r2", seq: 3, text: "Other" },
    ]);
    expect(streams.textOf("s2", "r9", 1)).toBe("elsewhere");
    expect(streams.of("nope")).toEqual([]);
  });

  it("drops a reply when its message is stored, and every reply of a run when it ends", () => {
    const streams = createReplyStreams();
    streams.append({ sessionId: "s1", runId: "r1", seq: 0, delta: "a" });
    streams.append({ sessionId: "s1", runId: "r1", seq: 2, delta: "b" });
    streams.append({ sessionId: "s1", runId: "r2", seq: 0, delta: "c" });
    streams.drop("s1", "r1", 0);
    expect(streams.of("s1").map((r) => r.text)).toEqual(["b", "c"]);
    expect(streams.dropRun("r1")).toEqual([{ runId: "r1", seq: 2, text: "b" }]);
    expect(streams.dropRun("r1")).toEqual([]);
    expect(streams.dropRun("r2")).toEqual([{ runId: "r2", seq: 0, text: "c" }]);
    expect(streams.size()).toBe(0);
    expect(streams.of("s1")).toEqual([]);
  });

  it("refuses pieces past the longest message", () => {
    const streams = createReplyStreams();
    expect(streams.append({ sessionId: "s1", runId: "r1", seq: 0, delta: "x".repeat(MAX_SAY_CHARS) })).toBe(0);
    expect(streams.append({ sessionId: "s1", runId: "r1", seq: 0, delta: "y" })).toBeNull();
    expect(streams.textOf("s1", "r1", 0)).toHaveLength(MAX_SAY_CHARS);
  });
});

describe("merging the replies other nodes stream", () => {
  it("adds theirs to this node's, keeps the longest text of one reply, and leaves out one whose message is stored", () => {
    const local = [{ runId: "r1", seq: 0, text: "Hel" }];
    const remote = [
      { runId: "r1", seq: 0, text: "Hello" },
      { runId: "r2", seq: 1, text: "Elsewhere" },
      { runId: "r3", seq: 2, text: "Done alr" },
    ];
    const messages = [{ runId: "r3", role: "agent" as const, text: "Done already." }];
    expect(mergeStreams(local, remote, messages)).toEqual([
      { runId: "r1", seq: 0, text: "Hello" },
      { runId: "r2", seq: 1, text: "Elsewhere" },
    ]);
    expect(mergeStreams(local, [{ runId: "r1", seq: 0, text: "H" }], [])).toEqual(local);
    expect(mergeStreams(local, [], messages)).toBe(local);
  });
});

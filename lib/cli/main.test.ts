import { describe, expect, it } from "vitest";
import { MAX_ANSWER_CHARS } from "../protocol/question";
import { main } from "./main";

/** The CLI refuses what REST would, with the same schemas, before it reaches a server or the database. */
describe("parley send-input / decline check their arguments first", () => {
  const nowhere = ["--database", "file:/nonexistent/parley-cli-test.db", "--server", "http://127.0.0.1:9"];

  it("a decline message longer than REST allows is bad_request", async () => {
    await expect(main(["decline", "r1", "p_1", "--message", "x".repeat(MAX_ANSWER_CHARS + 1), ...nowhere])).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringContaining("message"),
    });
  });

  it("a reply nested 2,200 deep is reply_too_deep, not a stack overflow", async () => {
    const deep = `${"[".repeat(2_200)}1${"]".repeat(2_200)}`;
    await expect(main(["send-input", "r1", "p_1", "--value-json", deep, ...nowhere])).rejects.toMatchObject({ code: "reply_too_deep" });
  });

  it("a reply over the global ceiling is reply_too_large", async () => {
    await expect(main(["send-input", "r1", "p_1", "--value-json", JSON.stringify("x".repeat(1_100_000)), ...nowhere])).rejects.toMatchObject({
      code: "reply_too_large",
    });
  });

  it("JSON that does not parse is echoed clipped", async () => {
    const err = await main(["send-input", "r1", "p_1", "--value-json", `{${"x".repeat(10_000)}`, ...nowhere]).catch((e: Error) => e);
    expect(err).toMatchObject({ code: "reply_not_json" });
    expect((err as Error).message.length).toBeLessThan(300);
  });
});

describe("parley audit checks its options first", () => {
  const nowhere = ["--database", "file:/nonexistent/parley-cli-test.db"];

  it("a limit or a cursor the audit cannot read is a usage error naming it, before the database is opened", async () => {
    await expect(main(["audit", "--limit", "501", ...nowhere])).rejects.toThrow("Invalid audit options: limit: a whole number from 1 to 500");
    await expect(main(["audit", "--after", "yesterday", ...nowhere])).rejects.toThrow(/after: an ISO time/);
    await expect(main(["audit", "extra", ...nowhere])).rejects.toThrow(/Usage: parley audit/);
    // Options it reads: the database is what is missing then.
    await expect(main(["audit", "--limit", "5", "--after", "2026-12-05", ...nowhere])).rejects.toMatchObject({ code: "unavailable" });
  });
});

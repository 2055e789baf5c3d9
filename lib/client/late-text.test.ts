import type { ClosedBy } from "../protocol/surfaces";
import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { ReplyReceipt } from "../protocol/question";
import { lateText } from "./use-session";

const lost = (closedBy: ClosedBy, status: "answered" | "timed_out" = "answered") =>
  ({ outcome: status === "answered" ? "already_answered" : "already_closed", question: aQuestion({ status, closedBy }) }) as unknown as ReplyReceipt;

describe("lateText: why a reply lost, from where the winner came", () => {
  it("names the other surface, or 'another' tab or terminal of the same kind", () => {
    expect(lateText(lost("socket"), "socket")).toBe("Already answered in another tab");
    expect(lateText(lost("socket"), "terminal")).toBe("Already answered in a browser tab");
    expect(lateText(lost("terminal"), "socket")).toBe("Already answered in a terminal");
    expect(lateText(lost("terminal"), "terminal")).toBe("Already answered in another terminal");
    expect(lateText(lost("cli"), "socket")).toBe("Already answered from the CLI");
  });

  it("says how a question closed that nobody answered", () => {
    expect(lateText(lost("timeout", "timed_out"), "socket")).toBe("This question has already closed (timed out)");
  });
});

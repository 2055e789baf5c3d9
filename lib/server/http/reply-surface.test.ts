import { expect, it } from "vitest";
import { SURFACE_HEADER } from "../../protocol/rest";
import { replySurfaceOf } from "./reply-surface";

it("an answer is from a notification when the client says push, else over REST", () => {
  const request = (value?: string) => new Request("http://localhost/api/questions/q/reply", { method: "POST", headers: value === undefined ? {} : { [SURFACE_HEADER]: value } });
  expect(replySurfaceOf(request("push"))).toBe("push");
  for (const other of [undefined, "", "cli", "PUSH", "push, push", "socket", "terminal"]) expect(replySurfaceOf(request(other)), other).toBe("rest");
});

import { describe, expect, it } from "vitest";
import type { Ack } from "../protocol/socket";
import type { RequestJson } from "./api";
import { createWhoAmI, personInitial, screenName } from "./who-am-i";

describe("who this tab is signed in as", () => {
  it("names the administrator so, and anyone else by their name", () => {
    expect(screenName("local")).toBe("Administrator");
    expect(screenName("bob")).toBe("bob");
    expect([personInitial("local"), personInitial("bob"), personInitial("j.doe")]).toEqual(["A", "B", "J"]);
  });

  it("is asked once for every header that shows it, and again after a failure", async () => {
    const answers: Array<Ack<unknown>> = [
      { ok: false, error: { code: "unavailable", message: "away" } },
      { ok: true, data: { ownerId: "bob", via: "cookie", admin: false } },
    ];
    let asked = 0;
    const request = (async () => (asked++, answers.shift()!)) as RequestJson;
    const who = createWhoAmI(request);
    expect(await who.ask()).toBeNull();
    expect(who.known).toBeNull();
    const [a, b] = await Promise.all([who.ask(), who.ask()]);
    expect(a).toEqual({ ownerId: "bob", via: "cookie", admin: false });
    expect(b).toBe(a);
    expect(await who.ask()).toBe(a);
    expect(who.known).toBe(a);
    expect(asked).toBe(2);
  });
});

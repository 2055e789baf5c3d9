import { describe, expect, it } from "vitest";
import type { Session } from "../protocol/entities";
import type { WireError } from "../protocol/errors";
import type { Ack } from "../protocol/socket";
import type { RequestJson, RequestOptions } from "./api";
import { chatStarter } from "./start-chat";

/** A server that answers each request from a list, and records what was asked. */
function fakeServer(answers: Ack<unknown>[]) {
  const calls: Array<{ path: string; init?: RequestOptions }> = [];
  const request = (async (path: string, init?: RequestOptions) => {
    calls.push({ path, init });
    const next = answers.shift();
    if (!next) throw new Error(`unexpected request ${path}`);
    return next;
  }) as RequestJson;
  return { request, calls };
}

const chat = (id: string) => ({ id, title: "New chat" }) as Session;
const refused = (code: WireError["code"]): Ack<unknown> => ({ ok: false, error: { code, message: code } });

describe("chatStarter", () => {
  it("makes a chat, then sends the message in it", async () => {
    const server = fakeServer([
      { ok: true, data: chat("s1") },
      { ok: true, data: {} },
    ]);
    const made: Session[] = [];
    const res = await chatStarter(server.request, (s) => made.push(s))("hello");
    expect(res).toEqual({ ok: true, data: chat("s1") });
    expect(made.map((s) => s.id)).toEqual(["s1"]);
    expect(server.calls.map((c) => [c.path, c.init?.method, c.init?.body])).toEqual([
      ["/api/sessions", "POST", {}],
      ["/api/sessions/s1/messages", "POST", { text: "hello" }],
    ]);
  });

  it("sends nothing when no chat could be made, and says why", async () => {
    const server = fakeServer([refused("unavailable")]);
    const res = await chatStarter(server.request)("hello");
    expect(res.ok).toBe(false);
    expect(server.calls).toHaveLength(1);
  });

  it("reuses the chat whose message was refused: a retry makes no second chat", async () => {
    const server = fakeServer([{ ok: true, data: chat("s1") }, refused("unavailable"), { ok: true, data: {} }]);
    const start = chatStarter(server.request);
    expect((await start("hello")).ok).toBe(false);
    expect(await start("hello")).toEqual({ ok: true, data: chat("s1") });
    expect(server.calls.map((c) => c.path)).toEqual(["/api/sessions", "/api/sessions/s1/messages", "/api/sessions/s1/messages"]);
  });

  it("makes a new chat when the one left unsent was deleted meanwhile", async () => {
    const server = fakeServer([{ ok: true, data: chat("s1") }, refused("not_found:session"), { ok: true, data: chat("s2") }, { ok: true, data: {} }]);
    const start = chatStarter(server.request);
    await start("hello");
    expect(await start("hello")).toEqual({ ok: true, data: chat("s2") });
    expect(server.calls.map((c) => c.path)).toEqual(["/api/sessions", "/api/sessions/s1/messages", "/api/sessions", "/api/sessions/s2/messages"]);
  });

  it("a chat whose message went starts the next message afresh", async () => {
    const server = fakeServer([
      { ok: true, data: chat("s1") },
      { ok: true, data: {} },
      { ok: true, data: chat("s2") },
      { ok: true, data: {} },
    ]);
    const start = chatStarter(server.request);
    await start("one");
    expect(await start("two")).toEqual({ ok: true, data: chat("s2") });
  });
});

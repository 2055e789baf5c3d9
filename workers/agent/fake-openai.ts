import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/* For the agent's tests: an OpenAI-compatible chat-completions server on 127.0.0.1 that answers
 * each request with the next scripted handler, streaming server-sent events as the real one does. */

export type Handler = (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/**
 * Starts the server (closed after the test): each request is answered by the next handler; one too
 * many is a 500. With `models`, `GET /v1/models` lists them (as a probe at start-up asks) and any
 * other GET is a 404, neither taking a handler.
 */
export async function fakeServer(handlers: Handler[], { models }: { models?: string[] } = {}) {
  const requests: Array<{ body: Record<string, unknown>; auth: string | undefined }> = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    if (models && req.method === "GET") {
      if (req.url !== "/v1/models") return res.writeHead(404).end();
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: models.map((id) => ({ id, object: "model", created: 1, owned_by: "fake" })) }));
    }
    let raw = "";
    for await (const c of req) raw += c;
    const body = JSON.parse(raw) as Record<string, unknown>;
    requests.push({ body, auth: req.headers.authorization });
    const h = handlers[requests.length - 1];
    if (!h) return res.writeHead(500).end("no handler");
    h(body, req, res);
  };
  // A body that does not parse ends the connection, as a broken server would: the client sees the failure.
  server = createServer((req, res) => void answer(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err)))));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests };
}

export const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

export function sse(res: ServerResponse, events: string[]) {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const e of events) res.write(e);
  res.end("data: [DONE]\n\n");
}

/** Closes the server now: the address stops answering (a provider that is down). */
export async function closeFakeServer(): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
}

/** A step that replies with text and stops. */
export const textReply =
  (text: string): Handler =>
  (_b, _r, res) =>
    sse(res, [chunk({ role: "assistant", content: "" }), ...text.match(/.{1,4}/g)!.map((t) => chunk({ content: t })), chunk({}, "stop")]);

/** A step that calls these tools (name, arguments as JSON text) and stops for their results. */
export const toolCallsReply =
  (calls: Array<[name: string, args: string]>): Handler =>
  (_b, _r, res) =>
    sse(res, [
      chunk({ role: "assistant", content: "" }),
      ...calls.map(([name, args], index) => chunk({ tool_calls: [{ index, id: `call_${index + 1}`, type: "function", function: { name, arguments: args } }] })),
      chunk({}, "tool_calls"),
    ]);

/** The tool messages a request carried back to the model: each call's id and the text of its result. */
export function toolResults(body: Record<string, unknown>): Array<{ id: string; text: string }> {
  const messages = body.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  return messages.filter((m) => m.role === "tool").map((m) => ({ id: String(m.tool_call_id), text: typeof m.content === "string" ? m.content : JSON.stringify(m.content) }));
}

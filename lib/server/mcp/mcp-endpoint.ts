import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CancelledNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { RunStarter } from "../../protocol/entities";
import type { AskService } from "../asks/ask-service";
import { log } from "../log";
import { MCP_PROGRESS_EVERY_MS } from "../../protocol/mcp";
import { registerAskTools } from "./mcp-tools";

/** An MCP session unused this long, with no tool call waiting, is closed (its client starts a new one). */
const IDLE_MS = 30 * 60_000;
/** The most sessions one credential keeps open; a new one beyond closes its least recently used idle one. */
const MAX_SESSIONS_PER_CREDENTIAL = 32;

export interface McpRequestCaller {
  ownerId: string;
  credential: string;
  startedBy: RunStarter;
  /** Holds a waiting call open while the credential (and the membership of `sessionId`) lasts (json-route's `caller.hold`). */
  hold(sessionId: string | null): { signal: AbortSignal; release(): void };
}

interface OpenSession {
  transport: WebStandardStreamableHTTPServerTransport;
  credential: string;
  lastSeen: number;
  /** Tool calls and streams in progress: a session with any is never idle. */
  busy: number;
}

const SESSION_HEADER = "mcp-session-id";

/** A JSON-RPC error answer outside any session (the SDK's own wording for these cases). */
const rpcError = (status: number, code: number, message: string) => Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });

/**
 * Parley's MCP server over Streamable HTTP: one SDK server and transport per MCP session, kept in
 * this process and bound to the credential that opened it (another credential's requests for it
 * are not found). A server restart ends the sessions; clients open a new one, and a tool call
 * made again with its idempotency key finds its question, which the restart did not touch.
 */
export function createMcpEndpoint({ asks, version, progressEveryMs = MCP_PROGRESS_EVERY_MS }: { asks: AskService; version: string; progressEveryMs?: number }) {
  const sessions = new Map<string, OpenSession>();

  function open(caller: McpRequestCaller): WebStandardStreamableHTTPServerTransport {
    const server = new McpServer(
      { name: "parley", title: "Parley", version },
      { instructions: "Ask the person who runs you through Parley: questions (ask_user) and approvals of your tool calls (request_approval; permission_prompt for Claude Code)." },
    );
    // The SDK's own handler of `notifications/cancelled` is replaced: a cancel is kept with its
    // reason (it may arrive before its call waits) and aborts the call's own controller.
    const cancelled = new Map<string | number, string>();
    const calls = new Map<string | number, AbortController>();
    server.server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
      const { requestId, reason } = notification.params;
      if (requestId === undefined) return;
      cancelled.set(requestId, reason ?? "");
      calls.get(requestId)?.abort(reason);
    });
    const clientName = () => {
      const info = server.server.getClientVersion();
      return (info?.title ?? info?.name ?? "").trim() || "MCP client";
    };
    registerAskTools(server, {
      asks,
      progressEveryMs,
      caller: {
        ownerId: caller.ownerId,
        credential: caller.credential,
        startedBy: caller.startedBy,
        clientName,
        hold: (sessionId) => caller.hold(sessionId),
        // Access taken away: the session it was opened with ends too (after the call's error is sent).
        accessEnded: () => void setTimeout(() => void transport.close(), 0),
        callSignal(requestId, request) {
          const own = new AbortController();
          if (cancelled.has(requestId)) own.abort(cancelled.get(requestId));
          calls.set(requestId, own);
          return {
            signal: AbortSignal.any([request, own.signal]),
            release: () => {
              calls.delete(requestId);
              cancelled.delete(requestId);
            },
          };
        },
        // A client's own timeout sends a cancel too (the TypeScript SDK's "Request timed out"): that client went away, it did not withdraw.
        cancelledByClient: (requestId) => cancelled.has(requestId) && !/timed out|-32001/i.test(cancelled.get(requestId)!),
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, credential: caller.credential, lastSeen: Date.now(), busy: 0 });
        makeRoom(caller.credential, id);
      },
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    void server.connect(transport);
    return transport;
  }

  /** Closes the least recently used idle sessions of a credential past its limit. */
  function makeRoom(credential: string, keep: string): void {
    const mine = [...sessions].filter(([id, s]) => s.credential === credential && id !== keep && s.busy === 0).sort((a, b) => a[1].lastSeen - b[1].lastSeen);
    const over = [...sessions.values()].filter((s) => s.credential === credential).length - MAX_SESSIONS_PER_CREDENTIAL;
    for (const [, s] of mine.slice(0, Math.max(0, over))) void s.transport.close();
  }

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const s of sessions.values()) if (s.busy === 0 && now - s.lastSeen > IDLE_MS) void s.transport.close();
  }, 60_000);
  sweep.unref();

  return {
    /** Answers one HTTP request to `/mcp` for an authenticated caller. */
    async handle(req: Request, caller: McpRequestCaller): Promise<Response> {
      const id = req.headers.get(SESSION_HEADER);
      if (id === null) {
        if (req.method !== "POST") return rpcError(400, -32000, "Bad Request: no MCP session: start one with an initialize request (POST).");
        // A request that is not an initialize is answered 400 by the transport, which is then dropped.
        return open(caller).handleRequest(req);
      }
      const session = sessions.get(id);
      if (!session || session.credential !== caller.credential) return rpcError(404, -32001, "Session not found");
      session.lastSeen = Date.now();
      session.busy++;
      try {
        const response = await session.transport.handleRequest(req);
        return holdWhileStreaming(response, () => {
          session.busy--;
          session.lastSeen = Date.now();
        });
      } catch (err) {
        session.busy--;
        log.error({ err }, "[mcp] a request failed");
        throw err;
      }
    },

    /** The open sessions (for tests and metrics). */
    get openSessions(): number {
      return sessions.size;
    },

    async close(): Promise<void> {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
    },
  };
}

export type McpEndpoint = ReturnType<typeof createMcpEndpoint>;

/** The same response, calling `done` once its body has been read to the end or cancelled (a stream stays busy while it is open). */
function holdWhileStreaming(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          finish();
          controller.close();
        } else controller.enqueue(value);
      } catch (err) {
        finish();
        controller.error(err);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

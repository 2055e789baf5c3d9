import type { ApprovalAskInput } from "../../protocol/asks";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { clip } from "../../protocol/bounded-text";
import { MAX_SENDER_CHARS } from "../../protocol/channels";
import type { RunStarter } from "../../protocol/entities";
import { AppError, parseOrThrow } from "../../protocol/errors";
import { shortId } from "../../protocol/text-commands";
import {
  AskUserArgsObject,
  AskUserArgsSchema,
  AskUserResultSchema,
  MCP_TOOLS,
  PermissionPromptArgsSchema,
  RequestApprovalArgsSchema,
  RequestApprovalResultSchema,
  approvalResultOf,
  approvalResultText,
  askResultOf,
  askResultText,
  permissionPromptResultOf,
} from "../../protocol/mcp";
import type { Question } from "../../protocol/question";
import type { AskService } from "../asks/ask-service";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Who calls, as the MCP session knows it: the gate's owner and credential, the token's name, and the client's name from its `initialize`. */
export interface McpCaller {
  ownerId: string;
  credential: string;
  startedBy: RunStarter;
  /** The client's name (its `clientInfo.title`, else `name`); known once it initialized. */
  clientName(): string;
  /** The call's signal: aborted when the request ends (its session closes) or the client cancels it, even before the call began to wait. */
  callSignal(requestId: string | number, request: AbortSignal): { signal: AbortSignal; release(): void };
  /** Whether the client cancelled this request itself (`notifications/cancelled`, not a timeout of its own): then its question is withdrawn. */
  cancelledByClient(requestId: string | number): boolean;
  /** Holds a waiting call open while the caller's credential and membership of the chat last. */
  hold(sessionId: string | null): { signal: AbortSignal; release(): void };
  /** The caller's access ended while a call waited: its MCP session closes. */
  accessEnded(): void;
}

/**
 * The tools of Parley's MCP server. Each call puts an ordinary Parley question (the ask API's
 * service), then waits for it however long the person takes: progress notifications keep the
 * client's request alive, a client that goes away leaves the question pending, the same
 * idempotency key waits on the same question, and a client's cancel withdraws it.
 */
export function registerAskTools(server: McpServer, { asks, caller, progressEveryMs }: { asks: AskService; caller: McpCaller; progressEveryMs: number }): void {
  const from = () => {
    const name = caller.clientName();
    const token = caller.startedBy.tokenName;
    // Two words at least: the card shows them as written (a single word would read as a function's name).
    return clip(`${name} (${token && token !== name ? token : "MCP"})`, MAX_SENDER_CHARS);
  };
  const startedBy = (): RunStarter => ({ ...caller.startedBy, mcpClient: caller.clientName() });
  /** Keys are kept per credential and per tool: an approval's key never finds an ask's question. */
  const credentialOf = (tool: string) => `${caller.credential}:mcp:${tool}`;

  server.registerTool(
    MCP_TOOLS.ask,
    {
      title: "Ask the person",
      description:
        "Ask the person a question through Parley and wait for the answer: free text, a choice of options (one or several), or a form. It reaches every device they have Parley open on; the first answer wins. Answers can take minutes or hours: pass an idempotency_key, and call again with the same key to keep waiting on the same question.",
      inputSchema: AskUserArgsObject,
      outputSchema: AskUserResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (raw, extra) =>
      answerOf(async () => {
        const { idempotency_key, session, ...ask } = parseOrThrow(AskUserArgsSchema, raw);
        const question = await asks.ask({
          ownerId: caller.ownerId,
          body: { ...ask, from: from(), session: session ?? caller.clientName() },
          idempotencyKey: idempotency_key,
          credential: credentialOf(MCP_TOOLS.ask),
          startedBy: startedBy(),
        });
        const settled = await waitFor(question, extra);
        const result = askResultOf(settled);
        return { content: [{ type: "text", text: askResultText(result) }], structuredContent: result };
      }),
  );

  const approve = async (
    {
      key,
      session,
      ...args
    }: { tool_name: string; input: Record<string, unknown>; session?: string; key?: string } & Partial<
      Pick<ApprovalAskInput, "preview" | "input_schema" | "roots" | "answerers" | "escalate" | "approvals">
    >,
    tool: string,
    extra: Extra,
  ) => {
    const question = await asks.approve({
      ownerId: caller.ownerId,
      body: { ...args, from: from(), session: session ?? caller.clientName() },
      idempotencyKey: key,
      credential: credentialOf(tool),
      startedBy: startedBy(),
    });
    return approvalResultOf(await waitFor(question, extra));
  };

  server.registerTool(
    MCP_TOOLS.approval,
    {
      title: "Ask the person to approve a tool call",
      description:
        "Ask the person to approve a call of one of your tools before you make it. Parley's permission rules may decide at once; otherwise the person allows it once, always (later calls like it are allowed without asking), or rejects it, with feedback.",
      inputSchema: RequestApprovalArgsSchema,
      outputSchema: RequestApprovalResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (raw, extra) =>
      answerOf(async () => {
        const { idempotency_key, ...args } = parseOrThrow(RequestApprovalArgsSchema, raw);
        const result = await approve({ ...args, key: idempotency_key }, MCP_TOOLS.approval, extra);
        return { content: [{ type: "text", text: approvalResultText(result) }], structuredContent: result };
      }),
  );

  server.registerTool(
    MCP_TOOLS.permission,
    {
      title: "Permission prompt (Claude Code)",
      description:
        'Claude Code\'s --permission-prompt-tool: asks the person to approve a tool call. Returns a text block whose JSON is {"behavior":"allow","updatedInput":{…}} or {"behavior":"deny","message":"…"}.',
      inputSchema: PermissionPromptArgsSchema,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (raw, extra) =>
      answerOf(async () => {
        const args = parseOrThrow(PermissionPromptArgsSchema, raw);
        const result = await approve({ tool_name: args.tool_name, input: args.input, key: args.tool_use_id }, MCP_TOOLS.permission, extra);
        return { content: [{ type: "text", text: JSON.stringify(permissionPromptResultOf(result, args.input)) }] };
      }),
  );

  /**
   * Waits until the question settles. With a progress token, a progress notification at least
   * every `progressEveryMs` (PARLEY_MCP_PROGRESS_MS). When the request ends first: withdrawn if the client
   * cancelled it, else (the client went away or timed out) left pending for a call with its key.
   */
  async function waitFor(question: Question, extra: Extra): Promise<Question> {
    const progressToken = extra._meta?.progressToken;
    const call = caller.callSignal(extra.requestId, extra.signal);
    const held = caller.hold(question.sessionId);
    const signal = AbortSignal.any([call.signal, held.signal]);
    try {
      for (let current = question, beat = 0; ; beat++) {
        // Access taken away first: its typed error, never a later answer.
        if (held.signal.aborted) {
          caller.accessEnded();
          throw AppError.from(held.signal.reason);
        }
        if (current.status !== "pending") return current;
        if (signal.aborted) {
          if (caller.cancelledByClient(extra.requestId)) await asks.withdraw(current);
          throw new AppError("unavailable", "The request ended before the question was answered; call again with the same idempotency key to wait on it.");
        }
        if (progressToken !== undefined && beat > 0) {
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: beat, message: `Waiting for the person to answer question ${shortId(current.id)}…` } });
        }
        current = await asks.settled(current.id, progressEveryMs / 1000, signal);
      }
    } finally {
      call.release();
      held.release();
    }
  }
}

/** A tool's answer, or its error as a tool error the model can read (the SDK would turn a throw into one too, without the code). */
async function answerOf(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    const error = AppError.from(err);
    if (error.code === "internal") throw err;
    return { isError: true, content: [{ type: "text", text: `${error.code}: ${error.message}` }] };
  }
}

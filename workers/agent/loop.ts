import { streamText, type ModelMessage, type ToolSet } from "ai";
import type { JsonValue } from "../../lib/protocol/question";
import { RunCancelled, type Runtime } from "../runtime";
import { providerError, redact } from "./errors";
import type { ModelChoice } from "./provider";
import { askAloneRefusals, runToolCall, type RecordedToolCall } from "./tool-calls";
import { modelTools, type DemoCommand } from "./tools";
import type { McpListing, McpToolbox } from "./mcp";

export const MAX_STEPS = 8;

/** One earlier message of the session, as the chat run's input carries it. */
export interface HistoryMessage {
  role: "user" | "agent";
  text: string;
}

/** A model step as the journal records it: replay returns this without calling the model. */
export interface ModelStep {
  text: string;
  toolCalls: RecordedToolCall[];
  finishReason: string;
}

/** Where a reply's text streams: the runtime's `rt.reply()` when it has one. */
export interface ReplyWriter {
  append(delta: string): void;
  end(options?: { stopped?: boolean }): void;
}

type RuntimeWithReply = Runtime & { reply?: () => ReplyWriter };

export const SYSTEM_PROMPT = [
  "You are Parley's assistant, chatting with a person in a web app.",
  "Use the tools when the person asks for something they do; they work in the workspace folder: shell runs a command there, read_file, list_files and search_files read, write_file and edit_file change files; the person approves dangerous tools first.",
  "When a request is ambiguous, call clarify with a short question and options instead of guessing.",
  "If a tool result says the user declined or rejected something, respect it. Keep replies short.",
].join(" ");

const MCP_PROMPT = "Tools named mcp__<server>__<tool> belong to MCP servers; the person approves them first, and the server may ask them questions on a form while its tool runs.";

const DEMO_PROMPT = "When the person clearly asks for one of the demos (deploy the app, plan my evening …), call start_demo with its name and then say what it returned.";

export interface AgentLoopOptions {
  choice: ModelChoice;
  /** The session's earlier messages, oldest first. */
  history?: HistoryMessage[];
  text: string;
  maxSteps?: number;
  /** Streams each step's text; without one, `rt.reply()` if the runtime has it, else the text is said when the step ends. */
  reply?: () => ReplyWriter;
  /** Demo functions the model may start with `start_demo` (the slash-command table); none: the tool is not offered. */
  demos?: ReadonlyArray<DemoCommand>;
  /** The MCP servers whose tools the model is offered (PARLEY_MCP_SERVERS); listed once per run. */
  mcp?: McpToolbox | null;
}

export interface AgentLoopResult {
  reply: string;
  steps: number;
  toolCalls: number;
}

/**
 * The agent loop: one model step at a time, each a journaled `rt.step("model")` (its text and tool
 * calls), then each tool call through `rt.tool` / `rt.ask` (journaled by the runtime), the results
 * appended to the messages for the next step. A replayed run gets the recorded steps back and calls
 * the model only for steps it had not finished.
 */
export async function runAgentLoop(rt: Runtime, options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { choice, maxSteps = MAX_STEPS } = options;
  const messages: ModelMessage[] = [
    ...(options.history ?? []).map((m): ModelMessage => (m.role === "user" ? { role: "user", content: m.text } : { role: "assistant", content: m.text })),
    { role: "user", content: options.text },
  ];
  const mcp = options.mcp ? { toolbox: options.mcp, listing: await options.mcp.list() } : undefined;
  const system = systemPrompt(Boolean(options.demos?.length), mcp?.listing);
  const live = options.reply ?? (rt as RuntimeWithReply).reply?.bind(rt);
  const replies: string[] = [];
  let toolCalls = 0;
  for (let n = 1; n <= maxSteps; n++) {
    // Offered again each step: `clarify` disappears when nobody can answer any more.
    const tools = modelTools({ canAsk: rt.canAsk(), demos: options.demos, mcp: mcp?.listing.tools });
    const writer = live?.() ?? null;
    let streamed = "";
    let step: ModelStep;
    try {
      step = await rt.step("model", () =>
        callModel(choice, system, messages, tools, rt.signal, (d) => {
          streamed += d;
          writer?.append(d);
        }),
      );
    } catch (err) {
      writer?.end({ stopped: rt.signal.aborted });
      if (rt.signal.aborted || err instanceof RunCancelled) throw err instanceof RunCancelled ? err : new RunCancelled(String(rt.signal.reason ?? "The run was stopped."));
      if (isRuntimeControl(err)) throw err;
      throw providerError(err, { provider: choice.provider, apiKey: choice.apiKey });
    }
    // A recorded step streams nothing: its reply is stored already (the writer ignores text then), or
    // was cut off by a crash after the step was journaled, and is written now from the step's text.
    if (writer && !streamed && step.text) writer.append(step.text);
    writer?.end();
    if (!writer && step.text.trim()) rt.say(step.text);
    if (step.text.trim()) replies.push(step.text);
    messages.push({
      role: "assistant",
      content: [
        ...(step.text ? [{ type: "text" as const, text: step.text }] : []),
        ...step.toolCalls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
      ],
    });
    if (step.toolCalls.length === 0) return { reply: replies.join("\n\n"), steps: n, toolCalls };
    const refused = askAloneRefusals(step.toolCalls);
    for (const call of step.toolCalls) {
      const refusal = refused?.get(call.toolCallId);
      const output = refusal !== undefined ? ({ type: "text", value: refusal } as const) : await runToolCall(rt, call, options.demos, mcp);
      toolCalls++;
      messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output }] });
    }
  }
  const note = `I stopped after ${maxSteps} model steps without finishing. Ask me to go on if you want more.`;
  rt.say(note);
  return { reply: [...replies, note].join("\n\n"), steps: maxSteps, toolCalls };
}

/** The system prompt: the demos' part when they are offered, the MCP tools' part and a line for each server that is not available (so the agent can say why a tool is missing). */
function systemPrompt(demos: boolean, mcp: McpListing | undefined): string {
  const parts = [SYSTEM_PROMPT];
  if (demos) parts.push(DEMO_PROMPT);
  if (mcp && mcp.tools.size > 0) parts.push(MCP_PROMPT);
  for (const line of mcp?.unavailable ?? []) parts.push(`${line} Its tools are not offered this time.`);
  return parts.join(" ");
}

/** Errors of the runtime itself (parked, diverged …) are not provider errors. */
function isRuntimeControl(err: unknown): boolean {
  return err instanceof Error && ["RunParked", "JournalDivergence", "RunCancelled"].includes(err.name);
}

/** One model call: streams its text to `onDelta` and collects its tool calls. */
async function callModel(choice: ModelChoice, system: string, messages: ModelMessage[], tools: ToolSet, signal: AbortSignal, onDelta: (delta: string) => void): Promise<ModelStep> {
  // onError: the SDK would log the raw error (its response body may hold the key); the error part below ends the step instead.
  const result = streamText({ model: choice.model, system, messages, tools, abortSignal: signal, maxRetries: choice.maxRetries, onError: () => {} });
  let text = "";
  let finishReason = "unknown";
  const calls = new Map<string, RecordedToolCall>();
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        text += part.text;
        onDelta(part.text);
        break;
      case "tool-call": {
        const invalid = (part as { invalid?: boolean }).invalid === true;
        calls.set(part.toolCallId, {
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: toJson(part.input),
          ...(invalid ? { error: `The call of ${part.toolName} could not be read: ${errorText((part as { error?: unknown }).error, choice.apiKey)}` } : {}),
        });
        break;
      }
      case "tool-error": {
        const call = calls.get(part.toolCallId);
        if (call && !call.error) call.error = `The call of ${part.toolName} failed: ${errorText(part.error, choice.apiKey)}`;
        break;
      }
      case "error":
        throw part.error;
      case "abort":
        throw new RunCancelled(String(signal.reason ?? "The run was stopped."));
      case "finish":
        finishReason = part.finishReason;
        break;
      default:
        // Reasoning, sources, files, the step and text markers: nothing a step keeps.
        break;
    }
  }
  return { text, toolCalls: [...calls.values()], finishReason };
}

function toJson(value: unknown): JsonValue {
  try {
    return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
  } catch {
    return null;
  }
}

function errorText(err: unknown, apiKey?: string): string {
  return redact(describeError(err), [apiKey]).slice(0, 300);
}

/** An error part's error as text: a provider may fail with a plain object rather than an Error. */
function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err) ?? "unknown error";
  } catch {
    return "unknown error";
  }
}

import type { JsonValue } from "../../lib/protocol/question";
import { AskRefused, AskTimeout, CannotAsk, ChildRunFailed, DEFAULT_TIMEOUT_MS, ToolDenied, ToolFailed, ToolInputInvalid, UnknownTool, UserDeclined, type Runtime } from "../runtime";
import { describeWait } from "../runtime/tool-call";
import { CLARIFY, ClarifyInputSchema, startDemoInputSchema, type DemoCommand } from "./tools";
import { modelTextOf, type McpListing, type McpToolbox } from "./mcp";

/** A tool call as a model step recorded it. */
export interface RecordedToolCall {
  toolCallId: string;
  toolName: string;
  input: JsonValue;
  /** Set when the SDK could not read the call (bad JSON, unknown tool): the model is told why. */
  error?: string;
}

/** What the model sees as a call's output: text, or JSON. */
export type ToolOutput = { type: "text"; value: string } | { type: "json"; value: JsonValue };

/**
 * Runs one tool call of the model through the runtime (the catalogue's real tools, in the
 * workspace) and returns what the model sees. Every way a call can end without a result becomes
 * text the model can act on: a denied or rejected approval (ToolDenied's message), a tool that
 * failed (a missing file …), a declined or unanswered `clarify`, an invalid input. Stopping,
 * parking and journal divergence are not results: they propagate.
 */
export async function runToolCall(rt: Runtime, call: RecordedToolCall, demos: ReadonlyArray<DemoCommand> = [], mcp?: { toolbox: McpToolbox; listing: McpListing }): Promise<ToolOutput> {
  const text = (value: string): ToolOutput => ({ type: "text", value });
  if (call.error) return text(call.error);
  if (call.toolName === CLARIFY) return text(await clarify(rt, call.input));
  if (call.toolName === "start_demo" && demos.length > 0) return text(await startDemo(rt, call.input, demos));
  const mcpTool = mcp?.listing.tools.get(call.toolName);
  try {
    let edited: JsonValue | undefined;
    const onEdited = (input: unknown) => (edited = input as JsonValue);
    if (mcpTool) {
      const result = modelTextOf(mcpTool.name, await mcp!.toolbox.call(rt, mcpTool, call.input, onEdited));
      return text(edited === undefined ? result : `${editedNote(edited)}\n${result}`);
    }
    const result = await rt.tool(call.toolName, call.input as never, undefined, { onEdited });
    return { type: "json", value: edited === undefined ? result : { note: editedNote(edited), result } };
  } catch (err) {
    if (err instanceof ToolDenied || err instanceof ToolFailed || err instanceof ToolInputInvalid || err instanceof UnknownTool) return text(err.message);
    throw err;
  }
}

/** The model hears that the person changed its call: what ran is not what it asked for. */
const editedNote = (input: JsonValue) => `The person edited this call before allowing it; it ran with this input instead: ${JSON.stringify(input)}`;

/**
 * A question to the person is a decision of its own: a step that calls `clarify` together with any
 * other tool (or `clarify` twice) asks nothing and runs nothing. Returns, for such a step, the text
 * each of its calls gets back instead (by toolCallId), telling the model how to go on; null for a
 * step whose calls may run. Decided from the journaled step alone, so a replay decides the same.
 */
export function askAloneRefusals(calls: readonly RecordedToolCall[]): Map<string, string> | null {
  const asks = calls.filter((c) => c.toolName === CLARIFY);
  if (asks.length === 0 || calls.length === 1) return null;
  const others = [...new Set(calls.filter((c) => c.toolName !== CLARIFY).map((c) => c.toolName))];
  const also = others.length > 0 ? `this step also called ${others.join(", ")}` : `this step called clarify ${asks.length} times`;
  const refusals = new Map<string, string>();
  for (const call of calls) {
    refusals.set(
      call.toolCallId,
      call.toolName === CLARIFY
        ? `Nothing was asked: clarify must be the only tool call of its step, and ${also}. Call clarify alone, once, in your next step and wait for the answer, or act without asking.`
        : `Not run: this step also called clarify, and a question to the person must be a step of its own. Ask alone first (clarify only, once), or call ${call.toolName} again in a step without clarify.`,
    );
  }
  return refusals;
}

/** The `clarify` tool: a question through `rt.ask`; every outcome as text, never an empty one. */
async function clarify(rt: Runtime, rawInput: JsonValue): Promise<string> {
  if (!rt.canAsk()) return "clarify is not available: nobody can answer questions in this run. Make a reasonable assumption and say so.";
  const parsed = ClarifyInputSchema.safeParse(rawInput);
  if (!parsed.success) return `clarify was called with an invalid input: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`;
  const { question, options, multi, allowFreeText } = parsed.data;
  const timeoutMs = DEFAULT_TIMEOUT_MS;
  try {
    const answer = await rt.ask(question, { options, multi: multi && options.length > 0, allowCustom: allowFreeText && options.length > 0, timeoutMs });
    const value = Array.isArray(answer) ? answer.join(", ") : answer;
    return value.trim() ? value : "the user answered with an empty text";
  } catch (err) {
    if (err instanceof UserDeclined) return `the user declined: ${err.feedback?.trim() || "(no reason given)"}`;
    if (err instanceof AskTimeout) return `no answer within ${describeWait(timeoutMs)}`;
    if (err instanceof CannotAsk) return "clarify is not available: nobody can answer questions in this run.";
    if (err instanceof AskRefused) return `clarify was refused: ${err.message} Go on without asking.`;
    throw err;
  }
}

/**
 * The `start_demo` tool: the named demo function as a child run (`rt.call`: journaled, so a replayed
 * run gets the recorded result back without starting it again). Its questions show as cards as
 * usual; its result or failure comes back as text.
 */
async function startDemo(rt: Runtime, rawInput: JsonValue, demos: ReadonlyArray<DemoCommand>): Promise<string> {
  const parsed = startDemoInputSchema(demos).safeParse(rawInput);
  if (!parsed.success) return `start_demo was called with an invalid input: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`;
  const demo = demos.find((d) => d.name === parsed.data.name)!;
  try {
    const result = await rt.call(demo.fn.name);
    return `The ${demo.name} demo finished. It returned: ${JSON.stringify(result ?? null).slice(0, 1000)}`;
  } catch (err) {
    if (err instanceof ChildRunFailed) return `The ${demo.name} demo did not finish: ${err.message}`;
    throw err;
  }
}

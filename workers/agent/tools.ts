import { jsonSchema, tool, type ToolSet } from "ai";
import { z } from "zod";
import { tools as catalogue, type Tool } from "../tools";
import type { McpTool } from "./mcp";

/** The built-in ask: the only tool name that asks the person, and only as the runtime's own tool. */
export const CLARIFY = "clarify";
/** Names the loop gives meaning to: no catalogue tool may take one (asking is the runtime's, not a name's). */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([CLARIFY, "start_demo"]);

/** The arguments of the `clarify` tool: a question for the person, answered on a card. */
export const ClarifyInputSchema = z.strictObject({
  question: z.string().trim().min(1).max(500),
  options: z.array(z.string().trim().min(1).max(200)).max(12).default([]),
  multi: z.boolean().default(false),
  allowFreeText: z.boolean().default(true),
});
export type ClarifyInput = z.output<typeof ClarifyInputSchema>;

const CLARIFY_DESCRIPTION =
  "Asks the user a clarifying question when a request is ambiguous. Give options when the answer is one of a few choices; " +
  "multi=true lets them pick several; allowFreeText lets them type their own answer. Returns their answer as text.";

/** A demo function the model may start with `start_demo`: an entry of the slash-command table (workers/functions/chat.ts). */
export interface DemoCommand {
  name: string;
  fn: { name: string; description: string };
}

/** The arguments of the `start_demo` tool: which demo, by its slash-command name. */
export function startDemoInputSchema(demos: ReadonlyArray<DemoCommand>) {
  const names = demos.map((d) => d.name);
  return z.strictObject({ name: z.enum(names as [string, ...string[]]).describe("The demo to start.") });
}

function startDemoDescription(demos: ReadonlyArray<DemoCommand>): string {
  return (
    "Starts one of Parley's demo functions as a child run when the user asks for it in their own words; it may ask the user questions on cards. " +
    "Returns what the demo returned, or why it failed. The demos: " +
    demos.map((d) => `${d.name} (${d.fn.description})`).join("; ")
  );
}

/**
 * What the model is offered: the tool catalogue (workers/tools), when somebody can answer,
 * `clarify`, when the caller passes demos, `start_demo`, and the MCP servers' tools
 * (`mcp__<server>__<tool>`, their own JSON Schemas). No `execute`: the loop runs each call itself, through `rt.tool` / `rt.ask`, so that
 * approvals and the journal apply. The schemas are plain JSON Schema: the runtime checks inputs
 * and a bad one goes back to the model as the call's result.
 */
export function modelTools({
  canAsk,
  demos = [],
  tools = catalogue,
  mcp = new Map(),
}: {
  canAsk: boolean;
  demos?: ReadonlyArray<DemoCommand>;
  tools?: readonly Tool[];
  mcp?: ReadonlyMap<string, McpTool>;
}): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    if (RESERVED_TOOL_NAMES.has(t.name.toLowerCase())) throw new Error(`A tool may not be named "${t.name}": the agent's own ${[...RESERVED_TOOL_NAMES].join(" and ")} use that name.`);
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(z.toJSONSchema(t.inputSchema, { io: "input" }) as never) });
  }
  if (canAsk) set[CLARIFY] = tool({ description: CLARIFY_DESCRIPTION, inputSchema: jsonSchema(z.toJSONSchema(ClarifyInputSchema, { io: "input" }) as never) });
  if (demos.length > 0) {
    set.start_demo = tool({ description: startDemoDescription(demos), inputSchema: jsonSchema(z.toJSONSchema(startDemoInputSchema(demos), { io: "input" }) as never) });
  }
  for (const t of mcp.values()) {
    const schema = t.definition.inputSchema;
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema({ ...schema, properties: schema.properties ?? {} } as never) });
  }
  return set;
}

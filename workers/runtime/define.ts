import { z } from "zod";
import { AgentFunctionInfoSchema, CommandNameSchema } from "../../lib/protocol/entities";
import type { Runtime } from "./runtime";

export interface AgentFunctionDefinition {
  /** Its name, e.g. `deploy`: `POST /api/sessions/{id}/runs` names it, and so does its chat command unless `command` says otherwise. */
  name: string;
  /** One line: the `/help` list, `GET /api/functions`, and what the model reads when `tool` is set. */
  description: string;
  /** Its chat command without the slash (default: its name, when the name is one word with dashes); false: none. */
  command?: string | false;
  /** The model agent may start it when a request in the person's own words calls for it (default false). */
  tool?: boolean;
  run(rt: Runtime, input: unknown): Promise<unknown>;
}

export interface AgentFunction {
  readonly name: string;
  readonly description: string;
  /** Its chat command, or null. */
  readonly command: string | null;
  readonly tool: boolean;
  run(rt: Runtime, input: unknown): Promise<unknown>;
}

const BRAND = Symbol.for("parley.agentFunction");

const DefinitionSchema = z.object({
  name: AgentFunctionInfoSchema.shape.name,
  description: AgentFunctionInfoSchema.shape.description,
  command: z.union([CommandNameSchema, z.literal(false)]).optional(),
  tool: z.boolean().optional(),
  run: z.custom<AgentFunction["run"]>((v) => typeof v === "function", "an async function (rt, input)"),
});

/**
 * Makes an agent function. A file in `workers/functions/` that exports what this returns (default
 * or named export) is loaded by the workers: there is no list to add it to. A bad definition throws
 * here, naming the field, so the file's load failure says what to fix.
 */
export function defineAgentFunction(definition: AgentFunctionDefinition): AgentFunction {
  const checked = DefinitionSchema.safeParse(definition);
  if (!checked.success) {
    const issues = checked.error.issues.map((i) => `${i.path.join(".") || "definition"}: ${i.message}`).join("; ");
    throw new TypeError(`defineAgentFunction(${JSON.stringify(definition?.name ?? "?")}): ${issues}`);
  }
  const { name, description, command, tool = false, run } = checked.data;
  const implicit = CommandNameSchema.safeParse(name).success ? name : null;
  return Object.freeze({ name, description, command: command === false ? null : (command ?? implicit), tool, run, [BRAND]: true });
}

/** Whether a module's export is an agent function (made by `defineAgentFunction`, in any copy of this module). */
export function isAgentFunction(value: unknown): value is AgentFunction {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

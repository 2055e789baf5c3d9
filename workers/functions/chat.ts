import type { HistoryMessage } from "../agent";
import { currentCatalogue, type FunctionCatalogue } from "../function-catalogue";
import { defineAgentFunction } from "../runtime";
import type { AgentFunction } from "../runtime";

export type ParsedCommand = { kind: "help" } | { kind: "run"; name: string; fn: AgentFunction } | { kind: "unknown"; name: string; failure?: string };

/** The slash commands of the loaded functions, by name: `/coffee` runs `order-coffee`. */
export function commandsOf(catalogue: FunctionCatalogue): Array<{ name: string; fn: AgentFunction }> {
  return catalogue.functions.flatMap((fn) => (fn.command ? [{ name: fn.command, fn }] : [])).sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A slash command at the very start of a message (`/deploy`, `/help`), or null: a word inside a
 * sentence never starts one, and neither does a path like `/usr/bin`. A function's own name works
 * too (`/order-coffee`). An unknown one whose file failed to load says why.
 */
export function parseCommand(text: string, catalogue: FunctionCatalogue = currentCatalogue()): ParsedCommand | null {
  const m = /^\s*\/([a-z][a-z0-9-]*)(?=\s|$)/i.exec(text);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  if (name === "help") return { kind: "help" };
  const found = commandsOf(catalogue).find((c) => c.name === name || c.fn.name === name);
  if (found) return { kind: "run", name: found.name, fn: found.fn };
  const failed = catalogue.failures.find((f) => f.file.replace(/^.*[\\/]/, "").replace(/\.\w+$/, "") === name);
  return failed ? { kind: "unknown", name, failure: `${failed.file} did not load: ${failed.message}` } : { kind: "unknown", name };
}

/** The functions the model may start with `start_demo`, by their command (or name): those whose definition sets `tool`. */
export function toolFunctionsOf(catalogue: FunctionCatalogue): Array<{ name: string; fn: AgentFunction }> {
  return catalogue.functions.filter((fn) => fn.tool && fn.name !== chat.name).map((fn) => ({ name: fn.command ?? fn.name, fn }));
}

export function helpText(catalogue: FunctionCatalogue = currentCatalogue()): string {
  return [
    "Talk to me in your own words: I answer, use tools (you approve the dangerous ones) and ask when something is unclear.",
    "These commands start an agent function directly, each asking you something in its own way:",
    ...commandsOf(catalogue).map((c) => `• /${c.name} — ${c.fn.description}`),
    "Answer in the card that replaces the input; every open tab sees it.",
  ].join("\n");
}

/** The chat run's input: the message, the session's earlier messages (bounded by the server), and the failed turn a Retry re-runs. */
export function chatInput(input: unknown): { text: string; history: HistoryMessage[]; retryOf: string | null } {
  const o = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const text = typeof o.text === "string" ? o.text : "";
  const history = Array.isArray(o.history)
    ? o.history.flatMap((m): HistoryMessage[] => {
        if (typeof m !== "object" || m === null) return [];
        const { role, text } = m as Record<string, unknown>;
        return (role === "user" || role === "agent") && typeof text === "string" ? [{ role, text }] : [];
      })
    : [];
  return { text, history, retryOf: typeof o.retryOf === "string" ? o.retryOf : null };
}

export const chat = defineAgentFunction({
  name: "chat",
  description: "The chat agent: a model with tools and clarifying questions; /commands start the other functions.",
  command: false,
  async run(rt, input) {
    const { text, history, retryOf } = chatInput(input);
    const command = parseCommand(text);
    if (command?.kind === "help") {
      rt.say(helpText());
      return { reply: "help" };
    }
    if (command?.kind === "unknown") {
      rt.say(command.failure ? `/${command.name} cannot run: ${command.failure}` : `There is no /${command.name} command. /help lists them.`);
      return { reply: "unknown_command", command: command.name };
    }
    if (command?.kind === "run") return command.fn.run(rt.withOwner(command.fn.name), input);
    // The model's code (the AI SDK, MCP clients) loads with the first turn that needs it: a worker is ready without it.
    const [{ runAgentLoop, selectModel }, { agentMcpToolbox }] = await Promise.all([import("../agent"), import("../agent/mcp")]);
    const result = await runAgentLoop(rt, { choice: selectModel(process.env, { retry: retryOf !== null }), text, history, demos: toolFunctionsOf(currentCatalogue()), mcp: agentMcpToolbox() });
    return { reply: result.reply, steps: result.steps, toolCalls: result.toolCalls };
  },
});

import { runAgentLoop, selectModel, type HistoryMessage } from "../agent";
import { defineAgentFunction } from "../runtime";
import type { AgentFunction } from "../runtime";
import {
  archiveEmails,
  bookTrip,
  countdown,
  deploy,
  orderCoffee,
  pickToppings,
  planEvening,
  quickPoll,
  renameProject,
  runTests,
  setBudget,
  twoQuestions,
  updateDocs,
  writeChangelog,
  writeReport,
} from "./demo-functions";

/**
 * The demo functions as slash commands: `/deploy` at the start of a message runs `deploy`. The
 * model gets the same table as the `start_demo` tool (workers/agent/tools.ts).
 */
export const COMMANDS: ReadonlyArray<{ name: string; fn: AgentFunction }> = [
  { name: "deploy", fn: deploy },
  { name: "coffee", fn: orderCoffee },
  { name: "pizza", fn: pickToppings },
  { name: "rename", fn: renameProject },
  { name: "archive", fn: archiveEmails },
  { name: "lunch", fn: quickPoll },
  { name: "countdown", fn: countdown },
  { name: "approvals", fn: updateDocs },
  { name: "shirt", fn: twoQuestions },
  { name: "budget", fn: setBudget },
  { name: "trip", fn: bookTrip },
  { name: "evening", fn: planEvening },
  { name: "report", fn: writeReport },
  { name: "tests", fn: runTests },
  { name: "changelog", fn: writeChangelog },
];

export type ParsedCommand = { kind: "help" } | { kind: "run"; name: string; fn: AgentFunction } | { kind: "unknown"; name: string };

/**
 * A slash command at the very start of a message (`/deploy`, `/help`), or null: a word inside a
 * sentence never starts one, and neither does a path like `/usr/bin`.
 */
export function parseCommand(text: string): ParsedCommand | null {
  const m = /^\s*\/([a-z][a-z0-9-]*)(?=\s|$)/i.exec(text);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  if (name === "help") return { kind: "help" };
  const found = COMMANDS.find((c) => c.name === name || c.fn.name === name);
  return found ? { kind: "run", name: found.name, fn: found.fn } : { kind: "unknown", name };
}

export const HELP_TEXT = [
  "Talk to me in your own words: I answer, use tools (you approve the dangerous ones) and ask when something is unclear.",
  "These commands start a demo function directly, each asking you something in a different way:",
  ...COMMANDS.map((c) => `• /${c.name} — ${c.fn.description}`),
  "Answer in the card that replaces the input; every open tab sees it.",
].join("\n");

/** The chat run's input: the message, and the session's earlier messages (bounded by the server). */
export function chatInput(input: unknown): { text: string; history: HistoryMessage[] } {
  const o = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const text = typeof o.text === "string" ? o.text : "";
  const history = Array.isArray(o.history)
    ? o.history.flatMap((m): HistoryMessage[] => {
        if (typeof m !== "object" || m === null) return [];
        const { role, text } = m as Record<string, unknown>;
        return (role === "user" || role === "agent") && typeof text === "string" ? [{ role, text }] : [];
      })
    : [];
  return { text, history };
}

export const chat = defineAgentFunction({
  name: "chat",
  description: "The chat agent: a model with tools and clarifying questions; /commands start the demo functions.",
  async run(rt, input) {
    const { text, history } = chatInput(input);
    const command = parseCommand(text);
    if (command?.kind === "help") {
      rt.say(HELP_TEXT);
      return { reply: "help" };
    }
    if (command?.kind === "unknown") {
      rt.say(`There is no /${command.name} command. /help lists them.`);
      return { reply: "unknown_command", command: command.name };
    }
    if (command?.kind === "run") return command.fn.run(rt.withOwner(command.fn.name), input);
    const result = await runAgentLoop(rt, { choice: selectModel(), text, history, demos: COMMANDS });
    return { reply: result.reply, steps: result.steps, toolCalls: result.toolCalls };
  },
});

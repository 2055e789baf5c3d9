import { defineAgentFunction } from "../runtime";
import type { AgentFunction } from "../runtime";
import {
  archiveEmails,
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

/** Words in a chat message that start each demo function: the first trigger with a word in the message wins. */
const TRIGGERS: Array<{ words: string[]; fn: AgentFunction }> = [
  { words: ["deploy", "release", "ship"], fn: deploy },
  { words: ["coffee", "drink", "tea"], fn: orderCoffee },
  { words: ["pizza", "topping", "toppings"], fn: pickToppings },
  { words: ["rename", "name"], fn: renameProject },
  { words: ["archive", "email", "emails", "inbox"], fn: archiveEmails },
  { words: ["lunch", "poll"], fn: quickPoll },
  { words: ["launch", "countdown", "code"], fn: countdown },
  // Before "two": "ask for two approvals" is this demo.
  { words: ["approvals", "approval", "approve", "permissions"], fn: updateDocs },
  { words: ["shirt", "two", "both"], fn: twoQuestions },
  { words: ["budget", "money"], fn: setBudget },
  { words: ["evening", "plan"], fn: planEvening },
  { words: ["report", "research"], fn: writeReport },
  { words: ["shell", "tests", "test"], fn: runTests },
  // After "report": "write a report" stays the report.
  { words: ["write", "changelog"], fn: writeChangelog },
];

export function pickDemoFunction(text: string) {
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  return TRIGGERS.find((t) => t.words.some((w) => words.has(w)))?.fn ?? null;
}

export const HELP_TEXT = [
  "I'm Parley's offline demo agent. Each of these asks you something in a different way:",
  ...TRIGGERS.map((t) => `• "${t.words[0]}" — ${t.fn.description}`),
  "Answer in the card that replaces the input; every open tab sees it. Tools (shell, write, approvals) ask for approval: allow once, allow always, or reject with feedback.",
].join("\n");

export const chat = defineAgentFunction({
  name: "chat",
  description: "The demo chat agent: replies to a message, starting the demo function it names.",
  async run(rt, input) {
    const text = typeof input === "object" && input !== null && "text" in input ? String(input.text) : "";
    const fn = pickDemoFunction(text);
    if (!fn) {
      rt.say(HELP_TEXT);
      return { reply: "help" };
    }
    return fn.run(rt.withOwner(fn.name), input);
  },
});

import { APICallError } from "@ai-sdk/provider";
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { OFFLINE_HINT } from "./model-settings";

/**
 * The offline scripted model: a deterministic LanguageModelV3 that needs no key and no network.
 * It reads the prompt as a real model would (the last user message, the tool results since) and
 * follows a small script: it greets, says what it can do, asks `clarify` when a request is
 * ambiguous ("order a coffee" without a size), and calls tools ("run the tests" → shell,
 * "write the changelog" → write_file, "read README.md" → read_file), several in one turn when asked,
 * calls any offered tool by name ("call mcp__deployer__deploy with {\"service\":\"api\"}"),
 * and starts a demo function when a sentence clearly asks for one ("deploy the app" → start_demo
 * deploy, "plan my evening" → start_demo evening), then says what it returned.
 * Its text streams in small chunks. Its own replies (a greeting, what it can do, what it cannot)
 * end with one line on how to connect a real model.
 *
 * "simulate a provider error" makes the call fail as a real provider's would (an HTTP 503
 * APICallError whose body holds a fake key), so the error path is testable offline; the same
 * message sent again (a Retry: the earlier one is in the context) goes through.
 */

type Call = { toolName: string; input: Record<string, unknown> };
type Decision = { text: string; calls: Call[] };

const CHANGELOG = "# Changelog\n\n## 0.2.0\n\n- A model-driven chat with tools and clarifying questions.\n";
const SIZES = ["small", "medium", "large"];

export const CAPABILITIES = [
  "I'm Parley's offline scripted assistant (no model server needed). I can:",
  "• run the tests (the `shell` tool: you approve it first)",
  "• write the changelog (the `write_file` tool, approved too)",
  '• read a file, e.g. "read README.md"',
  "• order a coffee: I'll ask which size if you don't say",
  "Slash commands start the demo functions directly: type /help to list them.",
  "",
  OFFLINE_HINT,
].join("\n");

function lastUserIndex(prompt: LanguageModelV3Prompt): number {
  for (let i = prompt.length - 1; i >= 0; i--) if (prompt[i]!.role === "user") return i;
  return -1;
}

function textOf(message: LanguageModelV3Prompt[number] | undefined): string {
  if (!message || message.role === "system") return message?.content ?? "";
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** Tool results since the last user message, by tool name, as text. */
function resultsSince(prompt: LanguageModelV3Prompt, from: number): Array<{ toolName: string; text: string }> {
  const out: Array<{ toolName: string; text: string }> = [];
  for (const m of prompt.slice(from + 1)) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result") continue;
      const o = part.output;
      const text = o.type === "text" || o.type === "error-text" ? o.value : o.type === "json" || o.type === "error-json" ? JSON.stringify(o.value) : "";
      out.push({ toolName: part.toolName, text });
    }
  }
  return out;
}

const has = (text: string, re: RegExp) => re.test(text);

export const FAIL_PHRASE = /\bsimulate an? provider error\b/i;
/** The fake key the simulated error's body holds: it must never reach a message, a log line or a response. */
export const SIMULATED_KEY = "sk-scripted-FAKE0123456789abcdef";

/** The provider-style error the script answers "simulate a provider error" with, the first time it is asked (a Retry of the turn goes through). */
export function simulatedFailure(prompt: LanguageModelV3Prompt): APICallError | null {
  const at = lastUserIndex(prompt);
  if (!FAIL_PHRASE.test(textOf(prompt[at]))) return null;
  // Asked before in this session (a Retry): this time the call goes through.
  if (prompt.slice(0, at).some((m) => m.role === "user" && FAIL_PHRASE.test(textOf(m)))) return null;
  return new APICallError({
    message: `Service Unavailable (simulated; request made with key ${SIMULATED_KEY})`,
    url: "http://scripted.invalid/v1/chat/completions",
    requestBodyValues: { headers: { Authorization: `Bearer ${SIMULATED_KEY}` } },
    statusCode: 503,
    responseBody: JSON.stringify({ error: { message: `The scripted provider is down (key ${SIMULATED_KEY}).` } }),
    isRetryable: true,
  });
}

/**
 * Sentences that clearly ask for a demo function (`start_demo`), by its slash-command name; also
 * "start the <name> demo". A word alone ("I want to rename my code name") starts nothing.
 */
const DEMO_PHRASES: ReadonlyArray<[string, RegExp]> = [
  ["deploy", /\bdeploy (?:the|my|our) (?:demo )?(?:app|site|service|project)\b|\bdeploy (?:it )?to (?:production|staging|preview)\b/],
  ["evening", /\bplan (?:my|our|the|an?|this) evening\b/],
  ["pizza", /\b(?:order|pick|choose) (?:a |some |the )?pizza\b|\bpizza toppings\b/],
  ["rename", /\brename (?:the|my|our) project\b/],
  ["archive", /\barchive (?:my|the|our) (?:old )?e-?mails\b/],
  ["lunch", /\blunch poll\b|\bpoll (?:for|about) lunch\b/],
  ["countdown", /\bstart a countdown\b/],
  ["shirt", /\b(?:order|buy|pick) (?:me )?a (?:t-)?shirt\b/],
  ["budget", /\bset (?:a|the|my) budget\b/],
  ["report", /\bwrite (?:a|the) report\b/],
];

/** The demo names `start_demo` accepts, read from its offered schema as a real model would. */
function demoNames(tools: LanguageModelV3CallOptions["tools"]): string[] {
  const t = tools?.find((x) => x.name === "start_demo");
  const schema = t && "inputSchema" in t ? (t.inputSchema as { properties?: { name?: { enum?: unknown } } }) : undefined;
  const names = schema?.properties?.name?.enum;
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === "string") : [];
}

function demosAsked(request: string, demos: string[]): string[] {
  const named = [...request.matchAll(/\b(?:start|run|launch|try|show me)\s+the\s+([a-z-]+)\s+demo\b/g)].map((m) => m[1]!);
  const phrased = DEMO_PHRASES.filter(([, re]) => re.test(request)).map(([name]) => name);
  return [...new Set([...named, ...phrased])].filter((n) => demos.includes(n));
}

/** "call <tool> with {json}": any offered tool by its name (an MCP server's, say), with that input. */
function callAsked(original: string): Call | null {
  const m = /\bcall ([A-Za-z][A-Za-z0-9_.-]*) with (\{.*\})\s*$/s.exec(original);
  if (!m) return null;
  try {
    const input: unknown = JSON.parse(m[2]!);
    return typeof input === "object" && input !== null && !Array.isArray(input) ? { toolName: m[1]!, input: input as Record<string, unknown> } : null;
  } catch {
    return null;
  }
}

/** The tool calls a request asks for, in order. */
function plan(original: string, offered: Set<string>, demos: string[] = []): Call[] {
  const request = original.toLowerCase();
  const calls: Call[] = [];
  const asked = offered.has("start_demo") ? demosAsked(request, demos) : [];
  for (const name of asked) calls.push({ toolName: "start_demo", input: { name } });
  if (asked.length > 0 && /\bdemo\b/.test(request)) return calls.filter((c) => offered.has(c.toolName));
  const named = callAsked(original);
  if (named) calls.push(named);
  if (has(request, /\b(run|start)\b.*\btests?\b|\btest suite\b|\bnpm test\b/)) calls.push({ toolName: "shell", input: { command: "npm test" } });
  if (has(request, /\bchangelog\b/) && has(request, /\b(write|update)\b/)) calls.push({ toolName: "write_file", input: { path: "docs/changelog.md", content: CHANGELOG } });
  const read = original.match(/\bread\s+(?:the\s+)?([\w./-]+\.\w+)/i);
  if (read) calls.push({ toolName: "read_file", input: { path: read[1] } });
  if (has(request, /\bcoffee\b/) && !SIZES.some((s) => request.includes(s))) {
    calls.push({ toolName: "clarify", input: { question: "What size should the coffee be?", options: ["Small", "Medium", "Large"], multi: false, allowFreeText: false } });
  }
  return calls.filter((c) => offered.has(c.toolName));
}

function summary(toolName: string, text: string): string {
  const refused = /^(the user declined|no answer within|the user rejected|denied|no answer in)/i.test(text) || /rejected|denied/i.test(text.slice(0, 80));
  switch (toolName) {
    case "shell": {
      if (refused) return `I did not run the tests: ${text}`;
      const exit = /"exitCode":(-?\d+|null)/.exec(text)?.[1];
      return exit === "0" ? "The tests ran: all passed. ✅" : `The tests ran and failed (exit code ${exit ?? "unknown"}):\n${text.slice(0, 500)}`;
    }
    case "write_file":
      return refused ? `I left the changelog as it was: ${text}` : /"written":true/.test(text) ? "I wrote docs/changelog.md with a 0.2.0 section. 📝" : `I could not write the changelog: ${text}`;
    case "read_file": {
      if (refused) return `I could not read the file: ${text}`;
      try {
        const read = JSON.parse(text) as { path?: string; content?: string };
        if (typeof read.content === "string") return `Here is ${read.path ?? "the file"}:\n\n${read.content.slice(0, 1_500)}`;
      } catch {
        // Not a result: the tool's failure, as text.
      }
      return `I could not read the file: ${text}`;
    }
    case "clarify":
      if (/^the user declined/i.test(text)) return `OK, no coffee then (${text}).`;
      if (/^no answer within/i.test(text)) return `I'll hold the coffee order: ${text}.`;
      return `Ordering a ${text.toLowerCase()} coffee (simulated). ☕`;
    case "start_demo":
      return text;
    default:
      return `${toolName}: ${text}`;
  }
}

/** What the script says and calls given the prompt so far. */
export function decide(prompt: LanguageModelV3Prompt, offered: Set<string>, demos: string[] = []): Decision {
  const at = lastUserIndex(prompt);
  const original = textOf(prompt[at]).trim();
  const request = original.toLowerCase();
  const done = resultsSince(prompt, at);
  if (done.length > 0) {
    const next = plan(original, offered, demos)[done.length];
    const lines = done.map((d) => summary(d.toolName, d.text));
    // A refused step ends the plan: the script does not push on after a "no".
    const refusedLast = /declined|rejected|denied|no answer/i.test(done.at(-1)!.text.slice(0, 120));
    if (next && !refusedLast) return { text: "", calls: [next] };
    return { text: lines.join("\n"), calls: [] };
  }
  const calls = plan(original, offered, demos);
  if (calls.length > 0) {
    const first = calls[0]!;
    const lead =
      first.toolName === "clarify"
        ? ""
        : first.toolName === "start_demo"
          ? `Starting the ${String(first.input.name)} demo.`
          : first.toolName === "shell"
            ? "I'll run the tests."
            : first.toolName === "write_file"
              ? "I'll write the changelog."
              : first.toolName === "read_file"
                ? "Let me read that."
                : `Calling ${first.toolName}.`;
    return { text: lead, calls: [first] };
  }
  if (has(request, /\bcoffee\b/)) {
    const size = SIZES.find((s) => request.includes(s))!;
    return { text: `Ordering a ${size} coffee (simulated). ☕`, calls: [] };
  }
  if (FAIL_PHRASE.test(original)) return { text: "The provider is back: this retry went through. ✅", calls: [] };
  if (has(request, /what can you do|\bhelp\b|what do you do/)) return { text: CAPABILITIES, calls: [] };
  if (has(request, /^(hi|hello|hey|good (morning|afternoon|evening))\b/)) {
    return { text: `Hello! I'm Parley's offline demo agent. Ask me what I can do, or type /help for the demo commands.\n\n${OFFLINE_HINT}`, calls: [] };
  }
  return {
    text: `I'm the offline scripted model, so I only follow a small script. Ask "what can you do?", or type /help for the demo commands.\n\n${OFFLINE_HINT}`,
    calls: [],
  };
}

/** Text in chunks of a few characters, split after spaces where possible. */
export function chunk(text: string, size = 6): string[] {
  return text.match(new RegExp(`[^]{1,${size}}`, "g")) ?? [];
}

export interface ScriptedModelOptions {
  /** Pause between streamed chunks (ms); 0 in tests. */
  chunkDelayMs?: number;
  /** Called for every model call (tests count them). */
  onCall?: (options: LanguageModelV3CallOptions) => void;
  /** The turn is a Retry of a failed one: a simulated provider error has passed. */
  retry?: boolean;
}

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

export function createScriptedModel({ chunkDelayMs = 0, onCall, retry = false }: ScriptedModelOptions = {}): LanguageModelV3 {
  let callCount = 0;
  const run = (options: LanguageModelV3CallOptions) => {
    onCall?.(options);
    const failure = retry ? null : simulatedFailure(options.prompt);
    if (failure) throw failure;
    const offered = new Set((options.tools ?? []).map((t) => t.name));
    const d = decide(options.prompt, offered, demoNames(options.tools));
    const n = ++callCount;
    return { ...d, ids: d.calls.map((_, i) => `call-${n}-${i}`) };
  };
  return {
    specificationVersion: "v3",
    provider: "parley-scripted",
    modelId: "scripted",
    supportedUrls: {},
    async doGenerate(options) {
      const d = run(options);
      const content: LanguageModelV3Content[] = [];
      if (d.text) content.push({ type: "text", text: d.text });
      d.calls.forEach((c, i) => content.push({ type: "tool-call", toolCallId: d.ids[i]!, toolName: c.toolName, input: JSON.stringify(c.input) }));
      return { content, finishReason: { unified: d.calls.length ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
    async doStream(options) {
      const d = run(options);
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (d.text) {
        parts.push({ type: "text-start", id: "t" });
        for (const delta of chunk(d.text)) parts.push({ type: "text-delta", id: "t", delta });
        parts.push({ type: "text-end", id: "t" });
      }
      d.calls.forEach((c, i) => parts.push({ type: "tool-call", toolCallId: d.ids[i]!, toolName: c.toolName, input: JSON.stringify(c.input) }));
      parts.push({ type: "finish", finishReason: { unified: d.calls.length ? "tool-calls" : "stop", raw: undefined }, usage });
      const signal = options.abortSignal;
      let i = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          if (signal?.aborted) return controller.error(signal.reason instanceof Error ? signal.reason : new DOMException("Aborted", "AbortError"));
          if (i >= parts.length) return controller.close();
          const part = parts[i++]!;
          if (chunkDelayMs > 0 && part.type === "text-delta") await new Promise((r) => setTimeout(r, chunkDelayMs));
          controller.enqueue(part);
        },
      });
      return { stream };
    },
  };
}

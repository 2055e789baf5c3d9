/**
 * How long the permission rules take to decide one tool call, for the worst rule sets a session
 * can hold (MAX_SESSION_RULES rules filling MAX_SESSION_RULE_STATES with the most expensive
 * patterns there are), against the floor measured in the same run: reading the subject once per
 * rule. Every rule is tested (none matches), as a call that falls through to the default does.
 *
 *   npm run bench:rules [-- --samples 300]
 */
import { parseArgs } from "node:util";
import { decide } from "../lib/server/permissions/rule-decide";
import { MAX_SESSION_RULE_STATES, matchGlob, matchingGlobs, patternCost } from "../lib/server/permissions/rule-match";
import { MAX_SESSION_RULES } from "../lib/server/permissions/permission-service";
import { machine, row } from "./bench-kit";

const { values } = parseArgs({ options: { samples: { type: "string", default: "300" } } });
const samples = Number(values.samples);

/** The longest pattern of this shape that keeps `count` of them within the session's state budget. */
function fill(count: number, shape: (n: number, i: number) => string): string[] {
  let n = 1;
  while (patternCost(shape(n + 1, 0)) * count <= MAX_SESSION_RULE_STATES && n < 200) n++;
  return Array.from({ length: count }, (_, i) => shape(n, i));
}

type Kind = "path" | "text";
const scenarios: Array<{ label: string; kind: Kind; patterns: string[]; subject: string }> = [
  {
    label: `${MAX_SESSION_RULES} path rules **/*a*a…*b, a 1,000-char path`,
    kind: "path",
    patterns: fill(MAX_SESSION_RULES, (n, i) => `**/${"*a".repeat(n)}*b${i}`),
    subject: `${"a/".repeat(499)}a`,
  },
  {
    label: `16 path rules of 256 states, a 1,000-char path`,
    kind: "path",
    patterns: fill(16, (n, i) => `{a,b}/**/${"*a".repeat(n)}*b${i}`),
    subject: `a/${"a".repeat(998)}`,
  },
  {
    label: `${MAX_SESSION_RULES} command rules *a*a…*b, a 10,000-char command`,
    kind: "text",
    patterns: Array.from({ length: MAX_SESSION_RULES }, (_, i) => `${"*a".repeat(95)}*b${i}`),
    subject: "a".repeat(10_000),
  },
];

/** Each rule on its own (`matchGlob`): what the set replaces, for comparison. */
function eachRule(patterns: string[], subject: string, kind: Kind): number {
  let matched = 0;
  for (const pattern of patterns) if (matchGlob(pattern, subject, { kind })) matched++;
  return matched;
}

/** The rules together (`matchingGlobs`), as a call's decision reads them. */
const together = (patterns: string[], subject: string, kind: Kind) => matchingGlobs(patterns, subject, { kind }).length;

/** The floor: every rule reads the subject once (a character at a time), and nothing else. */
function readOncePerRule(patterns: string[], subject: string): number {
  let sum = 0;
  for (let r = 0; r < patterns.length; r++) for (let i = 0; i < subject.length; i++) sum += subject.charCodeAt(i);
  return sum;
}

function time(fn: () => unknown): number[] {
  for (let i = 0; i < 20; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out;
}

console.log(`Permission rules: one tool call's decision, ${samples} samples each — ${machine()}`);
for (const s of scenarios) {
  const states = s.patterns.reduce((n, p) => n + patternCost(p), 0);
  if (eachRule(s.patterns, s.subject, s.kind) !== 0 || together(s.patterns, s.subject, s.kind) !== 0) throw new Error(`${s.label}: a rule matched`);
  const floor = time(() => readOncePerRule(s.patterns, s.subject));
  const each = time(() => eachRule(s.patterns, s.subject, s.kind));
  const all = time(() => together(s.patterns, s.subject, s.kind));
  console.log(`\n${s.label} (${s.patterns.length} rules, ${states} states)`);
  console.log(row("floor: read the subject once per rule", floor));
  console.log(row("each rule on its own", each, floor));
  console.log(row("the rules together (what a call does)", all, floor));
  if (s.kind === "text") {
    // A command's deny rules are also read against each of its simple commands (rule-decide.ts): the whole decision.
    const rules = s.patterns.map((pattern) => ({ tool: "shell", pattern, decision: "deny" as const }));
    const call = { tool: "shell", subject: s.subject, subjectKind: "command" as const, cwd: "." };
    const decided = time(() => decide(rules, call, true));
    console.log(row("decide(): the rules, each simple command too", decided, floor));
  }
}

import type { Run, RunStarter } from "../protocol/entities";
import type { Question } from "../protocol/question";
import { cardMode } from "../protocol/team-card";

/** Whom a run (or the session) waits for: the viewer (a question of theirs to answer), only other people, or nobody. */
export type WaitingOn = "you" | "others" | false;

/** Each waiting run's: "you" when one of its pending questions is the viewer's to answer, else "others". */
export function waitingOn(pending: Question[], me: string | null): Map<string, Exclude<WaitingOn, false>> {
  const runs = new Map<string, Exclude<WaitingOn, false>>();
  for (const q of pending) if (runs.get(q.runId) !== "you") runs.set(q.runId, cardMode(q, me) === "answer" ? "you" : "others");
  return runs;
}

/** The session's: "you" when any pending question is the viewer's, "others" when all wait for other people. */
export const sessionWaitingOn = (runs: ReadonlyMap<string, Exclude<WaitingOn, false>>): WaitingOn => (runs.size === 0 ? false : [...runs.values()].includes("you") ? "you" : "others");

/** What a run's line in the transcript says: "Order coffee is working · Brewing", "Deploy finished". */
export function runLineText(run: Run, { waiting, name }: { waiting: WaitingOn; name: string }): string {
  const forWhom = waiting === "others" ? "is waiting for an answer" : "is waiting for your answer";
  switch (run.status) {
    case "running":
      if (waiting) return `${name} ${forWhom}`;
      return run.progress ? `${name} is working · ${run.progress}` : `${name} is working…`;
    case "waiting_input":
      return `${name} ${forWhom}`;
    case "succeeded":
      return `${name} finished`;
    case "failed":
      return `${name} failed${run.error ? `: ${run.error}` : ""}`;
    case "cancelled":
      return `${name} was stopped`;
  }
}

/** "4 s", "2 min 5 s", "1 h 3 min". */
export function formatElapsed(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * The line that introduces a run started from outside the chat, as the server knows it: "Interview
 * was started by Ann through the REST API with the server token" (`by`: the starter's display name,
 * null for a run older than that was kept), and what the client said it was as its own word
 * ("(the CLI, as it says)"): any client may say it.
 */
export function startedByText(starter: RunStarter, name: string, by: string | null = null): string {
  const where = `through the REST API${starter.clientSays === "cli" ? " (the CLI, as it says)" : ""}`;
  const how =
    starter.via === "api_token"
      ? starter.tokenName
        ? `with the API token “${starter.tokenName}”`
        : "with an API token"
      : starter.via === "server_token"
        ? "with the server token"
        : "from a signed-in browser";
  const forWhom = by === null ? "" : ` for ${by}`;
  if (starter.surface === "mcp") return `${starter.mcpClient ? `“${starter.mcpClient}”` : "An MCP client"} asked${forWhom} through MCP ${how}`;
  return `${name} was started${by === null ? "" : ` by ${by}`} ${where} ${how}`;
}

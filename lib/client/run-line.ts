import type { Run, RunStarter } from "../protocol/entities";

/** What a run's line in the transcript says: "Order coffee is working · Brewing", "Deploy finished". */
export function runLineText(run: Run, { waiting, name }: { waiting: boolean; name: string }): string {
  switch (run.status) {
    case "running":
      if (waiting) return `${name} is waiting for your answer`;
      return run.progress ? `${name} is working · ${run.progress}` : `${name} is working…`;
    case "waiting_input":
      return `${name} is waiting for your answer`;
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
 * was started through the REST API with the server token", and what the client said it was as its
 * own word ("(the CLI, as it says)"): any client may say it.
 */
export function startedByText(starter: RunStarter, name: string): string {
  const where = `through the REST API${starter.clientSays === "cli" ? " (the CLI, as it says)" : ""}`;
  const how =
    starter.via === "api_token"
      ? starter.tokenName
        ? `with the API token “${starter.tokenName}”`
        : "with an API token"
      : starter.via === "server_token"
        ? "with the server token"
        : "from a signed-in browser";
  if (starter.surface === "mcp") return `${starter.mcpClient ? `“${starter.mcpClient}”` : "An MCP client"} asked through MCP ${how}`;
  return `${name} was started ${where} ${how}`;
}

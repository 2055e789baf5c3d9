import { loadMcpServers } from "./servers-file";
import { McpToolbox } from "./toolbox";

export { McpToolbox, type McpListing, type McpTool } from "./toolbox";
export { modelTextOf, type McpCallResult } from "./result";
export { isMcpToolName, mcpToolName, MCP_TOOL_PREFIX } from "./tool-names";

let shared: McpToolbox | null | undefined;

/**
 * This worker process's MCP servers (PARLEY_MCP_SERVERS), opened lazily and shared by its runs;
 * null when none are configured, or when the file cannot be read any more (logged: the server
 * checked it at start-up, so it changed since).
 */
export function agentMcpToolbox(env: Record<string, string | undefined> = process.env): McpToolbox | null {
  if (shared !== undefined) return shared;
  try {
    const servers = loadMcpServers(env.PARLEY_MCP_SERVERS);
    shared = Object.keys(servers).length > 0 ? new McpToolbox(servers) : null;
  } catch (err) {
    console.error(`The agent uses no MCP servers: ${err instanceof Error ? err.message : String(err)}`);
    shared = null;
  }
  return shared;
}

/** Closes this process's MCP connections (stdio servers end with them). */
export async function closeAgentMcp(): Promise<void> {
  const toolbox = shared;
  shared = undefined;
  await toolbox?.close();
}

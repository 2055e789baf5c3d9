import type { createMcpEndpoint, McpEndpoint } from "./mcp-endpoint";

/**
 * Parley's MCP endpoint, loaded with the MCP SDK on its first request: start-up does not wait for
 * the SDK (a third of a second of loading here), and a server nobody asks over MCP never loads it.
 */
export function lazyMcpEndpoint(options: Parameters<typeof createMcpEndpoint>[0]): Pick<McpEndpoint, "handle" | "close" | "openSessions"> {
  let loading: Promise<McpEndpoint> | null = null;
  let loaded: McpEndpoint | null = null;
  const endpoint = () => (loading ??= import("./mcp-endpoint").then(({ createMcpEndpoint }) => (loaded = createMcpEndpoint(options))));
  return {
    handle: async (req, caller) => (await endpoint()).handle(req, caller),
    get openSessions() {
      return loaded?.openSessions ?? 0;
    },
    close: async () => {
      if (loading) await (await loading).close();
    },
  };
}

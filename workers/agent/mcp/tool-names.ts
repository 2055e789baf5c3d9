/** What every MCP tool's name starts with: rules name such a tool `mcp__<server>__<tool>`. */
export const MCP_TOOL_PREFIX = "mcp__";
const MAX_NAME = 64;

/**
 * The name the model and the permission rules know an MCP server's tool by: `mcp__<server>__<tool>`,
 * the tool's name reduced to letters, digits, `_` and `-` (what model providers accept in a
 * function name, and within Parley's tool names) and clipped to 64 characters.
 */
export function mcpToolName(server: string, tool: string): string {
  const plain = tool.replace(/[^A-Za-z0-9_-]/g, "_") || "tool";
  return `${MCP_TOOL_PREFIX}${server}__${plain}`.slice(0, MAX_NAME);
}

export const isMcpToolName = (name: string): boolean => name.startsWith(MCP_TOOL_PREFIX);

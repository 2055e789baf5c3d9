import { readFileSync } from "node:fs";
import path from "node:path";
import { isStdioServer, parseMcpServersFile, type McpServers } from "../../../lib/protocol/mcp-servers";

/**
 * Reads the file PARLEY_MCP_SERVERS names (relative to the working directory, the project root for
 * the server; the server hands its workers the absolute path). Unset: no servers. A missing or invalid file throws an Error naming
 * the file and the problem: the server checks it at start-up, so a worker finds it valid.
 */
export function loadMcpServers(name: string | undefined): McpServers {
  if (name === undefined || name.trim() === "") return {};
  const file = path.resolve(name);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`Cannot read the MCP servers file ${file} (PARLEY_MCP_SERVERS): ${(err as Error).message}`, { cause: err });
  }
  const servers = parseMcpServersFile(text, file);
  // A stdio server's cwd is the file's business: it is read from the file's folder.
  for (const server of Object.values(servers)) if (isStdioServer(server) && server.cwd) server.cwd = path.resolve(path.dirname(file), server.cwd);
  return servers;
}
